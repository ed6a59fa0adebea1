"""Read one page's text layer from PyMuPDF into a `PageText` (chars with displayed-page boxes).

MuPDF 1.28 honours marked-content replacement text (`/Span <</ActualText (...)>> BDC ... EMC`)
by default: the replacement characters take the place of the glyphs (the flag
TEXT_IGNORE_ACTUALTEXT would turn that off, so we never set it). tests/test_textlayer.py
checks this on a generated PDF, so a MuPDF upgrade that changes it fails loudly.
"""

from __future__ import annotations

from itertools import chain
from operator import itemgetter

import pymupdf

from reportgen.model import BBox
from reportgen.pdf import native
from reportgen.pdf.text import PageText, build_page

# Ligatures stay one character (U+FB01 as the text layer has it; the `nfkc` level folds it),
# whitespace stays as drawn, text outside the MediaBox is dropped. No images (slow, useless
# here), and no CID-for-unknown-Unicode: an unmapped glyph stays U+FFFD, which a miss hint
# can name, rather than a made-up character that could match by accident.
FLAGS = (pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE
         | pymupdf.TEXT_MEDIABOX_CLIP)


_C_BBOX = itemgetter("c", "bbox")  # a rawdict char -> (c, bbox), in C
_CHARS = itemgetter("chars")  # a rawdict span -> its chars

# The most characters one page may have. The densest pages of real reports hold about
# 15,000 (tables in 6 pt type); a generated page of a million costs 0.8 GB as rawdict.
# Counted on MuPDF's plain text (about 90 bytes a character, in C) before the rawdict
# (about 780 bytes a character, in Python) is built.
MAX_PAGE_CHARS = 100_000


class TooManyChars(ValueError):
    """A page with more characters than MAX_PAGE_CHARS (a generated or hostile page)."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} characters")
        self.count = count


def _may_exceed(tp: pymupdf.TextPage) -> bool:
    """False when the text page is too small to hold MAX_PAGE_CHARS characters, so the
    plain-text count (a tenth of the extraction's time) can be skipped: MuPDF allocates
    every character (72 bytes) and line of it from one pool, and the plain text has one
    character per character and one newline per line, so it is at most a sixteenth of the
    pool's bytes long."""
    try:
        return pymupdf.mupdf.ll_fz_pool_size(tp.this.m_internal.pool) > 16 * MAX_PAGE_CHARS
    except AttributeError:  # another binding: count
        return True


def _transform(m: tuple[float, ...], bb: tuple[float, float, float, float]) -> BBox:
    """A box through an affine matrix (a, b, c, d, e, f), as the box of its four corners."""
    a, b, c, d, e, f = m
    xs: list[float] = []
    ys: list[float] = []
    for x, y in ((bb[0], bb[1]), (bb[2], bb[1]), (bb[0], bb[3]), (bb[2], bb[3])):
        xs.append(a * x + c * y + e)
        ys.append(b * x + d * y + f)
    return (min(xs), min(ys), max(xs), max(ys))


def extract_page(page: pymupdf.Page, *, compiled: bool = True) -> PageText:
    """The page's characters, lines and blocks in content-stream order, boxes as displayed;
    through the compiled reader where it is built, else (or with `compiled=False`) through
    rawdict, which gives the same.

    Raises TooManyChars for a page denser than MAX_PAGE_CHARS."""
    tp = page.get_textpage(flags=FLAGS)
    if _may_exceed(tp):
        count = len(tp.extractText())
        if count > MAX_PAGE_CHARS:
            raise TooManyChars(count)
    reader = native.load() if compiled else None
    got = reader.page_lines(tp.this.m_internal_value()) if reader is not None else None
    lines, blocks, dirs = got if got is not None else _rawdict_lines(page, tp)
    del tp
    if page.rotation % 360:  # boxes and writing directions turn with the page
        m = tuple(page.rotation_matrix)
        lines = [[(c, _transform(m, bb)) for c, bb in line] for line in lines]
        dirs = [(m[0] * dx + m[2] * dy, m[1] * dx + m[3] * dy) for dx, dy in dirs]
    rect = page.rect  # the displayed page: width and height swap under /Rotate 90
    return build_page(page.number + 1, rect.width, rect.height, lines, blocks,
                      [(round(dx, 3), round(dy, 3)) for dx, dy in dirs])


def _rawdict_lines(page: pymupdf.Page, tp: pymupdf.TextPage
                   ) -> tuple[list[list[tuple[str, BBox]]], list[int], list[tuple[float, float]]]:
    """What the compiled reader gives, from rawdict: each line's (char, box), its block
    number and its writing direction, in unrotated page space."""
    raw = page.get_text("rawdict", textpage=tp)
    lines: list[list[tuple[str, BBox]]] = []
    blocks: list[int] = []
    dirs: list[tuple[float, float]] = []
    for bno, block in enumerate(raw.get("blocks", ())):
        if block.get("type", 0) != 0:
            continue
        for line in block.get("lines", ()):
            spans = line.get("spans", ())
            if len(spans) == 1:  # rawdict boxes are already 4-tuples of floats
                chars = list(map(_C_BBOX, spans[0]["chars"]))
            else:
                chars = list(map(_C_BBOX, chain.from_iterable(map(_CHARS, spans))))
            if chars:
                lines.append(chars)
                blocks.append(bno)
                dirs.append(line.get("dir", (1.0, 0.0)))
    return lines, blocks, dirs
