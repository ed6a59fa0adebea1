"""Text blocks of a PDF in reading order, for the evidence index (`reportgen index`).

A block is what PyMuPDF's text extraction calls a block: a run of lines that MuPDF groups
together (a paragraph, a table cell, a heading). Each carries its lines with their boxes,
so a table row can later be put back together from the lines that share a baseline.

Reading order is the order of the content stream (`sort=False`). Sorting by position
(`sort=True`) interleaves the two columns of a two-column page line by line; the stream
order of the producers we meet (Word, LaTeX, WPS, reportlab) reads a column as one run,
which is what the anchor rule expects too (spec section 5).
"""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.model import BBox
# The margin bands and (in page_blocks) the text flags are the verifier's own, so index
# and verify read a page the same way.
from reportgen.pdf.text import MARGIN_SHARE


@dataclass(frozen=True)
class Line:
    bbox: BBox
    text: str


@dataclass(frozen=True)
class Block:
    doc: str
    page: int  # 1-based physical page index
    seq: int  # reading order within the document, from 0
    bbox: BBox
    lines: tuple[Line, ...]
    text: str = ""  # the lines joined by newlines; filled in when not given
    band: str = ""  # "top" / "bottom" when the block lies wholly in that page margin

    def __post_init__(self) -> None:
        if not self.text:
            object.__setattr__(self, "text", "\n".join(ln.text for ln in self.lines))


def page_blocks(page, doc_id: str, pno: int, start_seq: int = 0) -> list[Block]:
    """The text blocks of one PyMuPDF page (1-based `pno`), in content-stream order."""
    from reportgen.pdf.textlayer import FLAGS

    d = page.get_text("dict", flags=FLAGS, sort=False)
    height = d.get("height") or page.rect.height
    top, bottom = height * MARGIN_SHARE, height * (1 - MARGIN_SHARE)
    out: list[Block] = []
    seq = start_seq
    for b in d["blocks"]:
        if b.get("type", 0) != 0:
            continue
        lines = []
        for ln in b["lines"]:
            spans = ln["spans"]
            text = spans[0]["text"] if len(spans) == 1 else "".join(s["text"] for s in spans)
            if not text.strip():
                continue
            x0, y0, x1, y1 = ln["bbox"]
            lines.append(Line((round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2)), text))
        if not lines:
            continue
        x0, y0, x1, y1 = b["bbox"]
        band = "top" if y1 <= top else "bottom" if y0 >= bottom else ""
        out.append(Block(doc_id, pno, seq, (round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2)),
                         tuple(lines), "\n".join(ln.text for ln in lines), band))
        seq += 1
    return out
