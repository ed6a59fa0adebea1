"""Retrieval quality on the sample corpus: Hit@3 and context coverage, per channel and fused.

    .venv/bin/python bench/retrieval/evaluate.py [--db PATH] [--embedder MODULE:NAME] [-v]

Reads `questions.yaml` (hand-labelled core pages), checks every label against the PDFs'
text first (a label whose `check` text is not on its page stops the run), indexes
samples/pdfs/*.pdf into a temporary store (or uses `--db`), and ranks each question by
every channel alone and by the RRF fusion of all of them.

- Hit@3: share of questions with a core page among the pages of the top 3 results.
- Coverage@5 (context coverage): mean share of a question's core pages found among the
  pages of the top 5 results, i.e. how much of the needed evidence a five-chunk context
  would hold.
- MRR@10: mean reciprocal rank of the first result on a core page.

Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from reportgen.index import build, finder, store  # noqa: E402
from reportgen.index.fusion import rrf  # noqa: E402


def load_questions(path: Path = HERE / "questions.yaml") -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]


def check_labels(questions: list[dict], pdf_dir: Path) -> list[str]:
    """Problems with the labels: a core page that does not hold the question's check text."""
    import pymupdf

    texts: dict[str, str] = {}
    for pdf in sorted(pdf_dir.glob("*.pdf")):
        with pymupdf.open(pdf) as d:
            for i, p in enumerate(d):
                texts[f"{pdf.stem}:{i + 1}"] = re.sub(r"\s+", "", p.get_text())
    out = []
    for q in questions:
        c = re.sub(r"\s+", "", str(q["check"]))
        for p in q["pages"]:
            if c not in texts.get(p, ""):
                out.append(f"{q['id']}: {p} does not hold {q['check']!r}")
    return out


def evaluate(db: Path, questions: list[dict], embedder=None, k_hit: int = 3, k_cov: int = 5,
             verbose: bool = False) -> dict[str, dict[str, float]]:
    con = store.open_for_read(db, extensions=embedder is not None)
    where = {i: f"{d}:{p}" for i, d, p in con.execute("SELECT id, doc, page FROM chunks")}
    names: list[str] = []
    sums: dict[str, dict[str, float]] = {}
    for q in questions:
        ranks = finder.rankings(con, q["query"], q.get("doc"), embedder)
        systems = dict(ranks)
        systems["fused (RRF)"] = [f.id for f in rrf(ranks)]
        gold = set(q["pages"])
        for name, ids in systems.items():
            if name not in sums:
                names.append(name)
                sums[name] = {"hit": 0.0, "cov": 0.0, "mrr": 0.0}
            pages = [where[i] for i in ids]
            s = sums[name]
            s["hit"] += bool(gold & set(pages[:k_hit]))
            s["cov"] += len(gold & set(pages[:k_cov])) / len(gold)
            first = next((n for n, p in enumerate(pages[:10], start=1) if p in gold), None)
            s["mrr"] += 1 / first if first else 0.0
            if verbose and name == "fused (RRF)" and not gold & set(pages[:k_hit]):
                print(f"miss {q['id']} {q['query']!r}: top {pages[:k_hit]}, want {sorted(gold)}",
                      file=sys.stderr)
    con.close()
    n = len(questions)
    return {name: {m: v / n for m, v in sums[name].items()} for name in names}


def table(results: dict[str, dict[str, float]], n: int) -> str:
    lines = [f"| channel ({n} questions) | Hit@3 | Coverage@5 | MRR@10 |", "|---|---:|---:|---:|"]
    for name, r in results.items():
        lines.append(f"| {name} | {r['hit']:.2f} | {r['cov']:.2f} | {r['mrr']:.2f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, help="use this index instead of building one")
    ap.add_argument("--pdfs", type=Path, default=ROOT / "samples" / "pdfs")
    ap.add_argument("--embedder", help="MODULE:NAME of an embedder for the vector channel")
    ap.add_argument("-v", "--verbose", action="store_true", help="list fused misses")
    a = ap.parse_args()
    questions = load_questions()
    problems = check_labels(questions, a.pdfs)
    if problems:
        sys.exit("labels do not hold:\n" + "\n".join(problems))
    embedder = None
    if a.embedder:
        from reportgen.cli.index import _load_embedder

        embedder = _load_embedder(a.embedder)
    with tempfile.TemporaryDirectory() as tmp:
        db = a.db
        if db is None:
            db = Path(tmp) / "sample.sqlite"
            build.index_paths(sorted(a.pdfs.glob("*.pdf")), db, embedder=embedder)
        print(table(evaluate(db, questions, embedder, verbose=a.verbose), len(questions)))


if __name__ == "__main__":
    main()
