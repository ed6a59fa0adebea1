"""A PDF's bytes, read once through one descriptor and hashed as they are read (stdlib only).

Its first KB decides whether it is a PDF at all (a 64 GB file of zeros is refused after
1,024 bytes, a file over MAX_BYTES before it is read); up to IN_MEMORY_MAX the bytes stay in
memory, above that they are copied, while hashed, to a private file (mode 0600 in TMPDIR).
The verdict cache takes its lookup hash from these bytes, and `pdf.documents` opens exactly
them, so a document is read once however its facts are served.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from reportgen.errors import DocumentError

HEAD = 1024  # the %PDF- header may follow up to 1 KB of junk (as readers allow)
IN_MEMORY_MAX = 256 << 20  # larger files are opened from a private copy, not from memory
MAX_BYTES = 4 << 30  # no report is larger; a bigger file is refused, not copied
CHUNK = 1 << 20

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

def _what_is(head: bytes) -> str:
    low = head.lstrip().lower()
    for magic, what in _MAGIC:
        if low.startswith(magic.lower()):
            return what
    if head and all(32 <= b < 127 or b in (9, 10, 13) for b in head[:256]):
        return "a text file"
    return "binary data of an unknown kind"


class PdfBytes:
    """The bytes a document was checked against: in memory, or a private copy on disk
    (its name is removed once MuPDF has opened it; this descriptor keeps it readable)."""

    def __init__(self, sha256: str, data: bytes | None = None, fd: int | None = None,
                 spool: Path | None = None) -> None:
        self.sha256 = sha256
        self.data = data
        self.fd = fd
        self.spool = spool

    def chunks(self) -> Iterator[bytes]:
        if self.data is not None:
            yield self.data
            return
        if self.fd is None:
            raise ValueError("the document's bytes are closed")
        offset = 0
        while chunk := os.pread(self.fd, CHUNK, offset):
            offset += len(chunk)
            yield chunk

    def unlink(self) -> None:
        if self.spool is not None:
            try:
                os.unlink(self.spool)
            except FileNotFoundError:
                pass
            self.spool = None

    def close(self) -> None:
        self.unlink()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def read_pdf(path: Path, pin: str | None = None, in_memory_max: int = IN_MEMORY_MAX) -> PdfBytes:
    """A PDF's bytes and SHA-256, read once through one descriptor, the header checked first.

    Up to `in_memory_max` bytes stay in memory; a larger file is copied into a private
    temporary file (in TMPDIR) while it is hashed, and that copy is what gets opened, so the
    hash always describes the bytes MuPDF reads, whatever happens to the path meanwhile."""
    f, size = open_regular(path)
    with f:
        try:
            head = f.read(HEAD)
            if not head:
                raise DocumentError(
                    "file is empty (0 bytes); replace it with the real PDF "
                    "(an interrupted download or copy leaves an empty file)", path)
            if b"%PDF-" not in head:
                raise DocumentError(
                    f"not a PDF (no %PDF- header; it looks like {_what_is(head[:512])}); "
                    "point `file:` at the PDF itself", path)
            if size > MAX_BYTES:
                raise too_large(path, size)
            f.seek(0)
            # one allocation; the +1 tells whether the file grew meanwhile
            first = f.read(size + 1) if size <= in_memory_max else b""
        except OSError as e:
            raise DocumentError(f"cannot be read ({e.strerror or e}); "
                                "check its permissions", path) from e
        if first and len(first) <= size:  # the whole file, to its end
            source = PdfBytes(hashlib.sha256(first).hexdigest(), data=first)
        else:
            source = _spool(f, path, first)
    if pin is not None and pin.lower() != source.sha256:
        source.close()
        raise pin_mismatch(path, pin, source.sha256)
    return source


def open_regular(path: Path) -> tuple[BinaryIO, int]:
    """(binary file object, size) of a regular file; never blocks on a pipe."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise DocumentError(
            "file not found; check the `file:` path, which is relative "
            "to the claim file that declares it", path) from None
    except OSError as e:
        raise DocumentError(f"cannot be read ({e.strerror}); "
                            "check its permissions", path) from e
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise DocumentError("is a folder, not a PDF; point `file:` at the PDF", path)
        raise DocumentError("is not a regular file (a pipe or a device?); point `file:` "
                            "at the PDF itself", path)
    return os.fdopen(fd, "rb"), st.st_size


def _spool(f: BinaryIO, path: Path, first: bytes) -> PdfBytes:
    """The rest of `read_pdf` for a large file: copied, while hashed, to a private file."""
    h = hashlib.sha256()
    try:
        fd, tmp = tempfile.mkstemp(prefix="reportgen-", suffix=".pdf")  # mode 0600
    except OSError as e:
        raise _no_spool(path, e) from e
    source = PdfBytes("", fd=fd, spool=Path(tmp))
    try:
        total = 0
        chunk = first or f.read(CHUNK)
        while chunk:
            total += len(chunk)
            if total > MAX_BYTES:
                raise too_large(path, total)
            h.update(chunk)
            view = memoryview(chunk)
            try:
                while view:
                    view = view[os.write(fd, view):]
            except OSError as e:
                raise _no_spool(path, e) from e
            chunk = f.read(CHUNK)
    except OSError as e:  # reading the source
        source.close()
        raise DocumentError(f"cannot be read ({e.strerror or e}); "
                            "check its permissions", path) from e
    except BaseException:
        source.close()
        raise
    source.sha256 = h.hexdigest()
    return source


def _no_spool(path: Path, e: OSError) -> DocumentError:
    return DocumentError(
        f"is larger than {IN_MEMORY_MAX >> 20} MB, so it is checked from a private copy, "
        f"which cannot be written in {tempfile.gettempdir()} ({e.strerror or e}); set "
        "TMPDIR to a folder with room", path)


def pin_mismatch(path: Path, pin: str, sha: str) -> DocumentError:
    return DocumentError(
        f"SHA-256 mismatch: the ledger pins {pin.lower()} but the "
        f"file has {sha}; if this new file is intended, update the pin to "
        f"`sha256: {sha}`, otherwise restore the pinned file", path)


def too_large(path: Path, size: int) -> DocumentError:
    return DocumentError(
        f"is {size / (1 << 30):.1f} GB, more than the {MAX_BYTES / (1 << 30):.1f} GB a PDF "
        "may have; point `file:` at the report itself (or split this file with qpdf)", path)


