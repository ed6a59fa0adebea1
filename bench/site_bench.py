"""Benchmark of `reportgen build` against the PyMuPDF floor and a pdfplumber workflow.

    .venv/bin/python bench/site_bench.py [--runs 5] [--ledger claims]
    .venv/bin/python bench/site_bench.py --scale [--corpus DIR] [--runs 3]

Default mode, medians of --runs fresh processes, interleaved:
  (a) cold `reportgen build LEDGER --out TMP` (empty crop cache)
  (b) the floor: only the PyMuPDF work the ledger needs (open the PDFs, words with boxes for
      the named pages, find each quote, union the boxes, clip-render and write the crops)
  (c) what a user would do with pdfplumber (extract the named pages, search, crop with
      page.crop(bbox).to_image(resolution=144))
  (d) a no-op rebuild (warm crop cache)
Targets: (a) <= 1.5 x (b); (c) / (a) >= 10; (d) <= 0.5 x (a).

If LEDGER (default claims/) does not verify yet, a sample-like ledger is generated in a
temporary folder (3 PDFs x 120 pages, 29 facts) and used instead; the table says which.

--scale: a generated corpus of 50 PDFs x 230 pages with 1,000 facts on 800 pages (written
outside the repository, reused with --corpus DIR); cold build time against pages touched
(200/400/800), --jobs 2 against --jobs 1, and peak RSS of the build process tree.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable

WORDS = ("revenue storage inverter supplier purchase module cell capacity contract customer "
         "segment margin cost battery grid project order backlog subsidiary overseas domestic "
         "shipment warranty provision inventory receivable payable dividend share equity").split()


# ---- corpus generation --------------------------------------------------------------


def _line(rng: random.Random) -> str:
    ws = [rng.choice(WORDS) for _ in range(rng.randint(7, 11))]
    ws.insert(rng.randint(1, len(ws) - 1), f"{rng.randint(1, 99999):,}.{rng.randint(0, 99):02d}")
    return " ".join(ws).capitalize() + "."


def make_pdf(path: Path, n_pages: int, seed: str) -> list[list[str]]:
    """A text PDF, 38 lines a page; -> the lines of every page."""
    import pymupdf

    rng = random.Random(seed)
    doc = pymupdf.open()
    pages = []
    for p in range(n_pages):
        lines = [f"{seed} page {p + 1}"] + [_line(rng) for _ in range(37)]
        page = doc.new_page(width=595, height=842)
        page.insert_text((56, 60), lines, fontsize=10, lineheight=1.8)
        pages.append(lines)
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return pages


def make_corpus(root: Path, n_docs: int, n_pages: int, n_facts: int, n_fact_pages: int,
                seed: int = 7) -> Path:
    """root/docs/*.pdf and root/claims/ (documents.yaml + one report per 100 facts)."""
    rng = random.Random(seed)
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "claims").mkdir(exist_ok=True)
    texts = {}
    for d in range(n_docs):
        did = f"doc{d:02d}"
        texts[did] = make_pdf(root / "docs" / f"{did}.pdf", n_pages, f"{did}")
    all_pages = [(did, p) for did in sorted(texts) for p in range(1, n_pages + 1)]
    fact_pages = sorted(rng.sample(all_pages, n_fact_pages))
    facts = []
    for i in range(n_facts):
        did, p = fact_pages[i % n_fact_pages]
        line = texts[did][p - 1][1 + (i // n_fact_pages) % 37]
        facts.append((f"f{i:04d}", did, p, line))
    with open(root / "claims" / "documents.yaml", "w") as f:
        f.write("documents:\n")
        for did in sorted(texts):
            f.write(f"  {did}:\n    file: ../docs/{did}.pdf\n    title: Generated report {did}\n")
    per = 100
    for r in range(0, n_facts, per):
        rid = f"R{r // per + 1:02d}"
        with open(root / "claims" / f"{rid.lower()}.yaml", "w") as f:
            f.write(f"report:\n  id: {rid}\n  title: Generated report {rid}\n"
                    f"  summary: |\n    Generated [@{facts[r][0]}].\nclaims:\n")
            for fid, did, p, line in facts[r:r + per]:
                f.write(f"  - id: {fid}\n    kind: fact\n    statement: Line {fid}.\n"
                        f"    doc: {did}\n    page: {p}\n    quote: {json.dumps(line)}\n")
    return root / "claims"


def fact_tasks(ledger: Path) -> list[dict]:
    """(pdf, page, quote) of every fact, from the verified ledger, for the floor and pdfplumber."""
    sys.path.insert(0, str(REPO))
    from reportgen.model import Fact
    from reportgen.verify.run import verify

    v = verify([ledger])
    assert v.ok, "the benchmark ledger must verify"
    out = []
    for c in v.ledger.claims.values():
        if isinstance(c, Fact):
            r = v.results[c.id]
            out.append({"id": c.id, "pdf": str(v.ledger.documents[c.doc].path), "page": c.page,
                        "page_end": r.anchor.page_end, "quote": c.quote})
    return out


# ---- the two comparison scripts (run as fresh processes) ----------------------------

FLOOR = r'''
import json, sys, re
import pymupdf
tasks = json.load(open(sys.argv[1])); out = sys.argv[2]
docs = {}
for t in tasks:
    doc = docs.get(t["pdf"]) or docs.setdefault(t["pdf"], pymupdf.open(t["pdf"]))
    q = re.sub(r"\s+", "", t["quote"])
    words = []
    for pno in range(t["page"], t["page_end"] + 1):
        words += [(pno, w) for w in doc[pno - 1].get_text("words")]
    joined, owner = [], []
    for i, (pno, w) in enumerate(words):
        s = re.sub(r"\s+", "", w[4]); joined.append(s); owner += [i] * len(s)
    text = "".join(joined)
    at = text.find(q)
    assert at >= 0, t["id"]
    hit = sorted(set(owner[at:at + len(q)]))
    for pno in sorted({words[i][0] for i in hit}):
        bs = [words[i][1] for i in hit if words[i][0] == pno]
        r = pymupdf.Rect(min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs))
        page = doc[pno - 1]
        clip = pymupdf.Rect(r.x0 - 10, r.y0 - 20, r.x1 + 10, r.y1 + 20) & page.rect
        page.get_pixmap(matrix=pymupdf.Matrix(2, 2), clip=clip).save(f"{out}/{t['id']}-{pno}.png")
'''

PLUMBER = r'''
import json, sys, re
import pdfplumber
tasks = json.load(open(sys.argv[1])); out = sys.argv[2]
pdfs = {}
for t in tasks:
    pdf = pdfs.get(t["pdf"]) or pdfs.setdefault(t["pdf"], pdfplumber.open(t["pdf"]))
    q = re.sub(r"\s+", "", t["quote"])
    chars = []
    for pno in range(t["page"], t["page_end"] + 1):
        chars += [(pno, c) for c in pdf.pages[pno - 1].chars if not c["text"].isspace()]
    text = "".join(c["text"] for _, c in chars)
    at = text.find(q)
    assert at >= 0, t["id"]
    hit = chars[at:at + len(q)]
    for pno in sorted({p for p, _ in hit}):
        cs = [c for p, c in hit if p == pno]
        page = pdf.pages[pno - 1]
        bbox = (max(0, min(c["x0"] for c in cs) - 10), max(0, min(c["top"] for c in cs) - 20),
                min(page.width, max(c["x1"] for c in cs) + 10), min(page.height, max(c["bottom"] for c in cs) + 20))
        page.crop(bbox).to_image(resolution=144).save(f"{out}/{t['id']}-{pno}.png")
'''


# ---- timing ---------------------------------------------------------------------------


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, int]:
    """Wall time of a fresh process and the peak RSS (KiB) of its process tree."""
    wrapper = ("import resource, subprocess, sys, time, json\n"
               "t = time.perf_counter(); r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
               "dt = time.perf_counter() - t\n"
               "print(json.dumps([r.returncode, dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))\n")
    p = subprocess.run([PY, "-c", wrapper, *cmd], capture_output=True, text=True, env=env)
    rc, dt, rss = json.loads(p.stdout)
    if rc != 0:
        raise SystemExit(f"failed ({rc}): {' '.join(cmd)}\n{p.stderr}")
    return dt, rss


def build_cmd(ledger: Path, out: Path, jobs: int = 1) -> list[str]:
    return [PY, "-m", "reportgen", "build", str(ledger), "--out", str(out), "--jobs", str(jobs)]


def cold(ledger: Path, out: Path, jobs: int = 1) -> tuple[float, int]:
    shutil.rmtree(out.parent / ".reportgen", ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    return timed(build_cmd(ledger, out, jobs))


def ensure_ledger(args, work: Path) -> tuple[Path, str]:
    sys.path.insert(0, str(REPO))
    ledger = Path(args.ledger).resolve()
    try:
        from reportgen.verify.run import verify

        if any(ledger.glob("*.y*ml")) and verify([ledger]).ok:
            return ledger, f"{ledger} (the sample)"
    except Exception as e:  # noqa: BLE001 - any failure means: not usable yet
        print(f"note: {ledger} does not verify yet ({str(e).splitlines()[0][:100]})")
    gen = make_corpus(work / "gen", n_docs=3, n_pages=120, n_facts=29, n_fact_pages=24)
    return gen, "generated sample-like ledger: 3 PDFs x 120 pages, 29 facts on 24 pages"


def main_default(args) -> None:
    work = Path(tempfile.mkdtemp(prefix="reportgen-bench-"))
    try:
        ledger, what = ensure_ledger(args, work)
        tasks = fact_tasks(ledger)
        tfile = work / "tasks.json"
        tfile.write_text(json.dumps(tasks))
        (work / "floor.py").write_text(FLOOR)
        (work / "plumber.py").write_text(PLUMBER)
        out = work / "site" / "site"
        out.parent.mkdir()
        res: dict[str, list[float]] = {"a": [], "b": [], "c": [], "d": [], "v": []}
        for i in range(args.runs):
            res["a"].append(cold(ledger, out)[0])
            res["d"].append(timed(build_cmd(ledger, out))[0])
            res["v"].append(timed([PY, "-m", "reportgen", "verify", str(ledger)])[0])
            fo = work / f"floor-{i}"
            fo.mkdir()
            res["b"].append(timed([PY, str(work / "floor.py"), str(tfile), str(fo)])[0])
            if i < args.plumber_runs:
                po = work / f"plumber-{i}"
                po.mkdir()
                res["c"].append(timed([PY, str(work / "plumber.py"), str(tfile), str(po)])[0])
        med = {k: statistics.median(v) for k, v in res.items() if v}
        print(f"ledger: {what}; {len(tasks)} facts; medians of {args.runs} runs "
              f"(pdfplumber: {min(args.runs, args.plumber_runs)})")
        rows = [("a", "cold reportgen build (fresh process, empty cache)"),
                ("b", "floor: PyMuPDF only (open, words, find, union, clip-render, write)"),
                ("c", "pdfplumber: chars, search, crop().to_image(resolution=144)"),
                ("d", "no-op rebuild (warm crop cache)"),
                ("v", "for reference: `reportgen verify` alone (no site)")]
        print(f"{'':3}{'what':70}{'median s':>10}")
        for k, label in rows:
            print(f"({k}) {label:70}{med[k]:>9.3f}")
        print()
        checks = [("(a)/(b)", med["a"] / med["b"], "<= 1.5", med["a"] / med["b"] <= 1.5),
                  ("(c)/(a)", med["c"] / med["a"], ">= 10", med["c"] / med["a"] >= 10),
                  ("(d)/(a)", med["d"] / med["a"], "<= 0.5", med["d"] / med["a"] <= 0.5)]
        for name, val, target, ok in checks:
            print(f"{name:8} {val:7.2f}   target {target:7} {'met' if ok else 'NOT met'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main_scale(args) -> None:
    base = Path(args.corpus) if args.corpus else Path(tempfile.gettempdir()) / "reportgen-scale-corpus"
    if REPO in base.resolve().parents:
        raise SystemExit("put the scale corpus outside the repository")
    marker = base / "ready"
    if not marker.exists():
        t = time.perf_counter()
        shutil.rmtree(base, ignore_errors=True)
        make_corpus(base, n_docs=50, n_pages=230, n_facts=1000, n_fact_pages=800)
        marker.write_text("50x230, 1000 facts on 800 pages\n")
        print(f"generated corpus in {time.perf_counter() - t:.1f} s at {base}")
    # sub-ledgers: the facts on the first K fact pages
    sys.path.insert(0, str(REPO))
    import re

    full = base / "claims"
    facts_by_page: dict[tuple[str, int], list[str]] = {}
    blocks: list[tuple[str, str, tuple[str, int]]] = []
    for f in sorted(full.glob("r*.yaml")):
        text = f.read_text()
        for m in re.finditer(r"  - id: (\S+)\n(?:    .*\n)*", text):
            b = m.group(0)
            did = re.search(r"doc: (\S+)", b).group(1)
            page = int(re.search(r"page: (\d+)", b).group(1))
            blocks.append((m.group(1), b, (did, page)))
            facts_by_page.setdefault((did, page), []).append(m.group(1))
    pages_sorted = sorted(facts_by_page)
    print(f"corpus: 50 PDFs x 230 pages = 11,500 pages; {len(blocks)} facts on "
          f"{len(pages_sorted)} pages; medians of {args.runs} cold runs")
    print(f"{'pages':>6} {'facts':>6} {'jobs':>5} {'cold s':>8} {'warm s':>8} {'peak RSS MiB':>13}")
    results = {}
    for k in (200, 400, 800):
        keep = set(pages_sorted[:k])
        led = base / f"claims-{k}"
        shutil.rmtree(led, ignore_errors=True)
        led.mkdir()
        shutil.copy(full / "documents.yaml", led / "documents.yaml")
        sel = [b for b in blocks if b[2] in keep]
        with open(led / "r.yaml", "w") as f:
            f.write(f"report:\n  id: P{k}\n  title: Facts on {k} pages\n  summary: Scale.\nclaims:\n")
            for _, b, _ in sel:
                f.write(b)
        for jobs in ((1, 2) if k == 800 else (1,)):
            out = base / f"out-{k}-{jobs}" / "site"
            out.parent.mkdir(exist_ok=True)
            cs, rs = [], []
            for _ in range(args.runs):
                dt, rss = cold(led, out, jobs)
                cs.append(dt)
                rs.append(rss)
            warm = statistics.median(timed(build_cmd(led, out, jobs))[0] for _ in range(args.runs))
            results[(k, jobs)] = statistics.median(cs)
            print(f"{k:>6} {len(sel):>6} {jobs:>5} {statistics.median(cs):>8.2f} {warm:>8.2f} "
                  f"{max(rs) / 1024:>13.0f}")
    print(f"--jobs 2 speed-up on 800 pages: {results[(800, 1)] / results[(800, 2)]:.2f}x "
          f"({os.cpu_count()} CPUs)")


def precompile() -> None:
    """Write reportgen's .pyc files first, as `pip install` does: the floor and pdfplumber
    run from installed packages that have theirs, and with PYTHONDONTWRITEBYTECODE set (as
    in some sandboxes) a fresh checkout would otherwise compile ~30 modules on every run."""
    import compileall

    compileall.compile_dir(str(REPO / "reportgen"), quiet=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--plumber-runs", type=int, default=5)
    ap.add_argument("--ledger", default=str(REPO / "claims"))
    ap.add_argument("--scale", action="store_true")
    ap.add_argument("--corpus", help="folder for the scale corpus (kept between runs)")
    ap.add_argument("--no-precompile", action="store_true",
                    help="time reportgen as checked out (no .pyc written first)")
    args = ap.parse_args()
    if not args.no_precompile:
        precompile()
    if args.scale:
        main_scale(args)
    else:
        main_default(args)


if __name__ == "__main__":
    main()
