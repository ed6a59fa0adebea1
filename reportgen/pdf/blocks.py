"""Text blocks of a PDF in reading order, for the evidence index (`reportgen index`).

A block is what PyMuPDF's text extraction calls a block: a run of lines that MuPDF groups
together (a paragraph, a table cell, a heading). Each carries its lines with their boxes,
so a table row can later be put back together from the lines that share a baseline.

Reading order is the order of the content stream (`sort=False`). Sorting by position
(`sort=True`) interleaves the two columns of a two-column page line by line; the stream
order of the producers we meet (Word, LaTeX, WPS, reportlab) reads a column as one run,
which is what the anchor rule expects too (spec section 5).

The lines are read from MuPDF's word list (its block and line numbers, boxes of the words'
union), not from its `dict`: the same lines with the same text once whitespace is
collapsed, at a third of the cost, which is most of what indexing a page costs. Margin
bands, page numbers and running heads are the verifier's own (`reportgen.pdf.text`).
"""

from __future__ import annotations

from itertools import chain, groupby
from operator import itemgetter
from typing import NamedTuple

from reportgen.model import BBox, union
from reportgen.pdf.text import Band, edge_bands, is_folio, margin_bands


class Line(NamedTuple):
    """One text line with its box (a tuple: a page holds hundreds and indexing builds them
    for every page)."""

    bbox: BBox
    text: str
    band: Band = ""  # "top" / "bottom" when the line is in that page margin
    folio: bool = False  # in a margin band and reads as a page number


class _BlockRow(NamedTuple):
    doc: str
    page: int  # 1-based physical page index
    seq: int  # reading order within the document, from 0
    bbox: BBox
    lines: tuple[Line, ...]
    text: str  # the lines joined by newlines
    band: str  # "top" / "bottom" when every line lies in that page margin


class Block(_BlockRow):
    """A text block: MuPDF's block of lines, with its place in the document's reading order."""

    __slots__ = ()

    def __new__(cls, doc: str, page: int, seq: int, bbox: BBox, lines: tuple[Line, ...],
                text: str = "", band: str = "") -> Block:
        if not text:
            text = "\n".join(ln.text for ln in lines)
        if not band and lines:
            bands = {ln.band for ln in lines}
            band = bands.pop() if len(bands) == 1 else ""
        return super().__new__(cls, doc, page, seq, bbox, tuple(lines), text, band)


def _rotate(m: tuple[float, ...], bb: tuple[float, float, float, float]) -> BBox:
    """A box through the page's rotation matrix, so boxes are on the page as displayed."""
    a, b, c, d, e, f = m
    xs = [a * x + c * y + e for x, y in ((bb[0], bb[1]), (bb[2], bb[3]))]
    ys = [b * x + d * y + f for x, y in ((bb[0], bb[1]), (bb[2], bb[3]))]
    return (min(xs), min(ys), max(xs), max(ys))


def page_lines(page) -> list[tuple[int, BBox, str]]:
    """(MuPDF block number, box, text) of each text line of a PyMuPDF page, content-stream
    order, boxes on the displayed page; words joined by one space. Line boxes are stored
    as 32-bit floats and read back rounded to 0.01 pt; block boxes are rounded here."""
    from reportgen.pdf.textlayer import FLAGS

    words = page.get_text("words", flags=FLAGS, sort=False)
    m = tuple(page.rotation_matrix) if page.rotation % 360 else None
    out: list[tuple[int, BBox, str]] = []
    for (bno, _), line in groupby(words, key=itemgetter(5, 6)):  # (block, line) numbers
        ws = list(line)
        if len(ws) == 1:  # most lines of Chinese text are one "word"
            w = ws[0]
            out.append((bno, (w[0], w[1], w[2], w[3]), w[4]))
        else:
            out.append((bno, union([w[:4] for w in ws]), " ".join([w[4] for w in ws])))
    if m:
        return [(bno, _rotate(m, bb), t) for bno, bb, t in out]
    return out


def _horizontal(box: BBox) -> bool:
    """A line set across the page, not up it (a word list carries no writing direction):
    a line of several characters taller than it is wide runs up the page."""
    return not (box[3] - box[1] > 2 * (box[2] - box[0]) and box[3] - box[1] > 20)


def page_blocks(page, doc_id: str, pno: int, start_seq: int = 0) -> list[Block]:
    """The text blocks of one PyMuPDF page (1-based `pno`), in content-stream order, each
    line with its margin band and page-number flag as the verifier reads them."""
    raw = page_lines(page)
    if not raw:
        return []
    height = page.rect.height
    bands = margin_bands([bb for _, bb, _ in raw], height)
    for k, band in edge_bands([(bb, t, _horizontal(bb), bands[k])
                               for k, (_, bb, t) in enumerate(raw)], height).items():
        bands[k] = band
    out: list[Block] = []
    new = tuple.__new__  # the fields are complete here: no defaults to fill in
    seq = start_seq
    cur = None
    lines: list[Line] = []
    texts: list[str] = []
    band0: Band = ""
    same = True
    x0 = y0 = x1 = y1 = 0.0
    # a last row with no block closes the page's last block in the one place blocks close
    for (bno, bb, t), band in chain(zip(raw, bands), [((None, None, None), None)]):
        if bno != cur:
            if lines:
                out.append(new(Block, (doc_id, pno, seq, (round(x0, 2), round(y0, 2),
                                                          round(x1, 2), round(y1, 2)),
                                       tuple(lines), "\n".join(texts), band0 if same else "")))
                seq += 1
            if bno is None:
                break
            lines, texts, cur, band0, same = [], [], bno, band, True
            x0, y0, x1, y1 = bb
        else:
            if band != band0:
                same = False
            if bb[0] < x0:
                x0 = bb[0]
            if bb[1] < y0:
                y0 = bb[1]
            if bb[2] > x1:
                x1 = bb[2]
            if bb[3] > y1:
                y1 = bb[3]
        lines.append(new(Line, (bb, t, band, bool(band) and is_folio(t))))
        texts.append(t)
    return out
