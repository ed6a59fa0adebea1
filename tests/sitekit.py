"""Fixtures for the site tests: a PDF made with PyMuPDF and a hand-made Verification
(so build_site is testable without the ledger loader), plus the same ledger as files."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import pymupdf

from reportgen.model import (Anchor, Calc, CalcResult, Document, Edge, Entity, Fact,
                             FactResult, Inference, InferenceResult, Ledger, Loc, Report,
                             Section, Verification)

XSS = '<script>alert(1)</script>'
ATTR = '" onerror="x'

LINES_P1 = [
    "Annual report 2025, chapter 3: suppliers",
    "Revenue from storage systems was 1,234.5 million yuan.",
    "The top five suppliers held 14.59% of purchases.",
]
LINES_P3 = ["Notes to the accounts", "The largest customer bought goods worth"]
LINES_P4 = ["88.8 million yuan in the year.", "Other notes follow."]


_PDF: list[bytes] = []  # make_pdf's bytes, drawn once per process


def make_pdf(path: Path) -> Path:
    """4 pages: p1 plain, p2 rotated 90 degrees, p3->p4 a quote across the page break.
    Drawn once per process and then copied: the bytes are the same every time."""
    if not _PDF:
        doc = pymupdf.open()
        p = doc.new_page(width=595, height=842)
        for i, line in enumerate(LINES_P1):
            p.insert_text((72, 100 + 18 * i), line, fontsize=11)
        p = doc.new_page(width=595, height=842)
        p.insert_text((72, 100), "Rotated page: capacity was 42 GWh.", fontsize=11)
        p.set_rotation(90)
        p = doc.new_page(width=595, height=842)
        for i, line in enumerate(LINES_P3):
            p.insert_text((72, 780 + 18 * i), line, fontsize=11)
        p = doc.new_page(width=595, height=842)
        for i, line in enumerate(LINES_P4):
            p.insert_text((72, 60 + 18 * i), line, fontsize=11)
        _PDF.append(doc.tobytes(garbage=3, deflate=True, no_new_id=True))
        doc.close()
    path.write_bytes(_PDF[0])
    return path


@functools.lru_cache(maxsize=None)
def _line_rect(data: bytes, page: int, text: str) -> tuple[float, float, float, float]:
    doc = pymupdf.open(stream=data, filetype="pdf")
    pg = doc[page - 1]
    hits = pg.search_for(text)
    assert hits, (page, text)
    r = hits[0]
    for h in hits[1:]:
        r |= h
    r = r * pg.rotation_matrix
    doc.close()
    return (round(r.x0, 2), round(r.y0, 2), round(r.x1, 2), round(r.y1, 2))


def line_rect(pdf: Path, page: int, text: str) -> tuple[float, float, float, float]:
    """The displayed box of `text` on a page (search_for gives unrotated boxes); computed
    once per PDF content, page and text."""
    return _line_rect(pdf.read_bytes(), page, text)


def sha256(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def make_verification(tmp: Path, payload: bool = True, verified_at: str = "2025-01-01T00:00:00Z"
                      ) -> Verification:
    pdf = tmp / "docs" / "report.pdf"
    pdf.parent.mkdir(parents=True, exist_ok=True)
    if not pdf.exists():
        make_pdf(pdf)
    sha = sha256(pdf)
    loc = Loc(str(tmp / "claims" / "s1.yaml"), 1)
    doc = Document("d1", pdf, "Sample annual report", None, loc)
    r1 = line_rect(pdf, 1, LINES_P1[2])
    r2 = line_rect(pdf, 2, "capacity was 42 GWh.")
    r3a = line_rect(pdf, 3, LINES_P3[1])
    r3b = line_rect(pdf, 4, LINES_P4[0])
    stmt = f"Top five suppliers held 14.59% {XSS}" if payload else "Top five suppliers held 14.59%"
    note = f"note {ATTR} {XSS}" if payload else None
    f1 = Fact("f1", "S1", stmt, 0.9, note, loc, "d1", 1, LINES_P1[2], (("share", 14.59),))
    f2 = Fact("f2", "S1", "Capacity was 42 GWh.", None, None, loc, "d1", 2,
              "capacity was 42 GWh.")
    f3 = Fact("f3", "S1", "The largest customer bought 88.8 million yuan.", None, None, loc,
              "d1", 3, "The largest customer bought goods worth 88.8 million yuan")
    c1 = Calc("c1", "S1", "Twice the share.", None, None, loc, ("f1",), "f1.share * 2", 29.18,
              "29.18", None)
    i1 = Inference("i1", "S1", "Suppliers are concentrated.", 0.7,
                   "Wrong if the table omits suppliers.", loc, ("c1", "f1"))
    edges = (
        Edge("S1", "Sungrow", "buys_from", "Supplier A", ("f1",), None, "2025-01-01", None, loc),
        Edge("S1", "Sungrow", "buys_cells_from", "供应商一", (), "The table names no company.",
             None, None, loc),
    )
    rep = Report("S1", f"Sample report {XSS}" if payload else "Sample report",
                 f"Suppliers are concentrated [@f1; @c1] and capacity is [@f2]. {XSS}",
                 (Section("Suppliers", "See [@i1].", ("f1", "c1", "i1")),
                  Section("Operations", "Two pages: [@f3]", ("f2", "f3"))),
                 ("f1", "f2", "f3", "c1", "i1"), edges,
                 (Entity("Sungrow", "company", ("阳光电源",), loc),), loc)
    ledger = Ledger(tmp / "claims", tmp, (rep,), {"d1": doc},
                    {c.id: c for c in (f1, f2, f3, c1, i1)})
    results = {
        "f1": FactResult("f1", "hit", Anchor(1, 1, r1, "exact", ((1, r1),)), sha),
        "f2": FactResult("f2", "hit", Anchor(2, 2, r2, "exact", ((2, r2),)), sha),
        "f3": FactResult("f3", "hit", Anchor(3, 4, r3a, "exact", ((3, r3a), (4, r3b))), sha),
        "c1": CalcResult("c1", "ok", 29.18, 29.18, 0.005),
        "i1": InferenceResult("i1", "valid"),
    }
    return Verification(ledger, results, verified_at, {"d1": sha})


LEDGER_YAML = """\
report:
  id: S1
  title: Sample report
  summary: |
    Suppliers are concentrated [@f1; @c1] and capacity is [@f2].
documents:
  d1:
    file: ../docs/report.pdf
    title: Sample annual report
claims:
  - id: f1
    kind: fact
    statement: Top five suppliers held 14.59%.
    doc: d1
    page: 1
    quote: "The top five suppliers held 14.59% of purchases."
    values: {share: 14.59}
  - id: f2
    kind: fact
    statement: Capacity was 42 GWh.
    doc: d1
    page: 2
    quote: "capacity was 42 GWh."
  - id: f3
    kind: fact
    statement: The largest customer bought 88.8 million yuan.
    doc: d1
    page: 3
    quote: "The largest customer bought goods worth 88.8 million yuan"
  - id: c1
    kind: calc
    statement: Twice the share.
    basis: [f1]
    formula: "f1.share * 2"
    result: 29.18
  - id: i1
    kind: inference
    statement: Suppliers are concentrated.
    basis: [c1]
    confidence: 0.7
    note: Wrong if the table omits suppliers.
edges:
  - from: Sungrow
    relation: buys_from
    to: Supplier A
    anchors: [f1]
  - from: Sungrow
    relation: buys_cells_from
    to: Supplier B
    gap: The table names no company.
"""


def make_ledger(tmp: Path, quote_f1: str | None = None) -> Path:
    """The same ledger as files: tmp/claims/s1.yaml + tmp/docs/report.pdf."""
    (tmp / "docs").mkdir(parents=True, exist_ok=True)
    if not (tmp / "docs" / "report.pdf").exists():
        make_pdf(tmp / "docs" / "report.pdf")
    (tmp / "claims").mkdir(exist_ok=True)
    text = LEDGER_YAML
    if quote_f1 is not None:
        text = text.replace("The top five suppliers held 14.59% of purchases.", quote_f1)
    (tmp / "claims" / "s1.yaml").write_text(text, encoding="utf-8")
    return tmp / "claims"



def snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}
