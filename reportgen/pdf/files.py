"""File hashing shared by the verifier, the index and the no-op check; stdlib only, so the
no-op check can hash without importing PyMuPDF."""

from __future__ import annotations

import hashlib
import os

CHUNK = 1 << 20  # read in 1 MiB blocks: memory stays flat whatever the file size


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The file's SHA-256 (lower-case hex), read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()
