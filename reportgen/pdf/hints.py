"""Explain a miss: where else the quote stands, or the closest text and its first difference.

Pure functions over `PageText`. Fuzzy similarity only ever feeds these hints, never a hit.
The window search is difflib over windows near the quote's length, coarse then refined,
with a cap on the number of windows so a dense page stays fast.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from reportgen.pdf.anchors import (first_run_key, fold_quote, Key, last_run_key, whole_key, is_space,
                                   running_lines, table_row_join)
from reportgen.pdf.text import PageText, TextChar


def char_name(c: str) -> str:
    """'–' (U+2013 EN DASH): a character as a reader needs to see it in a message."""
    name = unicodedata.name(c, "")
    shown = c if c.isprintable() and not c.isspace() else ""
    code = f"U+{ord(c):04X}" + (f" {name}" if name else "")
    return f"'{shown}' ({code})" if shown else f"({code})"


@dataclass(frozen=True)
class Closest:
    """The window of page text most like the quote, for a miss message."""

    similarity: float
    snippet: str
    difference: str  # "" when no single first difference can be named
    end_page: int = 0  # the page the window ends on, when it runs onto the next page


def closest_text(quote: str, page: PageText, next_page: PageText | None = None,
                 max_windows: int = 4000) -> Closest | None:
    """The page text most like the quote (difflib on windows near the quote's length); bounded.

    With `next_page`, windows may also run from this page onto the next (running heads and
    feet skipped), so a cross-page quote with one wrong character still gets a close window.
    """
    level = "quotes"  # nfkc, line-end hyphens and typographic quotes: they are no difference
    q, qsrc = fold_quote(quote, level)
    if not q or not page.has_text_layer:
        return None
    chars = list(page.chars)
    keys: list[tuple[Key, int]] = []  # (key, last start position allowed)
    for order in ("stream", "columns"):
        k = _dehyphenated(whole_key(page, order, level))
        keys.append((k, len(k.text)))
    if next_page is not None and next_page.has_text_layer:
        off = len(chars)
        chars += list(next_page.chars)
        sa, sb = running_lines(page, next_page), running_lines(next_page, page)
        for order in ("stream", "columns"):
            ka = _dehyphenated(last_run_key(page, order, level, sa))
            kb = _dehyphenated(first_run_key(next_page, order, level, sb))
            joined = Key(ka.text + kb.text, ka.src + tuple(i + off for i in kb.src),
                          frozenset(), ka.run + tuple(i + off for i in kb.run))
            keys.append((joined, len(ka.text) - 1))
    best: tuple[float, Key, int, int] | None = None
    sm = SequenceMatcher(autojunk=False)
    sm.set_seq2(q)
    m = len(q)
    for key, last in keys:
        n = len(key.text)
        if n == 0:
            continue
        top = max(min(n - m, last), 0)
        step = max(1, m // 4, (n // max_windows) + 1)
        starts = list(range(0, top + 1, step))
        if starts[-1] != top:
            starts.append(top)
        for s in starts:
            sm.set_seq1(key.text[s:s + m])
            floor = best[0] if best else -1.0
            if sm.real_quick_ratio() <= floor or sm.quick_ratio() <= floor:
                continue
            r = sm.ratio()
            if r > floor:
                best = (r, key, s, min(n, s + m))
    if best is None:
        return None
    # Refine around the best coarse window: every start near it, lengths near the quote's.
    _, key, s0, _ = best
    n = len(key.text)
    step = max(1, m // 4)
    for s in range(max(0, s0 - step), min(n, s0 + step) + 1):
        for ln in range(max(1, m - 3), m + 4):
            if s + ln > n:
                break
            sm.set_seq1(key.text[s:s + ln])
            if sm.real_quick_ratio() <= best[0] or sm.quick_ratio() <= best[0]:
                continue
            r = sm.ratio()
            if r > best[0]:
                best = (r, key, s, s + ln)
    _, key, s, e = best
    # Trim the window to the span the quote actually aligns with, a little room each side.
    s, e = max(0, s - 4), min(n, e + 4)
    blocks = [b for b in SequenceMatcher(None, q, key.text[s:e], autojunk=False)
              .get_matching_blocks() if b.size]
    if blocks:
        # Keep the page characters that stand where the quote's unmatched head or tail would
        # be, so "1,234.6" against "1,234.5" reads as 5 for 6, not as a missing character.
        head, tail = blocks[0].a, len(q) - (blocks[-1].a + blocks[-1].size)
        s, e = (max(0, s + blocks[0].b - head),
                min(n, s + blocks[-1].b + blocks[-1].size + tail))
    window = key.text[s:e]
    sm2 = SequenceMatcher(None, q, window, autojunk=False)
    r = sm2.ratio()
    a, b = key.run.index(key.src[s]), key.run.index(key.src[e - 1])
    shown = list(key.run[a:b + 1])
    snippet = _display(chars, shown, len(page.chars))
    diff = ""
    for tag, i1, i2, j1, j2 in sm2.get_opcodes():
        if tag == "equal":
            continue
        at = qsrc[i1] + 1 if i1 < len(qsrc) else len(quote)
        page_c = chars[key.src[s + j1]].c if j1 < j2 else ""
        quote_c = quote[qsrc[i1]] if i1 < i2 else ""
        if tag == "replace":
            diff = f"page has {char_name(page_c)} where the quote has {char_name(quote_c)}"
        elif tag == "delete":
            diff = f"the quote has {char_name(quote_c)} where the page has nothing"
        else:
            diff = f"page has {char_name(page_c)} that the quote lacks"
        diff = f"first difference at char {at}: {diff}"
        break
    sim = r if r >= 1.0 else min(r, 0.99)
    end_page = page.number + 1 if shown and shown[-1] >= len(page.chars) else page.number
    return Closest(sim, snippet, diff, end_page)


def _dehyphenated(key: Key) -> Key:
    """The key without its optional (line-end) hyphens."""
    if not key.optional:
        return key
    keep = [i for i in range(len(key.text)) if i not in key.optional]
    return Key("".join(key.text[i] for i in keep), tuple(key.src[i] for i in keep),
                frozenset(), key.run)


def _display(chars: Sequence[TextChar], idxs: list[int], split: int, limit: int = 160) -> str:
    """Page characters as a reader sees them: a space between lines, whitespace collapsed."""
    out: list[str] = []
    prev = None
    for i in idxs:
        ch = chars[i]
        line = (i >= split, ch.line)
        if prev is not None and line != prev:
            out.append(" ")
        out.append(" " if is_space(ch.c) else ch.c)
        prev = line
    text = " ".join("".join(out).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def pages_phrase(pages: Sequence[str], limit: int = 5) -> str:
    """'p.3', 'p.3 and p.9', 'p.3, p.5, p.9 and 4 more pages'."""
    if len(pages) <= limit:
        if len(pages) == 1:
            return pages[0]
        return ", ".join(pages[:-1]) + " and " + pages[-1]
    return ", ".join(pages[:limit]) + f" and {len(pages) - limit} more pages"


def miss_hint(quote: str, page: PageText, found_on: Sequence[str] = (),
              next_page: PageText | None = None) -> str:
    """Why a quote missed `page` and what helps: another page that has it, else the closest text.

    `found_on` names the other pages of the document where the quote hits by the same rule
    ("p.13" or "p.12 running onto p.13"); the caller finds them, since that needs the document.
    """
    n = page.number
    if not page.has_text_layer:
        return (f"p.{n} has no text layer (a scan?); quote from a page with text "
                "or OCR the PDF first")
    if not "".join(quote.split()):
        return "the quote is empty"
    head = f"quote not found on p.{n}"
    if found_on:
        return f"{head}; it occurs on {pages_phrase(list(found_on))}"
    join = table_row_join(quote, page, next_page)
    if join is not None:
        return (f'the quote joins two table rows on p.{join.page} (row "{join.first}" and row '
                f'"{join.second}"); quote one row, or whole rows')
    best = closest_text(quote, page, next_page)
    if best is None:
        return head
    where = f"p.{n}" if best.end_page in (0, n) else f"p.{n}\u2013{best.end_page}"
    if best.similarity < 0.5:
        return (f'{head}; no text on {where} resembles it (best similarity '
                f'{best.similarity:.2f}: "{best.snippet}")')
    msg = f'{head}; closest text on {where} (similarity {best.similarity:.2f}): "{best.snippet}"'
    if best.difference:
        msg += f" — {best.difference}"
    return msg
