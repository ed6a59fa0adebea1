"""Hostile PDFs: files swapped mid-build, colliding names, pages made to exhaust memory, and
the damaged or malicious files that must give a clear message, never a traceback."""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import pdf_fixtures as F
import sitekit
from reportgen.site.publish import publish
from reportgen.site.write import KeepChecked, default_cache_dir
from reportgen.cli import main
from reportgen.errors import DocumentError, ReportgenError
from reportgen.model import Document, FactResult, Loc
from reportgen.pdf.crops import crop_jobs
from reportgen.pdf.documents import DocumentSet, kept_name, open_pdf
from reportgen.verify.run import verify

QUOTE = "The evidence sentence is here."


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def write_ledger(root: Path, docs: dict[str, tuple[str, bytes]],
                 facts: list[tuple[str, str, int, str]]) -> Path:
    """root/claims/s1.yaml naming docs {id: (file name under root/docs, bytes)} and
    facts [(id, doc, page, quote)]."""
    (root / "claims").mkdir(parents=True, exist_ok=True)
    lines = ["report:", "  id: S1", "  title: Hostile", "documents:"]
    for did, (name, data) in docs.items():
        p = root / "docs" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        lines += [f"  {did!r}:", f"    file: ../docs/{name}", f"    title: Document {did}"]
    lines.append("claims:")
    for fid, did, page, quote in facts:
        lines += [f"  - id: {fid}", "    kind: fact", "    statement: s", f"    doc: {did!r}",
                  f"    page: {page}", f"    quote: {json.dumps(quote)}"]
    (root / "claims" / "s1.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root / "claims"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def records(out: Path) -> dict[str, dict]:
    lines = (out / "evidence.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


# ---- 05: a PDF replaced during the build -------------------------------------------


def _swap(pdf: Path) -> None:
    """Replace the file as an editor or a sync client would (a new file renamed over it)."""
    new = pdf.with_name(pdf.name + ".new")
    new.write_bytes(F.text_pdf(["A different document, swapped in during the build."]))
    os.replace(new, pdf)


def test_hardening_05_a_pdf_swapped_after_verification_is_never_published(tmp_path):
    claims = sitekit.make_ledger(tmp_path / "l")
    pdf = tmp_path / "l" / "docs" / "report.pdf"
    original = pdf.read_bytes()
    sha = hashlib.sha256(original).hexdigest()
    out = tmp_path / "l" / "site"
    keep = KeepChecked(default_cache_dir(out))

    def check_then_swap(ledger, doc_id, docs, results):
        keep(ledger, doc_id, docs, results)
        _swap(pdf)

    v = verify([claims], after_doc=check_then_swap)
    assert v.ok and pdf.read_bytes() != original
    publish(v, out)
    published = sorted((out / "pdfs").iterdir())
    assert published and all(p.read_bytes() == original for p in published)
    # the crops are those of the checked bytes: the same as a build of an untouched copy
    ref_claims = sitekit.make_ledger(tmp_path / "ref")
    ref = tmp_path / "ref" / "site"
    publish(verify([ref_claims]), ref)
    assert sitekit.snapshot(out / "anchors") == sitekit.snapshot(ref / "anchors")
    # and the cache holds them under the verified hash only
    keys = {j.key() for cid, r in v.results.items() if isinstance(r, FactResult) and r.anchor
            for j in crop_jobs(cid, pdf, r.sha256, r.anchor)}
    assert {r.sha256 for r in v.results.values() if isinstance(r, FactResult)} == {sha}
    assert {p.stem for p in default_cache_dir(out).glob("*.png")} == keys


def test_hardening_05_a_pdf_swapped_between_verify_and_build_fails_the_build(tmp_path):
    claims = sitekit.make_ledger(tmp_path)
    pdf = tmp_path / "docs" / "report.pdf"
    sha = hashlib.sha256(pdf.read_bytes()).hexdigest()
    v = verify([claims])
    _swap(pdf)
    out = tmp_path / "site"
    with pytest.raises(ReportgenError) as ei:
        publish(v, out)
    assert f"changed since it was checked (SHA-256 {sha}" in ei.value.message
    assert not out.exists()
    assert list(default_cache_dir(out).glob("*.png")) == []


# ---- 07: two documents, one file name ----------------------------------------------


TEXTS = {"cat": "CATL revenue was 362 billion.", "eve": "EVE revenue was 48 billion.",
         "sun": "Sungrow revenue was 72 billion.", "Sun": "SUN upper case revenue."}


@pytest.mark.parametrize("names", [
    {"cat": "a.pdf", "eve": "a"},  # EVE's file, named a.pdf on the site, overwrote CATL's
    {"cat": "a.pdf", "eve": "a", "sun": "x/A.PDF", "Sun": "y/a.pdf"},  # and one without case
], ids=["a.pdf-and-a", "four-ways"])
def test_hardening_07_documents_with_colliding_file_names_each_link_to_their_own_pdf(
        tmp_path, names):
    texts = {d: TEXTS[d] for d in names}
    docs = {d: (names[d], F.text_pdf([t])) for d, t in texts.items()}
    fid = {d: f"f{i}" for i, d in enumerate(texts)}
    claims = write_ledger(tmp_path, docs, [(fid[d], d, 1, t) for d, t in texts.items()])
    out = tmp_path / "site"
    r = run("build", str(claims), "--out", str(out))
    assert r.exit_code == 0, r.output
    files = sorted(p.name for p in (out / "pdfs").iterdir())
    assert len(files) == len(docs) == len({n.casefold() for n in files})
    html = (out / "S1.html").read_text(encoding="utf-8")
    for d, (_, data) in docs.items():
        dialog = html.split(f'id="ev-{fid[d]}"', 1)[1].split("</dialog>", 1)[0]
        (href,) = re.findall(r'href="(pdfs/[^"#]+)#page=1"', dialog)
        assert (out / href).read_bytes() == data, d
    index = (out / "index.html").read_text(encoding="utf-8")
    hrefs = re.findall(r'href="(pdfs/[^"]+)"', index)
    assert sorted((out / h).read_bytes() for h in hrefs) == sorted(d for _, d in docs.values())
    import zipfile
    with zipfile.ZipFile(out / "reportgen-bundle.zip") as zf:
        pdfs = {n.split("/", 1)[1]: zf.read(n) for n in zf.namelist() if "/pdfs/" in n}
    assert pdfs == {f"pdfs/{n}": (out / "pdfs" / n).read_bytes() for n in files}


# ---- 09: small files that would exhaust memory -------------------------------------

BIG_QUOTE = "Alpha begins here and omega ends here"


def _huge_page_pdf(side: float) -> bytes:
    """One square page of `side` points whose quote runs from one corner to the other."""
    items = [(20, 20, "Alpha begins here"), (side * 0.4, side * 0.96, "and omega ends here")]
    return F.pdf_of([F.ops(items, size=12, height=side)], width=side, height=side)


@pytest.mark.parametrize("side", [14_400.0, 200_000.0])
def test_hardening_09_a_huge_page_crop_is_scaled_down_and_says_so(tmp_path, side):
    claims = write_ledger(tmp_path, {"d1": ("big.pdf", _huge_page_pdf(side))},
                          [("f1", "d1", 1, BIG_QUOTE), ("f2", "d1", 1, "Alpha begins here")])
    out = tmp_path / "site"
    r = run("build", str(claims), "--out", str(out))
    assert r.exit_code == 0, r.output
    w, h = png_size((out / "anchors" / "f1.png").read_bytes())
    assert w * h <= 40_000_000 and max(w, h) <= 16_384
    rec = records(out)
    (scale,) = rec["f1"]["cropScale"]
    assert 0 < scale < 2
    x0, y0, x1, y1 = rec["f1"]["bbox"]
    assert abs(w - min(x1 - x0 + 20, side) * scale) <= 2  # the recorded scale is the drawn one
    assert "cropScale" not in rec["f2"]  # a crop at the normal scale says nothing
    assert png_size((out / "anchors" / "f2.png").read_bytes())[1] > 80


def _sparse(path: Path, size: int, head: bytes = b"") -> Path:
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)
    return path


def _verify_capped(root: Path, limit: int = 3 << 30) -> subprocess.CompletedProcess:
    """`reportgen verify claims` in `root`, in a process that may not map more than
    `limit` bytes."""
    code = ("import resource, sys\n"
            f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
            "from reportgen.cli import run\nsys.argv = ['reportgen', 'verify', sys.argv[1]]\n"
            "run()\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    env.pop("REPORTGEN_DEBUG", None)
    return subprocess.run([sys.executable, "-c", code, "claims"], capture_output=True,
                          text=True, env=env, timeout=120, cwd=root)


def test_hardening_09_a_64_gb_file_is_refused_from_its_first_bytes(tmp_path):
    write_ledger(tmp_path, {"d1": ("x.pdf", b""), "d2": ("y.pdf", b"")},
                 [("f1", "d1", 1, QUOTE), ("f2", "d2", 1, QUOTE)])
    _sparse(tmp_path / "docs" / "x.pdf", 64 << 30)
    _sparse(tmp_path / "docs" / "y.pdf", 64 << 30, b"%PDF-1.7\n")
    r = _verify_capped(tmp_path)
    assert r.returncode == 1, r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    assert ("document 'd1' (docs/x.pdf): not a PDF (no %PDF- header; it looks like binary "
            "data of an unknown kind)") in r.stderr
    assert "document 'd2' (docs/y.pdf): is 64.0 GB, more than the 4.0 GB" in r.stderr


def test_hardening_09_the_page_cache_is_bounded_by_characters(tmp_path):
    lines = [" ".join(["word"] * 20) for _ in range(10)]  # about 1,000 characters a page
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(F.pdf_of([F.ops([(20, 20 + 12 * i, t) for i, t in enumerate(lines)])] * 8))
    ds = DocumentSet({"a": Document("a", pdf, "t", None, Loc("x", 1))}, cache_chars=2_500)
    sizes = {p: len(ds.page_text("a", p).chars) for p in range(1, 9)}
    assert all(900 < n < 1_100 for n in sizes.values())
    held = ds.cached_pages()
    assert held == [("a", 7), ("a", 8)]  # the newest pages that fit the budget
    assert sum(sizes[p] for _, p in held) <= 2_500


def test_hardening_09_a_page_of_too_many_characters_is_refused(tmp_path):
    line = "x" * 1_000
    pdf = F.pdf_of([F.ops([(10, 10 + 2.5 * i, line) for i in range(150)], size=2,
                          height=1_000)], width=2_200, height=1_000)
    assert len(pdf) < 10_000
    claims = write_ledger(tmp_path, {"d1": ("dense.pdf", pdf)}, [("f1", "d1", 1, "xxxx")])
    r = run("verify", str(claims))
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit)
    assert re.search(r"fact f1: p\.1 of document d1 has 15\d,\d{3} characters, more than "
                     "the 100,000 a page may have", r.stderr), r.stderr


def test_hardening_09_a_file_above_the_memory_limit_is_read_from_a_private_copy(
        tmp_path, monkeypatch):
    import tempfile

    spool = tmp_path / "tmp"
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))  # TMPDIR, for this test
    data = F.text_pdf([QUOTE])
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(data)
    doc, sha = open_pdf(pdf, in_memory_max=100)
    assert sha == hashlib.sha256(data).hexdigest()
    pdf.write_bytes(F.text_pdf(["Changed after it was opened."]))  # in place, not renamed
    assert QUOTE in doc[0].get_text()
    doc.close()
    ds = DocumentSet({"a": Document("a", pdf, "t", None, Loc("x", 1))}, in_memory_max=100)
    checked = pdf.read_bytes()
    assert ds.sha256("a") == hashlib.sha256(checked).hexdigest()
    _swap(pdf)
    kept = ds.save_copy("a", tmp_path / "store")
    assert kept == tmp_path / "store" / kept_name(ds.sha256('a'))
    assert kept.read_bytes() == checked
    ds.close()
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.7\n" + bytes(4000))
    with pytest.raises(DocumentError) as ei:
        open_pdf(bad, in_memory_max=100)
    assert ei.value.message.startswith("cannot be read as a PDF (")
    assert str(spool) not in ei.value.message
    assert list(spool.iterdir()) == []  # no private copy outlives its document


# ---- the class that held: damaged and malicious files give a message, exit 1 -------


def _raw_pdf(objs: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF from numbered objects, with a correct xref table (1 is the catalog)."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, o)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objs) + 1, trailer, xref)
    return bytes(out)


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n%s\nendstream" % (len(data), extra, data)


HELVETICA = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def _one_page(text: str = QUOTE, count: bytes = b"1", kids: bytes = b"[3 0 R]",
              catalog: bytes = b"", page: bytes = b"", font: bytes = HELVETICA,
              content: bytes | None = None) -> list[bytes]:
    shown = b"BT /F1 12 Tf 72 700 Td (%s) Tj ET" % text.encode() if content is None else content
    return [b"<< /Type /Catalog /Pages 2 0 R %s>>" % catalog,
            b"<< /Type /Pages /Kids %s /Count %s >>" % (kids, count),
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
            b"<< /F1 5 0 R >> >> /Contents 4 0 R %s>>" % page,
            _stream(shown), font]


def _broken_font() -> bytes:
    cid = (b"<< /Type /Font /Subtype /Type0 /BaseFont /Broken /Encoding /Identity-H "
           b"/DescendantFonts [6 0 R] >>")
    return _raw_pdf(_one_page(font=cid) + [
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Broken /FontDescriptor 7 0 R >>",
        b"<< /Type /FontDescriptor /FontName /Broken /FontFile2 8 0 R >>",
        _stream(b"this is not a TrueType font")])


HOSTILE = {  # name -> (bytes, page quoted, what the message says)
    "encrypted": (F.encrypted_pdf, 1, "PDF is encrypted and needs a password"),
    "truncated": (lambda: F.text_pdf([QUOTE])[:200], 1,
                  "cannot be read as a PDF (Failed to open stream); the file is damaged"),
    "zero pages": (lambda: _raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                                     b"<< /Type /Pages /Kids [] /Count 0 >>"]), 1,
                   "PDF has no readable pages; the file is damaged or truncated"),
    "garbage after the header": (
        lambda: b"%PDF-1.7\n" + bytes((i * 37) % 256 for i in range(4000)), 1,
        "cannot be read as a PDF"),
    "a page tree that loops": (lambda: _raw_pdf(_one_page(kids=b"[2 0 R]")), 1,
                               "p.1 of document d1 cannot be read (code=7: cycle in page tree)"),
    "a page count of two billion": (lambda: _raw_pdf(_one_page(count=b"2000000000")), 1,
                                    "cannot be read as a PDF (code=7: Invalid number of pages)"),
    "a page count above its pages": (lambda: _raw_pdf(_one_page(count=b"3")), 3,
                                     "p.3 of document d1 cannot be read"),
    "the quote only in JavaScript and a Launch action": (
        lambda: _raw_pdf(_one_page(
            "Nothing to see.",
            catalog=b"/OpenAction << /S /JavaScript /JS (app.alert\\('%s'\\)) >>" % QUOTE.encode(),
            page=b"/AA << /O << /S /Launch /F (/usr/bin/touch) /P (pwned) >> >>")), 1,
        "MISS f1 d1 p.1: quote not found on p.1"),
    "a broken embedded font": (_broken_font, 1, "MISS f1 d1 p.1: quote not found on p.1"),
    "no text layer": (F.no_text_pdf, 2, "MISS f1 d1 p.2: p.2 has no text layer (a scan?)"),
    "a content stream of garbage": (
        lambda: _raw_pdf(_one_page(content=b"BT /F1 12 Tf ((((( ]]]] Tj ET q q q Q")), 1,
        "MISS f1 d1 p.1: p.1 has no text layer"),
    "an HTML page named .pdf": (
        lambda: f"<!DOCTYPE html><html><body>{QUOTE}</body></html>".encode(), 1,
        "not a PDF (no %PDF- header; it looks like an HTML page"),
    "an empty file": (lambda: b"", 1, "file is empty (0 bytes)"),
    "a Git LFS pointer": (lambda: b"version https://git-lfs.github.com/spec/v1\noid sha256:"
                          + b"0" * 64 + b"\nsize 12345\n", 1, "a Git LFS pointer"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_pdf_gives_a_clear_message_and_exit_1(tmp_path, monkeypatch, name):
    make, page, says = HOSTILE[name]
    claims = write_ledger(tmp_path, {"d1": ("x.pdf", make())}, [("f1", "d1", page, QUOTE)])
    monkeypatch.chdir(tmp_path)
    r = run("verify", "claims")
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), r.output
    assert says in r.output
    assert "Traceback" not in r.output and "internal error" not in r.output
    assert not (tmp_path / "pwned").exists()
    assert claims.is_dir()


def test_an_xref_that_points_back_at_itself_is_repaired_and_verifies(tmp_path):
    data = _raw_pdf(_one_page(), trailer=b"/Prev 9 ")
    claims = write_ledger(tmp_path, {"d1": ("x.pdf", data)}, [("f1", "d1", 1, QUOTE)])
    r = run("verify", str(claims))
    assert r.exit_code == 0, r.output
