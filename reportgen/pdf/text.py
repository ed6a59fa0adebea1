"""A page's text layer as plain values (chars with boxes), so matching is testable without a PDF.

Stdlib only. Every box is in PDF points, origin top-left, on the page as displayed (after
/Rotate); `reportgen.pdf.textlayer` builds these values from PyMuPDF, tests build them by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import repeat
from collections.abc import Sequence
from typing import Literal, NamedTuple, Protocol

from reportgen.model import BBox, union

Band = Literal["top", "bottom", ""]

# The share of the page height at the top and bottom where running heads and folios live.
MARGIN_SHARE = 0.08

# Text a running header or footer is made of when it carries a page number: "12", "- 12 -",
# "Page 3 of 10", "iv", "第 3 页", "48495".
_FOLIO = re.compile(
    r"^[\s\-–—·|]*(?:(?:page|p\.|seite|第)\s*)?(?:\d{1,5}|[ivxlcdm]{1,7})"
    r"(?:\s*(?:of|/|de|von)\s*\d{1,5})?\s*(?:页|頁)?[\s\-–—·|]*$",
    re.IGNORECASE,
)


def is_folio(text: str) -> bool:
    """True for text that reads as a bare page number, the commonest running footer."""
    return bool(_FOLIO.match(text.strip())) and text.strip() != ""


class TextChar(NamedTuple):
    """One character of the text layer with its box and the line and block it belongs to.

    A NamedTuple rather than a frozen dataclass: pages hold thousands of these and a tuple
    is several times cheaper to build, which the build's speed depends on.
    """

    c: str
    bbox: BBox
    line: int  # index into PageText.lines (page-wide, content-stream order)
    block: int  # text block index (page-wide, content-stream order)


@dataclass(frozen=True)
class TextLine:
    """One text line as MuPDF groups it: where it stands and whether it is a running head/foot."""

    index: int
    block: int
    bbox: BBox
    text: str
    band: Band = ""  # "top"/"bottom" when the line lies wholly in that page margin
    folio: bool = False  # in a margin band and reads as a page number
    dir: tuple[float, float] = (1.0, 0.0)  # writing direction on the displayed page


@dataclass(frozen=True)
class PageText:
    """The text layer of one page; chars are in content-stream order (MuPDF's order)."""

    number: int  # 1-based
    width: float
    height: float
    chars: tuple[TextChar, ...]
    has_text_layer: bool
    lines: tuple[TextLine, ...] = ()
    # values derived from this page (reading orders, folded keys) by orders.py and
    # anchors.py: kept with the page, so they go when it leaves the DocumentSet cache
    memo: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    @property
    def text(self) -> str:
        """The characters in content-stream order, a newline between lines (for hints and debugging)."""
        out: list[str] = []
        prev = None
        for ch in self.chars:
            if prev is not None and ch.line != prev:
                out.append("\n")
            out.append(ch.c)
            prev = ch.line
        return "".join(out)

    def line_text(self, index: int) -> str:
        """The text of one line."""
        return "".join(ch.c for ch in self.chars if ch.line == index)


class MarginLine(Protocol):
    """What the running-line detector reads of a line: the verifier's `TextLine` and the
    index's `reportgen.pdf.blocks.Line` both have it."""

    text: str
    bbox: BBox
    band: Band
    folio: bool


def margin_band(box: BBox, height: float) -> Band:
    """"top"/"bottom" when a line's box lies wholly in that margin band of the page."""
    if box[3] <= height * MARGIN_SHARE:
        return "top"
    if box[1] >= height * (1 - MARGIN_SHARE):
        return "bottom"
    return ""


def margin_bands(boxes: Sequence[BBox], height: float) -> list[Band]:
    """`margin_band` of each box, in one pass (a page has hundreds of lines)."""
    top, bottom = height * MARGIN_SHARE, height * (1 - MARGIN_SHARE)
    return ["top" if b[3] <= top else "bottom" if b[1] >= bottom else "" for b in boxes]


def edge_bands(lines: Sequence[tuple[BBox, str, bool, Band]], height: float) -> dict[int, Band]:
    """Positions of the first and last rows of text that stand apart, with their band.

    `lines` are (box, text, horizontal, band); lines that already have a band keep it.
    Books and reports set running heads and folios well inside the page (LaTeX: 12% from
    the top), so the fixed margin band misses them; what gives them away is the gap
    between them and the body, several times the gap between body lines.
    """
    body = [ln for ln in lines if ln[2] and ln[1].strip()]
    if len(body) < 4:
        return {}
    rows: list[list[float]] = []  # [y0, y1]
    for box, *_ in sorted(body, key=lambda l: l[0][1]):
        if rows and box[1] < rows[-1][1] - 0.5 * (box[3] - box[1]):
            rows[-1][1] = max(rows[-1][1], box[3])
            continue
        rows.append([box[1], box[3]])
    if len(rows) < 4:
        return {}
    gaps = sorted(max(b[0] - a[1], 0.0) for a, b in zip(rows, rows[1:]))
    typical = max(gaps[len(gaps) // 2], 1.0)
    limit = max(3 * typical, 8.0)
    top_cut = rows[0][1] if rows[1][0] - rows[0][1] > limit and rows[0][1] < 0.2 * height else None
    bot_cut = rows[-1][0] if rows[-1][0] - rows[-2][1] > limit and rows[-1][0] > 0.8 * height else None
    out: dict[int, Band] = {}
    if top_cut is None and bot_cut is None:
        return out
    for k, (box, text, _, band) in enumerate(lines):
        if band or not text.strip():
            continue
        if top_cut is not None and box[3] <= top_cut + 0.01:
            out[k] = "top"
        elif bot_cut is not None and box[1] >= bot_cut - 0.01:
            out[k] = "bottom"
    return out


def _isolated_edges(infos: list[TextLine], height: float) -> None:
    """Mark the first and last rows of text as margin lines when they stand apart."""
    found = edge_bands([(ln.bbox, ln.text, ln.dir == (1.0, 0.0), ln.band) for ln in infos],
                       height)
    for k, band in found.items():
        ln = infos[k]
        infos[k] = TextLine(ln.index, ln.block, ln.bbox, ln.text, band, is_folio(ln.text), ln.dir)


_DIGITS = re.compile(r"\d+")


def _digit_mask(s: str) -> str:
    return _DIGITS.sub("#", "".join(s.split()))


def running_lines(lines: Sequence[MarginLine], *neighbours: Sequence[MarginLine]) -> frozenset[int]:
    """Positions in `lines` (one page) of the running heads and feet: lines in a margin band
    that read as a page number, or repeat (digits aside) a line in the same band of a
    neighbouring page, and margin lines on the same row as a page number ("CHAPTER 1.
    INTRODUCTION      2"). The one detector of both the verifier (a quote across a page
    break) and the index (heads and feet are not chunked)."""
    seen: dict[str, set[str]] = {"top": set(), "bottom": set()}
    for other in neighbours:
        for ln in other:
            if ln.band:
                seen[ln.band].add(_digit_mask(ln.text))
    run = {k for k, ln in enumerate(lines)
           if ln.band and (ln.folio or _digit_mask(ln.text) in seen[ln.band])}
    folios = [lines[k] for k in run if lines[k].folio]
    if folios:
        for k, ln in enumerate(lines):
            if ln.band and k not in run and any(
                    f.band == ln.band and min(ln.bbox[3], f.bbox[3]) > max(ln.bbox[1], f.bbox[1])
                    for f in folios):
                run.add(k)
    return frozenset(run)


def build_page(number: int, width: float, height: float,
               lines: list[list[tuple[str, BBox]]],
               blocks: list[int] | None = None,
               dirs: list[tuple[float, float]] | None = None) -> PageText:
    """Assemble a PageText from lines of (char, box); used by the extractor and by tests."""
    chars: list[TextChar] = []
    infos: list[TextLine] = []
    new = tuple.__new__
    for li, line in enumerate(lines):
        if not line:
            continue
        blk = blocks[li] if blocks is not None else li
        cs, bbs = zip(*line)
        # tuple.__new__ over zipped columns: no Python frame per character
        chars.extend(map(new, repeat(TextChar), zip(cs, bbs, repeat(li), repeat(blk))))
        text = "".join(cs)
        # Spaces often carry made-up boxes; leave them out of the line's box.
        boxes = [bb for c, bb in line if not c.isspace()] if any(
            map(str.isspace, text)) else bbs
        box = union(boxes or bbs)
        band = margin_band(box, height)
        d = dirs[li] if dirs is not None else (1.0, 0.0)
        infos.append(TextLine(li, blk, box, text, band, bool(band) and is_folio(text), d))
    _isolated_edges(infos, height)
    # Lines without characters keep their index so TextChar.line stays a valid index.
    by_index = {ln.index: ln for ln in infos}
    full: list[TextLine] = []
    for li in range(len(lines)):
        full.append(by_index.get(li) or TextLine(li, blocks[li] if blocks else li, (0, 0, 0, 0), ""))
    has_text = any(not ch.c.isspace() for ch in chars)
    return PageText(number, width, height, tuple(chars), has_text, tuple(full))
