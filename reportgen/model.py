"""The ledger and its verdicts as frozen values; stdlib only, so every layer can share them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Union

from reportgen.errors import ReportgenError

# x0, y0, x1, y1 in PDF points, origin top-left, on the page as displayed (after /Rotate).
BBox = tuple[float, float, float, float]


def union(boxes: Iterable[BBox]) -> BBox:
    """The smallest box holding every box given (at least one)."""
    x0, y0, x1, y1 = zip(*boxes)  # columns, so min and max run in C
    return (min(x0), min(y0), max(x1), max(y1))

Kind = Literal["fact", "calc", "inference"]


@dataclass(frozen=True)
class Loc:
    """Where a value stands in a claim file (1-based line)."""

    file: str
    line: int


@dataclass(frozen=True)
class Document:
    id: str
    path: Path  # resolved absolute path
    title: str
    sha256: str | None  # the pin, lower-case hex, or None
    loc: Loc
    declared: Path | None = None  # `file:` joined to its claim file's folder, symlinks kept


@dataclass(frozen=True)
class _ClaimBase:
    id: str
    report: str
    statement: str
    confidence: float | None
    note: str | None
    loc: Loc


@dataclass(frozen=True)
class Fact(_ClaimBase):
    doc: str
    page: int  # 1-based physical page index
    quote: str
    values: tuple[tuple[str, float], ...] = ()
    kind: Literal["fact"] = "fact"
    value_texts: tuple[str, ...] = ()  # each value as written ("2.870"), for exact checks
    draft: bool = False  # drafted by a model, not yet reviewed (`draft: true`)
    page_line: int = 0  # the line of `page:`, where a page out of range is reported (0: loc)

    def __post_init__(self) -> None:
        if len(self.value_texts) != len(self.values):  # built in code: the floats' own forms
            object.__setattr__(self, "value_texts", tuple(repr(v) for _, v in self.values))

    @property
    def basis(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True)
class Calc(_ClaimBase):
    basis: tuple[str, ...]
    formula: str
    result: float
    result_text: str  # the result as written, for the default tolerance
    tolerance: float | None
    kind: Literal["calc"] = "calc"
    tolerance_text: str | None = None  # the tolerance as written, compared exactly
    draft: bool = False


@dataclass(frozen=True)
class Inference(_ClaimBase):
    basis: tuple[str, ...]
    kind: Literal["inference"] = "inference"
    draft: bool = False


Claim = Union[Fact, Calc, Inference]


@dataclass(frozen=True)
class Edge:
    report: str
    source: str  # `from` in the file
    relation: str
    target: str  # `to` in the file
    anchors: tuple[str, ...]
    gap: str | None
    valid_from: str | None
    valid_to: str | None
    loc: Loc
    draft: bool = False


@dataclass(frozen=True)
class Entity:
    name: str
    type: str | None
    aliases: tuple[str, ...]
    loc: Loc


@dataclass(frozen=True)
class Section:
    title: str
    body: str
    claims: tuple[str, ...]


@dataclass(frozen=True)
class Report:
    id: str
    title: str
    summary: str
    sections: tuple[Section, ...]
    claims: tuple[str, ...]  # claim ids in file order
    edges: tuple[Edge, ...]
    entities: tuple[Entity, ...]
    loc: Loc


@dataclass(frozen=True)
class Ledger:
    root: Path  # the ledger folder (or the folder of a single report file)
    workspace: Path
    reports: tuple[Report, ...]
    documents: dict[str, Document]
    claims: dict[str, Claim]  # ledger order: report files in path order, then file order
    sources: tuple[Path, ...] = ()  # the claim files read


# ---- verdicts -------------------------------------------------------------------------


@dataclass(frozen=True)
class Anchor:
    """Where a quote stands: the box on the first page, and highlight rects on every page."""

    page: int
    page_end: int
    bbox: BBox  # union of the matched characters on `page`
    method: str  # exact | space | nfkc | hyphenation | quotes, +columns or +rows for the order
    # one (page, bbox) per matched line, in reading order, across page and page_end
    rects: tuple[tuple[int, BBox], ...] = ()

    def page_boxes(self) -> dict[int, BBox]:
        """Union box of the match on each page it touches, for one crop per page."""
        out: dict[int, list[float]] = {}
        for pno, (x0, y0, x1, y1) in self.rects:
            b = out.get(pno)
            if b is None:
                out[pno] = [x0, y0, x1, y1]
            else:
                b[0], b[1], b[2], b[3] = min(b[0], x0), min(b[1], y0), max(b[2], x1), max(b[3], y1)
        return {p: (b[0], b[1], b[2], b[3]) for p, b in sorted(out.items())}


@dataclass(frozen=True)
class FactResult:
    id: str
    status: Literal["hit", "miss"]
    anchor: Anchor | None
    sha256: str | None
    message: str = ""


@dataclass(frozen=True)
class CalcResult:
    id: str
    status: Literal["ok", "mismatch"]
    computed: float | None
    result: float
    tolerance: float
    message: str = ""


@dataclass(frozen=True)
class InferenceResult:
    id: str
    status: Literal["valid", "invalid"]
    message: str = ""


Result = Union[FactResult, CalcResult, InferenceResult]


@dataclass(frozen=True)
class ReportCount:
    report: str
    facts: int
    hits: int
    misses: int
    calcs: int
    mismatches: int


@dataclass(frozen=True)
class Verification:
    ledger: Ledger
    results: dict[str, Result]  # claim id -> verdict, ledger order
    verified_at: str  # ISO 8601 UTC; honours SOURCE_DATE_EPOCH
    sha256: dict[str, str] = field(default_factory=dict)  # doc id -> actual SHA-256
    # ledger errors found on the way (sorted by file and line); the claims they concern
    # have no verdict, every other claim has one
    problems: tuple[ReportgenError, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems and all(r.status in ("hit", "ok", "valid")
                                         for r in self.results.values())

    def counts(self) -> list[ReportCount]:
        out = []
        for rep in self.ledger.reports:
            rs = [self.results[c] for c in rep.claims if c in self.results]
            facts = [r for r in rs if isinstance(r, FactResult)]
            calcs = [r for r in rs if isinstance(r, CalcResult)]
            out.append(ReportCount(
                rep.id, len(facts), sum(r.status == "hit" for r in facts),
                sum(r.status == "miss" for r in facts), len(calcs),
                sum(r.status == "mismatch" for r in calcs)))
        return out
