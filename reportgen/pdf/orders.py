"""Reading orders of a page: the runs of characters a reader could mean, each read straight on.

Pure functions over `PageText`. MuPDF's content-stream order is often right where sorting
by position is wrong and vice versa, so `reportgen.pdf.anchors` tries each order here:

- ``stream``: the content-stream order, the whole page as one run (the spec's rule);
- ``columns``: margin lines first and last; sections split by full-width lines; in each
  section the main type, then smaller type (footnotes), each as columns left to right
  (found from gutters no line crosses), a column top to bottom: a column reads as one run
  and runs on into the next column;
- ``rows``: visual rows top to bottom, the lines (table cells) of a row left to right; a
  row that holds side-by-side cells is a run of its own, and two wide lines side by side
  (prose columns) are never joined.

`row_join` checks a match found in any order against the page's table rows: a quote that
runs from one table row into the next must cover whole rows.

On a page whose text runs down the displayed page (a table stored sideways under
/Rotate), line boxes are turned into the reading frame first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

from reportgen.pdf.text import PageText, TextLine

ORDERS = ("stream", "columns", "rows")


def _visible_lines(page: PageText, skip: frozenset[int] = frozenset()) -> list[TextLine]:
    """Lines with text, their boxes turned into the reading frame (writing direction = +x).

    On a page whose text runs down the displayed page (a table drawn sideways), sorting
    by displayed y would read along the text, so the boxes are rotated first.
    """
    lines = [ln for ln in page.lines if ln.text.strip() and ln.index not in skip]
    if not lines:
        return lines
    counts: dict[tuple[int, int], int] = {}
    for ln in lines:
        k = (round(ln.dir[0]), round(ln.dir[1]))
        counts[k] = counts.get(k, 0) + len(ln.text)
    dx, dy = max(counts, key=lambda k: counts[k])
    # Lines across the dominant direction (a sideways printer's mark in the margin) stay
    # in the stream order only: they would cut through every row and column.
    lines = [ln for ln in lines if (round(ln.dir[0]), round(ln.dir[1])) == (dx, dy)]
    if (dx, dy) == (1, 0) or (dx, dy) == (0, 0):
        return lines
    out = []
    for ln in lines:
        x0, y0, x1, y1 = ln.bbox
        # Rotate so that (dx, dy) becomes (1, 0): x' = x*dx + y*dy, y' = y*dx - x*dy.
        xs = [x * dx + y * dy for x, y in ((x0, y0), (x1, y1))]
        ys = [y * dx - x * dy for x, y in ((x0, y0), (x1, y1))]
        out.append(replace(ln, bbox=(min(xs), min(ys), max(xs), max(ys))))
    return out


def _rows(lines: list[TextLine]) -> list[list[TextLine]]:
    """Group lines into visual rows (vertical overlap), rows top to bottom, lines left to right."""
    rows: list[tuple[float, float, list[TextLine]]] = []
    for ln in sorted(lines, key=lambda l: (l.bbox[1], l.bbox[0])):
        y0, y1 = ln.bbox[1], ln.bbox[3]
        h = max(y1 - y0, 0.1)
        if rows:
            ry0, ry1, members = rows[-1]
            overlap = min(ry1, y1) - max(ry0, y0)
            if overlap >= 0.5 * min(h, max(ry1 - ry0, 0.1)):
                members.append(ln)
                rows[-1] = (min(ry0, y0), max(ry1, y1), members)
                continue
        rows.append((y0, y1, [ln]))
    return [sorted(m, key=lambda l: (l.bbox[0], l.bbox[1])) for _, _, m in rows]


def _content_width(lines: list[TextLine]) -> float:
    """The width the page's text spans."""
    if not lines:
        return 1.0
    return max(max(ln.bbox[2] for ln in lines) - min(ln.bbox[0] for ln in lines), 1.0)


def _gutters(sec: list[TextLine]) -> list[float]:
    """x positions between columns: runs of at least 3 pt that (almost) no line crosses.

    A few crossing lines are tolerated in a long section (a figure label, a stray footer
    piece), so one of them does not fuse two columns.
    """
    lo = int(min(ln.bbox[0] for ln in sec))
    hi = int(max(ln.bbox[2] for ln in sec)) + 1
    cov = [0] * (hi - lo + 1)
    for ln in sec:
        for x in range(int(ln.bbox[0]) - lo + 1, int(ln.bbox[2]) - lo):
            cov[x] += 1
    thr = 0 if len(sec) < 12 else max(1, len(sec) // 40)
    cuts: list[float] = []
    start = None
    for x, c in enumerate(cov + [thr + 1]):
        if c <= thr:
            if start is None:
                start = x
        else:
            if start is not None and x - start >= 3 and start > 0 and x < len(cov):
                cuts.append(lo + (start + x) / 2)
            start = None
    return cuts


def _split_small(sec: list[TextLine]) -> tuple[list[TextLine], list[TextLine]]:
    """Lines in the section's main type size, and lines clearly smaller (under 85%)."""
    weight: dict[float, int] = {}
    for ln in sec:
        h = round(ln.bbox[3] - ln.bbox[1], 0)
        weight[h] = weight.get(h, 0) + len(ln.text)
    if len(weight) < 2:
        return sec, []
    main_h = max(weight, key=lambda h: weight[h])
    main = [ln for ln in sec if ln.bbox[3] - ln.bbox[1] >= 0.85 * main_h]
    small = [ln for ln in sec if ln.bbox[3] - ln.bbox[1] < 0.85 * main_h]
    return main, small


def _column_lines(lines: list[TextLine]) -> list[TextLine]:
    """Lines in column order: sections split by full-width lines; in each, columns left to right.

    Lines in the top and bottom page margins (running heads, folios, printer's marks) are
    read first and last and take no part in finding columns.
    """
    if not lines:
        return []
    top = [ln for ln in lines if ln.band == "top"]
    bottom = [ln for ln in lines if ln.band == "bottom"]
    body = [ln for ln in lines if not ln.band]
    if not body:
        return [ln for row in _rows(lines) for ln in row]
    wide = 0.55 * _content_width(body)
    sections: list[list[TextLine]] = []
    cur: list[TextLine] = []
    for ln in sorted(body, key=lambda l: (l.bbox[1], l.bbox[0])):
        if ln.bbox[2] - ln.bbox[0] > wide:
            if cur:
                sections.append(cur)
                cur = []
            sections.append([ln])
        else:
            cur.append(ln)
    if cur:
        sections.append(cur)
    out: list[TextLine] = [ln for row in _rows(top) for ln in row]
    for sec in sections:
        # Smaller type (footnotes, captions) reads after the body, so a sentence runs on
        # from the foot of one column to the head of the next.
        main, small = _split_small(sec)
        for part in (main, small):
            if not part:
                continue
            cuts = _gutters(part)
            cols: list[list[TextLine]] = [[] for _ in range(len(cuts) + 1)]
            for ln in part:
                k = sum(1 for c in cuts if ln.bbox[0] >= c)
                cols[k].append(ln)
            for col in cols:
                for row in _rows(col):
                    out.extend(row)
    out.extend(ln for row in _rows(bottom) for ln in row)
    return out


def _chars_of(page: PageText, lines: Iterable[TextLine]) -> list[int]:
    """Char indices of the given lines, each line's chars in stream order."""
    by_line = line_chars(page)
    out: list[int] = []
    for ln in lines:
        out.extend(by_line.get(ln.index, ()))
    return out


def line_chars(page: PageText) -> dict[int, list[int]]:
    """Char indices of each line, in stream order (cached on the page)."""
    cache = page.memo
    got = cache.get("line_chars")
    if got is None:
        got = {}
        for i, ch in enumerate(page.chars):
            got.setdefault(ch.line, []).append(i)
        cache["line_chars"] = got
    return got


def runs(page: PageText, order: str, skip: frozenset[int] = frozenset()) -> list[list[int]]:
    """The page's chars as runs in one reading order; a match must lie within one run."""
    ck = ("runs", order, skip)
    got = page.memo.get(ck)
    if got is not None:
        return got
    if order == "stream":
        out = [[i for i, ch in enumerate(page.chars) if ch.line not in skip] if skip
               else list(range(len(page.chars)))]
    elif order == "columns":
        out = [_chars_of(page, _column_lines(_visible_lines(page, skip)))]
    elif order == "rows":
        lines = _visible_lines(page, skip)
        out = []
        cur: list[int] = []
        wide = 0.3 * _content_width(lines)
        for row in _rows(lines):
            if len(row) > 1 and cur:  # side-by-side cells: a run of its own
                out.append(cur)
                cur = []
            for k, ln in enumerate(row):
                # Two wide lines side by side are prose columns, not cells: never join them.
                if k and ln.bbox[2] - ln.bbox[0] >= wide and (
                        row[k - 1].bbox[2] - row[k - 1].bbox[0] >= wide) and cur:
                    out.append(cur)
                    cur = []
                cur.extend(_chars_of(page, [ln]))
            if len(row) > 1:
                out.append(cur)
                cur = []
        if cur:
            out.append(cur)
    else:
        raise ValueError(f"unknown reading order {order!r}")
    page.memo[ck] = out
    return out


# ---- table rows ------------------------------------------------------------------------
#
# The lines of a visual row (lines that overlap vertically) that nearly touch are one
# *cell* (MuPDF splits a line of prose at a subscript or a wide gap); the row is split
# where two wide cells stand side by side (prose columns), and each piece is a *segment*.
# A segment of two or more cells is a table row. A quote that crosses from one table row
# into the next must cover whole rows (ledger.md section 5), so a figure of one row cannot
# be joined to the label of the next.

# Lines of one row closer than this many line heights are pieces of one cell.
CELL_GAP = 1.0
# Gaps within this ratio of each other, all under WORD_GAP line heights, are word gaps.
EVEN_GAP = 1.3
WORD_GAP = 3.0
# Two cells side by side this wide (a share of the text's width) are prose columns; three
# columns of prose are each a little under a third.
PROSE_SHARE = 0.25


class RowJoin(NamedTuple):
    """Two table rows a quote joins without covering them whole, as a reader sees them."""

    first: str
    second: str
    page: int


class _RowModel(NamedTuple):
    vrow: dict[int, int]  # line index -> visual row, top to bottom
    cell: dict[int, tuple[float, float]]  # line index -> x extent of its cell (reading frame)
    seg: dict[int, int]  # line index -> segment
    segs: list[tuple[TextLine, ...]]  # each segment's lines left to right, reading-frame boxes
    table: list[bool]  # per segment: two or more cells side by side


def _cells(row: list[TextLine]) -> list[list[TextLine]]:
    """A visual row's lines (left to right) grouped into cells.

    Pieces that nearly touch are one cell (a line split at a subscript); so are words set
    apart by even gaps, as a justified line that MuPDF split at each stretched word gap is:
    table columns rarely stand at even gaps from the first cell to the last.
    """
    cells: list[list[TextLine]] = []
    gaps: list[float] = []  # gap before each cell but the first, in line heights
    right = 0.0
    for ln in row:
        h = max(min(ln.bbox[3] - ln.bbox[1], cells[-1][-1].bbox[3] - cells[-1][-1].bbox[1])
                if cells else 1.0, 0.1)
        gap = (ln.bbox[0] - right) / h
        if cells and gap < CELL_GAP:
            cells[-1].append(ln)
            right = max(right, ln.bbox[2])
        else:
            if cells:
                gaps.append(gap)
            cells.append([ln])
            right = ln.bbox[2]
    # Even gaps: a run of two or more gaps within 30% of each other, none wide.
    out = [cells[0]]
    k = 0
    while k < len(gaps):
        j = k
        while (j + 1 < len(gaps) and max(gaps[k:j + 2]) <= EVEN_GAP * min(gaps[k:j + 2])
               and max(gaps[k:j + 2]) < WORD_GAP):
            j += 1
        if j > k:  # gaps k..j are even: cells k..j+1 are words of one line
            for c in cells[k + 1:j + 2]:
                out[-1].extend(c)
            k = j + 1
        else:
            out.append(cells[k + 1])
            k += 1
    return out


def _row_model(page: PageText) -> _RowModel:
    """The page's visual rows, cells and segments (cached on the page)."""
    got = page.memo.get("row_model")
    if got is None:
        lines = _visible_lines(page)
        wide = PROSE_SHARE * _content_width(lines)
        vrow: dict[int, int] = {}
        cell: dict[int, tuple[float, float]] = {}
        seg: dict[int, int] = {}
        segs: list[tuple[TextLine, ...]] = []
        table: list[bool] = []
        for r, row in enumerate(_rows(lines)):
            cur: list[list[TextLine]] = []
            prev = 0.0
            for c in _cells(row):
                x0, x1 = min(ln.bbox[0] for ln in c), max(ln.bbox[2] for ln in c)
                if cur and prev >= wide and x1 - x0 >= wide:  # prose columns: never one row
                    segs.append(tuple(ln for cc in cur for ln in cc))
                    table.append(len(cur) > 1)
                    cur = []
                cur.append(c)
                prev = x1 - x0
                for ln in c:
                    vrow[ln.index] = r
                    cell[ln.index] = (x0, x1)
                    seg[ln.index] = len(segs)
            segs.append(tuple(ln for cc in cur for ln in cc))
            table.append(len(cur) > 1)
        got = _RowModel(vrow, cell, seg, segs, table)
        page.memo["row_model"] = got
    return got


def _carriage_return(m: _RowModel, a: int, b: int) -> bool:
    """True when reading on from line a to line b goes a row down and back to the left, to
    a column that a's row also has, and either line is in a table row: the reader left a
    table row for the next.

    Prose never does this within a column (its next line starts under the last one), and a
    cell wrapped onto a second line stays under itself, so neither counts; nor does prose
    that runs on from the last column of one band of columns to the first of the next,
    when the first band's last row has nothing in that column. A page break is not looked
    at: prose in columns runs from the last column to the first one there too.
    """
    x0, x1 = m.cell[b]
    if not (m.vrow[b] > m.vrow[a] and x1 <= m.cell[a][0]
            and (m.table[m.seg[a]] or m.table[m.seg[b]])):
        return False
    return any(m.cell[ln.index][0] < x1 and m.cell[ln.index][1] > x0
               for ln in m.segs[m.seg[a]])


def _covered(page: PageText, line: int, idxs: set[int]) -> bool:
    """Every visible character of the line is in the match (a line-end hyphen aside)."""
    chars = line_chars(page).get(line, ())
    visible = [i for i in chars if not page.chars[i].c.isspace()]
    while visible and page.chars[visible[-1]].c in "-\u2010\u00ad" and visible[-1] not in idxs:
        visible.pop()
    return all(i in idxs for i in visible)


def _within(ln: TextLine, lo: float, hi: float) -> bool:
    """The line stands (at least partly) within the columns [lo, hi]."""
    return ln.bbox[0] < hi - 0.5 and ln.bbox[2] > lo + 0.5


def _row_text(seg: tuple[TextLine, ...], lo: float, hi: float, limit: int = 80) -> str:
    """A segment's lines within [lo, hi], as a reader sees the row."""
    text = " ".join(" ".join(ln.text.split()) for ln in seg
                    if _within(ln, lo, hi) and ln.text.strip())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def row_join(page: PageText, idxs: Sequence[int]) -> RowJoin | None:
    """The rows a match (char indices in reading order) joins without covering them whole.

    None when the match stays in one table row, or crosses rows only over whole rows: from
    a row's first cell to a row's last cell, within the columns the match spans (so a
    table beside another, or beside prose, has rows of its own). A read down one column
    ("14.59% 2.83%") does not leave the rows' order and is not checked.
    """
    chars = page.chars
    first = chars[idxs[0]].line if idxs else None
    if all(chars[i].line == first for i in idxs):  # one line: no row is left, no model needed
        return None
    m = _row_model(page)
    seq: list[int] = []  # the lines the match touches, in match order, each once
    for i in idxs:
        ln = page.chars[i].line
        if ln in m.vrow and (not seq or seq[-1] != ln):
            seq.append(ln)
    crossing = next(((a, b) for a, b in zip(seq, seq[1:]) if _carriage_return(m, a, b)), None)
    if crossing is None:
        return None
    lo = min(m.cell[ln][0] for ln in seq)
    hi = max(m.cell[ln][1] for ln in seq)
    got = set(idxs)
    for sid in dict.fromkeys(m.seg[ln] for ln in seq):
        if m.table[sid] and any(_within(ln, lo, hi) and not _covered(page, ln.index, got)
                                for ln in m.segs[sid]):
            a, b = crossing
            return RowJoin(_row_text(m.segs[m.seg[a]], lo, hi),
                           _row_text(m.segs[m.seg[b]], lo, hi), page.number)
    return None
