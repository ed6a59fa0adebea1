"""The check behind conftest.run_once: a folder shared by the pytest-xdist workers stays as
it was filled."""

from __future__ import annotations

import json
from pathlib import Path


def folder_state(folder: Path) -> dict[str, list[int]]:
    """[size, mtime_ns] of `folder` and of everything under it: what a test changes when it
    writes there, and also when it only opens an SQLite database there in WAL mode (the
    reader's -wal and -shm files come and go, and the folder's mtime with them)."""
    out = {}
    for p in [folder, *sorted(folder.rglob("*"))]:
        st = p.lstat()
        out[str(p.relative_to(folder))] = [0 if p.is_dir() else st.st_size, st.st_mtime_ns]
    return out


class SharedFolderWritten(AssertionError):
    """A run-once folder changed after it was filled."""


def check_unchanged(folder: Path, state_file: Path) -> None:
    """Fail when `folder` is not as it was filled: another worker may be copying it (a file
    that vanishes under a copy fails that worker's test, one run in several)."""
    was = json.loads(state_file.read_text(encoding="utf-8"))
    now = folder_state(folder)
    changed = sorted(k for k in was.keys() | now.keys() if was.get(k) != now.get(k))
    if changed:
        raise SharedFolderWritten(
            f"a test changed the shared run-once folder {folder} ({', '.join(changed[:5])}); "
            "read it through a copy (even an SQLite read writes beside the database)")
