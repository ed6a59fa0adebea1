"""The deterministic bundle zip."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import sitekit  # noqa: E402

from reportgen.site.write import build_site  # noqa: E402
from reportgen.site.bundle import PREFIX, check_entry_name, write_bundle, zip_timestamp  # noqa: E402
from reportgen.errors import BuildError  # noqa: E402


@pytest.mark.parametrize("name", ["../x", "a/../../x", "/etc/passwd", "a\\b", "C:evil", "",
                                  "a//b", "./a", "a/", "x\0y"])
def test_unsafe_names_are_refused(name):
    with pytest.raises(BuildError):
        check_entry_name(name)


@pytest.mark.parametrize("name", ["index.html", "anchors/s2-4.png", "pdfs/年报.pdf"])
def test_safe_names_pass(name):
    assert check_entry_name(name) == name


def test_timestamp(monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    assert zip_timestamp() == (1980, 1, 1, 0, 0, 0)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000001")
    assert zip_timestamp() == (2023, 11, 14, 22, 13, 20)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert zip_timestamp() == (1980, 1, 1, 0, 0, 0)


def test_sorted_fixed_and_deterministic(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    (tmp_path / "b.txt").write_text("b")
    (tmp_path / "a.png").write_bytes(b"\x89PNG")
    files = [("z/b.txt", tmp_path / "b.txt"), ("a.png", tmp_path / "a.png")]
    write_bundle(tmp_path / "1.zip", files)
    write_bundle(tmp_path / "2.zip", list(reversed(files)))
    assert (tmp_path / "1.zip").read_bytes() == (tmp_path / "2.zip").read_bytes()
    with zipfile.ZipFile(tmp_path / "1.zip") as zf:
        infos = zf.infolist()
        assert [i.filename for i in infos] == [PREFIX + "a.png", PREFIX + "z/b.txt"]
        assert {i.date_time for i in infos} == {zip_timestamp()}
        assert {i.external_attr >> 16 for i in infos} == {0o100644}
        assert infos[0].compress_type == zipfile.ZIP_STORED
        assert infos[1].compress_type == zipfile.ZIP_DEFLATED


def test_bundle_of_a_site_holds_pdfs_html_crops_evidence(tmp_path):
    v = sitekit.make_verification(tmp_path)
    out = tmp_path / "site"
    build_site(v, out)
    with zipfile.ZipFile(out / "reportgen-bundle.zip") as zf:
        names = zf.namelist()
        assert zf.testzip() is None
        zf.extractall(tmp_path / "unpacked")
    rel = {n[len(PREFIX):] for n in names}
    assert {"index.html", "S1.html", "S1.standalone.html", "evidence.jsonl", "pdfs/d1.pdf",
            "anchors/f1.png", "anchors/f3~p4.png", "assets/site.css", "assets/site.js"} <= rel
    assert names == sorted(names) and all(n.startswith(PREFIX) for n in names)
    root = tmp_path / "unpacked" / PREFIX.rstrip("/")
    assert (root / "evidence.jsonl").read_bytes() == (out / "evidence.jsonl").read_bytes()
    unpacked = {p for p in (tmp_path / "unpacked").rglob("*") if p.is_file()}
    assert all(root in p.parents for p in unpacked)
