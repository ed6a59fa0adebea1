"""`reportgen draft`: pages from the evidence index, a forced tool call per batch of
pages, the three checks, then the report file, checked once more as a whole by
`reportgen.verify` with the ledger (what the loader or the graph rules refuse, such as an
edge whose quote does not name its ends, is dropped and counted as `ledger`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reportgen.draft.checks import (STAGES, Record, Vocab, check_anchors, check_values,
                                    check_vocabulary)
from reportgen.draft.pages import BATCH_CHARS, batches, page_texts
from reportgen.errors import LedgerError, LedgerErrors, ReportgenError

if TYPE_CHECKING:
    from reportgen.llm.client import Model

MAX_ROUNDS = 4  # of the whole-file check: each round drops what the last one refused


@dataclass
class DraftResult:
    doc: str
    out: Path
    pages: tuple[int, int]
    batches: int
    records: list[Record] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        n = {"emitted": len(self.records), "kept": sum(r.kept for r in self.records)}
        for s in STAGES:
            n[s] = sum(r.stage == s for r in self.records)
        return n

    def summary(self) -> str:
        """The closing line: emitted, rejected by each check, kept, and the kept share."""
        n = self.counts()
        share = f"{100 * n['kept'] / n['emitted']:.0f}%" if n["emitted"] else "-"
        return (f"draft {self.doc} p.{self.pages[0]}-{self.pages[1]} ({self.batches} "
                f"batch{'es' if self.batches != 1 else ''}): emitted={n['emitted']} "
                f"rejected: vocabulary={n['vocabulary']} anchor={n['anchor']} "
                f"values={n['values']} ledger={n['ledger']}; kept={n['kept']} ({share} "
                "verified)")


def default_out(paths: Sequence[Path], doc: str) -> Path:
    """drafts/<DOC>.yaml beside the ledger folder (outside it: a draft joins the ledger
    only when named, `reportgen verify claims drafts/<DOC>.yaml`)."""
    first = Path(paths[0])
    folder = first.parent if first.is_file() else first
    return Path(os.path.abspath(folder)).parent / "drafts" / f"{doc}.yaml"


def draft(paths: Sequence[Path], doc: str, model: Model, *, pages: tuple[int, int] | None = None,
          out: Path | None = None, db: Path | None = None, allow_outside: bool = False,
          batch_chars: int = BATCH_CHARS) -> DraftResult:
    """Draft the records of document `doc` of the ledger at `paths` and write what passes."""
    from reportgen.index.store import default_db
    from reportgen.ledger import load_ledger
    from reportgen.llm.prompts import parse_prompt
    from reportgen.pdf.files import sha256_file

    paths = [Path(p) for p in paths]
    ledger = load_ledger(paths, allow_outside=allow_outside, cross_check=False)
    if doc not in ledger.documents:
        raise LedgerErrors([LedgerError(
            f"unknown document {doc!r}; the ledger's documents are: "
            f"{', '.join(sorted(ledger.documents)) or 'none'}")])
    d = ledger.documents[doc]
    hint = " ".join(str(p) for p in paths)
    first, last = pages or (1, 1_000_000)
    info, texts = page_texts(db or default_db(paths), doc, first, last, hint,
                             sha256_file(d.path))
    if not texts:
        raise ReportgenError(f"pages {first}-{last} are beyond document {doc!r}, which has "
                             f"{info.pages} pages")
    vocab = Vocab.of_ledger(ledger.root, ledger.documents)
    prompt = parse_prompt("draft", "v1", _prompt_text())
    groups = batches(texts, batch_chars)
    records: list[Record] = []
    count = {"entity": 0, "relation": 0, "fact": 0}
    for group in groups:
        got = model.call(prompt, {"document": {"id": doc, "title": d.title},
                                  "vocabulary": vocab.prompt(),
                                  "pages": [{"page": p, "text": t} for p, t in group]})
        for kind, key in (("entity", "entities"), ("relation", "relations"), ("fact", "facts")):
            for data in got.get(key, []):
                count[kind] += 1
                records.append(Record(kind, count[kind], data))
    check_vocabulary(records, vocab)
    check_anchors(records, d, info.pages, ledger.root)
    check_values(records)
    target = out or default_out(paths, doc)
    shown = f"{texts[0][0]}-{texts[-1][0]}"
    _write_checked(paths, target, doc, d.title, shown, records, allow_outside)
    return DraftResult(doc, target, (texts[0][0], texts[-1][0]), len(groups), records)


def _write_checked(paths: Sequence[Path], target: Path, doc: str, title: str, pages: str,
                   records: list[Record], allow_outside: bool) -> None:
    """Write the file and verify it with the ledger; drop what that refuses, rewrite."""
    from reportgen.draft.write import report_text
    from reportgen.pdf.files import write_atomic
    from reportgen.verify.run import verify

    target.parent.mkdir(parents=True, exist_ok=True)
    real = os.path.realpath(target)
    for _ in range(MAX_ROUNDS):
        text, owner = report_text(doc, title, pages, records)
        write_atomic(target.parent, [text.encode("utf-8")], lambda: target, ".yaml",
                     mode=0o644)  # a kill leaves the previous draft whole
        v = verify([*paths, target], allow_outside=allow_outside)
        if v.problems:
            ours = [p for p in v.problems if p.file and os.path.realpath(p.file) == real
                    and p.line in owner]
            if not ours:  # the ledger itself is invalid: nothing a draft can fix
                raise LedgerErrors(list(v.problems))
            for p in ours:
                owner[p.line].reject("ledger", p.message)
            continue
        missed = {cid for cid, r in v.results.items() if r.status in ("miss", "mismatch")}
        if not missed:
            return
        from reportgen.draft.write import fact_id

        for r in records:
            if r.kept and r.kind != "entity" and fact_id(doc, r) in missed:
                r.reject("anchor", v.results[fact_id(doc, r)].message)
    raise ReportgenError(f"{target}: the draft still does not verify after {MAX_ROUNDS} "
                         "rounds; this is a bug, please report it")


def _prompt_text() -> str:
    from importlib import resources

    return resources.files("reportgen.draft").joinpath("prompts", "draft.v1.md") \
        .read_text(encoding="utf-8")
