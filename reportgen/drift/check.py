"""Evidence drift: a new edition of a document arrives; which claims citing it still hold,
which moved page, and which no longer stand, with the calcs and inferences above them
recomputed.

Every fact citing the document is anchored on the new file by the verifier's own rule
(reportgen.verify.fact): `holds` when it hits on its page, `moved` when it hits on another
page (the one nearest its old page), `changed` when it hits nowhere; a changed fact gets the
closest text near its page with the similarity and the first differing character, as a
miss hint does (reportgen.pdf.hints). Then the whole ledger is verified with the document
switched to the new file and moved facts on their new pages, so each calc and inference
resting on the document is recomputed from the same verdicts `reportgen verify` would give.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reportgen.errors import LedgerError, ReportgenError
from reportgen.model import Calc, Fact, Ledger, Loc, Verification

NEAR = 3  # a changed fact's closest text is looked for this many pages either side

_PAGE = re.compile(r"^p\.(\d+)")


@dataclass(frozen=True)
class FactDrift:
    """One fact on the new file."""

    id: str
    status: Literal["holds", "moved", "changed"]
    page: int  # as the ledger has it
    new_page: int | None  # where it stands now (None when changed)
    message: str  # for a changed fact: the closest text and the first difference
    loc: Loc

    @property
    def line(self) -> str:
        if self.status == "holds":
            return f"{self.id} holds p.{self.page}"
        if self.status == "moved":
            return f"{self.id} moved p.{self.page} -> p.{self.new_page}"
        return f"{self.id} changed p.{self.page}: {self.message}"


@dataclass(frozen=True)
class AboveDrift:
    """A calc or inference resting (directly or not) on a fact of the document."""

    id: str
    kind: str
    status: str  # ok | mismatch | valid | invalid, recomputed on the new file
    message: str
    changed_basis: tuple[str, ...]  # facts under it that changed

    @property
    def line(self) -> str:
        text = f"{self.id} {self.kind} {self.status}"
        if self.message:
            text += f": {self.message}"
        if self.changed_basis and self.kind == "calc":
            text += f" (rests on changed {', '.join(self.changed_basis)})"
        return text


@dataclass(frozen=True)
class Drift:
    doc: str
    new_path: Path
    new_sha256: str
    facts: tuple[FactDrift, ...]
    above: tuple[AboveDrift, ...]
    verification: Verification  # the ledger with the document switched, pages moved

    @property
    def ok(self) -> bool:
        """Nothing changed and every calc and inference above still holds."""
        return all(f.status != "changed" for f in self.facts) and all(
            a.status in ("ok", "valid") for a in self.above)

    def lines(self) -> Iterator[str]:
        for f in self.facts:
            yield f.line
        for a in self.above:
            yield a.line
        n = {s: sum(f.status == s for f in self.facts) for s in ("holds", "moved", "changed")}
        bad = sum(a.status not in ("ok", "valid") for a in self.above)
        yield (f"DRIFT {self.doc}: facts={len(self.facts)} holds={n['holds']} "
               f"moved={n['moved']} changed={n['changed']} above={len(self.above)} "
               f"failing={bad}")


def _nearest(found: list[str], page: int) -> int | None:
    """The page nearest `page` among find_elsewhere's ("p.13", "p.11 running onto p.12")."""
    pages = [int(m.group(1)) for s in found if (m := _PAGE.match(s))]
    return min(pages, key=lambda p: (abs(p - page), p)) if pages else None


def _closest(fact: Fact, docs, doc_id: str, count: int) -> str:
    """The closest text on the pages near the fact's own, as a miss hint gives it."""
    from reportgen.pdf.hints import closest_text

    best = None
    lo, hi = max(1, fact.page - NEAR), min(count, fact.page + NEAR)
    for n in range(lo, hi + 1):
        nxt = docs.page_text(doc_id, n + 1) if n < count else None
        c = closest_text(fact.quote, docs.page_text(doc_id, n), nxt)
        if c is not None and (best is None or c.similarity > best[0].similarity):
            best = (c, n)
    if best is None:
        return f"no text near p.{min(fact.page, count)} resembles the quote"
    c, n = best
    where = f"p.{n}" if c.end_page in (0, n) else f"p.{n}\u2013{c.end_page}"
    msg = f'closest text on {where} (similarity {c.similarity:.2f}): "{c.snippet}"'
    return f"{msg} — {c.difference}" if c.difference else msg


def _fact_drift(fact: Fact, docs, doc_id: str) -> FactDrift:
    from reportgen.verify.fact import find_elsewhere, verify_fact

    count = docs.page_count(doc_id)
    if fact.page <= count:
        r = verify_fact(fact, docs)
        if r.status == "hit":
            return FactDrift(fact.id, "holds", fact.page, fact.page, "", fact.loc)
    near = _nearest(find_elsewhere(fact.quote, docs, doc_id, min(fact.page, count)), fact.page)
    if near is not None:
        return FactDrift(fact.id, "moved", fact.page, near, "", fact.loc)
    return FactDrift(fact.id, "changed", fact.page, None, _closest(fact, docs, doc_id, count),
                     fact.loc)


def _rests_on(ledger: Ledger, cid: str, facts: set[str]) -> tuple[str, ...]:
    """The facts of `facts` under claim `cid`, through its basis, in id order."""
    out, seen, stack = set(), set(), list(ledger.claims[cid].basis)
    while stack:
        b = stack.pop()
        if b in seen or b not in ledger.claims:
            continue
        seen.add(b)
        if b in facts:
            out.add(b)
        stack.extend(ledger.claims[b].basis)
    return tuple(sorted(out))


def drift(ledger: Ledger, doc_id: str, new_pdf: Path) -> Drift:
    """Anchor every fact citing `doc_id` on `new_pdf` and recompute what rests on them.

    Raises LedgerError for an unknown document, DocumentError for a new file that cannot
    serve as evidence (not a PDF, damaged, no such file)."""
    from reportgen.pdf.documents import DocumentSet
    from reportgen.verify.run import verify_ledger

    old = ledger.documents.get(doc_id)
    if old is None:
        known = ", ".join(sorted(ledger.documents)) or "none"
        raise LedgerError(f"no document {doc_id!r} in the ledger (documents: {known}); name "
                          "it by its id under `documents:`")
    new_doc = dataclasses.replace(old, path=Path(new_pdf).resolve(), sha256=None, declared=None)
    facts = [c for c in ledger.claims.values() if isinstance(c, Fact) and c.doc == doc_id]
    with DocumentSet({doc_id: new_doc}) as docs:
        sha = docs.sha256(doc_id)
        result = tuple(_fact_drift(f, docs, doc_id) for f in facts)
    moved = {f.id: f.new_page for f in result if f.status == "moved"}
    claims = {cid: dataclasses.replace(c, page=moved[cid]) if cid in moved else c
              for cid, c in ledger.claims.items()}
    switched = dataclasses.replace(ledger, claims=claims,
                                   documents={**ledger.documents, doc_id: new_doc})
    try:
        v = verify_ledger(switched)
    except ReportgenError:
        raise
    ids = {f.id for f in facts}
    changed = {f.id for f in result if f.status == "changed"}
    above = []
    for cid, c in ledger.claims.items():
        if c.kind == "fact" or not _rests_on(ledger, cid, ids):
            continue
        r = v.results[cid]
        above.append(AboveDrift(cid, c.kind, r.status, r.message,
                                _rests_on(ledger, cid, changed) if isinstance(c, Calc) else ()))
    return Drift(doc_id, new_doc.path, sha, result, tuple(above), v)
