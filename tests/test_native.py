"""The compiled character reader (pdf/native.py, pdf/pagechars.cpp): where `make` built it,
every page reads the same through it as through rawdict, on the fixtures, the sample and
the corpus; where rawdict would leave something out, the page goes through rawdict."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

import pdf_fixtures as F
from reportgen.pdf import native
from reportgen.pdf.textlayer import FLAGS, extract_page

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"

FIXTURES = {
    "hyphen": F.hyphen_pdf, "ligature": F.ligature_pdf, "table": F.table_pdf,
    "two columns": F.two_column_pdf, "cross page": F.cross_page_pdf,
    "actualtext": F.actualtext_pdf, "cjk": F.cjk_pdf, "no text": F.no_text_pdf,
    "trailing mark": F.trailing_mark_pdf, "rotated": F.rotated_pdf,
    "small type": lambda: F.text_pdf(["Revenue 1,234.5 (note 7)", "and 6 pt notes"], 6.0),
}


@pytest.fixture(scope="module")
def reader():
    """The reader `make` built; a failure wherever it can be built, since `make` builds it
    there (run `make test`, or `python -m reportgen.pdf.native`)."""
    got = native.load()
    if got is None:
        why = native.missing()
        if why:
            pytest.skip(f"the reader cannot be built here ({why}): pages go through rawdict")
        pytest.fail("the compiled reader is not built: run `python -m reportgen.pdf.native` "
                    "(`make` does) and see what it says")
    return got


def pages(data: bytes) -> list[pymupdf.Page]:
    doc = pymupdf.open(stream=data, filetype="pdf")
    return [doc[i] for i in range(doc.page_count)]


def lines_of(reader, page: pymupdf.Page):
    tp = page.get_textpage(flags=FLAGS)
    return reader.page_lines(tp.this.m_internal_value())


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_every_fixture_page_reads_the_same_as_through_rawdict(reader, name):
    for page in pages(FIXTURES[name]()):
        assert extract_page(page) == extract_page(page, compiled=False), (name, page.number)


def test_the_reader_itself_reads_plain_pages(reader):
    # so the comparison above compares two readers, not rawdict with itself
    for name in ("hyphen", "ligature", "table", "cjk", "small type", "rotated"):
        got = lines_of(reader, pages(FIXTURES[name]())[0])
        assert got is not None and got[0], name
    blank = pymupdf.open()
    blank.new_page()
    assert lines_of(reader, blank[0]) == ([], [], [])


def test_a_trailing_span_rawdict_leaves_out_is_left_out(reader):
    # rawdict drops a line's last span when its box is empty; the reader hands such a page
    # to rawdict rather than keep a character the verifier has never seen
    page = pages(F.trailing_mark_pdf())[0]
    assert lines_of(reader, page) is None
    pt = extract_page(page)
    assert [ln.text for ln in pt.lines] == ["cafe\u0301", "abe"]
    assert pt == extract_page(page, compiled=False)


@pytest.mark.parametrize("target", [b"<D800>", b"<DFFF>", b"<FFFF>", b"<0000>"])
def test_odd_tounicode_targets_read_the_same(reader, target):
    # a hostile CMap maps the en dash's code to a lone surrogate, U+FFFF or NUL: the reader
    # passes on what MuPDF made of it exactly as rawdict does
    doc = pymupdf.open(stream=F.text_pdf(["A\u2013B"]), filetype="pdf")
    cmaps = [x for x in range(1, doc.xref_length())
             if doc.xref_is_stream(x) and b"<96> <2013>" in doc.xref_stream(x)]
    assert len(cmaps) == 1
    doc.update_stream(cmaps[0], doc.xref_stream(cmaps[0]).replace(b"<2013>", target))
    page = pages(F.saved(doc))[0]
    assert lines_of(reader, page) is not None
    assert extract_page(page) == extract_page(page, compiled=False)


def test_the_sample_reads_the_same(reader):
    for pdf in sorted((ROOT / "samples" / "pdfs").glob("*.pdf")):
        for page in pages(pdf.read_bytes())[::9]:
            assert lines_of(reader, page) is not None, (pdf.name, page.number)
            assert extract_page(page) == extract_page(page, compiled=False), (pdf.name,
                                                                              page.number)


@pytest.mark.corpus
def test_the_corpus_reads_the_same(reader):
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus absent (fresh clone); runs in CI")
    compared = 0
    for pdf in sorted(CORPUS.glob("*.pdf")):
        doc = pymupdf.open(pdf)
        step = max(1, doc.page_count // 8)
        for i in range(0, doc.page_count, step):
            page = doc[i]
            assert extract_page(page) == extract_page(page, compiled=False), (pdf.name, i + 1)
            compared += 1
    assert compared > 50  # about eight pages of each of the eleven


def test_off_or_built_for_another_mupdf_it_is_not_used(reader, monkeypatch):
    here = (pymupdf.mupdf.FZ_VERSION, pymupdf.VersionBind)
    assert native.usable(reader, *here)
    assert not native.usable(reader, "1.0.0", here[1])
    assert not native.usable(reader, here[0], "1.0.0")
    monkeypatch.setenv(native.ENV, "off")
    native.load.cache_clear()
    try:
        assert native.load() is None
    finally:
        monkeypatch.delenv(native.ENV)
        native.load.cache_clear()
    assert native.load() is not None


def test_a_compiler_that_fails_is_named_with_its_error(tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", "false")
    with pytest.raises(native.NativeBuildError, match="^false failed with exit status 1$"):
        native.build(tmp_path / "pagechars.so")
    assert list(tmp_path.iterdir()) == []  # no half-written reader left behind


def test_without_a_compiler_it_says_so_before_trying(tmp_path, monkeypatch):
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing to run here
    assert native.missing() == "no C++ compiler (c++ or g++; or set CXX)"
    with pytest.raises(native.NativeBuildError, match="^no C\\+\\+ compiler"):
        native.build(tmp_path / "pagechars.so")
    assert list(tmp_path.iterdir()) == []
