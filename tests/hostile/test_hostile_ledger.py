"""Hostile claim files: alias bombs, wrong numbers that look right, crash inputs, bad paths,
formula escapes. Every one is a `file:line` error and exit 1, or it just works."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import pdf_fixtures as F
from reportgen.cli import main

LINE = "Revenue 6,928,853,013.03 grew 10% in the year."
DOCS = "documents:\n  d1: {file: ../a.pdf, title: Doc A}\n"
HEAD = "report: {id: R, title: T}\nclaims:\n"
FACT = ('  - {id: f1, kind: fact, statement: s, doc: d1, page: 1, '
        'quote: "Revenue 6,928,853,013.03 grew 10%", values: {amount: 6928853013.03}}\n')


def calc(formula: str, result: str, extra: str = "", cid: str = "c1") -> str:
    """One calc line over f1, the formula in single quotes."""
    return (f"  - {{id: {cid}, kind: calc, statement: s, basis: [f1], formula: '{formula}', "
            f"result: {result}{extra}}}\n")


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return F.text_pdf([LINE])


@pytest.fixture()
def ws(tmp_path: Path, pdf: bytes, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace (no git: the ledger folder's parent) with a.pdf and claims/documents.yaml."""
    (tmp_path / "a.pdf").write_bytes(pdf)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "documents.yaml").write_text(DOCS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(ws: Path, body: str | bytes, name: str = "R.yaml") -> Path:
    p = ws / "claims" / name
    if isinstance(body, bytes):
        p.write_bytes(body)
    else:
        p.write_text(body, encoding="utf-8")
    return p


def verify(*args: str) -> Result:
    return CliRunner().invoke(main, ["verify", "claims", *args], catch_exceptions=False)


def refused(res: Result, where: str, *fragments: str) -> None:
    """Exit 1 with a `file:line: message` line, and no traceback or internal error."""
    assert res.exit_code == 1, res.output
    assert "Traceback" not in res.output and "internal error" not in res.output, res.output
    lines = [ln for ln in res.output.splitlines() if ln.startswith(f"{where}: ")]
    assert lines, res.output
    for frag in fragments:
        assert any(frag in ln for ln in lines), res.output


def verified(res: Result, facts: int = 1) -> None:
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[-1] == f"TOTAL: facts={facts} hits={facts} misses=0"


# ---- 02: YAML alias bombs ------------------------------------------------------------


def _laughs(levels: int = 9) -> str:
    """The billion laughs: nine levels of nine-fold aliases, under 1 KB."""
    rows = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels + 1):
        rows.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return HEAD.replace("claims:\n", "") + "\n".join(rows) + f"\nclaims: *a{levels}\n"


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_hardening_02_billion_laughs_is_refused_at_its_first_alias(ws: Path) -> None:
    text = _laughs()
    assert len(text.encode()) < 1024
    write(ws, text)
    # a child with 1 GiB of address space: the old reader expanded every alias (10.5 GB)
    res = subprocess.run([sys.executable, "-m", "reportgen", "verify", "claims"], cwd=ws,
                         capture_output=True, text=True, timeout=300, preexec_fn=_limit_memory,
                         env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)})
    assert res.returncode == 1, res.stderr
    assert res.stderr.startswith(
        "claims/R.yaml:3: YAML alias *a0 repeats a list; claim files refuse aliases of lists "
        "and mappings (a few lines of them can expand to billions of values): write it out"), \
        res.stderr
    assert "internal error" not in res.stderr


@pytest.mark.parametrize("body,line,what", [
    ("report: &r {id: R, title: T}\nother: *r\n", 2, "*r repeats a mapping"),
    ("report: {id: R, title: T}\nclaims: &c [*c]\n", 2, "*c repeats a list"),
    (HEAD + "  - &f {id: f1, kind: fact, statement: s, doc: d1, page: 1, quote: q}\n"
     "  - *f\n", 4, "*f repeats a mapping"),
], ids=["mapping", "list-in-itself", "claim-twice"])
def test_hardening_02_alias_of_a_list_or_mapping_is_refused(
        ws: Path, body: str, line: int, what: str) -> None:
    write(ws, body)
    refused(verify(), f"claims/R.yaml:{line}", f"YAML alias {what}")


def test_alias_of_a_plain_value_still_reads(ws: Path) -> None:
    write(ws, HEAD + FACT + "edges:\n"
          "  - {from: A, relation: r, to: B, anchors: [f1], valid_from: &y 2025-01-01}\n"
          "  - {from: A, relation: s, to: B, anchors: [f1], valid_from: *y}\n")
    verified(verify())


# ---- 06: numbers compared exactly ----------------------------------------------------


@pytest.mark.parametrize("value", ["6928853019.9", "6928853013.04", "6928853013.0300001"])
def test_hardening_06_value_off_the_quote_beyond_float_slack_is_refused(
        ws: Path, value: str) -> None:
    write(ws, HEAD + FACT.replace("6928853013.03}", value + "}"))
    refused(verify(), "claims/R.yaml:3",
            f"fact f1: value amount={value} does not appear as a number in the quote")


@pytest.mark.parametrize("value", ["6928853013.03", "6928853013.030", "6_928_853_013.03"])
def test_value_written_as_the_quote_shows_is_accepted(ws: Path, value: str) -> None:
    write(ws, HEAD + FACT.replace("6928853013.03}", value + "}"))
    verified(verify())


@pytest.mark.parametrize("formula,result,extra,off", [
    ("f1.amount * 2 + 12.94", "13857706026.06", ", tolerance: 0", "12.94"),
    ("f1.amount * 2 + 12.94", "13857706026.06", ", tolerance: 12.93", "12.94"),
    ("f1.amount * 2 + 12", "13857706026", "", "12.06"),
    ("f1.amount + 0.001", "6928853013.03", ", tolerance: 0.0009", "0.001"),
])
def test_hardening_06_calc_off_by_more_than_its_tolerance_is_a_mismatch(
        ws: Path, formula: str, result: str, extra: str, off: str) -> None:
    write(ws, HEAD + FACT + calc(formula, result, extra))
    res = verify()
    assert res.exit_code == 1, res.output
    assert f"(off by {off})" in res.output and res.output.startswith("MISMATCH c1: "), res.output


@pytest.mark.parametrize("formula,result,extra", [
    ("f1.amount * 2 + 12.94", "13857706039.00", ", tolerance: 0"),
    ("f1.amount * 2 + 12.94", "13857706026.06", ", tolerance: 12.94"),
    ("f1.amount / 10 + 0.2", "692885301.503", ", tolerance: 0"),
    ("f1.amount / 3 * 3", "6928853013.03", ", tolerance: 0"),
    ("round(f1.amount / 1000, 2)", "6928853.01", ", tolerance: 0"),
    # 2.675 exactly, which binary holds as 2.67499...: round() gave 2.67
    ("round(f1.amount / 1000000000 - 4.25385301303, 2)", "2.68", ", tolerance: 0"),
    ("f1.amount - 0.005", "6928853013.03", ""),  # exactly half the last place
])
def test_hardening_06_calc_within_its_tolerance_in_exact_decimals_is_ok(
        ws: Path, formula: str, result: str, extra: str) -> None:
    write(ws, HEAD + FACT + calc(formula, result, extra))
    verified(verify())


JSONL_FACT = ('{"report": "R", "id": "f2", "kind": "fact", "statement": "s", "doc": "d1", '
              '"page": 1, "quote": "Revenue 6,928,853,013.03 grew 10%", '
              '"values": {"amount": AMOUNT}}\n')
JSONL_CALC = ('{"report": "R", "id": "c2", "kind": "calc", "statement": "s", "basis": ["f1"], '
              '"formula": "f1.amount + 0.0009", "result": 6928853013.030}\n')


def test_hardening_06_jsonl_numbers_keep_their_written_digits(ws: Path) -> None:
    write(ws, HEAD + FACT)
    write(ws, JSONL_FACT.replace("AMOUNT", "6928853013.0300001"), "more.jsonl")
    refused(verify(), "claims/more.jsonl:1", "value amount=6928853013.0300001 does not appear")
    write(ws, JSONL_FACT.replace("AMOUNT", "6928853013.030"), "more.jsonl")
    verified(verify(), facts=2)
    write(ws, JSONL_CALC, "more.jsonl")  # 2.870 as written: tolerance 0.0005, not 0.005
    res = verify()
    assert res.exit_code == 1 and "MISMATCH c2: " in res.output, res.output
    assert "tolerance 0.0005 (off by 0.0009)" in res.output, res.output


# ---- 11: inputs that crashed with "internal error" -------------------------------------


@pytest.mark.parametrize("depth", [400, 990, 5000])
def test_hardening_11_deep_yaml_flow_nesting_is_a_ledger_error(ws: Path, depth: int) -> None:
    write(ws, HEAD.replace("claims:\n", "claims: " + "[" * depth + "]" * depth + "\n"))
    refused(verify(), "claims/R.yaml:2", "nest")


def test_hardening_11_deep_yaml_block_nesting_is_a_ledger_error(ws: Path) -> None:
    body = "".join(" " * i + "- \n" for i in range(300)) + " " * 300 + "- x\n"
    write(ws, HEAD + body)
    refused(verify(), "claims/R.yaml:34", "nest more than 32 levels")


@pytest.mark.parametrize("formula,result", [
    ("f1.amount" + " + f1.amount" * 1999, "13857706026060"),
    ("- " * 990 + "f1.amount", "6928853013.03"),
    ("- " * 991 + "f1.amount", "-6928853013.03"),
    ("(" * 150 + "f1.amount" + ")" * 150, "6928853013.03"),
])
def test_hardening_11_long_formula_just_works(ws: Path, formula: str, result: str) -> None:
    write(ws, HEAD + FACT + calc(formula, result))
    verified(verify())


def test_formula_nested_past_the_parser_is_a_ledger_error(ws: Path) -> None:
    write(ws, HEAD + FACT + calc("(" * 5000 + "f1.amount" + ")" * 5000, "1"))
    refused(verify(), "claims/R.yaml:4", "calc c1:")


@pytest.mark.parametrize("order", ["reverse", "forward"])
def test_hardening_11_basis_chain_of_1200_claims_just_works(ws: Path, order: str) -> None:
    n = 1200
    rows = [f"  - {{id: i{i}, kind: inference, statement: s, basis: "
            f"[{'i' + str(i + 1) if i < n else 'f1'}], confidence: 0.5, note: n}}\n"
            for i in range(1, n + 1)]
    if order == "forward":
        rows.reverse()
    calcs = [f"  - {{id: k{i}, kind: calc, statement: s, basis: [{'k' + str(i + 1) if i < n else 'f1'}], "
             f"formula: '{'k' + str(i + 1) + '.result' if i < n else 'f1.amount'} + 1', "
             f"result: {6928853013.03 + n - i + 1:.2f}}}\n" for i in range(1, n + 1)]
    if order == "forward":
        calcs.reverse()
    write(ws, HEAD + FACT + "".join(rows) + "".join(calcs))
    verified(verify())


def test_hardening_11_basis_cycle_of_1200_claims_is_reported(ws: Path) -> None:
    n = 1200
    rows = [f"  - {{id: i{i}, kind: inference, statement: s, basis: [i{i % n + 1}], "
            "confidence: 0.5, note: n}\n" for i in range(1, n + 1)]
    write(ws, HEAD + FACT + "".join(rows))
    refused(verify(), "claims/R.yaml:4", "basis cycle: i1 -> i2 -> i3")


@pytest.mark.parametrize("formula,fragment", [
    ("round(f1.amount, 1e999)", "holds the number 1e999"),
    ("round(f1.amount, 1e20)", "round() takes a whole number of decimals from -30 to 30"),
    ("round(f1.amount, 2.5)", "round() takes a whole number of decimals from -30 to 30"),
    ("f1.amount + 1" + "0" * 4199, "holds the number 10000000000"),
    ("f1.amount + 1" + "0" * 5000, "calc c1:"),
])
def test_hardening_11_out_of_range_numbers_in_a_formula_are_a_ledger_error(
        ws: Path, formula: str, fragment: str) -> None:
    write(ws, HEAD + FACT + calc(formula, "1"))
    refused(verify(), "claims/R.yaml:4", fragment)


@pytest.mark.parametrize("field,line", [
    ("confidence: 1" + "0" * 400, 3), ("values: {amount: 1" + "0" * 400 + "}", 3),
])
def test_hardening_11_huge_integer_in_a_fact_is_a_ledger_error(
        ws: Path, field: str, line: int) -> None:
    write(ws, HEAD + FACT.replace("values: {amount: 6928853013.03}", field))
    refused(verify(), f"claims/R.yaml:{line}", "must be")


@pytest.mark.parametrize("extra", [", tolerance: 1" + "0" * 400, ""])
def test_hardening_11_huge_integer_in_a_calc_is_a_ledger_error(ws: Path, extra: str) -> None:
    result = "1" + "0" * 400 if not extra else "1"
    write(ws, HEAD + FACT + calc("f1.amount", result, extra))
    refused(verify(), "claims/R.yaml:4", "must be a number")


def test_hardening_11_huge_integer_in_jsonl_is_a_ledger_error(ws: Path) -> None:
    write(ws, HEAD + FACT)
    write(ws, '{"report": "R", "id": "c1", "kind": "calc", "statement": "s", "basis": ["f1"], '
          '"formula": "f1.amount", "result": 1' + "0" * 400 + '}\n', "more.jsonl")
    refused(verify(), "claims/more.jsonl:1", "result must be a number")


# ---- 12: dates are whole ISO dates ---------------------------------------------------


EDGE = "edges:\n  - {from: A, relation: r, to: B, anchors: [f1]%s}\n"


@pytest.mark.parametrize("dates,fragment", [
    (', valid_from: "2025-01-01<script>"', "valid_from must be a whole ISO date YYYY-MM-DD"),
    (", valid_from: 2025-01-01 10:00:00", "valid_from must be a whole ISO date YYYY-MM-DD"),
    (', valid_to: "2025-02-30"', "valid_to must be a whole ISO date YYYY-MM-DD"),
    (', valid_to: "20250-01-01"', "valid_to must be a whole ISO date YYYY-MM-DD"),
    (', valid_to: "2025-1-1"', "valid_to must be a whole ISO date YYYY-MM-DD"),
    (", valid_from: 2025-06-01, valid_to: 2025-01-01",
     "valid_to 2025-01-01 is before valid_from 2025-06-01; swap them or correct the dates"),
])
def test_hardening_12_edge_dates_must_be_whole_iso_dates_in_order(
        ws: Path, dates: str, fragment: str) -> None:
    write(ws, HEAD + FACT + EDGE % dates)
    refused(verify(), "claims/R.yaml:5", fragment)


@pytest.mark.parametrize("dates", [
    ", valid_from: 2025-01-01, valid_to: 2025-01-01", ', valid_from: "2024-02-29"',
    ", valid_to: 2025-12-31",
])
def test_whole_dates_in_order_are_accepted(ws: Path, dates: str) -> None:
    write(ws, HEAD + FACT + EDGE % dates)
    verified(verify())


# ---- attacks that held: malformed ledgers ----------------------------------------------

CALC = calc("f1.amount", "6928853013.03")
MALFORMED: list[tuple[str, str | bytes, str, str]] = [
    # (name, R.yaml body, where, fragment of the message)
    ("bad-yaml", HEAD + "  - {id: f1, kind: [fact\n", "claims/R.yaml:4", "YAML syntax error"),
    ("tab-indent", HEAD + "\t- {id: f1}\n", "claims/R.yaml:3", "YAML syntax error"),
    ("bom-then-list", "\ufeff- a\n- b\n", "claims/R.yaml:1", "must be a mapping"),
    ("non-utf8", (HEAD + FACT.replace("statement: s", "statement: café")).encode("latin-1"),
     "claims/R.yaml:1", "not UTF-8 text"),
    ("empty", "", "claims/R.yaml:1", "the file is empty"),
    ("comments-only", "# nothing here\n\n", "claims/R.yaml:1", "the file is empty"),
    ("top-level-list", "- report\n- claims\n", "claims/R.yaml:1", "must be a mapping"),
    ("top-level-scalar", "just words\n", "claims/R.yaml:1", "must be a mapping"),
    ("nul-byte", HEAD + "\0" + FACT, "claims/R.yaml:1", "control characters are not allowed"),
    ("huge-int", HEAD.replace("title: T", "title: 1" + "0" * 5000) + FACT, "claims/R.yaml:1",
     "cannot read the value"),
    ("bad-date", HEAD + FACT + EDGE % ", valid_from: 2025-13-45", "claims/R.yaml:5",
     "cannot read the value"),
    ("page-not-int", HEAD + FACT.replace("page: 1", "page: one"), "claims/R.yaml:3",
     "page must be a page number"),
    ("claims-not-list", HEAD + "  f1: {}\n", "claims/R.yaml:2", "claims must be a list"),
    ("unknown-kind", HEAD + "  - {id: f1, kind: guess, statement: s}\n", "claims/R.yaml:3",
     "kind must be one of fact, calc, inference"),
    ("missing-field", HEAD + "  - {id: f1, kind: fact, statement: s, doc: d1, page: 1}\n",
     "claims/R.yaml:3", "missing required field 'quote'"),
    ("unknown-basis", HEAD + FACT + calc("f9.amount", "1").replace("[f1]", "[f9]"),
     "claims/R.yaml:4", "basis 'f9' is not a claim of the ledger"),
    ("unknown-doc", HEAD + FACT.replace("doc: d1", "doc: d9"), "claims/R.yaml:3",
     "unknown document 'd9'"),
    ("cycle", HEAD + FACT + calc("c2.result", "1").replace("[f1]", "[c2]")
     + calc("c1.result", "1", cid="c2").replace("[f1]", "[c1]"), "claims/R.yaml:4",
     "basis cycle: c1 -> c2 -> c1"),
    ("self-basis", HEAD + FACT + calc("c1.result", "1").replace("[f1]", "[c1]"),
     "claims/R.yaml:4", "basis cycle: c1 -> c1"),
    ("duplicate-id", HEAD + FACT + FACT, "claims/R.yaml:4", "duplicate id 'f1'"),
    ("ids-differ-in-case", HEAD + FACT + FACT.replace("id: f1", "id: F1"), "claims/R.yaml:4",
     "differs only in case"),
    ("duplicate-key", HEAD + FACT.replace("page: 1", "page: 1, page: 2"), "claims/R.yaml:3",
     "duplicate key 'page'"),
    ("two-documents", HEAD + FACT + "---\nreport: {id: S, title: T}\n", "claims/R.yaml:1",
     "more than one YAML document"),
    ("merge-key", "base: &b {id: R}\nreport:\n  <<: *b\n  title: T\n", "claims/R.yaml:3",
     "merge keys"),
    ("mapping-as-key", HEAD + "  - {? [a, b] : c}\n", "claims/R.yaml:3",
     "a mapping key must be plain text"),
    ("value-not-in-quote", HEAD + FACT.replace("6928853013.03}", "12}"), "claims/R.yaml:3",
     "does not appear as a number in the quote"),
    ("edge-without-anchor", HEAD + FACT + "edges:\n  - {from: A, relation: r, to: B}\n",
     "claims/R.yaml:5", "has neither anchors nor a gap"),
    ("confidence-too-big", HEAD + FACT.replace("values", "confidence: 1.5, values"),
     "claims/R.yaml:3", "confidence must be a number from 0 to 1"),
    ("python-tag", HEAD + FACT.replace("statement: s", "statement: !!python/name:os.system x"),
     "claims/R.yaml:3", "YAML error: could not determine a constructor"),
]


@pytest.mark.parametrize("name,body,where,fragment", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_ledger_is_a_ledger_error(ws: Path, name: str, body: str | bytes, where: str,
                                             fragment: str) -> None:
    write(ws, body)
    refused(verify(), where, fragment)


@pytest.mark.parametrize("line,fragment", [
    ('{"report": "R", "id": \n', "invalid JSON at column"),
    ("[1, 2]\n", "each line must be a JSON object"),
    ('{"report": "R", "report": "R"}\n', "duplicate key 'report'"),
    ("[" * 100000 + "]" * 100000 + "\n", "nested too deep"),
    ('{"report": "Z", "id": "c1"}\n', "'report' must name a report of the ledger"),
])
def test_malformed_jsonl_is_a_ledger_error(ws: Path, line: str, fragment: str) -> None:
    write(ws, HEAD + FACT)
    write(ws, line, "more.jsonl")
    refused(verify(), "claims/more.jsonl:1", fragment)


# ---- attacks that held: hostile document paths -------------------------------------------


def _fifo(ws: Path) -> str:
    os.mkfifo(ws / "pipe.pdf")
    return "../pipe.pdf"


def _folder(ws: Path) -> str:
    (ws / "folder.pdf").mkdir()
    return "../folder.pdf"


def _symlink_out(ws: Path) -> str:
    (ws / "out.pdf").symlink_to("/etc/hostname" if Path("/etc/hostname").exists() else "/")
    return "../out.pdf"


DOC_PATHS = [
    # (name, the file: value or a function making it, fragment of the message)
    ("absolute", "/etc/passwd", "outside the ledger's workspace"),
    ("dotdot", "../../../../../../etc/passwd", "outside the ledger's workspace"),
    ("symlink-out", _symlink_out, "outside the ledger's workspace"),
    ("nul-byte", "../a\0.pdf", "cannot follow"),
    ("home", "~/a.pdf", "outside the ledger's workspace"),
    ("device", "/dev/zero", "outside the ledger's workspace"),
    ("fifo", _fifo, "is not a file"),
    ("folder", _folder, "is not a file"),
    ("http-url", "http://example.com/a.pdf", "file not found"),
    ("file-url", "file:///etc/passwd", "file not found"),
    ("windows-drive", "C:\\Reports\\a.pdf", "file not found"),
]


@pytest.mark.parametrize("name,spec,fragment", DOC_PATHS, ids=[d[0] for d in DOC_PATHS])
def test_hostile_document_path_is_refused(ws: Path, name: str, spec, fragment: str) -> None:
    value = spec(ws) if callable(spec) else spec
    escaped = value.replace("\\", "\\\\").replace("\0", "\\0").replace('"', '\\"')
    (ws / "claims" / "documents.yaml").write_text(
        f'documents:\n  d1:\n    file: "{escaped}"\n', encoding="utf-8")
    write(ws, HEAD + FACT)
    refused(verify(), "claims/documents.yaml:3", "document 'd1'", fragment)


def test_hardening_11_document_path_too_long_for_the_file_system_is_a_ledger_error(
        ws: Path) -> None:
    (ws / "claims" / "documents.yaml").write_text(
        "documents:\n  d1:\n    file: ../" + "x" * 5000 + ".pdf\n", encoding="utf-8")
    write(ws, HEAD + FACT)
    refused(verify(), "claims/documents.yaml:3", "document 'd1': cannot open '../xxxxxxx",
            "(File name too long); point `file:` at the PDF itself")


# ---- attacks that held: formulas that try to run code ----------------------------------

ESCAPES = [
    "__import__('os').system('touch pwned')",
    "f1.amount.real",
    "f1.amount.__class__",
    "(lambda: 1)()",
    "[x for x in (1, 2)]",
    "{x: 1 for x in (1,)}",
    "f1.amount ** 2",
    "9 ** 9 ** 9 ** 9",
    "[f1.amount][0]",
    "'a' * 3",
    "f'{f1.amount}'",
    "(x := f1.amount)",
    "round(f1.amount, ndigits=2)",
    "eval('1')",
    "exec('import os')",
    "open('pwned', 'w')",
    "f1.amount if 1 else 2",
    "f1.amount < 2",
    "f1.amount // 1",
    "f1.amount % 7",
    "1 << 100000000",
    "~f1.amount",
    "not f1.amount",
    "f1.amount and 1",
    "True + f1.amount",
    "f1.amount + 1j",
    "().__class__.__bases__[0].__subclasses__()",
    "f1.amount; 1",
    "abs",
    "getattr(f1, 'amount')",
]


@pytest.mark.parametrize("formula", ESCAPES)
def test_formula_escape_is_a_ledger_error_never_run(ws: Path, formula: str) -> None:
    quoted = formula.replace("'", "''")
    write(ws, HEAD + FACT + calc(quoted, "1"))
    refused(verify(), "claims/R.yaml:4", "calc c1:")
    assert not (ws / "pwned").exists()
