"""The folders `conftest.run_once` shares between pytest-xdist workers stay as they were filled."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pdf_fixtures import text_pdf
from runkit import SharedFolderWritten, check_unchanged, folder_state

from reportgen.index import build, finder


def _filled(tmp_path: Path) -> tuple[Path, Path]:
    """A folder holding an evidence index, and its state as run_once records it."""
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "a.pdf").write_bytes(text_pdf(["Algihaz supplies the storage project"]))
    build.index_paths([folder / "a.pdf"], folder / ".reportgen" / "index.sqlite")
    state = tmp_path / "shared.done"
    state.write_text(json.dumps(folder_state(folder)), encoding="utf-8")
    return folder, state


def test_a_search_in_the_shared_sample_index_raced_another_workers_copy(tmp_path):
    """test_index_sample searched the shared sample index in place. A search opens SQLite
    in WAL mode, whose -wal and -shm files come and go beside the index, so another worker
    copying the folder at that moment failed one run in several (seen as an error in
    test_stub_round_trip's setup). A search on a copy leaves the folder as it was; one in
    place is now caught on the spot."""
    folder, state = _filled(tmp_path)
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    assert finder.search(copy / ".reportgen" / "index.sqlite", "Algihaz", k=1)
    check_unchanged(folder, state)  # the copy was searched, not the folder

    assert finder.search(folder / ".reportgen" / "index.sqlite", "Algihaz", k=1)
    with pytest.raises(SharedFolderWritten, match="through a copy"):
        check_unchanged(folder, state)


def test_a_file_written_into_a_shared_folder_is_caught(tmp_path):
    folder, state = _filled(tmp_path)
    (folder / "a.pdf").write_bytes(b"%PDF-1.7 changed")
    with pytest.raises(SharedFolderWritten, match="a.pdf"):
        check_unchanged(folder, state)
