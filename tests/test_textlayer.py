"""extract_page: chars, boxes as displayed, /ActualText, margins, pages without text."""

from __future__ import annotations

import pymupdf
import pytest

import pdf_fixtures as F
from reportgen.pdf.text import is_folio
from reportgen.pdf.textlayer import FLAGS, extract_page


def first_page(data: bytes, n: int = 0) -> pymupdf.Page:
    return pymupdf.open(stream=data, filetype="pdf")[n]


def test_chars_lines_and_number():
    pt = extract_page(first_page(F.hyphen_pdf()))
    assert pt.number == 1 and pt.has_text_layer
    assert pt.text.split("\n") == F.HYPHEN_LINES
    assert [ln.text for ln in pt.lines] == F.HYPHEN_LINES
    assert all(ch.line < len(pt.lines) for ch in pt.chars)
    x0, y0, x1, y1 = pt.lines[0].bbox
    assert 71.5 < x0 < 72.5 and 95 < y0 < 101 and x1 > 200


def test_ligature_kept_as_one_character():
    pt = extract_page(first_page(F.ligature_pdf()))
    assert "\ufb01nancial" in pt.text and "\u00a0" in pt.text and "\u2013" in pt.text
    assert FLAGS & pymupdf.TEXT_PRESERVE_LIGATURES


def test_actualtext_replaces_glyphs():
    """MuPDF 1.28 honours /ActualText by default; if an upgrade stops, this test says so."""
    pt = extract_page(first_page(F.actualtext_pdf()))
    assert "XYZ" not in pt.text
    assert "".join(pt.text.split()) == "Thefinalfigure"
    assert not FLAGS & pymupdf.TEXT_IGNORE_ACTUALTEXT
    # the replacement characters sit where the replaced glyphs were drawn
    fi = [ch for ch in pt.chars if ch.c in "fi" and ch.bbox[0] < 110]
    assert fi and all(90 < ch.bbox[0] < 120 for ch in fi)


def test_rotated_page_boxes_are_displayed():
    page = first_page(F.rotated_pdf())
    assert page.rotation == 90
    pt = extract_page(page)
    assert (pt.width, pt.height) == (792, 612)
    for ch in pt.chars:
        x0, y0, x1, y1 = ch.bbox
        assert 0 <= x0 <= x1 <= 792 and 0 <= y0 <= y1 <= 612
    # PyMuPDF's own search box (unrotated coordinates) turned by rotation_matrix holds ours
    hit = page.search_for("Alabama")[0] * page.rotation_matrix
    a_box = [ch.bbox for ch in pt.chars if ch.c == "A"][0]  # the "A" of "Alabama"
    assert hit.x0 - 1 <= a_box[0] and a_box[2] <= hit.x1 + 1
    assert hit.y0 - 1 <= a_box[1] and a_box[3] <= hit.y1 + 1
    assert pt.lines[0].dir == (0.0, 1.0)


def test_cjk_text():
    pt = extract_page(first_page(F.cjk_pdf()))
    assert [ln.text for ln in pt.lines] == F.CJK_LINES


def test_page_without_text_layer():
    pt = extract_page(first_page(F.no_text_pdf(), 1))
    assert not pt.has_text_layer and pt.chars == ()


def test_margin_lines():
    doc = pymupdf.open(stream=F.cross_page_pdf(), filetype="pdf")
    pt = extract_page(doc[0])
    bands = {ln.text: (ln.band, ln.folio) for ln in pt.lines}
    assert bands["Annual Report 2023"] == ("top", False)
    assert bands["1"] == ("bottom", True)
    assert bands[F.PAGE1_BODY[0]] == ("", False)


@pytest.mark.parametrize("text,expected", [
    ("12", True), ("- 12 -", True), ("Page 3 of 10", True), ("iv", True), ("第 3 页", True),
    ("48495", True), ("Annual Report", False), ("12.5%", False), ("", False),
])
def test_is_folio(text, expected):
    assert is_folio(text) is expected


def test_one_running_line_detector_for_verify_and_index():
    """The verifier's text layer and the index's blocks see the same running heads and
    feet on a page, through the one detector (`reportgen.pdf.text.running_lines`)."""
    from reportgen.pdf.blocks import page_blocks
    from reportgen.pdf.text import running_lines

    doc = pymupdf.open(stream=F.cross_page_pdf(), filetype="pdf")
    verify_pages = [extract_page(p) for p in doc]
    index_pages = [[ln for b in page_blocks(p, "d", p.number + 1) for ln in b.lines]
                   for p in doc]
    for a, b in ((0, 1), (1, 0)):
        seen_v = {verify_pages[a].lines[i].text.strip()
                  for i in running_lines(verify_pages[a].lines, verify_pages[b].lines)}
        seen_i = {index_pages[a][i].text
                  for i in running_lines(index_pages[a], index_pages[b])}
        assert seen_v == seen_i and "Annual Report 2023" in seen_i


def test_index_leaves_out_a_running_head_set_inside_the_page():
    """A head 12% down the page (LaTeX's place, outside the 8% band) that repeats and
    stands apart from the body is a running head for the index too, as for the verifier."""
    from reportgen.index.chunking import chunk_blocks
    from reportgen.pdf.blocks import page_blocks

    doc = pymupdf.open()
    for n in range(4):
        page = doc.new_page()
        page.insert_text((72, 100), "CHAPTER 2. STORAGE", fontsize=9)
        for k in range(8):
            page.insert_text((72, 160 + 14 * k), f"Body line {k} of page {n} on battery storage.",
                             fontsize=10)
    blocks: list = []
    for p in doc:
        blocks += page_blocks(p, "d", p.number + 1, len(blocks))
    assert 100 > doc[0].rect.height * 0.08
    _, chunks = chunk_blocks(blocks)
    text = " ".join(c.text for c in chunks)
    assert "CHAPTER" not in text and "Body line 3 of page 2" in text


@pytest.mark.parametrize("lines", [["x"] * 400, ["word " * 30] * 40, ["供应商一 6,928,853,013.03"] * 60,
                                   ["a b c"] * 200])
def test_plain_text_is_at_most_a_sixteenth_of_the_text_pool(lines):
    """extract_page skips the plain-text count of a page whose text pool is under 16 bytes
    a character of the limit: MuPDF must keep allocating characters and lines there."""
    doc = pymupdf.open()
    page = doc.new_page(width=2000, height=4000)
    page.insert_text((10, 20), lines, fontsize=8, fontname="china-s")
    tp = page.get_textpage(flags=FLAGS)
    assert 16 * len(tp.extractText()) <= pymupdf.mupdf.ll_fz_pool_size(tp.this.m_internal.pool)
