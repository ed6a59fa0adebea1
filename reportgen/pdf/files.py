"""File hashing, atomic writes and bounded reads of state files shared by the verifier, the index, the caches and the
no-op check; stdlib only, so the no-op check can hash without importing PyMuPDF."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

CHUNK = 1 << 20  # read in 1 MiB blocks: memory stays flat whatever the file size


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The file's SHA-256 (lower-case hex), read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def write_atomic(folder: Path, chunks: Iterable[bytes], name: Callable[[], Path],
                 suffix: str = "", mode: int = 0o444) -> Path:
    """Write chunks to a temporary file in `folder`, then rename it, read-only by default
    (sites hard-link the cache's crops and PDFs), to `name()`: called once everything is
    written, it may refuse the bytes by raising. A kill leaves the old file or the new."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
        final = name()
        os.chmod(tmp, mode)
        os.replace(tmp, final)
        return final
    except BaseException as e:
        if isinstance(e, OSError) and e.filename is None:  # EFBIG, ENOSPC: name the file
            e.filename = tmp
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def open_regular_fd(path: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = 0o644,
                    dir_fd: int | None = None) -> int | None:
    """A descriptor of `path` opened with `flags`, never following a symlink in its last
    step nor waiting on a pipe, when it is a regular file; None (and nothing left open) for
    anything else. A workspace may put a symlink or a FIFO where a state file belongs.
    OSError from the open itself (absent, a symlink: ELOOP) goes to the caller."""
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0),
                 mode, dir_fd=dir_fd)
    if stat.S_ISREG(os.fstat(fd).st_mode):
        return fd
    os.close(fd)
    return None


def read_regular(path: str | os.PathLike[str], limit: int,
                 accept: Callable[[os.stat_result], bool] | None = None) -> bytes | None:
    """The bytes of a regular file of at most `limit` bytes (whose stat `accept`s, when
    given); None for anything else: absent, a symlink (to /dev/zero, say), a FIFO,
    larger, unreadable. A workspace may bring such files in place of state files."""
    try:
        fd = open_regular_fd(path)
    except OSError:
        return None
    if fd is None:
        return None
    try:
        with open(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if st.st_size > limit or (accept is not None and not accept(st)):
                return None
            data = f.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def read_json(path: Path, limit: int) -> Any:
    """The JSON value of a state file under `.reportgen/` (a cache entry, a record), or None
    for anything `read_regular` refuses, or that is not UTF-8 JSON or is nested past the
    parser's depth: the caller then works as if there were none."""
    data = read_regular(path, limit)
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
