"""Open each PDF of a ledger once per run, lazily, and hand out pages' text with caching.

Every way a file can fail to serve as evidence becomes a `DocumentError` naming the PDF and
the fix, so an analyst never sees a MuPDF traceback.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType

import pymupdf

from reportgen.errors import DocumentError
from reportgen.model import Document
from reportgen.pdf.text import PageText
from reportgen.pdf.textlayer import FLAGS, extract_page

# What a file that is not a PDF usually is, by its first bytes, for the message.
_MAGIC = (
    (b"<!doctype html", "an HTML page (a download that saved an error or login page?)"),
    (b"<html", "an HTML page (a download that saved an error or login page?)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"PK\x03\x04", "a ZIP archive (an .xlsx/.docx or a zipped download?)"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file"),
    (b"version https://git-lfs", "a Git LFS pointer (run `git lfs pull`)"),
    (b"{", "a JSON file"),
)

# Silence MuPDF's own warnings on stderr: library code never prints; problems become errors.
pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)


def _what_is(head: bytes) -> str:
    low = head.lstrip().lower()
    for magic, what in _MAGIC:
        if low.startswith(magic.lower()):
            return what
    if head and all(32 <= b < 127 or b in (9, 10, 13) for b in head[:256]):
        return "a text file"
    return "binary data of an unknown kind"


class _Open:
    """One opened document: the MuPDF handle, its hash and its per-page text cache."""

    def __init__(self, doc: pymupdf.Document, sha256: str, repaired: bool) -> None:
        self.doc = doc
        self.sha256 = sha256
        self.repaired = repaired
        self.pages: dict[int, PageText] = {}
        self.plain: dict[int, str] = {}


class DocumentSet:
    """The ledger's PDFs: opened once, on first use; page text cached per (document, page)."""

    def __init__(self, documents: Mapping[str, Document]) -> None:
        self.documents = dict(documents)
        self._open: dict[str, _Open] = {}
        self._failed: dict[str, DocumentError] = {}
        # Values derived from page text by callers (e.g. the hint pre-filter), per run.
        self.memo: dict[tuple, object] = {}

    # -- lifecycle ----------------------------------------------------------------------

    def __enter__(self) -> DocumentSet:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close every opened PDF; the set can be reused (files reopen on demand)."""
        for o in self._open.values():
            o.doc.close()
        self._open.clear()
        self._failed.clear()
        self.memo.clear()

    # -- opening ------------------------------------------------------------------------

    def _get(self, doc_id: str) -> _Open:
        o = self._open.get(doc_id)
        if o is None:
            failed = self._failed.get(doc_id)
            if failed is not None:  # read a bad file once per run, not once per fact
                raise failed
            try:
                o = self._open[doc_id] = self._load(self.documents[doc_id])
            except DocumentError as e:
                self._failed[doc_id] = e
                raise
        return o

    def _load(self, d: Document) -> _Open:
        doc, sha = open_pdf(Path(d.path), d.sha256)
        return _Open(doc, sha, bool(doc.is_repaired))

    # -- queries ------------------------------------------------------------------------

    def sha256(self, doc_id: str) -> str:
        """The SHA-256 of the file as read (lower-case hex)."""
        return self._get(doc_id).sha256

    def page_count(self, doc_id: str) -> int:
        """The number of pages (the highest 1-based page a fact may name)."""
        return self._get(doc_id).doc.page_count

    def is_repaired(self, doc_id: str) -> bool:
        """True when MuPDF had to rebuild the file's cross-reference table (damaged file)."""
        return self._get(doc_id).repaired

    def page_text(self, doc_id: str, page: int) -> PageText:
        """The text layer of a 1-based page, extracted once per run."""
        o = self._get(doc_id)
        got = o.pages.get(page)
        if got is None:
            got = o.pages[page] = self._extract(doc_id, o, page)
        return got

    def plain_text(self, doc_id: str, page: int) -> str:
        """The page's text as a plain string: a cheap pre-filter before a full extraction."""
        o = self._get(doc_id)
        got = o.plain.get(page)
        if got is None:
            pt = o.pages.get(page)
            if pt is not None:
                got = "".join(ch.c for ch in pt.chars)
            else:
                try:
                    got = o.doc[page - 1].get_text("text", flags=FLAGS)
                except Exception as e:
                    raise self._page_error(doc_id, page, e) from e
            o.plain[page] = got
        return got

    def pages(self, doc_id: str) -> Iterator[int]:
        """Every 1-based page number of a document."""
        return iter(range(1, self.page_count(doc_id) + 1))

    def _extract(self, doc_id: str, o: _Open, page: int) -> PageText:
        if not 1 <= page <= o.doc.page_count:
            raise IndexError(page)
        try:
            return extract_page(o.doc[page - 1])
        except Exception as e:
            raise self._page_error(doc_id, page, e) from e

    def _page_error(self, doc_id: str, page: int, e: Exception) -> DocumentError:
        d = self.documents[doc_id]
        return DocumentError(
            f"p.{page} of document {d.id} cannot be read ({_mupdf_msg(e)}); the file is "
            "damaged: download or export it again", d.path)


def open_pdf(path: Path, pin: str | None = None) -> tuple[pymupdf.Document, str]:
    """Read, hash, check the pin and open one PDF; raise DocumentError with the fix."""
    if not path.exists():
        raise DocumentError(
            "file not found; check the `file:` path, which is relative "
            "to the claim file that declares it", path)
    if path.is_dir():
        raise DocumentError("is a folder, not a PDF; point `file:` at the PDF",
                            path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise DocumentError(f"cannot be read ({e.strerror}); "
                            "check its permissions", path) from e
    if not data:
        raise DocumentError(
            "file is empty (0 bytes); replace it with the real PDF "
            "(an interrupted download or copy leaves an empty file)", path)
    if b"%PDF-" not in data[:1024]:
        raise DocumentError(
            f"not a PDF (no %PDF- header; it looks like {_what_is(data[:512])}); "
            "point `file:` at the PDF itself", path)
    sha = hashlib.sha256(data).hexdigest()
    if pin is not None and pin.lower() != sha:
        raise DocumentError(
            f"SHA-256 mismatch: the ledger pins {pin.lower()} but the "
            f"file has {sha}; if this new file is intended, update the pin to "
            f"`sha256: {sha}`, otherwise restore the pinned file", path)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as e:  # MuPDF raises several types for unreadable files
        raise DocumentError(
            f"cannot be read as a PDF ({_mupdf_msg(e)}); the file is "
            "damaged: download or export it again", path) from e
    if doc.needs_pass:
        doc.close()
        raise DocumentError(
            "PDF is encrypted and needs a password; save an unencrypted copy "
            "(e.g. `qpdf --decrypt --password=... in.pdf out.pdf`) and point `file:` at it",
            path)
    if doc.page_count == 0:
        doc.close()
        raise DocumentError(
            "PDF has no readable pages; the file is damaged or truncated: "
            "download or export it again", path)
    return doc, sha


def _mupdf_msg(e: Exception) -> str:
    """MuPDF's own words, on one line."""
    msg = " ".join(str(e).split()) or type(e).__name__
    return msg[:200]
