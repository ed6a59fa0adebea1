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
from reportgen.index.finder import mark

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
    """Turkish and Hebrew prose in docs/world.pdf, indexed into .reportgen/."""
    unicode_pdf(tmp_path / "docs" / "world.pdf", [
        "We opened offices in \u0130stanbul and \u0130zmir in 2023.",
        "The \u0130stanbul office employs 40 people.",
        # a PDF draws right-to-left text in visual order; the text layer reads it logically
        "Greetings from the Tel Aviv office: " + HEBREW[::-1],
    ])
    r = proc(["index", "docs/world.pdf"], tmp_path)
    assert r.returncode == 0, r.stderr
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


def test_hardening_11_find_a_word_after_a_dotted_capital_i(world: Path) -> None:
    r = proc(["find", "stanbul", "docs"], world)
    assert r.returncode == 0, r.stderr
    clean(r.stderr)
    assert "\u0130[stanbul]" in r.stdout.decode()


# ---- finding 12: refusals and exit codes that were wrong --------------------------------


def test_hardening_12_a_hebrew_query_is_searched(world: Path) -> None:
    r = proc(["find", "\u05e9\u05dc\u05d5\u05dd", "docs"], world)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().splitlines()
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


def test_hardening_12_find_in_a_folder_that_does_not_exist_names_it(ws: Path) -> None:
    r = cli("find", "储能", "nonexistent-folder")
    assert r.exit_code == 1
    assert r.output == "nonexistent-folder: no such file or folder\n"
