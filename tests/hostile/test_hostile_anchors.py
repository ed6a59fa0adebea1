"""Attacks on the anchor rule (ledger.md section 5): quotes that a reader would not make."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.model import Document, Fact, Loc
from reportgen.pdf import anchors
from reportgen.pdf.anchors import match_across, match_page
from reportgen.pdf.documents import DocumentSet
from reportgen.pdf.hints import miss_hint
from reportgen.pdf.text import PageText, build_page
from reportgen.pdf.textlayer import extract_page
from reportgen.verify.fact import verify_fact

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "pdfs" / "300274.pdf"

# ---- 08: a quote that joins two table rows -----------------------------------------------


def _sample_page(number: int) -> PageText:
    with pymupdf.open(SAMPLE) as doc:
        return extract_page(doc[number - 1])


P36 = _sample_page(36)
ROW1 = "1 供应商一 6,928,853,013.03 14.59%"
ROW2 = "2 明阳新能源 1,343,812,406.58 2.83%"


LOC = Loc("tests/hostile/test_hostile_anchors.py", 1)


@pytest.fixture(scope="module")
def docs():
    """One DocumentSet over 300274.pdf for the module, as one verify run has for all its
    facts: a miss reads every page for its hint, once per module rather than per test."""
    with DocumentSet({"300274": Document("300274", SAMPLE, "300274", None, LOC)}) as ds:
        yield ds


def _verify(docs: DocumentSet, quote: str, page: int = 36):
    fact = Fact(id="h8", report="H", statement="-", confidence=None, note=None, loc=LOC,
                doc="300274", page=page, quote=quote)
    return verify_fact(fact, docs)


def test_hardening_08_figure_of_one_row_joined_to_the_next_label_misses_naming_the_rows(docs):
    r = _verify(docs, "14.59% 2 明阳新能源")
    assert r.status == "miss" and r.anchor is None
    assert r.message == (f'the quote joins two table rows on p.36 (row "{ROW1}" and row '
                         f'"{ROW2}"); quote one row, or whole rows')


@pytest.mark.parametrize("quote", [
    f"{ROW1} {ROW2}",  # two whole rows
    # the header row and the first row
    "序号 供应商名称 采购额（元） 占年度采购总额比例 " + ROW1,
    f"{ROW2} 3 供应商二 1,234,517,293.41 2.60%",
])
def test_hardening_08_quote_covering_whole_rows_hits_exact(docs, quote):
    r = _verify(docs, quote)
    assert r.status == "hit" and r.anchor.method == "exact", r.message
    assert len(r.anchor.rects) == 8  # four cells in each of two rows


@pytest.mark.parametrize("quote", [ROW1, "供应商一 6,928,853,013.03 14.59%",
                                   "明阳新能源 1,343,812,406.58", "6,928,853,013.03"])
def test_hardening_08_quote_within_one_row_hits(docs, quote):
    r = _verify(docs, quote)
    assert r.status == "hit" and r.anchor.method == "exact", r.message


@pytest.mark.parametrize("quote", [
    "1 供应商一 6,928,853,013.03 14.59% 2",  # a whole row and the next row's first cell
    # a value and the label of the next row of a two-column table
    "13.84% 前五名客户销售额中关联方销售额占年度销售总额比例",
    "6,928,853,013.03 14.59% " + ROW2,  # the end of a row and the whole next row
    "2.54% 合计 -- 11,923,973,315.00 25.12%",  # the last share and the total row
])
def test_hardening_08_partial_rows_joined_miss(docs, quote):
    r = _verify(docs, quote)
    assert r.status == "miss", r.anchor
    assert r.message.startswith("the quote joins two table rows on p.36 (row ")


# The two tables of p.36 as a reader reads them, row by row (customers, then suppliers).
P36_ROWS = [[" ".join(P36.lines[i].text.split()) for i in range(a, a + 4)]
            for first in (11, 47) for a in range(first, first + 28, 4)]


@pytest.mark.parametrize("k", range(len(P36_ROWS) - 1))
def test_hardening_08_on_the_sample_tables_each_row_hits_and_each_join_misses(k):
    if k == 6:  # the customers' total row, then (further down) the suppliers' header
        return
    row, nxt = P36_ROWS[k], P36_ROWS[k + 1]
    assert match_page(" ".join(row), P36) is not None
    assert match_page(" ".join(row + nxt), P36) is not None
    assert match_page(" ".join(row + nxt[:-1]), P36) is None  # the next row but its last cell
    join = f"{row[-1]} {nxt[0]} {nxt[1]}"  # the last figure of a row, the next row's label
    assert match_page(join, P36) is None
    assert anchors.table_row_join(join, P36)[:2] == (" ".join(row), " ".join(nxt))


# A hand-made page: a title, a table of three columns with a header, and prose under it.
CW, LH, PITCH = 5.0, 10.0, 14.0
TABLE = [
    ["No.", "Supplier", "Amount", "Share"],
    ["1", "Alpha Cells", "6,928.03", "14.59%"],
    ["2", "Beta Wind", "1,343.58", "2.83%"],
    ["3", "Gamma Ltd", "1,234.41", "2.60%"],
]
COLS = [60.0, 100.0, 250.0, 400.0]


Line = list[tuple[str, tuple[float, float, float, float]]]


def _line(x: float, top: float, text: str) -> Line:
    """One text line of fixed-width characters, as build_page takes it."""
    return [(c, (x + i * CW, top, x + (i + 1) * CW, top + LH)) for i, c in enumerate(text)]


def table_page(stream: str = "rows", prose: bool = True, extra: tuple[Line, ...] = ()) -> PageText:
    """The table under a title: `stream` "rows" draws it row by row, "cols" column by column."""
    lines = [_line(60, 60, "Top suppliers of the year")]
    cells = [(r, c) for r in range(len(TABLE)) for c in range(len(TABLE[r]))]
    if stream == "cols":
        cells.sort(key=lambda rc: (rc[1], rc[0]))
    for r, c in cells:
        lines.append(_line(COLS[c], 80 + PITCH * r, TABLE[r][c]))
    if prose:
        lines.append(_line(60, 80 + PITCH * len(TABLE) + 10,
                           "The shares are of annual procurement."))
    return build_page(1, 600, 800, lines + list(extra))


def test_hardening_08_hand_made_table_join_misses_and_whole_rows_hit():
    page = table_page()
    assert match_page("14.59% 2 Beta Wind", page) is None
    join = anchors.table_row_join("14.59% 2 Beta Wind", page)
    assert join == ("1 Alpha Cells 6,928.03 14.59%", "2 Beta Wind 1,343.58 2.83%", 1)
    assert miss_hint("14.59% 2 Beta Wind", page) == (
        'the quote joins two table rows on p.1 (row "1 Alpha Cells 6,928.03 14.59%" and row '
        '"2 Beta Wind 1,343.58 2.83%"); quote one row, or whole rows')
    a = match_page("1 Alpha Cells 6,928.03 14.59% 2 Beta Wind 1,343.58 2.83%", page)
    assert a is not None and a.method == "exact"
    assert (a.bbox[1], a.bbox[3]) == (80 + PITCH, 80 + 2 * PITCH + LH)  # rows 1 and 2
    assert anchors.table_row_join("1 Alpha Cells 6,928.03 14.59%", page) is None
    # the title and the header row: the title is no table row
    a = match_page("Top suppliers of the year No. Supplier Amount Share", page)
    assert a is not None and a.method == "exact"


def test_hardening_08_a_second_occurrence_that_reads_as_the_page_does_still_hits():
    # "2.83% 3 Gamma Ltd" joins rows 2 and 3, and also stands in the prose under the table.
    page = table_page(extra=(_line(60, 200, "2.83% 3 Gamma Ltd is the third"),))
    a = match_page("2.83% 3 Gamma Ltd", page)
    assert a is not None and a.bbox[1] >= 200


def test_hardening_08_table_drawn_column_by_column_reads_rows_and_columns():
    page = table_page(stream="cols")
    assert match_page("1 Alpha Cells 6,928.03 14.59%", page).method == "exact+rows"
    assert match_page("Alpha Cells Beta Wind", page).method == "exact"  # a column, as drawn
    assert match_page("14.59% 2 Beta Wind", page) is None


def test_hardening_08_wrapped_cells_stay_one_row():
    # Row 1's second cell wraps onto a second line, beside the wrapped name of the agency.
    # Drawn cell by cell, each cell's lines top to bottom (as cn-bond-tables.pdf is).
    lines = [
        _line(60, 100, "2021"), _line(100, 100, "able to repay, with"),
        _line(100, 113, "low default risk"), _line(250, 100, "Rating"),
        _line(250, 113, "Agency Ltd"), _line(400, 100, "stable"),
        _line(60, 140, "2020"), _line(100, 140, "able to repay"), _line(250, 140, "Rating Co"),
        _line(400, 140, "stable"),
    ]
    page = build_page(1, 600, 800, lines)
    for q in ("able to repay, with low default risk", "with low default risk",
              "2021 able to repay, with low default risk Rating Agency Ltd stable",
              "2021 able to repay, with low default risk Rating Agency Ltd stable "
              "2020 able to repay Rating Co stable"):
        assert match_page(q, page) is not None, q
    assert match_page("Agency Ltd stable 2020", page) is None
    assert match_page("stable 2020 able to repay", page) is None


def _prose_columns() -> PageText:
    left = ["Two-column layouts are common in", "research papers and in the notes",
            "to annual reports. A reader takes", "one column from top to bottom."]
    right = ["then moves to the top of the next", "column to continue the sentence.",
             "Revenue in the segment rose by", "eleven per cent."]
    lines = []
    for k, (a, b) in enumerate(zip(left, right)):
        lines.append(_line(60, 100 + 12 * k, a))
        lines.append(_line(300, 100 + 12 * k, b))
    return build_page(1, 600, 800, lines)


@pytest.mark.parametrize("quote", [
    "common in research papers and in the notes to annual",  # wraps in the left column
    "the segment rose by eleven per cent.",  # wraps in the right column
    "A reader takes one column from top to bottom. then moves to the top",  # column to column
])
def test_hardening_08_prose_wrapping_across_lines_still_hits(quote):
    assert match_page(quote, _prose_columns()) is not None


def test_hardening_08_prose_beside_a_table_still_wraps():
    lines = [_line(20, 100 + 14 * k, t) for k, t in enumerate(
        ["The board reviews", "suppliers each year", "and sets limits."])]
    for r, row in enumerate(TABLE):
        for c, cell in enumerate(row):
            lines.append(_line(200 + 90 * c, 100 + 14 * r, cell))
    page = build_page(1, 600, 800, lines)
    assert match_page("reviews suppliers each year and sets", page) is not None
    whole = "1 Alpha Cells 6,928.03 14.59% 2 Beta Wind 1,343.58 2.83%"
    assert match_page(whole, page) is not None
    assert match_page("14.59% 2 Beta Wind", page) is None


@pytest.mark.parametrize("last", [
    [None, "2018-23-51.", "paragraph (h)(2) of this AD."],
    ["the existing AFM, and for", "the information identified", "paragraph (h)(2) of this AD."],
])
def test_hardening_08_prose_in_bands_of_columns_runs_on_to_the_next_band(last):
    # Three columns; the upper band ends (short in the middle and right columns, or
    # balanced) and the text runs on at the top of the lower band's first column (as in
    # fedreg-2020-17221.pdf p.7).
    rows = [
        (100, ["paragraphs (h)(2) through the", "Operating Procedures chapter",
               "revise the General paragraph"]),
        (112, ["the existing AFM.", "information identified as", "information in figure 1 to"]),
        (124, last),
        (140, ["(3) In the Operating Procedures", "paragraph with the information", None]),
        (152, ["replace the existing Airspeed", "paragraph (h)(3) of this AD.", None]),
    ]
    lines = []
    for band in ((0, 1, 2), (3, 4)):
        for col, x in enumerate((45.0, 222.0, 399.0)):
            lines += [_line(x, rows[r][0], rows[r][1][col]) for r in band if rows[r][1][col]]
    page = build_page(1, 600, 800, lines)
    q = "to paragraph (h)(2) of this AD. (3) In the Operating Procedures"
    assert match_page(q, page) is not None


def test_hardening_08_a_line_split_into_words_or_at_a_subscript_is_still_one_line():
    def words(x: float, top: float, text: str, gap: float) -> list[Line]:
        out = []
        for w in text.split():
            out.append(_line(x, top, w))
            x += len(w) * CW + gap
        return out

    lines = []
    # Left column: a justified footnote that MuPDF split at each stretched word gap.
    lines += words(60, 100, "The task description can be found at", 12)
    lines += words(60, 112, "http://example.org/tests/ace/ and the", 11.5)
    lines.append(_line(60, 124, "guidelines at the same place."))
    # Right column: a line split at a subscript (the pieces overlap).
    lines += [_line(320, 100, "a passage p+"), _line(377, 100, "i , along with (neg-")]
    lines += [_line(320, 112, "ative) passages p-"), _line(405, 112, "i,j. We optimize")]
    lines.append(_line(320, 124, "the loss function."))
    page = build_page(1, 600, 800, lines)
    for q in ("can be found at http://example.org/tests/ace/ and the guidelines",
              "along with (neg- ative) passages p- i,j. We optimize the loss"):
        assert match_page(q, page) is not None, q


# The rows' reading-order text, for the properties below (cell text is unique on the page).
ROW_TEXTS = [" ".join(r) for r in TABLE]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hardening_08_any_stretch_of_one_row_hits(data):
    page = table_page(stream=data.draw(st.sampled_from(["rows", "cols"])))
    text = data.draw(st.sampled_from(ROW_TEXTS))
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i + 1, len(text)))
    q = text[i:j]
    if q.strip():
        assert match_page(q, page) is not None, q


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hardening_08_a_stretch_into_the_next_row_hits_only_over_whole_rows(data):
    # From anywhere in row r into at least the second cell of row r + 1 (a figure joined to
    # the next label). A column read down one column ("14.59% 2.83%") is not a row join.
    stream = data.draw(st.sampled_from(["rows", "cols"]))
    page = table_page(stream=stream)
    r = data.draw(st.integers(0, len(ROW_TEXTS) - 2))
    first, second = ROW_TEXTS[r], ROW_TEXTS[r + 1]
    i = data.draw(st.integers(0, len(first) - 1))  # start in row r
    j = data.draw(st.integers(len(TABLE[r + 1][0]) + 2, len(second)))  # end in row r + 1
    q = first[i:] + " " + second[:j]
    if not first[i:].strip():
        return
    hit = match_page(q, page)
    whole = not first[:i].strip() and j == len(second)
    if not whole:
        assert hit is None, q
    elif stream == "rows":  # a table drawn column by column has no run of two whole rows
        assert hit is not None, q


def test_hardening_08_a_quote_running_onto_the_next_page_joins_no_rows_on_either_page():
    a = table_page(prose=False)
    b = build_page(2, 600, 800, [_line(COLS[c], 80 + PITCH * r, t) for r, row in enumerate(
        [["4", "Delta Power", "999.10", "1.00%"], ["5", "Epsilon Co", "888.20", "0.90%"]])
        for c, t in enumerate(row)])
    assert match_across("2.83% 3 Gamma Ltd 1,234.41 2.60% 4 Delta Power", a, b) is None
    assert match_across("2.60% 4 Delta Power 999.10 1.00% 5 Epsilon", a, b) is None
    hit = match_across("3 Gamma Ltd 1,234.41 2.60% 4 Delta Power 999.10 1.00% 5 Epsilon Co "
                       "888.20 0.90%", a, b)
    assert hit is not None and (hit.page, hit.page_end) == (1, 2)
    assert miss_hint("2.83% 3 Gamma Ltd 1,234.41 2.60% 4 Delta Power", a, next_page=b) == (
        'the quote joins two table rows on p.1 (row "2 Beta Wind 1,343.58 2.83%" and row '
        '"3 Gamma Ltd 1,234.41 2.60%"); quote one row, or whole rows')
