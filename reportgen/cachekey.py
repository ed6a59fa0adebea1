"""A key only this user knows, for the caches and records kept in a workspace.

A workspace handed to you (a repository, a colleague's zip) may carry its own `.reportgen/`
folder. Whatever its author could name or compute there would be trusted: a verdict pack
that says `hit` for a quote the PDF lacks, a crop of another image, a kept copy of another
PDF, template bytecode, a no-op record that skips the checks. So every such entry is named
and checked with an HMAC under a random key kept in the user's cache folder, readable by
the user only: an entry a workspace brings is never found, and one it edits no longer
checks. Stdlib only (its one import of the project, `pdf.files`, is too).

Where no key can be kept (no writable home), a key for this process (and the workers it
forks) is used: nothing cached then outlives the run, which only costs time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from reportgen.pdf.files import read_regular

ENV = "REPORTGEN_KEY_FILE"  # where the key is kept, instead of the user's cache folder
SIZE = 32


def key_file() -> Path:
    """$REPORTGEN_KEY_FILE, else `reportgen/cache-key` in $XDG_CACHE_HOME or ~/.cache."""
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "reportgen" / "cache-key"


def _read(path: Path) -> bytes | None:
    """The key at `path` when it is a regular file of SIZE bytes, ours, that no one else
    may read or write; None otherwise."""
    def ours(st: os.stat_result) -> bool:
        return st.st_size == SIZE and not st.st_mode & 0o077 and (
            not hasattr(os, "getuid") or st.st_uid == os.getuid())

    data = read_regular(path, SIZE, ours)
    return data if data is not None and len(data) == SIZE else None


def _create(path: Path) -> bytes | None:
    """A new key at `path`, written whole before it gets its name: a hard link, which fails
    when another process named its own first (that one is read instead), or a rename where
    the file system has no hard links (the last of two such runs wins, which only costs
    the first one's cache entries)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    key = os.urandom(SIZE)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with open(fd, "wb") as f:
            f.write(key)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return _read(path)
        except OSError:
            os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
    return key


@lru_cache(maxsize=1)
def machine_key() -> bytes:
    """The user's key, made on first use; a key for this process where none can be kept."""
    path = key_file()
    try:
        key = _read(path) or (None if path.exists() else _create(path))
    except OSError:
        key = None
    return key or os.urandom(SIZE)


def keyed(*parts: str) -> str:
    """HMAC-SHA-256 (hex) of the parts under the user's key: a name or checksum that no
    workspace can compute."""
    mac = hmac.new(machine_key(), digestmod=hashlib.sha256)
    for part in parts:  # each part with its length: no two lists of parts read the same
        data = part.encode("utf-8", "surrogatepass")
        mac.update(len(data).to_bytes(8, "big") + data)
    return mac.hexdigest()


def _record_mac(purpose: str, record: dict[str, Any]) -> str:
    return keyed(purpose, json.dumps(record, sort_keys=True, ensure_ascii=False))


def sealed(purpose: str, record: dict[str, Any]) -> dict[str, Any]:
    """The record with a `mac` field: its HMAC under the user's key, for `purpose`."""
    return dict(record, mac=_record_mac(purpose, record))


def unsealed(purpose: str, record: Any) -> dict[str, Any] | None:
    """The record without its `mac`, when the mac is this user's for these contents and
    this purpose; None for anything else (another user's, edited, of any other shape)."""
    if not isinstance(record, dict):
        return None
    rest = {k: v for k, v in record.items() if k != "mac"}
    mac = record.get("mac")
    if not isinstance(mac, str) or not hmac.compare_digest(
            mac.encode("utf-8", "surrogatepass"), _record_mac(purpose, rest).encode()):
        return None
    return rest
