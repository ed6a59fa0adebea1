"""Parent sections and child chunks over a document's blocks, and chunk -> block anchors.

Pure functions over `reportgen.pdf.blocks.Block` values; no PyMuPDF, no SQLite.

- A *parent section* runs from a heading-like block (第三节, 一、, （二）, 1.2, Item 7, ...)
  to the next one, capped at `PARENT_MAX` characters; packing uses it for context.
- A *child chunk* is the unit that is ranked: whole blocks of one page gathered up to
  about `CHILD_TARGET` characters; a longer block is cut at sentence ends. Chunks never
  cross a page, so a hit names one page.
- Chunk text is the block text with runs of whitespace collapsed (and none between two
  CJK characters); nothing else is repaired (a word hyphenated at a line end keeps its
  hyphen: the trigram tokens still match most of it), so what a result shows is what
  the text layer holds. Every chunk is mapped back to its blocks (`anchor_chunk`):
  `exact` when its whitespace-free text is a substring of consecutive blocks, else
  `fuzzy` when a window of up to three blocks has a character-bigram Dice score of at
  least `DICE_FLOOR`, else `unattributed` (page kept from provenance, no box). With the
  chunker here chunks are exact by construction; the fallbacks keep the mapping honest
  for text that another chunker normalises (NFKC, dehyphenation, OCR).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from reportgen.model import BBox, union
from reportgen.pdf.blocks import Block
from reportgen.pdf.text import running_lines

CHILD_TARGET = 320
CHILD_MAX = 480
PARENT_MAX = 2400
DICE_FLOOR = 0.55
NEIGHBOURHOOD = 3  # blocks on either side of a chunk's source searched for its anchor

HEADING_RE = re.compile(
    r"^\s*(第[一二三四五六七八九十百零〇\d]+[节章部分篇]"
    r"|[一二三四五六七八九十]+\s*[、.．]"
    r"|[（(][一二三四五六七八九十]+[）)]"
    r"|\d+(?:\.\d+)*\s*[、.．]?\s*[\u4e00-\u9fffA-Z]"
    r"|item\s+\d+[a-z]?\b|part\s+[ivx]+\b)",
    re.IGNORECASE,
)
_SENT_END_RE = re.compile(r"(?<=[。！？；!?;])|(?<=\.)\s+(?=[A-Z0-9\"'“(])")
_WS_RE = re.compile(r"\s+")
_CJK_GAP_RE = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")


@dataclass(frozen=True)
class Section:
    seq: int
    title: str
    page: int
    page_end: int
    block_first: int
    block_last: int


@dataclass(frozen=True)
class Chunk:
    seq: int
    parent: int
    page: int
    page_end: int
    bbox: BBox | None
    method: str  # exact | fuzzy | unattributed
    block_first: int  # seq of the first block the chunk was cut from
    block_last: int
    text: str


def is_heading(block: Block) -> bool:
    if len(block.lines) > 2:
        return False
    t = block.text.strip()
    return 0 < len(t) <= 40 and HEADING_RE.match(t) is not None


def clean_text(raw: str) -> str:
    """Display text of a chunk: whitespace runs collapsed, none between CJK characters."""
    t = " ".join(raw.split())  # str.split and `\s` know the same whitespace
    return _CJK_GAP_RE.sub("", t) if " " in t else t


def sections(blocks: Sequence[Block]) -> list[Section]:
    out: list[Section] = []
    start = 0
    size = 0
    title = ""
    for i, b in enumerate(blocks):
        n = len(b.text)
        if i > start and (is_heading(b) or size + n > PARENT_MAX):
            out.append(_section(len(out), title, blocks, start, i - 1))
            start, size, title = i, 0, ""
        if i == start:
            title = b.text.strip().splitlines()[0][:80]
        size += n
    if blocks:
        out.append(_section(len(out), title, blocks, start, len(blocks) - 1))
    return out


def _section(seq: int, title: str, blocks: Sequence[Block], a: int, z: int) -> Section:
    return Section(seq, title, blocks[a].page, blocks[z].page, blocks[a].seq, blocks[z].seq)


def _split_long(text: str) -> list[str]:
    """Cut one long block's text at sentence ends into pieces near CHILD_TARGET."""
    parts = [p for p in _SENT_END_RE.split(text) if p]
    pieces: list[str] = []
    cur = ""
    for p in parts:
        while len(p) > CHILD_MAX:  # a sentence longer than a chunk: hard cut
            room = max(CHILD_TARGET - len(cur), 1)
            cur += p[:room]
            p = p[room:]
            pieces.append(cur)
            cur = ""
        if cur and len(cur) + len(p) > CHILD_TARGET:
            pieces.append(cur)
            cur = ""
        cur += p
    if cur.strip():
        pieces.append(cur)
    return pieces


def running_blocks(blocks: Sequence[Block]) -> set[int]:
    """Seqs of the blocks that are running heads and feet, every line of them, by the PDF
    layer's detector (the verifier's): margin lines that read as a page number, stand on
    its row, or repeat (digits aside) in the same band up to two pages before or after.
    They repeat on every page, so they would match every query that names the company;
    they stay in the blocks table but are not chunked."""
    by_page: dict[int, list[Block]] = {}
    for b in blocks:
        by_page.setdefault(b.page, []).append(b)
    margins = {p: [ln for b in bs for ln in b.lines if ln.band] for p, bs in by_page.items()}
    out: set[int] = set()
    for p, bs in by_page.items():
        if not margins[p]:
            continue
        lines = [ln for b in bs for ln in b.lines]
        run = running_lines(lines, *(margins[q] for q in (p - 2, p - 1, p + 1, p + 2)
                                     if q in margins))
        k = 0
        for b in bs:
            n = len(b.lines)
            if all(i in run for i in range(k, k + n)):
                out.add(b.seq)
            k += n
    return out


def chunk_blocks(blocks: Sequence[Block]) -> tuple[list[Section], list[Chunk]]:
    """Sections and anchored chunks for one document's blocks (in reading order), running
    heads and feet left out."""
    skip = running_blocks(blocks)
    if skip:
        blocks = [b for b in blocks if b.seq not in skip]
    secs = sections(blocks)
    by_seq = {b.seq: i for i, b in enumerate(blocks)}
    chunks: list[Chunk] = []

    def emit(parent: int, a: int, z: int, raw: str) -> None:
        text = clean_text(raw)
        if not text:
            return
        lo, hi = max(0, a - NEIGHBOURHOOD), min(len(blocks), z + NEIGHBOURHOOD + 1)
        page, page_end, bbox, method = anchor_chunk(text, blocks[lo:hi], (a - lo, z - lo))
        if method == "unattributed":
            page, page_end = blocks[a].page, blocks[z].page
        chunks.append(Chunk(len(chunks), parent, page, page_end, bbox, method,
                            blocks[a].seq, blocks[z].seq, text))

    for s in secs:
        a0, z0 = by_seq[s.block_first], by_seq[s.block_last]
        start, buf = a0, []
        size = 0
        for i in range(a0, z0 + 1):
            b = blocks[i]
            t = b.text
            if buf and (b.page != blocks[start].page or size + len(t) > CHILD_TARGET):
                emit(s.seq, start, i - 1, "\n".join(buf))
                start, buf, size = i, [], 0
            if len(t) > CHILD_MAX:
                for piece in _split_long(t):
                    emit(s.seq, i, i, piece)
                start, buf, size = i + 1, [], 0
                continue
            buf.append(t)
            size += len(t)
        if buf:
            emit(s.seq, start, z0, "\n".join(buf))
    return secs, chunks


# ---- anchors ----------------------------------------------------------------------------


def _strip(s: str) -> str:
    return "".join(s.split())  # what _WS_RE.sub("", s) gives, at a third of the cost


def bigrams(s: str) -> Counter:
    s = _strip(s)
    return Counter(s[i:i + 2] for i in range(len(s) - 1)) if len(s) > 1 else Counter(s)


def dice(a: Counter, b: Counter) -> float:
    total = sum(a.values()) + sum(b.values())
    if not total:
        return 0.0
    return 2 * sum((a & b).values()) / total


def _exact(needle: str, blocks: Sequence[Block]) -> tuple[int, int, BBox] | None:
    """Whitespace-free `needle` as a substring of the blocks' lines joined in order."""
    stripped = [[_strip(ln.text) for ln in b.lines] for b in blocks]
    hay = "".join("".join(s) for s in stripped)
    pos = hay.find(needle)
    if pos < 0:
        return None
    end = pos + len(needle)
    covered: list[tuple[int, int]] = []
    off = 0
    if end - pos == len(hay):  # the whole window (a chunk at its source): every line
        covered = [(bi, li) for bi, lines in enumerate(stripped)
                   for li, s in enumerate(lines) if s]
        stripped = []
    for bi, lines in enumerate(stripped):
        for li, s in enumerate(lines):
            nxt = off + len(s)
            if nxt > pos and off < end and s:
                covered.append((bi, li))
            off = nxt
        if off >= end:
            break
    first_page = blocks[covered[0][0]].page
    last_page = blocks[covered[-1][0]].page
    boxes = [blocks[bi].lines[li].bbox for bi, li in covered if blocks[bi].page == first_page]
    return first_page, last_page, union(boxes)


def anchor_chunk(text: str, blocks: Sequence[Block],
                 source: tuple[int, int] | None = None) -> tuple[int, int, BBox | None, str]:
    """(page, pageEnd, bbox, method) of `text` among consecutive `blocks`.

    `source`, the (first, last) index into `blocks` the chunk was cut from, is tried first
    for speed. The box is the union of the matched lines on the first page (exact) or of
    the window's blocks on its first page (fuzzy); None when unattributed (page 0).
    """
    needle = _strip(text)
    if not needle or not blocks:
        return 0, 0, None, "unattributed"
    hit = None
    if source is not None:
        hit = _exact(needle, blocks[source[0]:source[1] + 1])
    if hit is None:
        hit = _exact(needle, blocks)
    if hit is not None:
        return hit[0], hit[1], hit[2], "exact"
    # fuzzy: best window of one to three consecutive blocks by bigram Dice
    want = bigrams(text)
    grams = [bigrams(b.text) for b in blocks]
    best, best_span = 0.0, None
    for i in range(len(blocks)):
        acc: Counter = Counter()
        for j in range(i, min(i + 3, len(blocks))):
            acc = acc + grams[j]
            d = dice(want, acc)
            if d > best:
                best, best_span = d, (i, j)
    if best_span is not None and best >= DICE_FLOOR:
        i, j = best_span
        page = blocks[i].page
        boxes = [blocks[k].bbox for k in range(i, j + 1) if blocks[k].page == page]
        return page, blocks[j].page, union(boxes), "fuzzy"
    return 0, 0, None, "unattributed"
