"""`reportgen build` and publish(): verify first, write to a temporary folder, swap, lock."""

from __future__ import annotations

import fcntl
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
import sitekit  # noqa: E402

import reportgen.site.publish as buildmod  # noqa: E402
from reportgen.site.publish import publish  # noqa: E402
from reportgen.cli import main  # noqa: E402
from reportgen.errors import BuildError  # noqa: E402

# ---- publish(): the library ---------------------------------------------------------


def test_publish_replaces_the_site_and_leaves_no_temporary(tmp_path):
    v = sitekit.make_verification(tmp_path)
    out = tmp_path / "site"
    publish(v, out)
    (out / "stale.txt").write_text("old")
    publish(v, out)
    assert not (out / "stale.txt").exists() and (out / "index.html").is_file()
    assert list((tmp_path / ".reportgen" / "tmp").iterdir()) == []


def test_failed_build_leaves_previous_site_byte_identical(tmp_path, monkeypatch):
    v = sitekit.make_verification(tmp_path)
    out = tmp_path / "site"
    publish(v, out)
    before = sitekit.snapshot(out)
    real = buildmod.build_site

    def half_then_fail(v, target, *a, **k):
        real(v, target, *a, **k)
        (target / "index.html").write_text("half-written")
        raise OSError("disk full")

    monkeypatch.setattr(buildmod, "build_site", half_then_fail)
    with pytest.raises(BuildError, match="disk full"):  # typed, so the CLI prints one line
        publish(v, out)
    assert sitekit.snapshot(out) == before
    assert list((tmp_path / ".reportgen" / "tmp").iterdir()) == []


def test_second_build_fails_while_the_lock_is_held(tmp_path):
    v = sitekit.make_verification(tmp_path)
    out = tmp_path / "site"
    publish(v, out)
    before = sitekit.snapshot(out)
    with open(tmp_path / ".reportgen" / "site.lock", "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        with pytest.raises(BuildError, match="another build is writing"):
            publish(v, out)
    assert sitekit.snapshot(out) == before
    publish(v, out)  # free again


def test_refuses_to_replace_a_folder_that_is_not_a_site(tmp_path):
    v = sitekit.make_verification(tmp_path)
    (tmp_path / "docs2").mkdir()
    (tmp_path / "docs2" / "thesis.tex").write_text("precious")
    with pytest.raises(BuildError, match="not a reportgen site"):
        publish(v, tmp_path / "docs2")
    assert (tmp_path / "docs2" / "thesis.tex").read_text() == "precious"


# ---- the command --------------------------------------------------------------------


def run(*args, **kw):
    return CliRunner().invoke(main, list(args), **kw)


def test_build_prints_verify_lines_and_writes(tmp_path):
    claims = sitekit.make_ledger(tmp_path)
    out = tmp_path / "site"
    r = run("build", str(claims), "--out", str(out), "-v")
    assert r.exit_code == 0, r.output
    assert r.stdout == "S1: facts=3 hits=3 misses=0\nTOTAL: facts=3 hits=3 misses=0\n"
    assert (out / "S1.html").is_file() and (out / "anchors" / "f3~p4.png").is_file()
    assert "4 rendered" in r.stderr
    (out / "S1.html").unlink()  # a changed output: a full build, crops from the cache
    r2 = run("build", str(claims), "--out", str(out), "--jobs", "2", "-v")
    assert r2.exit_code == 0 and "0 rendered, 4 cached" in r2.stderr


def test_jobs_build_counts_crops_made_while_checking(tmp_path):
    claims = sitekit.make_ledger(tmp_path)
    r = run("build", str(claims), "--out", str(tmp_path / "site"), "--jobs", "2", "-v")
    assert r.exit_code == 0 and "4 crops (4 rendered, 0 cached)" in r.stderr
    assert (tmp_path / "site" / "anchors" / "f3~p4.png").is_file()


def test_a_miss_exits_1_and_leaves_the_site_untouched(tmp_path):
    claims = sitekit.make_ledger(tmp_path)
    out = tmp_path / "site"
    assert run("build", str(claims), "--out", str(out)).exit_code == 0
    before = sitekit.snapshot(out)
    sitekit.make_ledger(tmp_path, quote_f1="The top five suppliers held 14.59% of all purchases.")
    r = run("build", str(claims), "--out", str(out))
    assert r.exit_code == 1
    assert r.stdout.startswith("MISS f1 d1 p.1")
    assert "TOTAL: facts=3 hits=2 misses=1" in r.stdout
    assert sitekit.snapshot(out) == before


def test_a_miss_before_any_build_writes_nothing(tmp_path):
    claims = sitekit.make_ledger(tmp_path, quote_f1="Not in the PDF: 14.59.")
    r = run("build", str(claims), "--out", str(tmp_path / "site"))
    assert r.exit_code == 1
    assert not (tmp_path / "site").exists()


def test_invalid_ledger_exits_1(tmp_path):
    claims = sitekit.make_ledger(tmp_path)
    (claims / "s1.yaml").write_text((claims / "s1.yaml").read_text().replace("kind: calc", "kind: cal"))
    r = run("build", str(claims), "--out", str(tmp_path / "site"))
    assert r.exit_code == 1 and "s1.yaml:" in r.output
    assert not (tmp_path / "site").exists()


def test_ledger_errors_are_printed_with_the_verdicts_and_no_site_is_written(tmp_path):
    claims = sitekit.make_ledger(tmp_path)
    out = tmp_path / "site"
    assert run("build", str(claims), "--out", str(out)).exit_code == 0
    before = sitekit.snapshot(out)
    (claims / "s1.yaml").write_text((claims / "s1.yaml").read_text().replace(
        "    page: 2\n", "    page: 7\n"), encoding="utf-8")
    (claims / "J1.json").write_text("{}", encoding="utf-8")
    r = run("build", str(claims), "--out", str(out))
    assert r.exit_code == 1
    j1 = str(claims / "J1.json")
    assert r.stderr.splitlines() == [
        f"{j1}: reportgen does not read .json files, so this one would be left out; claim files "
        "are .yaml or .yml (report files) and .jsonl (one claim or edge per line): write it as "
        ".jsonl, one claim per line, each with a \"report\" field, or move it out of the ledger "
        "folder",
        f"{claims / 's1.yaml'}:22: page 7 is out of range: document d1 has 4 pages; page is the "
        "1-based index a PDF viewer shows",
        f"not writing {out}: fix the problems above first"]
    # the valid claims were still checked
    assert r.stdout == "S1: facts=2 hits=2 misses=0\nTOTAL: facts=2 hits=2 misses=0 errors=2\n"
    assert sitekit.snapshot(out) == before


def test_locked_output_is_a_clear_error(tmp_path):
    claims = sitekit.make_ledger(tmp_path)
    (tmp_path / ".reportgen").mkdir()
    with open(tmp_path / ".reportgen" / "site.lock", "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        r = run("build", str(claims), "--out", str(tmp_path / "site"))
    assert r.exit_code == 1 and "another build is writing" in r.stderr
    assert "Traceback" not in r.output


def test_bad_jobs_is_a_usage_error(tmp_path):
    assert run("build", "--jobs", "0", "--out", str(tmp_path / "s")).exit_code == 2


def test_two_cli_builds_are_byte_identical(tmp_path, monkeypatch):
    """SOURCE_DATE_EPOCH set, two processes with different hash seeds, --jobs 1 and 2: the
    same bytes. The first build runs in this process (through the CLI), the second in a
    fresh one with a hash seed other than this process's."""
    import os
    import subprocess

    claims = sitekit.make_ledger(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    first = tmp_path / "out1" / "site"
    r = run("build", str(claims), "--out", str(first), "--jobs", "1")
    assert r.exit_code == 0, r.output
    seed = "2" if os.environ.get("PYTHONHASHSEED") != "2" else "3"
    second = tmp_path / "out2" / "site"
    subprocess.run([sys.executable, "-m", "reportgen", "build", str(claims), "--out", str(second),
                    "--jobs", "2"], check=True, capture_output=True,
                   env=dict(os.environ, PYTHONHASHSEED=seed))
    a, b = sitekit.snapshot(first), sitekit.snapshot(second)
    assert sorted(a) == sorted(b) and len(a) > 10
    assert [k for k in a if a[k] != b[k]] == []
    assert "2023-11-14T22:13:20Z" in a["S1.html"].decode()


def test_broken_user_template_is_a_clear_error(tmp_path):
    claims = sitekit.make_ledger(tmp_path)
    tpl = tmp_path / "tpl"
    tpl.mkdir()
    (tpl / "index.html").write_text("{% if %}\n")
    out = tmp_path / "site"
    r = run("build", str(claims), "--out", str(out), "--templates", str(tpl))
    assert r.exit_code == 1
    assert "index.html" in r.stderr and "TemplateSyntaxError" in r.stderr
    assert "Traceback" not in r.output and not out.exists()


def test_user_template_overrides_one_file(tmp_path):
    claims = sitekit.make_ledger(tmp_path)
    tpl = tmp_path / "tpl"
    tpl.mkdir()
    (tpl / "index.html").write_text("mine: {% for r in reports %}{{ r.report.id }}{% endfor %}")
    out = tmp_path / "site"
    assert run("build", str(claims), "--out", str(out), "--templates", str(tpl)).exit_code == 0
    assert (out / "index.html").read_text() == "mine: S1"
    assert 'class="chip chip-fact"' in (out / "S1.html").read_text()


def test_sample_build_prints_exactly_the_four_lines(tmp_path, monkeypatch):
    """`make reports` promises these lines and nothing else, on stdout and stderr together."""
    repo = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(repo)
    r = run("build", "claims", "--out", str(tmp_path / "site"))
    assert r.exit_code == 0
    assert r.output == ("S1: facts=8 hits=8 misses=0\nS2: facts=10 hits=10 misses=0\n"
                        "S3: facts=11 hits=11 misses=0\nTOTAL: facts=29 hits=29 misses=0\n")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_unwritable_out_is_a_clear_error_not_a_traceback(tmp_path, jobs):
    claims = sitekit.make_ledger(tmp_path)
    (tmp_path / "afile").write_text("not a folder")
    out = tmp_path / "afile" / "site"  # nothing can be created under a file, even by root
    r = run("build", str(claims), "--out", str(out), "-j", jobs)
    assert r.exit_code == 1
    assert "the site was not written: choose an --out in a folder you can write to" \
        in r.stderr, r.stderr
    assert "Traceback" not in r.output and "internal error" not in r.output


def test_out_that_is_a_symlink_keeps_the_link_and_fills_its_target(tmp_path):
    v = sitekit.make_verification(tmp_path)
    (tmp_path / "www").mkdir()
    link = tmp_path / "site"
    link.symlink_to(tmp_path / "www")
    publish(v, link)
    publish(v, link)  # the second build replaces the target again, never the link
    assert link.is_symlink() and (tmp_path / "www" / "index.html").is_file()
