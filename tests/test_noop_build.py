"""The no-op rebuild: with nothing changed `build` repeats its verdict lines and
writes nothing; any change to an input or to the output folder means a full build."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
import sitekit  # noqa: E402

import reportgen.render.paths as paths  # noqa: E402
from reportgen.site import fingerprint  # noqa: E402
from reportgen.cli import main  # noqa: E402

TOTAL = "S1: facts=3 hits=3 misses=0\nTOTAL: facts=3 hits=3 misses=0\n"


def build(claims: Path, out: Path, *extra: str):
    return CliRunner().invoke(main, ["build", str(claims), "--out", str(out), "-v", *extra])


def is_noop(r) -> bool:
    assert r.exit_code == 0, r.output
    return "is up to date" in r.stderr and "wrote" not in r.stderr


def later(p: Path) -> None:
    """Touch: a new mtime, same bytes."""
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


@pytest.fixture
def built(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    claims = sitekit.make_ledger(tmp_path)
    out = tmp_path / "site"
    r = build(claims, out)
    assert r.exit_code == 0 and r.stdout == TOTAL and "wrote" in r.stderr
    return claims, out


def test_nothing_changed_is_a_noop_with_the_same_stdout(built):
    claims, out = built
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in out.rglob("*") if p.is_file()}
    r = build(claims, out)
    assert is_noop(r) and r.stdout == TOTAL
    assert {p: (p.stat().st_mtime_ns, p.read_bytes())
            for p in out.rglob("*") if p.is_file()} == before
    assert is_noop(build(claims, out, "--jobs", "2"))  # --jobs does not change the output


def _edit_claim(claims, out, tmp):
    with open(claims / "s1.yaml", "a") as f:
        f.write("# a comment\n")


def _touch_claim(claims, out, tmp):
    later(claims / "s1.yaml")


def _new_claim_file(claims, out, tmp):
    (claims / "notes.txt").write_text("not a claim file, but the folder changed")


def _touch_pdf(claims, out, tmp):
    later(tmp / "docs" / "report.pdf")


def _change_pdf(claims, out, tmp):
    pdf = tmp / "docs" / "report.pdf"
    st = pdf.stat()
    with open(pdf, "ab") as f:
        f.write(b"\n% trailing comment\n")
    os.utime(pdf, ns=(st.st_atime_ns, st.st_mtime_ns))


def _delete_output(claims, out, tmp):
    (out / "anchors" / "f1.png").unlink()


def _modify_output(claims, out, tmp):
    (out / "S1.html").write_text("edited by hand")


def _add_output(claims, out, tmp):
    (out / "extra.txt").write_text("x")


def _epoch(claims, out, tmp):
    os.environ["SOURCE_DATE_EPOCH"] = "1700000002"


@pytest.mark.parametrize("change", [_edit_claim, _touch_claim, _new_claim_file, _touch_pdf,
                                    _change_pdf, _delete_output, _modify_output, _add_output,
                                    _epoch], ids=lambda f: f.__name__.strip("_"))
def test_a_change_forces_a_full_build(built, tmp_path, change):
    claims, out = built
    change(claims, out, tmp_path)
    r = build(claims, out)
    assert r.exit_code == 0 and r.stdout == TOTAL and "wrote" in r.stderr
    assert (out / "anchors" / "f1.png").is_file()
    assert (out / "S1.html").read_text() != "edited by hand"
    assert is_noop(build(claims, out))  # and then it is recorded again


def test_a_symlink_that_now_leads_elsewhere(tmp_path, monkeypatch):
    """Same bytes, same stat, another file: the declared path resolves differently."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    claims = sitekit.make_ledger(tmp_path)
    docs = tmp_path / "docs"
    (docs / "report.pdf").rename(docs / "a.pdf")
    shutil.copy2(docs / "a.pdf", docs / "b.pdf")
    (docs / "report.pdf").symlink_to("a.pdf")
    out = tmp_path / "site"
    assert "wrote" in build(claims, out).stderr
    assert is_noop(build(claims, out))
    (docs / "report.pdf").unlink()
    (docs / "report.pdf").symlink_to("b.pdf")
    assert "wrote" in build(claims, out).stderr


def test_allow_outside_is_part_of_the_fingerprint(built):
    claims, out = built
    assert "wrote" in build(claims, out, "--allow-outside").stderr
    assert is_noop(build(claims, out, "--allow-outside"))
    assert "wrote" in build(claims, out).stderr


def test_templates_override_and_builtin(built, tmp_path, monkeypatch):
    claims, out = built
    tpl = tmp_path / "tpl"
    tpl.mkdir()
    (tpl / "index.html").write_text("mine")
    assert "wrote" in build(claims, out, "--templates", str(tpl)).stderr
    assert is_noop(build(claims, out, "--templates", str(tpl)))
    later(tpl / "index.html")
    assert "wrote" in build(claims, out, "--templates", str(tpl)).stderr
    assert "wrote" in build(claims, out).stderr  # back to the built-in templates
    # the built-in templates: a copy stands in for them, then one file changes
    copy = tmp_path / "builtin"
    shutil.copytree(paths.default_templates(), copy)
    monkeypatch.setattr(paths, "default_templates", lambda: copy)
    build(claims, out)
    assert is_noop(build(claims, out))
    later(copy / "report.html")
    assert "wrote" in build(claims, out).stderr


def test_a_miss_exits_1_and_is_never_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    claims = sitekit.make_ledger(tmp_path, quote_f1="Not in the PDF: 14.59.")
    out = tmp_path / "site"
    for _ in range(2):
        r = build(claims, out)
        assert r.exit_code == 1 and r.stdout.startswith("MISS f1 d1 p.1")
        assert not fingerprint.record_path(out).exists()
    sitekit.make_ledger(tmp_path)  # fixed
    assert "wrote" in build(claims, out).stderr
    assert fingerprint.record_path(out).exists()
    sitekit.make_ledger(tmp_path, quote_f1="Not in the PDF: 14.59.")  # broken again
    for _ in range(2):
        r = build(claims, out)
        assert r.exit_code == 1 and "MISS f1" in r.stdout and "up to date" not in r.stderr


def test_a_failed_publish_records_nothing(built, monkeypatch):
    import reportgen.site.publish as buildmod

    claims, out = built
    later(claims / "s1.yaml")
    real = buildmod.build_site

    def fail(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(buildmod, "build_site", fail)
    assert build(claims, out).exit_code != 0
    monkeypatch.setattr(buildmod, "build_site", real)
    assert "wrote" in build(claims, out).stderr


def test_the_noop_path_never_imports_pymupdf_or_jinja(built):
    """A fresh process: the check hashes files with hashlib and stops there."""
    import subprocess

    claims, out = built
    code = ("import sys\nfrom reportgen.cli import main\n"
            "try:\n    main(['build', sys.argv[1], '--out', sys.argv[2], '-v'])\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "bad = [m for m in ('pymupdf', 'fitz', 'jinja2', 'yaml') if m in sys.modules]\n"
            "print('IMPORTED', bad)\n")
    r = subprocess.run([sys.executable, "-c", code, str(claims), str(out)],
                       capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert "is up to date" in r.stderr
    assert r.stdout == TOTAL + "IMPORTED []\n"


@pytest.mark.parametrize("mac", [None, 7, "0" * 64, "\udcff\u00e9 not ascii"])
def test_a_record_without_this_users_mac_is_a_full_build_not_a_traceback(built, mac):
    """Hardening 13: only a record this user's build wrote (an HMAC under the user's key)
    is taken; any other, even with a mac of the wrong type or non-ASCII text, is ignored."""
    import json

    claims, out = built
    path = fingerprint.record_path(out)
    rec = json.loads(path.read_text(encoding="utf-8"))
    rec["mac"] = mac
    path.write_text(json.dumps(rec), encoding="utf-8")
    r = build(claims, out)
    assert r.exit_code == 0 and r.stdout == TOTAL and not is_noop(r)
    assert is_noop(build(claims, out))  # the full build wrote a record of its own
