"""Small PDFs built in the tests with PyMuPDF, each showing one thing real text layers do.

Most pages are written as raw content streams so the test controls the drawing order (the
order MuPDF reports) independently of the positions: a table drawn column by column, two
columns drawn line by line across the gutter, a footer drawn between two pages' text.
Font F1 is Helvetica with a ToUnicode CMap that maps byte 0x81 to U+FB01 (the "fi"
ligature, as TeX and InDesign PDFs carry it), 0xA0 to NBSP, 0x96 to EN DASH and 0xAD to SOFT
HYPHEN, so those characters reach the text layer exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import pymupdf

W, H = 612.0, 792.0

_CMAP = b"""/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Test-UCS def
/CMapType 2 def
1 begincodespacerange
<00> <FF>
endcodespacerange
1 beginbfrange
<20> <7E> <0020>
endbfrange
4 beginbfchar
<81> <FB01>
<A0> <00A0>
<96> <2013>
<AD> <00AD>
endbfchar
endcmap
CMapName currentdict /CMap defineresource pop
end
end
"""

_ENCODE = {"\ufb01": b"\x81", "\u00a0": b"\xa0", "\u2013": b"\x96", "\u00ad": b"\xad"}

# One text item: (x, top, text) with top measured from the top of the page, as displayed.
Item = tuple[float, float, str]


def _encode(text: str) -> bytes:
    out = bytearray()
    for c in text:
        if c in _ENCODE:
            out += _ENCODE[c]
        elif c in "()\\":
            out += b"\\" + c.encode()
        else:
            out += c.encode("ascii")
    return bytes(out)


def ops(items: Iterable[Item], size: float = 10.0, height: float = H) -> bytes:
    """Content-stream operators drawing each item with F1, in the order given."""
    out = bytearray(b"BT\n")
    for x, top, text in items:
        y = height - top - size * 0.8  # baseline below the top of the line
        out += f"/F1 {size:g} Tf 1 0 0 1 {x:.2f} {y:.2f} Tm\n".encode()
        out += b"(" + _encode(text) + b") Tj\n"
    out += b"ET\n"
    return bytes(out)


def font_page(doc: pymupdf.Document, content: bytes, width: float = W,
              height: float = H) -> pymupdf.Page:
    """A new page whose only content is `content`, with font F1 installed."""
    page = doc.new_page(width=width, height=height)
    cmap = doc.get_new_xref()
    doc.update_object(cmap, "<<>>")
    doc.update_stream(cmap, _CMAP)
    font = doc.get_new_xref()
    doc.update_object(font, (
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
        "/BaseEncoding /WinAnsiEncoding /Differences [129 /fi] >> "
        f"/ToUnicode {cmap} 0 R >>"))
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /F1 {font} 0 R >> >>")
    contents = doc.get_new_xref()
    doc.update_object(contents, "<<>>")
    doc.update_stream(contents, content)
    doc.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
    return page


def saved(doc: pymupdf.Document) -> bytes:
    """The document's bytes with no trailer /ID: MuPDF draws a fresh one per save, and its
    length varies (hex or literal string), which moved a cut at `len(data) // 2`."""
    return doc.tobytes(no_new_id=True)


def pdf_of(pages: Sequence[bytes], width: float = W, height: float = H) -> bytes:
    """A PDF with one page per content stream."""
    doc = pymupdf.open()
    for content in pages:
        font_page(doc, content, width, height)
    return saved(doc)


def text_pdf(lines: Sequence[str], size: float = 10.0) -> bytes:
    """One page of plain left-aligned lines, 14 pt apart, from the top margin down."""
    return pdf_of([ops([(72, 100 + 14 * i, t) for i, t in enumerate(lines)], size)])


# ---- the hard cases --------------------------------------------------------------------

LIGATURE_LINES = [
    "The \ufb01nancial statements were signed on 3 March 2023.",
    "Total revenue was 1\u00a0234 million, up 5.2 per cent.",
    "Payment terms are 30\u201360 days from the invoice date.",
    "Our accounting policies were reviewed in the \ufb01rst quarter.",
]


def ligature_pdf() -> bytes:
    """U+FB01 ligatures, a no-break space and an en dash in the text layer."""
    return text_pdf(LIGATURE_LINES)


HYPHEN_LINES = [
    "The committee approved the consoli-",
    "dated statements and the audit re-",
    "port without qualification. A non-",
    "executive director abstained.",
]


def hyphen_pdf() -> bytes:
    """Words broken at line ends with a hyphen."""
    return text_pdf(HYPHEN_LINES)


TABLE_HEADER = ["Supplier", "Amount (CNY)", "Share"]
TABLE_ROWS = [
    ["Supplier one", "6,928,853,013.03", "14.59%"],
    ["Supplier two", "2,480,077,361.47", "5.22%"],
    ["Supplier three", "1,911,522,145.80", "4.03%"],
    ["Total", "11,320,452,520.30", "23.84%"],
]
TABLE_COLS = [(80.0, "left"), (330.0, "right"), (450.0, "right")]  # (x anchor, alignment)


def table_pdf() -> bytes:
    """A ruled table with right-aligned numbers, drawn column by column (as many exporters do)."""
    doc = pymupdf.open()
    rows = [TABLE_HEADER] + TABLE_ROWS
    items: list[Item] = []
    font = pymupdf.Font("helv")
    for c, (x, align) in enumerate(TABLE_COLS):
        for r, row in enumerate(rows):
            text = row[c]
            tx = x - font.text_length(text, 10) if align == "right" else x
            items.append((tx, 120 + 20 * r, text))
    page = font_page(doc, ops(items))
    # The rules: a grid around the cells.
    shape = page.new_shape()
    xs = [72, 200, 340, 460]
    for r in range(len(rows) + 1):
        y = 116 + 20 * r
        shape.draw_line((xs[0], y), (xs[-1], y))
    for x in xs:
        shape.draw_line((x, 116), (x, 116 + 20 * len(rows)))
    shape.finish(color=(0, 0, 0), width=0.5)
    shape.commit()
    return saved(doc)


LEFT_COL = [
    "Two-column layouts are common in",
    "research papers and in the notes",
    "to annual reports. A reader takes",
    "one column from top to bottom and",
]
RIGHT_COL = [
    "then moves to the top of the next",
    "column to continue the sentence.",
    "Revenue in the segment rose by",
    "eleven per cent in the year.",
]


def two_column_pdf() -> bytes:
    """Two columns drawn line by line across the gutter (left 1, right 1, left 2, ...)."""
    items: list[Item] = []
    for i, (a, b) in enumerate(zip(LEFT_COL, RIGHT_COL)):
        items.append((72, 100 + 14 * i, a))
        items.append((320, 100 + 14 * i, b))
    return pdf_of([ops(items)])


ROTATED_LINES = ["Landscape table: Alabama 18,870 23,022", "Rotated pages keep their boxes."]


def rotated_pdf() -> bytes:
    """A page with /Rotate 90: text drawn in unrotated space, shown landscape."""
    doc = pymupdf.open(stream=text_pdf(ROTATED_LINES), filetype="pdf")
    doc[0].set_rotation(90)
    return saved(doc)


PAGE1_BODY = ["Results for the year were in line", "with guidance: operating income of 4,210"]
PAGE2_BODY = ["million was reported, as the board", "had forecast in its March update."]


def cross_page_pdf(header: str = "Annual Report 2023") -> bytes:
    """A sentence running from p.1 to p.2, with footers (page numbers) and a running header
    drawn between the two parts in content-stream order."""
    p1 = [(72, 30, header)] + [(72, 100 + 14 * i, t) for i, t in enumerate(PAGE1_BODY)]
    p1 += [(300, 760, "1")]
    p2 = [(72, 30, header)] + [(72, 100 + 14 * i, t) for i, t in enumerate(PAGE2_BODY)]
    p2 += [(300, 760, "2")]
    return pdf_of([ops(p1), ops(p2)])


def no_text_pdf() -> bytes:
    """Page 1 has text; page 2 holds only a drawing and an image (a scan, to the verifier)."""
    doc = pymupdf.open(stream=text_pdf(["A page with text."]), filetype="pdf")
    page = doc.new_page(width=W, height=H)
    page.draw_rect(pymupdf.Rect(72, 72, 300, 200), color=(0, 0, 0), fill=(0.8, 0.8, 0.8))
    pix = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 8, 8), False)
    pix.clear_with(128)
    page.insert_image(pymupdf.Rect(72, 300, 200, 428), pixmap=pix)
    return saved(doc)


def actualtext_pdf() -> bytes:
    """Glyphs 'XYZ' carrying /ActualText (fi) in a marked-content span, as some PDFs mark
    ligatures or replaced symbols."""
    content = (b"BT\n/F1 10 Tf 1 0 0 1 72 700 Tm\n(The ) Tj\n"
               b"/Span << /ActualText (fi) >> BDC\n(XYZ) Tj\nEMC\n"
               b"(nal figure) Tj\nET\n")
    return pdf_of([content])


CJK_LINES = ["前五名供应商合计采购金额", "占年度采购总额比例１４．５９％", "营业收入（万元）：372,530.00"]


def cjk_pdf() -> bytes:
    """CJK text with full-width digits and punctuation, in the built-in CJK font."""
    doc = pymupdf.open()
    page = doc.new_page(width=W, height=H)
    for i, t in enumerate(CJK_LINES):
        page.insert_text((72, 100 + 20 * i), t, fontname="china-s", fontsize=11)
    return saved(doc)


def trailing_mark_pdf() -> bytes:
    """Two lines ending in a combining acute (U+0301, no advance, so an empty box): on the
    first line it shares the style of the letter before it; on the second it is shown in
    red, a span of its own, which rawdict leaves out because its box is empty."""
    doc = pymupdf.open()
    page = doc.new_page(width=W, height=H)
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)
    page.insert_text((72, 100), "cafe\u0301", fontname="F0", fontsize=11)
    page.insert_text((72, 130), "abe\u0301", fontname="F0", fontsize=11)
    xref = page.get_contents()[-1]  # each insert_text adds a stream: this one is "abe\u0301"
    show = re.search(rb"\[<([0-9a-fA-F]+)>\]TJ", doc.xref_stream(xref))
    glyphs = show.group(1)  # two bytes a glyph: split off the last, in red
    content = doc.xref_stream(xref).replace(
        show.group(0), b"[<" + glyphs[:-4] + b">]TJ 1 0 0 rg [<" + glyphs[-4:] + b">]TJ")
    doc.update_stream(xref, content)
    return saved(doc)


def many_pages_pdf(texts: Sequence[str]) -> bytes:
    """One short line of text per page."""
    return pdf_of([ops([(72, 100, t)]) for t in texts])


def encrypted_pdf() -> bytes:
    """A PDF that needs a user password to open."""
    doc = pymupdf.open(stream=text_pdf(["Secret."]), filetype="pdf")
    return doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="x", owner_pw="y")
