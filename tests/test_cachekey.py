"""The user's key for the caches a workspace holds: made once, private, never one a
workspace could have put in place."""

from __future__ import annotations

import os
import stat

import pytest

from reportgen import cachekey
from reportgen.cachekey import ENV, SIZE, keyed, machine_key


@pytest.fixture()
def key_file(tmp_path, monkeypatch):
    path = tmp_path / "cache" / "reportgen" / "cache-key"
    monkeypatch.setenv(ENV, str(path))
    machine_key.cache_clear()
    yield path
    machine_key.cache_clear()  # later tests (and their subprocesses) use the user's key


def test_the_key_is_made_once_private_and_kept(key_file):
    first = machine_key()
    assert len(first) == SIZE and key_file.read_bytes() == first
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    machine_key.cache_clear()
    assert machine_key() == first  # a later run reads the same key
    assert keyed("a", "b") == keyed("a", "b") != keyed("a\0b")


@pytest.mark.parametrize("planted", ["readable", "short", "symlink", "fifo"])
def test_a_key_file_others_could_have_written_or_read_is_not_used(key_file, planted):
    key_file.parent.mkdir(parents=True)
    known = b"k" * SIZE
    if planted == "fifo":
        os.mkfifo(key_file, 0o600)
    elif planted == "symlink":
        other = key_file.parent / "other"
        other.write_bytes(known)
        os.chmod(other, 0o600)
        key_file.symlink_to(other)
    else:
        key_file.write_bytes(known if planted == "readable" else known[:8])
        os.chmod(key_file, 0o644 if planted == "readable" else 0o600)
    got = machine_key()
    assert got != known and len(got) == SIZE
    machine_key.cache_clear()
    assert machine_key() != got  # a key for the process only: nothing outlives it


def test_no_place_for_the_key_gives_a_key_for_the_process(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(ENV, str(blocked / "reportgen" / "cache-key"))
    machine_key.cache_clear()
    try:
        got = machine_key()
        assert len(got) == SIZE and keyed("x")
        machine_key.cache_clear()
        assert machine_key() != got
    finally:
        machine_key.cache_clear()


def test_the_default_place_is_the_users_cache_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cachekey.key_file() == tmp_path / "reportgen" / "cache-key"


def test_a_sealed_record_opens_only_unchanged_and_for_its_purpose():
    from reportgen.cachekey import sealed, unsealed

    rec = {"key": "k", "sentences": ["甲 [@s3-4]"], "n": 1}
    box = sealed("summary", rec)
    assert unsealed("summary", box) == rec
    assert unsealed("fingerprint", box) is None  # another purpose
    assert unsealed("summary", dict(box, n=2)) is None  # edited
    assert unsealed("summary", rec) is None  # no mac
    for mac in (None, 7, "\udcff\u00e9", box["mac"].upper()):
        assert unsealed("summary", dict(rec, mac=mac)) is None
    assert unsealed("summary", ["not", "a", "record"]) is None
