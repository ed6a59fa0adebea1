"""The anchor rule (ledger.md section 5) on hand-built PageText values and generated PDFs."""

from __future__ import annotations

import pymupdf
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdf_fixtures as F
from reportgen.pdf.anchors import match_across, match_page, match_quote, running_lines
from reportgen.pdf.hints import char_name, closest_text, miss_hint
from reportgen.pdf.text import PageText, build_page
from reportgen.pdf.textlayer import extract_page


def pages_of(data: bytes) -> list[PageText]:
    doc = pymupdf.open(stream=data, filetype="pdf")
    return [extract_page(p) for p in doc]


def synthetic(lines: list[tuple[float, float, str]], number: int = 1,
              width: float = 600, height: float = 800, cw: float = 5.0) -> PageText:
    """A PageText from (x, top, text) lines: fixed-width chars, 10 pt tall."""
    out = []
    for x, top, text in lines:
        out.append([(c, (x + i * cw, top, x + (i + 1) * cw, top + 10)) for i, c in enumerate(text)])
    return build_page(number, width, height, out)


def inside(box, page: PageText) -> bool:
    x0, y0, x1, y1 = box
    return -0.5 <= x0 <= x1 <= page.width + 0.5 and -0.5 <= y0 <= y1 <= page.height + 0.5


# ---- levels --------------------------------------------------------------------------

LIG = pages_of(F.ligature_pdf())[0]


def test_exact_first_and_whitespace_free():
    a = match_page("Thefinancial  statements", synthetic([(72, 100, "The financial statements")]))
    assert a is not None and a.method == "exact"


def test_ligature_typed_as_text_layer_is_exact():
    a = match_page("The \ufb01nancial statements were signed", LIG)
    assert a and a.method == "exact"


def test_ligature_typed_as_fi_is_nfkc():
    a = match_page("The financial statements were signed on 3 March 2023.", LIG)
    assert a and a.method == "nfkc"
    assert a.page == a.page_end == 1
    x0, y0, x1, y1 = a.bbox
    assert 71 < x0 < 73 and 95 < y0 < 101 and y1 < 115


def test_nbsp_typed_as_space_is_space_level():
    a = match_page("Total revenue was 1 234 million", LIG)
    assert a and a.method == "space"


def test_nbsp_typed_as_nbsp_is_exact():
    a = match_page("Total revenue was 1\u00a0234 million", LIG)
    assert a and a.method == "exact"


def test_en_dash_is_not_a_hyphen():
    assert match_page("Payment terms are 30-60 days", LIG) is None
    assert match_page("Payment terms are 30\u201360 days", LIG).method == "exact"


def test_different_digit_and_missing_punctuation_miss():
    assert match_page("signed on 4 March 2023", LIG) is None
    assert match_page("up 52 per cent", LIG) is None


def test_fullwidth_digits_fold_with_nfkc():
    page = pages_of(F.cjk_pdf())[0]
    assert match_page("占年度采购总额比例１４．５９％", page).method == "exact"
    assert match_page("占年度采购总额比例14.59%", page).method == "nfkc"
    assert match_page("占年度采购总额比例14.58%", page) is None


def test_unicode_hyphen_is_a_hyphen_but_minus_and_dashes_are_not():
    page = synthetic([(72, 100, "a well\u2010known fact; \u22125 and 3\u20144")])
    assert match_page("a well-known fact", page).method == "nfkc"
    assert match_page("-5", page) is None
    assert match_page("3-4", page) is None


def test_superscript_is_not_folded():
    page = synthetic([(72, 100, "area of 10\u00b2 metres")])
    assert match_page("area of 102 metres", page) is None
    assert match_page("area of 10\u00b2 metres", page).method == "exact"


HYP = pages_of(F.hyphen_pdf())[0]


def test_hyphenated_word_typed_whole():
    a = match_page("approved the consolidated statements and the audit report", HYP)
    assert a and a.method == "hyphenation"
    assert len(a.rects) == 3  # three lines touched


def test_compound_hyphen_at_line_end_still_matches_typed():
    a = match_page("A non-executive director", HYP)
    assert a and a.method == "exact"


def test_hyphen_inside_a_line_is_never_dropped():
    page = synthetic([(72, 100, "a well-known fact")])
    assert match_page("a wellknown fact", page) is None


# ---- reading orders ------------------------------------------------------------------

TABLE = pages_of(F.table_pdf())[0]


def test_table_row_drawn_column_by_column_hits_in_row_order():
    a = match_page("Supplier one 6,928,853,013.03 14.59%", TABLE)
    assert a and a.method == "exact+rows"
    # box spans the row: from the label to the right-aligned share
    assert a.bbox[0] < 81 and a.bbox[2] > 449
    assert len(a.rects) == 3


def test_table_rows_are_not_joined():
    # the end of one row and the start of the next are not one run
    assert match_page("14.59% Supplier two", TABLE) is None
    # a value from another row is a miss
    assert match_page("Supplier one 2,480,077,361.47", TABLE) is None


def test_table_column_reads_as_a_run_in_stream_order():
    a = match_page("Supplier one Supplier two", TABLE)
    assert a and a.method == "exact"


TWO = pages_of(F.two_column_pdf())[0]


def test_column_reads_as_one_run():
    q = "A reader takes one column from top to bottom and then moves to the top of the next column"
    a = match_page(q, TWO)
    assert a and a.method == "exact+columns"
    assert [p for p, _ in a.rects] == [1, 1, 1, 1]


def test_no_jump_across_the_gutter():
    # left line 1 followed by right line 1 is what the stream says, so exact finds it ...
    assert match_page("common in then moves", TWO).method == "exact"
    # ... but a row-order join of two prose columns is never made by the geometric orders
    page = synthetic([(72, 100, "alpha beta gamma delta epsilon"), (72, 114, "zeta eta theta iota"),
                      (320, 100, "one two three four five six"), (320, 114, "seven eight nine")])
    assert match_page("epsilon one two", page) is None
    assert match_page("epsilon zeta", page).method == "exact"
    assert match_page("iota one", page).method == "exact"  # column 1 end -> column 2 top


def test_rotated_page_boxes_are_displayed_coordinates():
    page = pages_of(F.rotated_pdf())[0]
    assert (page.width, page.height) == (792, 612)
    a = match_page("Alabama 18,870", page)
    assert a and a.method == "exact"
    x0, y0, x1, y1 = a.bbox
    assert inside(a.bbox, page)
    assert x1 - x0 < 20 and y1 - y0 > 50  # runs down the displayed page


def test_rotated_page_lines_ordered_in_reading_frame():
    page = pages_of(F.rotated_pdf())[0]
    from reportgen.pdf.orders import runs

    order = runs(page, "columns")[0]
    assert "".join(page.chars[i].c for i in order).startswith("Landscape")


def test_actualtext_is_the_text():
    page = pages_of(F.actualtext_pdf())[0]
    assert match_page("The final figure", page).method == "exact"
    assert match_page("XYZ", page) is None


# ---- across a page break -------------------------------------------------------------

P1, P2 = pages_of(F.cross_page_pdf())


def test_running_lines_found():
    assert {P1.lines[i].text for i in running_lines(P1, P2)} == {"Annual Report 2023", "1"}


def test_quote_across_page_break_skips_footer_and_header():
    q = "operating income of 4,210 million was reported"
    assert match_page(q, P1) is None
    a = match_quote(q, P1, P2)
    assert a and a.page == 1 and a.page_end == 2 and a.method == "exact"
    assert [p for p, _ in a.rects] == [1, 2]
    assert a.bbox == a.page_boxes()[1]


def test_quote_wholly_on_next_page_misses_this_one():
    assert match_quote("million was reported, as the board", P1, P2) is None


def test_cross_page_needs_the_join():
    assert match_across("line with guidance", P1, P2) is None


# ---- hints ---------------------------------------------------------------------------


def test_char_name():
    assert char_name("\u2013") == "'\u2013' (U+2013 EN DASH)"
    assert char_name("\u00a0") == "(U+00A0 NO-BREAK SPACE)"


def test_hint_names_first_difference():
    msg = miss_hint("Payment terms are 30-60 days from", LIG)
    assert msg.startswith('quote not found on p.1; closest text on p.1 (similarity 0.9')
    assert '"Payment terms are 30\u201360 days from' in msg
    assert msg.endswith("first difference at char 21: page has '\u2013' (U+2013 EN DASH) "
                        "where the quote has '-' (U+002D HYPHEN-MINUS)")


def test_hint_other_page():
    assert miss_hint("x", LIG, ["p.13"]) == "quote not found on p.1; it occurs on p.13"
    assert miss_hint("x", LIG, [f"p.{i}" for i in range(2, 10)]).endswith(
        "it occurs on p.2, p.3, p.4, p.5, p.6 and 3 more pages")


def test_hint_no_text_layer():
    page = pages_of(F.no_text_pdf())[1]
    assert not page.has_text_layer
    assert miss_hint("anything", page) == (
        "p.2 has no text layer (a scan?); quote from a page with text or OCR the PDF first")


def test_hint_unrelated_text():
    msg = miss_hint("zzzz qqqq wwww", LIG)
    assert "no text on p.1 resembles it" in msg


def test_closest_is_bounded_on_a_long_page():
    text = ("lorem ipsum dolor sit amet " * 40).strip()
    page = synthetic([(10, 10 + 12 * i, text[:100]) for i in range(60)], cw=5.0, width=600,
                     height=1000)
    c = closest_text("dolor sit amet lorem ipsum dolor sat amet", page, max_windows=50)
    assert c is not None and c.similarity > 0.9  # a coarse scan still finds the close window


# ---- properties ----------------------------------------------------------------------

PROSE = F.LIGATURE_LINES + F.HYPHEN_LINES
PROSE_PAGE = pages_of(F.text_pdf(PROSE))[0]
FLAT = [(i, ch.c) for i, ch in enumerate(PROSE_PAGE.chars)]


def _visible(s: str) -> str:
    return "".join(s.split())


@st.composite
def runs(draw):
    """A run of the page's text (in stream order) with its whitespace changed arbitrarily."""
    start = draw(st.integers(0, len(FLAT) - 2))
    end = draw(st.integers(start + 1, min(len(FLAT), start + 120)))
    chars = [c for _, c in FLAT[start:end] if not c.isspace()]
    assume(chars)
    out = []
    for c in chars:
        out.append(c)
        out.append(draw(st.sampled_from(["", "", " ", "  ", "\n", "\t"])))
    return "".join(out)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_any_run_with_whitespace_changed_hits_inside_the_page(q):
    a = match_page(q, PROSE_PAGE)
    assert a is not None
    assert a.page == 1 and inside(a.bbox, PROSE_PAGE)
    for _, r in a.rects:
        assert inside(r, PROSE_PAGE)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs(), st.data())
def test_one_changed_character_that_makes_quote_absent_misses(q, data):
    positions = [i for i, c in enumerate(q) if not c.isspace()]
    i = data.draw(st.sampled_from(positions))
    repl = data.draw(st.sampled_from(list("0123456789xqz#@") + ["\u2013", "\u2212"]))
    changed = q[:i] + repl + q[i + 1:]
    # only meaningful when the changed quote is truly absent from the page's text under every
    # level (e.g. swapping one digit for the same digit, or an optional hyphen)
    assume(changed != q)

    def norm(t: str) -> str:
        return _visible(t).replace("\ufb01", "fi").replace("\u00a0", "")

    page_text = norm(PROSE_PAGE.text)
    assume(norm(changed) not in page_text)
    assume(norm(changed) not in page_text.replace("-", ""))
    assert match_page(changed, PROSE_PAGE) is None


def test_page_boxes_per_page():
    q = "operating income of 4,210 million was reported"
    a = match_quote(q, P1, P2)
    boxes = a.page_boxes()
    assert set(boxes) == {1, 2}
    assert all(inside(b, P1) for b in boxes.values())


@pytest.mark.parametrize("quote", ["", "   \n "])
def test_empty_quote_misses(quote):
    assert match_page(quote, LIG) is None
    assert miss_hint(quote, LIG) == "the quote is empty"


# A run of text in an order a reader could mean, on each fixture page: any stretch of the
# two-column page read column by column, any stretch of one table row read left to right,
# any stretch of the CJK lines.
def _reader_runs() -> list[tuple[PageText, list[int]]]:
    from reportgen.pdf.orders import runs as order_runs

    cjk = pages_of(F.cjk_pdf())[0]
    out = [(TWO, order_runs(TWO, "columns")[0])]
    out += [(TABLE, r) for r in order_runs(TABLE, "rows")]
    out += [(cjk, r) for r in order_runs(cjk, "stream")]
    out += [(P1, r) for r in order_runs(P1, "stream")]
    return out


READER_RUNS = _reader_runs()


@st.composite
def reader_quotes(draw):
    page, run = draw(st.sampled_from(READER_RUNS))
    visible = [i for i in run if not page.chars[i].c.isspace()]
    start = draw(st.integers(0, len(visible) - 1))
    end = draw(st.integers(start + 1, min(len(visible), start + 80)))
    out = []
    for i in visible[start:end]:
        out.append(page.chars[i].c)
        out.append(draw(st.sampled_from(["", "", " ", "\n", "\u3000"])))
    return page, "".join(out), set(visible[start:end])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reader_quotes())
def test_any_run_in_a_reading_order_hits_with_a_box_on_the_page(case):
    page, q, idxs = case
    a = match_page(q, page)
    assert a is not None, q
    assert a.page == page.number and inside(a.bbox, page)
    # When the text occurs once on the page, the box is exactly the box of the run quoted.
    bare = "".join(q.split())
    flat = "".join(page.text.split())
    if len(bare) >= 4 and flat.count(bare) == 1 and a.method == "exact":
        want = union_box([page.chars[i].bbox for i in idxs])
        assert a.bbox == pytest.approx(want)


def union_box(boxes):
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def small_type(lines, number=1):
    """Like synthetic(), but each line carries its own height (type size)."""
    out = []
    for x, top, text, h in lines:
        out.append([(c, (x + i * h / 2, top, x + (i + 1) * h / 2, top + h))
                    for i, c in enumerate(text)])
    return build_page(number, 600, 800, out)


def test_footnotes_read_after_the_body_so_columns_join():
    # drawn: column 2, the footnote, then column 1; in position the footnote sits at the
    # foot of column 1, between the two halves of the sentence
    page = small_type([
        (330, 100, "head of column two where it ends.", 10),
        (330, 114, "Another sentence follows it here.", 10),
        (72, 600, "1 A footnote in smaller type at the foot of column one.", 7),
        (72, 100, "The sentence starts at the foot of", 10),
        (72, 114, "column one and it runs on to the", 10),
    ])
    a = match_page("it runs on to the head of column two where it ends.", page)
    assert a and a.method == "exact+columns"


def test_margin_folio_found_by_gap_not_band():
    # a folio 14% from the bottom (LaTeX) still counts as a running foot: it stands apart
    lines = [(72, 100 + 14 * i, f"body line {i} of the page text") for i in range(20)]
    lines.append((300, 690, "7"))
    page = synthetic(lines, height=800)
    assert page.lines[-1].band == "bottom" and page.lines[-1].folio
    assert all(ln.band == "" for ln in page.lines[:-1])


def test_miss_hint_names_the_pages_where_the_quote_occurs():
    from reportgen.pdf.hints import miss_hint

    assert miss_hint("x", LIG, ["p.2"]) == "quote not found on p.1; it occurs on p.2"


# ---- typographic quotation marks (anchorMethod `quotes`) -----------------------------

CURLY = synthetic([(72, 100, "The Company\u2019s \u201cEnergy Storage\u201d segment grew."),
                   (72, 120, "Its \u2018base case\u2019 and the \u201elow case\u201c differ."),
                   (72, 140, "The mast is 12\u2032 tall.")])


def test_typographic_apostrophe_typed_as_ascii_matches_by_quotes_method():
    a = match_page("The Company's \"Energy Storage\" segment grew.", CURLY)
    assert a is not None and a.method == "quotes"
    x0, y0, x1, y1 = a.bbox
    assert (x0, y0) == (72, 100) and y1 == 110


@pytest.mark.parametrize("quote", ["Its 'base case' and the \"low case\" differ.",
                                   "Its \u2019base case\u2019 and the \u201clow case\u201d differ."])
def test_every_typographic_quote_mark_typed_as_ascii_or_another_mark_matches(quote):
    a = match_page(quote, CURLY)
    assert a is not None and a.method == "quotes"


def test_typographic_quotes_typed_as_they_stand_are_exact():
    a = match_page("The Company\u2019s \u201cEnergy Storage\u201d segment", CURLY)
    assert a is not None and a.method == "exact"  # the exact rule is always tried first


def test_prime_typed_as_apostrophe_stays_a_miss():
    assert match_page("The mast is 12' tall.", CURLY) is None
    hint = miss_hint("The mast is 12' tall.", CURLY)
    assert hint.endswith("first difference at char 15: page has '\u2032' (U+2032 PRIME) where "
                         "the quote has ''' (U+0027 APOSTROPHE)"), hint


def test_quotes_method_composes_with_the_other_normalisations():
    page = synthetic([(72, 100, "the \ufb01rm\u2019s\u00a0re-"), (72, 112, "sults")])
    a = match_page("the firm's results", page)  # ligature, no-break space, line-end hyphen
    assert a is not None and a.method == "quotes"
    assert [pno for pno, _ in a.rects] == [1, 1]  # both lines highlighted


def test_miss_hint_ignores_typographic_quotes_to_name_the_real_difference():
    hint = miss_hint("The Company's \"Energy Storage\" segment grow.", CURLY)
    assert hint.endswith("page has 'e' (U+0065 LATIN SMALL LETTER E) where the quote has 'o' "
                         "(U+006F LATIN SMALL LETTER O)"), hint


# ---- keys map back to the characters they came from ----------------------------------

FOLD_LINES = [(40, 100, "the ﬁrst ﬁnal ﬁgure: １２,３４５\u00a0元 in 2024"),
              (40, 130, "供应商一 6,928,853,013.03 14.59% ﬂow"),
              (40, 160, "ﬁfty\u2009ﬁve ﬁxed costs ＡＢＣ")]
FOLD_PAGE = synthetic(FOLD_LINES)


def _nfkc_typed(s: str) -> str:
    """The text as typed on a keyboard: ligatures spelt out, full-width forms plain."""
    import unicodedata

    return "".join(unicodedata.normalize("NFKC", c) if not c.isspace() else " " for c in s)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_the_highlight_covers_exactly_the_characters_matched(data):
    """Whatever the level, the box is that of the page characters the quote covers: a
    ligature or full-width character folded into several key characters maps each back to
    itself, and no neighbour is taken in."""
    line = data.draw(st.integers(0, len(FOLD_LINES) - 1))
    x, top, text = FOLD_LINES[line]
    start = data.draw(st.integers(0, len(text) - 2))
    end = data.draw(st.integers(start + 2, len(text)))
    assume(not text[start].isspace() and not text[end - 1].isspace())
    quote = data.draw(st.sampled_from([text[start:end], _nfkc_typed(text[start:end])]))
    flat = _visible(_nfkc_typed(" ".join(t for _, _, t in FOLD_LINES)))
    assume(flat.count(_visible(_nfkc_typed(quote))) == 1)
    a = match_page(quote, FOLD_PAGE)
    assert a is not None
    assert a.bbox == (x + start * 5.0, top, x + end * 5.0, top + 10)
    assert [r for _, r in a.rects] == [a.bbox]
