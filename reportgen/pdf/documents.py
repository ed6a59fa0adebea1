"""Open each PDF of a ledger once per run, lazily, and hand out pages' text with caching.

Every way a file can fail to serve as evidence becomes a `DocumentError` naming the PDF and
the fix, so an analyst never sees a MuPDF traceback.

A file is read once, through one descriptor (`pdf.source.read_pdf`: its first KB decides
whether it is a PDF at all, its bytes are hashed as they are read), and MuPDF opens exactly
those bytes: from memory up to IN_MEMORY_MAX, above that from a private copy (mode 0600 in
TMPDIR) written while hashing, whose name is removed as soon as MuPDF has opened it. Bytes
the verdict cache read for its lookup are handed over (`DocumentSet.adopt`), not read again. Opening the path itself after
hashing it would let a file replaced in between be checked under another file's hash; a
huge file in memory would cost its size in RAM. The same bytes are what `save_copy`
publishes, so nothing after the check reads the path again; `open_verified` and
`copy_verified` serve the callers that must (a build given a Verification made elsewhere):
they re-hash what they read and refuse bytes other than the ones checked.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType

import pymupdf

from reportgen.cachekey import keyed
from reportgen.errors import DocumentError
from reportgen.model import Document
from reportgen.pdf.files import write_atomic
from reportgen.pdf.source import (CHUNK, IN_MEMORY_MAX, MAX_BYTES, PdfBytes, open_regular,
                                  pin_mismatch, read_pdf, too_large)
from reportgen.pdf.text import PageText
from reportgen.pdf.textlayer import FLAGS, MAX_PAGE_CHARS, TooManyChars, extract_page

# Silence MuPDF's own warnings on stderr: library code never prints; problems become errors.
pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)


# Text layers kept at once, bounded by characters: a PageText holds about 310 bytes per
# character (a boxed char), so 256,000 characters are about 80 MB, some 25 dense pages. A
# bound by pages alone let 32 pages of a million characters each take 8 GB.
CACHE_CHARS = 256_000
CACHE_PAGES = 32


class _Open:
    """One opened document: the MuPDF handle, its bytes and its plain-text and memo caches."""

    def __init__(self, doc: pymupdf.Document, source: PdfBytes, repaired: bool) -> None:
        self.doc = doc
        self.source = source
        self.sha256 = source.sha256
        self.repaired = repaired
        self.plain: dict[int, str] = {}
        self.memo: dict[tuple, object] = {}

    def close(self) -> None:
        self.doc.close()
        self.source.close()


class DocumentSet:
    """The ledger's PDFs: opened on first use; the latest pages' text kept (LRU) up to
    `cache_chars` characters (and `cache_pages` pages).

    Callers that visit facts grouped by (document, page) hit the cache and can `release()`
    a document when they are done with it, so memory stays flat however large the ledger.
    """

    def __init__(self, documents: Mapping[str, Document], cache_pages: int = CACHE_PAGES,
                 cache_chars: int = CACHE_CHARS, in_memory_max: int = IN_MEMORY_MAX) -> None:
        self.documents = dict(documents)
        self.cache_pages = max(1, cache_pages)
        self.cache_chars = max(1, cache_chars)
        self.in_memory_max = in_memory_max
        self._open: dict[str, _Open] = {}
        self._failed: dict[str, DocumentError] = {}
        self._given: dict[str, PdfBytes] = {}  # bytes read before opening (see adopt)
        self._pages: OrderedDict[tuple[str, int], PageText] = OrderedDict()
        self._chars = 0  # characters held in _pages

    # -- lifecycle ----------------------------------------------------------------------

    def __enter__(self) -> DocumentSet:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close every opened PDF; the set can be reused (files reopen on demand)."""
        for o in self._open.values():
            o.close()
        self._open.clear()
        for b in self._given.values():
            b.close()
        self._given.clear()
        self._failed.clear()
        self._pages.clear()
        self._chars = 0

    def release(self, doc_id: str) -> None:
        """Close one PDF and drop its cached text (it reopens on demand); a failure stays."""
        o = self._open.pop(doc_id, None)
        if o is not None:
            o.close()
        given = self._given.pop(doc_id, None)
        if given is not None:
            given.close()
        for key in [k for k in self._pages if k[0] == doc_id]:
            self._chars -= len(self._pages.pop(key).chars)

    def cached_pages(self) -> list[tuple[str, int]]:
        """The (document, page) text layers held, least recently used first."""
        return list(self._pages)

    # -- opening ------------------------------------------------------------------------

    def adopt(self, doc_id: str, source: PdfBytes) -> None:
        """Open `doc_id`, when it is first used, from bytes already read and hashed (for the
        verdict cache's lookup) instead of reading its path again: one read, and the
        verdicts, the published copy and the crops all come from the bytes that hash
        gave. The set closes them (release, close)."""
        old = self._given.pop(doc_id, None)
        if old is not None and old is not source:
            old.close()
        if doc_id in self._open or doc_id in self._failed:
            source.close()
        else:
            self._given[doc_id] = source

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
        path = Path(d.path)
        source = self._given.pop(d.id, None)
        if source is None:
            source = read_pdf(path, d.sha256, self.in_memory_max)
        elif d.sha256 is not None and d.sha256.lower() != source.sha256:
            source.close()
            raise pin_mismatch(path, d.sha256, source.sha256)
        try:
            doc = _open_checked(path, source)
        except BaseException:
            source.close()
            raise
        return _Open(doc, source, bool(doc.is_repaired))

    # -- queries ------------------------------------------------------------------------

    def sha256(self, doc_id: str) -> str:
        """The SHA-256 of the file as read (lower-case hex)."""
        return self._get(doc_id).sha256

    def save_copy(self, doc_id: str, folder: Path) -> Path:
        """folder/kept_name(sha256) holding the very bytes the document was checked against
        (written once, read-only, replaced atomically), for the site to publish. Bytes
        given to `adopt` and not opened yet (every verdict came from the cache) are
        written as they are, without opening them."""
        o = self._open.get(doc_id)
        source = o.source if o is not None else self._given.get(doc_id)
        if source is None:
            source = self._get(doc_id).source
        dest = folder / kept_name(source.sha256)
        if not dest.exists():
            write_atomic(folder, source.chunks(), lambda: dest, ".pdf")
        return dest

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
        self._chars += len(got.chars)
        while len(self._pages) > 1 and (self._chars > self.cache_chars
                                        or len(self._pages) > self.cache_pages):
            self._chars -= len(self._pages.popitem(last=False)[1].chars)
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
            if len(got) > MAX_PAGE_CHARS:
                raise self._page_error(doc_id, page, TooManyChars(len(got)))
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
        if isinstance(e, TooManyChars):
            return DocumentError(
                f"p.{page} of document {d.id} has {e.count:,} characters, more than the "
                f"{MAX_PAGE_CHARS:,} a page may have (the densest real pages hold about "
                "15,000); such a page is generated or damaged: quote the fact from an "
                "ordinary copy of the document", d.path)
        if is_limit(e):
            return DocumentError(
                f"p.{page} of document {d.id} is beyond what MuPDF will read "
                f"({mupdf_message(e)}); the page is oversized or hostile: quote the fact from "
                "an ordinary copy of the document", d.path)
        return DocumentError(
            f"p.{page} of document {d.id} cannot be read ({mupdf_message(e)}); the file is "
            "damaged: download or export it again", d.path)


def open_pdf(path: Path, pin: str | None = None,
             in_memory_max: int = IN_MEMORY_MAX) -> tuple[pymupdf.Document, str]:
    """Read, hash, check the pin and open one PDF; raise DocumentError with the fix."""
    source = read_pdf(path, pin, in_memory_max)
    try:
        return _open_checked(path, source), source.sha256
    finally:
        source.close()  # MuPDF holds its own handle on a private copy


def open_read(path: Path, source: PdfBytes) -> pymupdf.Document:
    """MuPDF's document over bytes `read_pdf` returned, with `open_pdf`'s refusals; the
    bytes stay the caller's, so one read can be opened again (in a forked worker)."""
    return _open_checked(path, source)


def open_verified(path: Path, sha256: str) -> pymupdf.Document:
    """Open a PDF again for a caller that has only its path: the bytes read must be the
    ones checked (SHA-256 `sha256`), or DocumentError says the file changed."""
    source = read_pdf(path)
    try:
        if source.sha256 != sha256:
            raise _changed(path, sha256, source.sha256)
        return _open_checked(path, source)
    finally:
        source.close()


def kept_name(sha256: str) -> str:
    """The file name of a kept copy of the bytes with this SHA-256: an HMAC under the
    user's key, so a copy a workspace brings in its `.reportgen/` is never taken for one
    this user checked (`reportgen.cachekey`)."""
    return f"{keyed('kept-pdf', sha256)}.pdf"


def copy_verified(path: Path, sha256: str | None, folder: Path, pin: str | None = None) -> Path:
    """folder/kept_name(sha256): the copy saved while checking when there is one, else the file
    copied while hashed and refused (DocumentError) unless its bytes are the ones checked
    (or, for a document no fact cites, so no `sha256`, the pinned ones if pinned)."""
    if sha256:
        dest = folder / kept_name(sha256)
        if dest.exists():
            return dest
    f, _ = open_regular(path)
    h = hashlib.sha256()

    def read() -> Iterator[bytes]:
        total = 0
        while chunk := f.read(CHUNK):
            total += len(chunk)
            if total > MAX_BYTES:
                raise too_large(path, total)
            h.update(chunk)
            yield chunk

    def name() -> Path:
        got = h.hexdigest()
        if sha256 and got != sha256:
            raise _changed(path, sha256, got)
        if not sha256 and pin and got != pin.lower():
            raise pin_mismatch(path, pin, got)
        return folder / kept_name(got)

    with f:
        return write_atomic(folder, read(), name, ".pdf")


def _open_checked(path: Path, source: PdfBytes) -> pymupdf.Document:
    """MuPDF's document over exactly the bytes read; refuse encrypted and empty files."""
    spool = os.fspath(source.spool) if source.spool is not None else None
    try:
        if spool is None:
            doc = pymupdf.open(stream=source.data, filetype="pdf")
        else:
            doc = pymupdf.open(spool, filetype="pdf")
        count = doc.page_count  # MuPDF checks the page tree's /Count here
    except Exception as e:  # MuPDF raises several types for unreadable files
        why = mupdf_message(e)
        if spool is not None:  # the private copy's name means nothing to the reader
            why = why.replace(spool, path.name)
        raise DocumentError(
            f"cannot be read as a PDF ({why}); the file is "
            "damaged: download or export it again", path) from e
    finally:
        source.unlink()  # MuPDF keeps its own handle; the copy's name goes at once
    if doc.needs_pass:
        doc.close()
        raise DocumentError(
            "PDF is encrypted and needs a password; save an unencrypted copy "
            "(e.g. `qpdf --decrypt --password=... in.pdf out.pdf`) and point `file:` at it",
            path)
    if count == 0:
        doc.close()
        raise DocumentError(
            "PDF has no readable pages; the file is damaged or truncated: "
            "download or export it again", path)
    return doc


def _changed(path: Path, was: str, now: str) -> DocumentError:
    return DocumentError(
        f"changed since it was checked (SHA-256 {was}, now {now}); a PDF must not be "
        "replaced while a build runs: run the build again", path)


def is_limit(e: BaseException) -> bool:
    """True for MuPDF refusing work past one of its limits (FzErrorLimit and kin)."""
    return type(e).__name__ == "FzErrorLimit" or str(e).startswith("code=5:")


def mupdf_message(e: BaseException) -> str:
    """MuPDF's own words, on one line."""
    msg = " ".join(str(e).split()) or type(e).__name__
    return msg[:200]
