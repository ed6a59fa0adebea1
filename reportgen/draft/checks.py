"""The three checks a drafted record must pass, in this order: its vocabulary is declared,
its quote is found on its page by the verifier's anchor rule (exact and the normalised
methods; fuzzy similarity never makes a hit), its values stand in its quote."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportgen.model import Document

STAGES = ("vocabulary", "anchor", "values", "ledger")
SNAKE = re.compile(r"[a-z][a-z0-9_]*\Z")
VALUE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass
class Record:
    """One record the model emitted, and what became of it."""

    kind: str  # entity | relation | fact
    n: int  # 1-based, in the order the model emitted its kind
    data: dict[str, Any]
    stage: str = ""  # the check that rejected it; "" while it stands
    reason: str = ""

    @property
    def kept(self) -> bool:
        return not self.stage

    def reject(self, stage: str, reason: str) -> None:
        self.stage, self.reason = stage, reason


@dataclass
class Vocab:
    """What the ledger declares: entity types, relations (name -> (from types, to types,
    qualifiers)) and the type of every known entity name (normalised)."""

    types: frozenset[str] | None  # None: no schema.yaml, anything goes
    relations: Mapping[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] | None
    known: dict[str, str | None] = field(default_factory=dict)  # name -> type

    @classmethod
    def of_ledger(cls, root: Path, documents: Iterable[str]) -> Vocab:
        from reportgen.graph.names import norm
        from reportgen.graph.vocab import load_vocabulary

        voc = load_vocabulary(root, set(documents))
        s = voc.schema
        out = cls(frozenset(s.entity_types) if s else None,
                  {r.name: (r.source, r.target, r.qualifiers) for r in s.relations.values()}
                  if s else None)
        for d in voc.entities:
            for n in (d.id, d.name, *d.aliases):
                out.known[norm(n)] = d.type
        return out

    def prompt(self) -> dict[str, Any]:
        """The vocabulary as the model reads it."""
        if self.relations is None:
            return {"entity_types": sorted(self.types or ()), "relations": "any snake_case name"}
        return {"entity_types": sorted(self.types or ()),
                "relations": {k: {"from": list(a), "to": list(b), "qualifiers": list(q)}
                              for k, (a, b, q) in sorted(self.relations.items())}}


def check_vocabulary(records: Sequence[Record], vocab: Vocab) -> None:
    """Undeclared entity types, relations, endpoint types and qualifiers are rejected."""
    from reportgen.errors import did_you_mean
    from reportgen.graph.names import norm

    types = dict(vocab.known)
    for r in records:
        if r.kind != "entity":
            continue
        t = r.data.get("type")
        if vocab.types is not None and t not in vocab.types:
            r.reject("vocabulary", f"entity type {t!r} is not declared"
                                   f"{did_you_mean(str(t), sorted(vocab.types))}")
            continue
        for n in (r.data["name"], *r.data.get("aliases", ())):
            types.setdefault(norm(n), t)
    for r in records:
        if r.kind != "relation" or not r.kept:
            continue
        rel = r.data["relation"]
        names = sorted(r.data.get("values") or {})
        if vocab.relations is None:
            if not SNAKE.match(rel):
                r.reject("vocabulary", f"relation {rel!r} is not a snake_case name")
            continue
        if rel not in vocab.relations:
            r.reject("vocabulary", f"relation {rel!r} is not declared in schema.yaml"
                                   f"{did_you_mean(rel, sorted(vocab.relations))}")
            continue
        src, dst, quals = vocab.relations[rel]
        for end, allowed in (("from", src), ("to", dst)):
            t = types.get(norm(r.data[end]))
            if t is not None and allowed and t not in allowed:
                r.reject("vocabulary", f"{rel}: `{end}` {r.data[end]!r} is a {t}, not "
                                       f"{' or '.join(allowed)}")
                break
        else:
            extra = [q for q in names if q not in quals]
            if extra:
                r.reject("vocabulary", f"{rel} declares no qualifier {', '.join(extra)} "
                                       f"(it has: {', '.join(quals) or 'none'})")


def check_anchors(records: Sequence[Record], doc: Document, pages: int, root: Path) -> None:
    """Each quote through the verifier, as a fact on its page: a miss is rejected with the
    verifier's own message (where the quote does occur, or the closest text)."""
    from reportgen.errors import DocumentError, LedgerErrors
    from reportgen.model import Fact, Ledger, Loc
    from reportgen.verify.run import verify_ledger

    facts: dict[str, Fact] = {}
    owner: dict[str, Record] = {}
    for r in records:
        if r.kind == "entity" or not r.kept:
            continue
        page, quote = r.data["page"], r.data["quote"]
        if not 1 <= page <= pages:
            r.reject("anchor", f"page {page} is not a page of {doc.id} (1-{pages})")
            continue
        if not quote.strip():
            r.reject("anchor", "the quote is empty")
            continue
        cid = f"{r.kind}-{r.n}"
        facts[cid] = Fact(cid, "", "", None, None, Loc("draft", 0), doc.id, page, quote)
        owner[cid] = r
    if not facts:
        return
    ledger = Ledger(root, root, (), {doc.id: doc}, dict(facts))
    results: Mapping[str, Any] = {}
    try:
        v = verify_ledger(ledger)
        problems, results = list(v.problems), v.results
    except LedgerErrors as e:
        problems = list(e.problems)
    bad = [p for p in problems if isinstance(p, DocumentError)]
    if bad:  # the PDF cannot be read: nothing can be checked against it
        raise bad[0]
    for cid, r in owner.items():
        res = results.get(cid)
        if res is None:
            r.reject("anchor", "; ".join(p.message for p in problems) or "not checked")
        elif res.status != "hit":
            r.reject("anchor", f"p.{facts[cid].page}: {res.message}")


def check_values(records: Sequence[Record]) -> None:
    """Every value is a number that stands in its quote (ledger.md section 3)."""
    from reportgen.calcs import exact
    from reportgen.ledger.validate import decimals_in

    for r in records:
        if r.kind == "entity" or not r.kept:
            continue
        values = r.data.get("values") or {}
        found = set(decimals_in(r.data["quote"]))
        for name, v in values.items():
            if not VALUE_NAME.match(name) or isinstance(v, bool) \
                    or not isinstance(v, (int, float)):
                r.reject("values", f"value {name}={v!r} is not a named number")
                break
            if exact(v) not in found:
                r.reject("values", f"value {name}={v!r} does not stand in the quote")
                break
