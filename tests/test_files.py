"""reportgen.pdf.files: the one opener of state files that never follows a symlink nor
waits on a pipe, and the bounded JSON reader built on it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from reportgen.pdf.files import open_regular_fd, read_json, read_regular


def test_open_regular_fd_opens_a_regular_file_only(tmp_path: Path) -> None:
    f = tmp_path / "state.json"
    f.write_text("{}", encoding="utf-8")
    fd = open_regular_fd(f)
    assert fd is not None
    os.close(fd)
    os.mkfifo(tmp_path / "fifo")  # opened without waiting for a writer, then refused
    assert open_regular_fd(tmp_path / "fifo") is None
    assert open_regular_fd(tmp_path) is None  # a folder
    (tmp_path / "link").symlink_to(f)
    with pytest.raises(OSError) as e:
        open_regular_fd(tmp_path / "link")
    assert e.value.errno == errno.ELOOP
    with pytest.raises(FileNotFoundError):
        open_regular_fd(tmp_path / "absent")


def test_open_regular_fd_creates_within_a_folder_descriptor(tmp_path: Path) -> None:
    dfd = os.open(tmp_path, os.O_RDONLY)
    try:
        fd = open_regular_fd("new.lock", os.O_RDWR | os.O_CREAT, 0o600, dir_fd=dfd)
    finally:
        os.close(dfd)
    assert fd is not None
    os.close(fd)
    assert (tmp_path / "new.lock").stat().st_mode & 0o777 == 0o600 & ~_umask()


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


def test_read_json_takes_only_a_bounded_regular_file(tmp_path: Path) -> None:
    f = tmp_path / "r.json"
    f.write_text('{"a": 1}', encoding="utf-8")
    assert read_json(f, 100) == {"a": 1}
    assert read_json(f, 3) is None  # larger than the bound
    (tmp_path / "zero").symlink_to("/dev/zero")
    assert read_json(tmp_path / "zero", 100) is None
    os.mkfifo(tmp_path / "fifo")
    assert read_json(tmp_path / "fifo", 100) is None
    (tmp_path / "bad").write_bytes(b"\xff{")
    assert read_json(tmp_path / "bad", 100) is None
    assert read_json(tmp_path / "absent", 100) is None


def test_read_regular_asks_the_caller_about_the_files_stat(tmp_path: Path) -> None:
    f = tmp_path / "key"
    f.write_bytes(b"k" * 8)
    assert read_regular(f, 8) == b"k" * 8
    assert read_regular(f, 7) is None
    assert read_regular(f, 8, lambda st: st.st_size == 9) is None
    assert read_regular(f, 8, lambda st: st.st_size == 8) == b"k" * 8
