"""Find a quote on a page (the anchor rule of ledger.md section 5) and explain a miss.

Pure functions over `PageText`, so every case is testable without a PDF.

A match is tried at four *levels*, each looser than the one before, and the first that
finds the quote names the method (`Anchor.method`):

- ``exact``: strip ASCII whitespace from page text and quote, find a substring (the spec's rule);
- ``space``: every Unicode space (NBSP, thin space, ideographic space, zero-width space) is
  whitespace too;
- ``nfkc``: also fold compatibility forms per character with NFKC (ligature U+FB01 -> "fi",
  full-width digits and punctuation, Kangxi radicals -> ideographs, U+2010 HYPHEN -> "-").
  Superscripts, subscripts, circled and fraction forms are *not* folded: "10²" is not "102";
- ``hyphenation``: also let a hyphen that ends a line be skipped, so a word broken at a line
  end may be typed whole (the hyphen still matches when typed). A hyphen whose hyphenated
  word also stands inside a line on the same page ("non-normal") is part of the word and
  is never skipped;
- ``quotes``: also read the typographic quotation marks and apostrophes ‘ ’ ‚ as ' and
  “ ” „ as ", on the page and in the quote, so "don't" typed on a keyboard finds "don’t".
  A prime (′ ″), which means feet, inches or minutes, stays itself.

Dashes, minus signs, digits and punctuation are never folded into one another.

Each level is tried over the reading orders of `reportgen.pdf.orders` (``stream``, the
spec's content-stream rule, then ``columns`` and ``rows``); a match lies within one run of
one order, so it never jumps between columns or rows a reader would not join. An occurrence
that runs from one table row into the next without covering whole rows ("14.59% 2 明阳新能源":
a figure of one row and the label of the next) is passed over for the next occurrence,
order and level (`reportgen.pdf.orders.row_join`); `table_row_join` names the rows for the
miss hint.

`reportgen.pdf.hints.miss_hint` explains a miss.

A match found in an order other than ``stream`` records it after a ``+``: ``exact+rows``,
``nfkc+columns``. A cross-page match whose two pages were read in different orders records
both (``exact+columns/stream``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress
from operator import itemgetter

from reportgen.model import Anchor, BBox, union
from reportgen.pdf.orders import ORDERS, RowJoin, line_chars, row_join, runs
from reportgen.pdf.text import PageText
from reportgen.pdf.text import running_lines as text_running_lines

LEVELS = ("exact", "space", "nfkc", "hyphenation", "quotes")
# Typographic quotation marks and apostrophes as typed on a keyboard (level `quotes`).
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201a": "'",
           "\u201c": '"', "\u201d": '"', "\u201e": '"'}

_ASCII_WS = frozenset(" \t\n\r\x0b\x0c")
# Invisible characters that act as word gaps in text layers though they are not category Z.
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\x1c\x1d\x1e\x1f\x85")
# Hyphens that a typesetter puts at a line end when it breaks a word.
_LINE_HYPHENS = frozenset("-\u2010\u00ad")
# Hyphens that are one character in meaning (HYPHEN, NON-BREAKING HYPHEN, HYPHEN-MINUS);
# MINUS SIGN and the dashes are not among them.
_HYPHENS = frozenset("\u2010\u2011")
# Decompositions that change meaning: 10² is not 102, ① is not 1, ½ is not 1/2.
_KEEP_TAGS = ("<super>", "<sub>", "<circle>", "<fraction>")


_QUOTE_CHARS = frozenset(_QUOTES) | {"'", '"'}


def levels_for(quote: str) -> tuple[str, ...]:
    """The levels worth trying: `quotes` finds nothing more than `hyphenation` for a quote
    without a quotation mark or apostrophe, so a miss does not pay for it."""
    return LEVELS if any(c in _QUOTE_CHARS for c in quote) else LEVELS[:-1]


@lru_cache(maxsize=8192)
def is_space(c: str) -> bool:
    """Any Unicode space or invisible gap character counts as whitespace from level `space` on."""
    return c.isspace() or c in _ZERO_WIDTH or unicodedata.category(c) in ("Zs", "Zl", "Zp")


@lru_cache(maxsize=16384)
def _nfkc(c: str) -> str:
    """NFKC of one character, except forms whose meaning differs; spaces in the result dropped."""
    if c in _HYPHENS:
        return "-"
    dec = unicodedata.decomposition(c)
    if dec.startswith(_KEEP_TAGS):
        return c
    out = unicodedata.normalize("NFKC", c)
    return "".join(x for x in out if not is_space(x))


def fold(c: str, level: str) -> str:
    """What one character contributes to the comparison key at a level ("" when it is a gap)."""
    if level == "exact":
        return "" if c in _ASCII_WS else c
    if is_space(c):
        return ""
    if level == "space":
        return c
    if level == "quotes" and c in _QUOTES:
        return _QUOTES[c]
    return _nfkc(c)


@dataclass(frozen=True)
class Key:
    """A run of page text folded at one level, mapped back to the characters it came from."""

    text: str
    src: tuple[int, ...]  # index into PageText.chars for each key character
    optional: frozenset[int]  # key positions that may be skipped (line-end hyphens)
    run: tuple[int, ...] = ()  # the run's char indices, gaps included (for display)


def fold_quote(quote: str, level: str) -> tuple[str, list[int]]:
    """The quote folded at a level, and for each key character its index in the quote."""
    out: list[str] = []
    src: list[int] = []
    for i, c in enumerate(quote):
        if c == "\x00":
            continue
        for x in fold(c, level):
            out.append(x)
            src.append(i)
    return "".join(out), src


def _line_end_hyphens(page: PageText) -> frozenset[int]:
    """Char indices of hyphens that are the last visible character of their line."""
    got = page.memo.get("hyph")
    if got is None:
        ends: set[int] = set()
        by_line = line_chars(page)
        flat = "".join(ch.c for ch in page.chars if not is_space(ch.c))
        for line, idxs in by_line.items():
            for k in range(len(idxs) - 1, -1, -1):
                i = idxs[k]
                c = page.chars[i].c
                if is_space(c):
                    continue
                if c in _LINE_HYPHENS and not _compound(page, idxs[:k], by_line.get(line + 1, []),
                                                         c, flat):
                    ends.add(i)
                break
        got = frozenset(ends)
        page.memo["hyph"] = got
    return got


def _compound(page: PageText, before: list[int], after: list[int], hyphen: str,
              flat: str) -> bool:
    """True when the hyphenated word also stands inside a line on this page ("non-normal"),
    so the hyphen at the line end is part of the word, not a break to be dropped."""
    head = ""
    for i in reversed(before):
        c = page.chars[i].c
        if not c.isalpha():
            break
        head = c + head
    tail = ""
    for i in after:
        c = page.chars[i].c
        if is_space(c) and not tail:
            continue
        if not c.isalpha():
            break
        tail += c
    if not head or not tail:
        return False
    word = head + hyphen + tail
    return flat.count(word) >= 2 and flat.count(head + tail) == 0


def _folded(page: PageText, level: str) -> list[str]:
    """Each character of the page folded at a level, computed once per page and level:
    `fold` runs once per distinct character, the page is mapped through the table in C."""
    ck = ("folded", level)
    got = page.memo.get(ck)
    if got is None:
        cs = list(map(itemgetter(0), page.chars))
        table = {c: fold(c, level) for c in set(cs)}
        got = page.memo[ck] = list(map(table.__getitem__, cs))
    return got


# Stands between two runs joined into one key: never in a folded quote, so no match spans it.
_BARRIER = "\x00"


def _key(page: PageText, run_list: Sequence[Sequence[int]], level: str) -> Key:
    """One key for a list of runs, runs separated by a barrier character (src -1)."""
    hyph = _line_end_hyphens(page) if level in ("hyphenation", "quotes") else frozenset()
    folded = _folded(page, level)
    parts: list[str] = []
    src: list[int] = []
    every: list[int] = []
    for k, run in enumerate(run_list):
        if k:
            parts.append(_BARRIER)
            src.append(-1)
        every.extend(run)
        kept = list(compress(run, map(folded.__getitem__, run)))
        texts = list(map(folded.__getitem__, kept))
        parts.extend(texts)
        if len("".join(texts)) == len(texts):  # every kept character folds to one
            src.extend(kept)
        else:  # a character that folds to several ("ﬁ" -> "fi") maps each to itself
            for i, t in zip(kept, texts):
                src.extend([i] * len(t))
    optional = frozenset(k for k, i in enumerate(src) if i in hyph) if hyph else frozenset()
    return Key("".join(parts), tuple(src), optional, tuple(every))


def _keys(page: PageText, order: str, level: str,
          skip: frozenset[int] = frozenset()) -> list[Key]:
    """The order's runs as keys: [whole order joined with barriers, first run, last run]."""
    ck = ("keys", order, level, skip)
    got = page.memo.get(ck)
    if got is None:
        rs = runs(page, order, skip)
        whole = _key(page, rs, level)
        if len(rs) == 1:
            got = [whole]
        else:
            got = [whole, _key(page, rs[:1], level), _key(page, rs[-1:], level)]
        page.memo[ck] = got
    return got


def whole_key(page: PageText, order: str, level: str, skip: frozenset[int] = frozenset()) -> Key:
    return _keys(page, order, level, skip)[0]


def first_run_key(page: PageText, order: str, level: str, skip: frozenset[int]) -> Key:
    ks = _keys(page, order, level, skip)
    return ks[1] if len(ks) > 1 else ks[0]


def last_run_key(page: PageText, order: str, level: str, skip: frozenset[int]) -> Key:
    ks = _keys(page, order, level, skip)
    return ks[2] if len(ks) > 1 else ks[0]


# ---- matching ------------------------------------------------------------------------


def _occurrences(q: str, key: Key, need_cross: int | None = None) -> Iterator[list[int]]:
    """Key positions of each occurrence of q in turn, first to last (skipping optional
    hyphens if any).

    With need_cross, only an occurrence that starts before and ends after that position counts.
    """
    text = key.text
    if not key.optional:
        start = text.find(q)
        while start >= 0:
            if need_cross is None or (start < need_cross < start + len(q)):
                yield list(range(start, start + len(q)))
            start = text.find(q, start + 1)
        return
    first = q[0]
    start = text.find(first)
    n, m = len(text), len(q)
    while start >= 0:
        i, j = start, 0
        used: list[int] = []
        while i < n and j < m:
            if text[i] == q[j]:
                used.append(i)
                i += 1
                j += 1
            elif i in key.optional:
                i += 1
            else:
                break
        if j == m and (need_cross is None or (used[0] < need_cross <= used[-1])):
            yield used
        start = text.find(first, start + 1)


def _rects(page: PageText, idxs: list[int], pno: int) -> list[tuple[int, BBox]]:
    """One box per matched line, in match order."""
    out: list[tuple[int, BBox]] = []
    cur_line = None
    boxes: list[BBox] = []
    for i in idxs:
        ch = page.chars[i]
        if ch.line != cur_line and boxes:
            out.append((pno, union(boxes)))
            boxes = []
        cur_line = ch.line
        boxes.append(ch.bbox)
    if boxes:
        out.append((pno, union(boxes)))
    return out


def _dedupe(idxs: Iterable[int]) -> list[int]:
    seen: set[int] = set()
    out = []
    for i in idxs:
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out


def _method(level: str, *orders: str) -> str:
    uniq = list(dict.fromkeys(orders))
    if uniq == ["stream"]:
        return level
    return level + "+" + "/".join(orders if len(uniq) > 1 else uniq)


def match_page(quote: str, page: PageText) -> Anchor | None:
    """The quote wholly on this page, by the first level and reading order that finds it."""
    return _search_page(quote, page)[0]


def _search_page(quote: str, page: PageText) -> tuple[Anchor | None, RowJoin | None]:
    """The anchor on this page, else the first table-row join that kept an occurrence out.

    Kept on the page, so the miss hint does not search again.
    """
    ck = ("search", quote)
    got = page.memo.get(ck)
    if got is None:
        got = page.memo[ck] = _search_page_uncached(quote, page)
    return got


def _search_page_uncached(quote: str, page: PageText) -> tuple[Anchor | None, RowJoin | None]:
    if not page.has_text_layer:
        return None, None
    join = None
    for level in levels_for(quote):
        q, _ = fold_quote(quote, level)
        if not q:
            return None, None
        for order in ORDERS:
            key = whole_key(page, order, level)
            for pos in _occurrences(q, key):
                idxs = _dedupe(key.src[p] for p in pos)
                bad = row_join(page, idxs)
                if bad is not None:
                    join = join or bad
                    continue
                rects = _rects(page, idxs, page.number)
                return Anchor(page.number, page.number, union([b for _, b in rects]),
                              _method(level, order), tuple(rects)), None
    return None, join


def running_lines(page: PageText, other: PageText) -> frozenset[int]:
    """Lines of `page` that are running heads or feet, `other` being the neighbouring page
    (the PDF layer's one detector, `reportgen.pdf.text.running_lines`)."""
    return text_running_lines(page.lines, other.lines)


def match_across(quote: str, page: PageText, next_page: PageText) -> Anchor | None:
    """A quote that begins on `page` and ends on `next_page`, running heads/feet skipped."""
    return _search_across(quote, page, next_page)[0]


def _search_across(quote: str, page: PageText,
                   next_page: PageText) -> tuple[Anchor | None, RowJoin | None]:
    """The cross-page anchor, else the first table-row join that kept an occurrence out."""
    if not (page.has_text_layer and next_page.has_text_layer):
        return None, None
    # First skip the running heads and feet we can tell; then every line in the margins.
    skips = [(running_lines(page, next_page), running_lines(next_page, page)),
             (frozenset(ln.index for ln in page.lines if ln.band),
              frozenset(ln.index for ln in next_page.lines if ln.band))]
    combos = [("stream", "stream"), ("columns", "columns"),
              ("columns", "stream"), ("stream", "columns")]
    join = None
    for level in levels_for(quote):
        q, _ = fold_quote(quote, level)
        if not q:
            return None, None
        for (skip_a, skip_b), (oa, ob) in ((sk, c) for sk in skips for c in combos):
            ka = last_run_key(page, oa, level, skip_a)
            kb = first_run_key(next_page, ob, level, skip_b)
            if not ka.text or not kb.text:
                continue
            joined = Key(ka.text + kb.text, (), ka.optional | {p + len(ka.text) for p in kb.optional})
            na = len(ka.text)
            for pos in _occurrences(q, joined, need_cross=na):
                ia = _dedupe(ka.src[p] for p in pos if p < na)
                ib = _dedupe(kb.src[p - na] for p in pos if p >= na)
                bad = row_join(page, ia) or row_join(next_page, ib)
                if bad is not None:
                    join = join or bad
                    continue
                ra = _rects(page, ia, page.number)
                rb = _rects(next_page, ib, next_page.number)
                return Anchor(page.number, next_page.number, union([b for _, b in ra]),
                              _method(level, oa, ob), tuple(ra + rb)), None
    return None, join


def match_quote(quote: str, page: PageText,
                next_page: PageText | Callable[[], PageText | None] | None = None
                ) -> Anchor | None:
    """The anchor of a quote that begins on `page` (running onto `next_page` if given), or
    None. `next_page` may be a function, called only when the quote is not on `page`, so a
    caller reads the next page only when it is needed."""
    hit = match_page(quote, page)
    if hit is None and next_page is not None:
        nxt = next_page() if callable(next_page) else next_page
        if nxt is not None:
            hit = match_across(quote, page, nxt)
    return hit


def table_row_join(quote: str, page: PageText,
                   next_page: PageText | None = None) -> RowJoin | None:
    """For a quote that misses: the two table rows it would join, when that alone kept it out."""
    hit, join = _search_page(quote, page)
    if hit is not None:
        return None
    if join is None and next_page is not None:
        hit, join = _search_across(quote, page, next_page)
    return join if hit is None else None
