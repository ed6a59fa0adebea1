"""Hostile tests of the command line: closed and broken output streams, terminal encodings,
queries in any script, stale indexes, and the edge cases of arguments and options.

Exit codes and file descriptors at interpreter exit only show in a real process, so those
tests run `python -m reportgen` in a subprocess; the rest use click's CliRunner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest
import yaml
from click.testing import CliRunner
from test_index_support import ALPHA_PAGES, ledger_with_two_docs, make_pdf

from reportgen.cli import main
from reportgen.index.evidence import mark

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
ENV.pop("REPORTGEN_DEBUG", None)


def cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def proc(args, cwd: Path, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """`python -m reportgen ARGS` in `cwd`, output captured as bytes."""
    return subprocess.run([sys.executable, "-m", "reportgen", *args], cwd=cwd,
                          env=env or ENV, capture_output=True, timeout=120, **kw)


def clean(stderr: bytes | str) -> None:
    """No traceback, no `internal error`, no interpreter noise."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    for bad in ("Traceback", "internal error", "Exception ignored", "this is a bug"):
        assert bad not in text, text


def unicode_pdf(path: Path, lines: list[str]) -> Path:
    """One page of `lines` in a font whose ToUnicode CMap gives each non-ASCII character a
    byte code of its own: any script reaches the text layer without a font that draws it."""
    chars = sorted({c for ln in lines for c in ln if not " " <= c <= "~"})
    assert len(chars) <= 64
    code = {c: 0xC0 + i for i, c in enumerate(chars)}
    cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
            "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
            "/CMapName /Test-UCS def /CMapType 2 def\n"
            "1 begincodespacerange <00> <FF> endcodespacerange\n"
            "1 beginbfrange <20> <7E> <0020> endbfrange\n"
            f"{len(chars)} beginbfchar\n"
            + "".join(f"<{code[c]:02X}> <{ord(c):04X}>\n" for c in chars)
            + "endbfchar endcmap CMapName currentdict /CMap defineresource pop end end\n")

    def enc(s: str) -> bytes:
        return b"".join(bytes([code[c]]) if c in code else
                        (b"\\" + c.encode() if c in "()\\" else c.encode()) for c in s)

    content = b"BT\n" + b"".join(
        f"/F1 10 Tf 1 0 0 1 72 {700 - 14 * i} Tm\n".encode() + b"(" + enc(t) + b") Tj\n"
        for i, t in enumerate(lines)) + b"ET\n"
    doc = pymupdf.open()
    page = doc.new_page()
    cm = doc.get_new_xref()
    doc.update_object(cm, "<<>>")
    doc.update_stream(cm, cmap.encode())
    font = doc.get_new_xref()
    doc.update_object(font, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                            f"/ToUnicode {cm} 0 R >>")
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /F1 {font} 0 R >> >>")
    cs = doc.get_new_xref()
    doc.update_object(cs, "<<>>")
    doc.update_stream(cs, content)
    doc.xref_set_key(page.xref, "Contents", f"{cs} 0 R")
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture()
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two indexed documents (alpha, beta) in claims/, index in .reportgen/."""
    ledger_with_two_docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli("index", "claims").exit_code == 0
    return tmp_path


HEBREW = "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd"  # shalom olam


@pytest.fixture()
def world(tmp_path: Path) -> Path:
    """Turkish and Hebrew prose in docs/world.pdf, indexed into .reportgen/ (in this
    process: the tests run the commands that read it)."""
    unicode_pdf(tmp_path / "docs" / "world.pdf", [
        "We opened offices in \u0130stanbul and \u0130zmir in 2023.",
        "The \u0130stanbul office employs 40 people.",
        # a PDF draws right-to-left text in visual order; the text layer reads it logically
        "Greetings from the Tel Aviv office: " + HEBREW[::-1],
    ])
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)
        assert cli("index", "docs/world.pdf").exit_code == 0
    return tmp_path


# ---- finding 11: crashes that must be clear messages, or just work ----------------------


@pytest.mark.parametrize("same_text", [True, False], ids=["text-still-there", "text-gone"])
def test_hardening_11_stub_after_the_pdf_was_replaced_says_to_reindex(
        ws: Path, same_text: bool) -> None:
    """The stub quotes the PDF on disk; one that is no longer the indexed file is refused."""
    pages = ALPHA_PAGES + [["An extra page added later."]] if same_text else [["Another file."]]
    make_pdf(ws / "docs" / "alpha.pdf", pages)
    r = cli("find", "Algihaz", "--stub", "--doc", "alpha")
    assert r.exit_code == 1, r.output
    assert r.output.strip() == (
        "docs/alpha.pdf: the file changed since it was indexed (its SHA-256 is not the "
        "indexed one), so its text may not be what the index holds; run `reportgen index "
        "claims` again")


def test_hardening_11_find_with_stdout_closed_fails_with_a_message(world: Path) -> None:
    r = proc(["find", "office", "docs"], world, preexec_fn=lambda: os.close(1))
    assert r.returncode == 1
    assert r.stderr.decode() == ("reportgen: standard output is closed, so nothing can be "
                                 "printed; redirect it (e.g. >/dev/null) instead of closing "
                                 "it\n")


def test_hardening_11_output_the_terminal_encoding_cannot_show_is_escaped(world: Path) -> None:
    env = {**ENV, "PYTHONIOENCODING": "latin-1"}
    r = proc(["find", "\u05e9\u05dc\u05d5\u05dd", "docs"], world, env=env)
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode("latin-1")
    assert "[\\u05e9\\u05dc\\u05d5\\u05dd]" in out
    enc = r.stderr.decode("latin-1").partition("(")[2].partition(")")[0]
    assert enc in ("latin-1", "iso8859-1")  # as Python names it
    assert r.stderr.decode("latin-1") == (
        f"reportgen: standard output ({enc}) cannot show some characters; they are written "
        "as \\uXXXX escapes, so nothing is lost (set PYTHONIOENCODING=utf-8 to see them)\n")
    r = proc(["find", "\u05e9\u05dc\u05d5\u05dd", "docs", "--json"], world, env=env)
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout.decode("latin-1").splitlines()[0])  # still JSON, text intact
    assert rec["text"].endswith(HEBREW)
    r = proc(["find", "\u0130stanbul", "docs", "--stub"], world, env=env)
    assert r.returncode == 0, r.stderr
    stub = yaml.safe_load(r.stdout.decode("latin-1"))  # still YAML, quote intact
    assert "\u0130stanbul" in stub[0]["quote"]


def test_hardening_11_marks_stay_on_the_term_after_a_dotted_capital_i() -> None:
    """lower() of U+0130 is two characters; marks are placed on the original text."""
    text = "\u0130stanbul, \u0130zmir and \u0130\u0130stanbul"
    assert mark(text, ["stanbul"]) == "\u0130[stanbul], \u0130zmir and \u0130\u0130[stanbul]"
    assert mark(text, ["\u0069\u0307zmir"]) == "\u0130stanbul, [\u0130zmir] and \u0130\u0130stanbul"
    assert mark("\ufb01nance", ["finance"]) == "[\ufb01nance]"


def test_hardening_11_find_a_word_after_a_dotted_capital_i(world: Path, monkeypatch) -> None:
    monkeypatch.chdir(world)
    r = CliRunner().invoke(main, ["find", "stanbul", "docs"])
    assert r.exit_code == 0, r.output
    clean(r.stderr)
    assert "\u0130[stanbul]" in r.stdout


# ---- finding 12: refusals and exit codes that were wrong --------------------------------


def test_hardening_12_a_hebrew_query_is_searched(world: Path, monkeypatch) -> None:
    monkeypatch.chdir(world)
    r = CliRunner().invoke(main, ["find", "\u05e9\u05dc\u05d5\u05dd", "docs"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("1. world p.1 ")
    assert lines[1] == ("   Greetings from the Tel Aviv office: [\u05e9\u05dc\u05d5\u05dd] "
                        "\u05e2\u05d5\u05dc\u05dd")


def test_hardening_12_verify_with_stdout_closed_fails_with_a_message() -> None:
    r = proc(["verify", "claims"], ROOT, preexec_fn=lambda: os.close(1))
    assert r.returncode == 1
    assert b"reportgen: standard output is closed" in r.stderr


@pytest.mark.parametrize("args", [["verify", "--json", "claims"], ["schema"]])
def test_hardening_12_a_closed_pipe_ends_quietly_with_exit_0(args: list[str]) -> None:
    """Like `reportgen verify --json | head -1`: the reader has gone before the output."""
    p = subprocess.Popen([sys.executable, "-m", "reportgen", *args], cwd=ROOT, env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the read end: every write of the child now fails with EPIPE
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0
    assert err == b""


@pytest.mark.parametrize("path,expect", [
    ("nonexistent-folder", "nonexistent-folder: no such file or folder\n"),
    ("", "PATH is empty; name a ledger folder, report file or PDF\n"),
], ids=["missing", "empty"])
def test_hardening_12_find_in_a_folder_that_does_not_exist_names_it(ws: Path, path: str,
                                                                    expect: str) -> None:
    """Not a silent search of ./.reportgen, the index of the current folder."""
    r = cli("find", "储能", path)
    assert r.exit_code == 1
    assert r.output == expect


def test_hardening_11_find_with_a_db_that_is_not_a_database_says_so(ws: Path) -> None:
    (ws / "notes.txt").write_text("not a database\n", encoding="utf-8")
    r = cli("find", "储能", "--db", "notes.txt")
    assert r.exit_code == 1
    assert r.output == ("notes.txt: is not an evidence index (not an SQLite file); reportgen "
                        "writes and reads only its own index: choose another --db, or delete "
                        "the file yourself if you are sure it is not needed\n")


LONG = "x" * 5000


@pytest.mark.parametrize("args", [["verify", LONG], ["index", LONG], ["find", "q", "--db", LONG]],
                         ids=["verify", "index", "find-db"])
def test_hardening_11_a_name_too_long_for_the_system_is_a_message(tmp_path: Path,
                                                                  args: list[str]) -> None:
    r = proc(args, tmp_path)
    assert r.returncode == 1
    err = r.stderr.decode()
    assert err.count("\n") == 1 and "File name too long" in err, err
    assert err.startswith((f"reportgen: {LONG[:100]}... (5000 characters): ",
                           f"{LONG[:100]}... (5000 characters): ")), err


# ---- attacks that held: edge cases of arguments, options and output ---------------------

FACT = """claims:
  - id: f1
    kind: fact
    statement: The supply agreement with Wotai.
    doc: alpha
    page: 1
    quote: "报告期内公司与沃太能源签订储能电芯采购框架协议。"
"""


@pytest.fixture(scope="module")
def one_fact_ready(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """claims/ with one fact over docs/alpha.pdf, indexed: made once, only copied."""
    from test_index_support import write_ledger

    root = tmp_path_factory.mktemp("one-fact")
    ledger_with_two_docs(root)
    write_ledger(root, {"alpha": "docs/alpha.pdf", "beta": "docs/beta.pdf"}, FACT)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        assert cli("index", "claims").exit_code == 0
    return root


@pytest.fixture()
def one_fact(one_fact_ready: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of one_fact_ready, the current folder (no test here changes a PDF)."""
    import shutil

    ws = tmp_path / "ws"
    shutil.copytree(one_fact_ready, ws)
    monkeypatch.chdir(ws)
    return ws


TOTAL = "TOTAL: facts=1 hits=1 misses=0"
EDGE_CASES = [  # (args, exit code, a line or part of one in the output)
    ([], 2, "Commands:"),
    (["frobnicate"], 2, "Error: No such command 'frobnicate'."),
    (["verify", "--frobnicate"], 2, "Error: No such option '--frobnicate'"),
    (["verify", "--jobs", "0", "claims"], 2, "0 is not in the range x>=1"),
    (["build", "--jobs", "-1", "claims"], 2, "-1 is not in the range x>=1"),
    (["verify", "--jobs", "99999", "claims"], 0, TOTAL),
    (["verify", "claims", "claims"], 0, TOTAL),
    (["verify", "--json", "claims"], 0, '"status": "hit"'),
    (["verify", ""], 1, ".: no report files found"),
    (["verify", "cl\naims"], 1, "aims: no such ledger folder or report file"),
    (["index", "cl\naims"], 1, "aims: no such file or folder"),
    (["verify", "docs/alpha.pdf"], 1, "docs/alpha.pdf: not a ledger folder or a .yaml/.jsonl "
                                      "claim file"),
    (["index", "claims", "--db", "docs"], 1, "docs: is a folder, not an index file"),
    (["build", "claims", "--out", "claims"], 1, "refusing to replace"),
    (["build", "claims", "--out", "claims/report.yaml"], 2, "is a file"),
    (["build", "claims", "--templates", "nowhere"], 2, "'nowhere' does not exist"),
    (["verify", "--", "-weird-name"], 1, "-weird-name: no such ledger folder or report file"),
    (["find", "储\x00能"], 0, "1. beta p.1 "),
    (["find", "储能", "claims", "claims"], 2, "Got unexpected extra argument (claims)"),
    (["find", "储能", "-k", "1001"], 2, "1001 is not in the range 1<=x<=1000"),
    (["find", "储能", "--doc", ""], 1, "unknown document ''; the index holds: alpha, beta"),
    (["find", "x" * 5000], 1, "no results for 'xxxx"),
    (["find", "\t \n"], 1, "nothing to search for in the query"),
    (["--version"], 0, "reportgen, version "),
]


@pytest.mark.parametrize("args,code,expect", EDGE_CASES,
                         ids=[" ".join(a)[:40] or "no-args" for a, _, _ in EDGE_CASES])
def test_edge_cases_of_the_command_line(one_fact: Path, args: list[str], code: int,
                                        expect: str) -> None:
    r = CliRunner().invoke(main, args)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert r.exit_code == code, r.output
    assert expect in r.output
    clean(r.output)


@pytest.mark.parametrize("command", [None, "build", "find", "index", "schema", "verify"])
def test_every_command_says_what_it_does_under_help(command: str | None) -> None:
    r = CliRunner().invoke(main, [command, "--help"] if command else ["--help"])
    assert r.exit_code == 0
    assert r.output.startswith("Usage: ") and "Options:" in r.output


@pytest.mark.parametrize("args,expect", [
    ([b"verify", b"cl\xffaims"], b"cl\\udcffaims: no such ledger folder or report file"),
    ([b"find", b"\xff\xfe"], b"nothing to search for in the query '\\udcff\\udcfe'"),
], ids=["path", "query"])
def test_arguments_that_are_not_utf8_are_named_in_the_message(tmp_path: Path, args: list,
                                                              expect: bytes) -> None:
    r = subprocess.run([os.fsencode(sys.executable), b"-m", b"reportgen", *args], cwd=tmp_path,
                       env=ENV, capture_output=True, timeout=120)
    assert r.returncode == 1
    assert expect in r.stderr
    clean(r.stderr)


def test_schema_redirected_to_a_file_is_the_json_schema(tmp_path: Path) -> None:
    with open(tmp_path / "schema.json", "wb") as f:
        r = subprocess.run([sys.executable, "-m", "reportgen", "schema"], cwd=tmp_path, env=ENV,
                           stdout=f, stderr=subprocess.PIPE, timeout=120)
    assert r.returncode == 0 and r.stderr == b""
    schema = json.loads((tmp_path / "schema.json").read_text(encoding="utf-8"))
    assert schema["type"] == "object"


def test_hardening_11_a_full_disk_under_stdout_is_a_message(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    with open("/dev/full", "wb") as f:
        r = subprocess.run([sys.executable, "-m", "reportgen", "schema"], cwd=tmp_path, env=ENV,
                           stdout=f, stderr=subprocess.PIPE, timeout=120)
    assert r.returncode == 1
    assert r.stderr == b"reportgen: cannot write to standard output: No space left on device\n"
