"""Evidence for a search result: the sentence or table row of a chunk's page that covers
the most of the query, with its box, and the query's terms marked in it.

Read from the blocks table (`reportgen.index.store`); the text is the page's text layer
with only whitespace runs collapsed, so it can be quoted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reportgen.index import store
from reportgen.index.chunking import HEADING_RE
from reportgen.index.tokens import is_cjk, ngram_tokens, normalize, unigram_tokens
from reportgen.model import BBox, union

_SENT_RE = re.compile(r".*?(?:[。！？；!?;]|\.(?=\s)|\Z)", re.S)
_WS_RE = re.compile(r"\s+")
# A full stop that ends an abbreviation or an initial, not a sentence: "Apple Inc.",
# "No. 3", "U.S.", "e.g.", "J. Smith".
_ABBREV_END_RE = re.compile(
    r"(?:^|[\s(\[])(?:inc|no|nos|co|corp|ltd|llc|plc|mr|mrs|ms|dr|prof|st|vs|etc|e\.g|i\.e|"
    r"cf|fig|figs|jr|sr|u\.s|u\.k|vol|pp|approx|dept|art|sec|ref|jan|feb|mar|apr|jun|jul|"
    r"aug|sep|sept|oct|nov|dec|[a-z])\.$", re.IGNORECASE)
_CJK_GAP_RE = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")


@dataclass(frozen=True)
class Evidence:
    kind: str  # sentence | row | chunk
    text: str  # as on the page, whitespace runs collapsed
    page: int
    bbox: BBox | None


def collapse(text: str) -> str:
    return _CJK_GAP_RE.sub("", _WS_RE.sub(" ", text).strip())


# ---- evidence: the best sentence or table row -------------------------------------------


@dataclass(frozen=True)
class _Line:
    block: int  # block seq
    bbox: BBox
    text: str


def page_lines(con, doc: str, page: int) -> list[_Line]:
    out = []
    for seq, text, lines in con.execute(
            "SELECT seq, text, lines FROM blocks WHERE doc=? AND page=? ORDER BY seq", (doc, page)):
        for t, bb in zip(text.split("\n"), store.unpack_boxes(lines)):
            out.append(_Line(seq, tuple(bb), t))
    return out


def _union(boxes: Iterable[BBox]) -> BBox | None:
    """The union of the boxes, None when there are none."""
    bs = list(boxes)
    return union(bs) if bs else None


_ROW_NUM_RE = re.compile(r"\d[\d,]*(?:\.\d+)?%?")
_ROW_END_RE = re.compile(r"\d[\d,]*(?:\.\d+)?%?\)?\s*$")


def _row_line(text: str) -> bool:
    """A line that reads as a table row: two numbers or more, the last at its end."""
    return len(_ROW_NUM_RE.findall(text)) >= 2 and _ROW_END_RE.search(text) is not None


def sentences(lines: Sequence[_Line]) -> list[tuple[str, BBox | None]]:
    """Sentences of consecutive lines (of one paragraph), each with the box of its lines;
    lines that read as table rows, one after another, are a row each, never joined."""
    out: list[tuple[str, BBox | None]] = []
    looks = [_row_line(ln.text) for ln in lines]
    # a row is a row-like line beside another: one such line alone may be wrapped prose
    row = [r and ((k > 0 and looks[k - 1]) or (k + 1 < len(looks) and looks[k + 1]))
           for k, r in enumerate(looks)]
    start = 0
    for i in range(1, len(lines) + 1):
        if i == len(lines) or row[i - 1] or row[i]:
            out.extend(_sentences(lines[start:i]))
            start = i
    return out


def _sentences(lines: Sequence[_Line]) -> list[tuple[str, BBox | None]]:
    out = []
    text = ""
    owner: list[int] = []
    for i, ln in enumerate(lines):
        text += ln.text + "\n"
        owner.extend([i] * (len(ln.text) + 1))
    spans: list[tuple[int, int]] = []
    joined = False
    for m in _SENT_RE.finditer(text):
        if joined and spans:  # the last piece ended at "Inc." or "No.": not a sentence end
            spans[-1] = (spans[-1][0], m.end())
        elif m.end() > m.start():
            spans.append((m.start(), m.end()))
        joined = _ABBREV_END_RE.search(m.group()) is not None
    for a, b in spans:
        s = text[a:b]
        if len(_WS_RE.sub("", s)) < 2:
            continue
        idx = sorted(set(owner[a:b]))
        out.append((collapse(s), _union(lines[i].bbox for i in idx)))
    return out


def rows(lines: Sequence[_Line]) -> list[list[_Line]]:
    """Visual rows: lines whose vertical extents overlap by half the smaller height, left to
    right; only rows that hold lines of two or more blocks (table cells), at most one of
    them wider than 30% of the page's text, are kept."""
    order = sorted(lines, key=lambda ln: ((ln.bbox[1] + ln.bbox[3]) / 2, ln.bbox[0]))
    groups: list[list[_Line]] = []
    for ln in order:
        if groups:
            g = groups[-1][0]
            top, bot = max(g.bbox[1], ln.bbox[1]), min(g.bbox[3], ln.bbox[3])
            h = min(g.bbox[3] - g.bbox[1], ln.bbox[3] - ln.bbox[1]) or 1.0
            if bot - top >= 0.5 * h:
                groups[-1].append(ln)
                continue
        groups.append([ln])
    if not lines:
        return []
    width = (max(ln.bbox[2] for ln in lines) - min(ln.bbox[0] for ln in lines)) or 1.0

    def is_table_row(g: list[_Line]) -> bool:
        # two columns of prose side by side are not a table row: at most one wide cell
        wide = sum(ln.bbox[2] - ln.bbox[0] > 0.3 * width for ln in g)
        return len({ln.block for ln in g}) > 1 and wide <= 1

    return [sorted(g, key=lambda ln: ln.bbox[0]) for g in groups if is_table_row(g)]


def unit_score(text: str, q_ngrams: set[str], q_uni: set[str]) -> float:
    cov_n = len(q_ngrams & set(ngram_tokens(text))) / len(q_ngrams) if q_ngrams else 0.0
    cov_u = len(q_uni & set(unigram_tokens(text))) / len(q_uni) if q_uni else 0.0
    length = len(_WS_RE.sub("", text))
    return 2 * cov_n + cov_u + min(length, 80) / 800 - (0.5 if length < 6 else 0.0)


def _is_row_block(lines: Sequence[_Line]) -> bool:
    """A block whose lines stand side by side (table cells of one row)."""
    return len(lines) > 1 and any(
        min(a.bbox[3], b.bbox[3]) - max(a.bbox[1], b.bbox[1]) > 0
        for a, b in zip(lines, lines[1:]))


def paragraphs(lines: Sequence[_Line]) -> list[list[_Line]]:
    """Lines grouped by block, and consecutive blocks of prose that continue one another
    merged (the next starts within a line's height below the last line, not indented
    against it and at most 30 pt left of it; neither is a heading nor a table row), so a
    sentence that a PDF writes one line per block is read whole."""
    by_block: dict[int, list[_Line]] = {}
    for ln in lines:
        by_block.setdefault(ln.block, []).append(ln)
    out: list[list[_Line]] = []
    prev_row = True
    for seq in sorted(by_block):
        bl = by_block[seq]
        row = _is_row_block(bl)
        heading = bool(out) and (
            (len(out[-1]) == 1 and HEADING_RE.match(out[-1][0].text) is not None)
            or (len(bl) == 1 and HEADING_RE.match(bl[0].text) is not None))
        if out and not row and not prev_row and not heading:
            last = out[-1][-1]
            first = bl[0]
            h = (last.bbox[3] - last.bbox[1]) or 1.0
            gap = first.bbox[1] - last.bbox[3]
            # a continuation is not indented against the line before (a new paragraph is)
            if -0.3 * h <= gap <= 0.9 * h and last.bbox[0] - 30 <= first.bbox[0] <= last.bbox[0] + 5:
                out[-1].extend(bl)
                prev_row = row
                continue
        out.append(list(bl))
        prev_row = row
    return out


def candidates(con, doc: str, page: int, bf: int, bl: int) -> list[Evidence]:
    """Sentences of the paragraphs that touch the chunk's blocks, and table rows."""
    lines = page_lines(con, doc, page)
    out: list[Evidence] = []
    for para in paragraphs(lines):
        if any(bf <= ln.block <= bl for ln in para):
            out.extend(Evidence("sentence", t, page, bb) for t, bb in sentences(para))
    for r in rows(lines):
        if any(bf <= ln.block <= bl for ln in r):
            out.append(Evidence("row", collapse(" ".join(ln.text for ln in r)), page,
                                _union(ln.bbox for ln in r)))
    return out


def best_evidence(con, doc: str, page: int, bf: int, bl: int, query: str) -> Evidence | None:
    ranked = ranked_evidence(con, doc, page, bf, bl, query)
    return ranked[0] if ranked else None


def ranked_evidence(con, doc: str, page: int, bf: int, bl: int, query: str) -> list[Evidence]:
    qn, qu = set(ngram_tokens(query)), set(unigram_tokens(query))
    cands = candidates(con, doc, page, bf, bl)
    scored = sorted(enumerate(cands),
                    key=lambda ic: (-unit_score(ic[1].text, qn, qu), len(ic[1].text), ic[0]))
    return [c for _, c in scored]


# ---- marking ------------------------------------------------------------------


def folded(text: str) -> tuple[str, list[tuple[int, int]]]:
    """`normalize(text)`, and for each of its characters the span of `text` it came from.

    Case folding and NFKC change lengths (U+0130 lower-cases to two characters, U+FB01
    is "fi"), so each character is folded with the combining marks that follow it, and
    what it folds to points back at it: a match in the folded text marks the original."""
    out: list[str] = []
    owner: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and unicodedata.combining(text[j]):
            j += 1
        f = normalize(text[i:j])
        out.append(f)
        same = len(f) == j - i
        owner.extend([(k, k + 1) for k in range(i, j)] if same else [(i, j)] * len(f))
        i = j
    return "".join(out), owner


def mark_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Character spans of `text` that match the query: every occurrence of a word or number
    term, and of every bigram of a CJK term (a lone character stands for itself)."""
    low, owner = folded(text)
    mask = [False] * len(text)
    for t in terms:
        cjk = is_cjk(t)
        pieces = [t] if not cjk or len(t) < 2 else [t[i:i + 2] for i in range(len(t) - 1)]
        for p in pieces:
            start = low.find(p) if p else -1
            while start >= 0:
                end = start + len(p)
                # a word or number of a script with spaces is marked whole, never inside
                # a longer word ("c" is not marked in "respect")
                if cjk or ((start == 0 or not low[start - 1].isalnum())
                           and (end == len(low) or not low[end].isalnum())):
                    for i in range(owner[start][0], owner[end - 1][1]):
                        mask[i] = True
                start = low.find(p, start + 1)
    spans = []
    i = 0
    while i < len(mask):
        if mask[i]:
            j = i
            while j < len(mask) and mask[j]:
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


def mark(text: str, terms: Sequence[str], open_: str = "[", close: str = "]") -> str:
    out, pos = [], 0
    for a, b in mark_spans(text, terms):
        out.append(text[pos:a] + open_ + text[a:b] + close)
        pos = b
    out.append(text[pos:])
    return "".join(out)
