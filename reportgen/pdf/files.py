"""File hashing and atomic writes shared by the verifier, the index, the caches and the
no-op check; stdlib only, so the no-op check can hash without importing PyMuPDF."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

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
