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

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from reportgen.model import BBox

# Text only: no images in the dict output (faster), ligatures kept as the PDF has them
# (the anchor rule works on the text layer as it stands), whitespace kept, clipped to the
# media box so text outside the page is not indexed.
_FLAGS = None
MARGIN_SHARE = 0.08  # a block wholly in the top or bottom 8% of the page is in a margin band


def _flags() -> int:
    global _FLAGS
    if _FLAGS is None:
        import pymupdf

        _FLAGS = (pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE
                  | pymupdf.TEXT_MEDIABOX_CLIP)
    return _FLAGS


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


@dataclass(frozen=True)
class DocBlocks:
    doc: str
    path: Path
    sha256: str
    pages: int
    text_pages: int  # pages with at least one non-blank character in the text layer
    blocks: tuple[Block, ...]

    @property
    def has_text(self) -> bool:
        return self.text_pages > 0


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def page_blocks(page, doc_id: str, pno: int, start_seq: int = 0) -> list[Block]:
    """The text blocks of one PyMuPDF page (1-based `pno`), in content-stream order."""
    d = page.get_text("dict", flags=_flags(), sort=False)
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


def iter_blocks(doc, doc_id: str) -> Iterator[tuple[int, list[Block]]]:
    """(page number, blocks) for every page of an open PyMuPDF document."""
    seq = 0
    for i in range(doc.page_count):
        bl = page_blocks(doc[i], doc_id, i + 1, seq)
        seq += len(bl)
        yield i + 1, bl


def _open(path: Path, doc_id: str):
    """The verifier's own opener, so index and verify refuse the same files in the same words."""
    from reportgen.errors import DocumentError
    from reportgen.pdf.documents import open_pdf

    try:
        return open_pdf(path)[0]
    except DocumentError as e:
        raise DocumentError(f"document {doc_id}: {e.message}", file=path) from None


def page_count(path: str | Path, doc_id: str) -> int:
    """Pages of a PDF; raises DocumentError when it cannot be read."""
    doc = _open(Path(path), doc_id)
    try:
        return doc.page_count
    finally:
        doc.close()


def read_range(path: str | Path, doc_id: str, start: int, end: int) -> tuple[list[Block], int]:
    """(blocks, pages with text) of pages start..end-1 (0-based, end exclusive); block
    `seq` numbers start at 0 for the range."""
    doc = _open(Path(path), doc_id)
    try:
        blocks: list[Block] = []
        text_pages = 0
        for i in range(start, min(end, doc.page_count)):
            bl = page_blocks(doc[i], doc_id, i + 1, len(blocks))
            text_pages += bool(bl)
            blocks.extend(bl)
        return blocks, text_pages
    finally:
        doc.close()


def read_blocks(path: str | Path, doc_id: str | None = None, sha256: str | None = None) -> DocBlocks:
    """Open a PDF and return its blocks; raises DocumentError when it cannot be read."""
    path = Path(path)
    doc_id = doc_id or path.stem
    doc = _open(path, doc_id)
    try:
        blocks: list[Block] = []
        text_pages = 0
        for _pno, bl in iter_blocks(doc, doc_id):
            text_pages += bool(bl)
            blocks.extend(bl)
        pages = doc.page_count
    finally:
        doc.close()
    return DocBlocks(doc_id, path, sha256 or sha256_file(path), pages, text_pages, tuple(blocks))


def page_text(blocks: list[Block] | tuple[Block, ...]) -> str:
    """A page's text as the blocks give it, lines joined by newlines, blocks by newlines."""
    return "\n".join(b.text for b in blocks)
