"""Open each PDF of a ledger once per run, lazily, and hand out pages' text with caching.

Every way a file can fail to serve as evidence becomes a `DocumentError` naming the PDF and
the fix, so an analyst never sees a MuPDF traceback.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
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


# Full text layers kept at once: a PageText of a dense page holds thousands of boxed chars
# (about 1 MB), so keeping every page of a 1,000-fact ledger would take a gigabyte.
CACHE_PAGES = 32


class _Open:
    """One opened document: the MuPDF handle, its hash and its plain-text and memo caches."""

    def __init__(self, doc: pymupdf.Document, sha256: str, repaired: bool) -> None:
        self.doc = doc
        self.sha256 = sha256
        self.repaired = repaired
        self.plain: dict[int, str] = {}
        self.memo: dict[tuple, object] = {}


class DocumentSet:
    """The ledger's PDFs: opened on first use; the last CACHE_PAGES pages' text kept (LRU).

    Callers that visit facts grouped by (document, page) hit the cache and can `release()`
    a document when they are done with it, so memory stays flat however large the ledger.
    """

    def __init__(self, documents: Mapping[str, Document], cache_pages: int = CACHE_PAGES) -> None:
        self.documents = dict(documents)
        self.cache_pages = max(1, cache_pages)
        self._open: dict[str, _Open] = {}
        self._failed: dict[str, DocumentError] = {}
        self._pages: OrderedDict[tuple[str, int], PageText] = OrderedDict()

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
        self._pages.clear()

    def release(self, doc_id: str) -> None:
        """Close one PDF and drop its cached text (it reopens on demand); a failure stays."""
        o = self._open.pop(doc_id, None)
        if o is not None:
            o.doc.close()
        for key in [k for k in self._pages if k[0] == doc_id]:
            del self._pages[key]

    def cached_pages(self) -> list[tuple[str, int]]:
        """The (document, page) text layers held, least recently used first."""
        return list(self._pages)

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

    def pdf(self, doc_id: str) -> pymupdf.Document:
        """The open MuPDF document (for rendering crops while it is open)."""
        return self._get(doc_id).doc

    def is_repaired(self, doc_id: str) -> bool:
        """True when MuPDF had to rebuild the file's cross-reference table (damaged file)."""
        return self._get(doc_id).repaired

    def page_text(self, doc_id: str, page: int) -> PageText:
        """The text layer of a 1-based page; extracted again only after it left the cache."""
        key = (doc_id, page)
        got = self._pages.get(key)
        if got is not None:
            self._pages.move_to_end(key)
            return got
        got = self._pages[key] = self._extract(doc_id, self._get(doc_id), page)
        if len(self._pages) > self.cache_pages:
            self._pages.popitem(last=False)
        return got

    def plain_text(self, doc_id: str, page: int) -> str:
        """The page's text as a plain string: a cheap pre-filter before a full extraction.

        Always MuPDF's plain text (never joined from a cached PageText), so the value does
        not depend on what happens to be cached."""
        o = self._get(doc_id)
        got = o.plain.get(page)
        if got is None:
            try:
                got = o.doc[page - 1].get_text("text", flags=FLAGS)
            except Exception as e:
                raise self._page_error(doc_id, page, e) from e
            o.plain[page] = got
        return got

    def memo(self, doc_id: str) -> dict[tuple, object]:
        """A per-document dict for values callers derive from its text (kept until release)."""
        return self._get(doc_id).memo

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
