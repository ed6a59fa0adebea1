"""Ledger loading: one CLI test per error class, with the exact message and exit code."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.cli import main
from reportgen.errors import LedgerError, LedgerErrors
from reportgen.ledger import load_ledger
from reportgen.ledger.load import read_ledger, workspace_of
from reportgen.ledger.validate import numbers_in
from reportgen.model import Calc, Fact, Inference, Ledger

DOCS = "documents:\n  d1: {file: ../a.pdf, title: Doc A}\n"
REPORT_HEAD = "report:\n  id: R\n  title: Test report\n  summary: Revenue [@f1].\nclaims:\n"
FACT = ('  - {id: f1, kind: fact, statement: Revenue was 1234.5., doc: d1, page: 1, '
        'quote: "Revenue 1,234.5 grew 10%", values: {rev: 1234.5, growth: 10}}\n')


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    """A workspace outside any git repository: the ledger folder's parent."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Revenue 1,234.5 grew 10% in the year.")
    doc.save(tmp_path / "a.pdf")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "documents.yaml").write_text(DOCS, encoding="utf-8")
    return tmp_path


def write(ws: Path, body: str, name: str = "R.yaml") -> Path:
    p = ws / "claims" / name
    p.write_text(textwrap.dedent(body), encoding="utf-8")
    return p


def run(ws: Path, *args: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(ws)
    return CliRunner().invoke(main, ["verify", *args], catch_exceptions=False)


def test_valid_ledger_loads_in_file_order(ws: Path) -> None:
    write(ws, REPORT_HEAD + FACT +
          '  - {id: c1, kind: calc, statement: Doubled., basis: [f1], formula: "f1.rev * 2", '
          'result: 2469.0}\n'
          '  - {id: i1, kind: inference, statement: It grew., basis: [c1], confidence: 0.5, '
          'note: A restatement would undo it.}\n')
    led = load_ledger([ws / "claims"])
    assert list(led.claims) == ["f1", "c1", "i1"]
    f, c, i = led.claims.values()
    assert isinstance(f, Fact) and f.values == (("rev", 1234.5), ("growth", 10.0))
    assert f.loc.line == 6 and f.loc.file.endswith("R.yaml")
    assert isinstance(c, Calc) and c.result_text == "2469.0"
    assert isinstance(i, Inference) and i.basis == ("c1",)
    assert led.documents["d1"].path == (ws / "a.pdf").resolve()
    assert led.workspace == ws.resolve()


CASES = [
    # (name, report body, expected stderr line)
    ("yaml-syntax", "report:\n  id: R\n  title: [unclosed\n",
     "claims/R.yaml:4: YAML syntax error: while parsing a flow sequence did not find expected "
     "',' or ']'; check indentation and quoting"),
    ("unknown-basis", REPORT_HEAD + FACT +
     "  - {id: i1, kind: inference, statement: s, basis: [f9], confidence: 0.5, note: n}\n",
     "claims/R.yaml:7: inference i1: basis 'f9' is not a claim of the ledger"),
    ("unknown-doc", REPORT_HEAD +
     '  - {id: f1, kind: fact, statement: s, doc: d9, page: 1, quote: "Revenue"}\n',
     "claims/R.yaml:6: fact f1: unknown document 'd9'; declare it under documents: (known: d1)"),
    ("duplicate-id", REPORT_HEAD + FACT + FACT,
     "claims/R.yaml:7: duplicate id 'f1': already used by a claim at claims/R.yaml:6; ids are "
     "unique across the ledger"),
    ("bad-id", REPORT_HEAD + '  - {id: "f 1", kind: fact, statement: s, doc: d1, page: 1, '
     'quote: "Revenue"}\n',
     "claims/R.yaml:6: id must be an id matching [A-Za-z0-9][A-Za-z0-9._-]*; got 'f 1'"),
    ("bad-kind", REPORT_HEAD + "  - {id: f1, kind: guess, statement: s}\n",
     "claims/R.yaml:6: kind must be one of fact, calc, inference; got 'guess'"),
    ("missing-field", REPORT_HEAD + "  - {id: f1, kind: fact, statement: s, doc: d1, page: 1}\n",
     "claims/R.yaml:6: claim 'f1' is missing required field 'quote' (non-empty text)"),
    ("unknown-field", REPORT_HEAD +
     '  - {id: f1, kind: fact, statement: s, doc: d1, page: 1, quote: "R", pg: 2}\n',
     "claims/R.yaml:6: unknown field 'pg' in claim 'f1'; known fields: confidence, doc, draft, "
     "id, kind, note, page, quote, statement, values; did you mean 'page'?"),
    ("page-zero", REPORT_HEAD +
     '  - {id: f1, kind: fact, statement: s, doc: d1, page: 0, quote: "R"}\n',
     "claims/R.yaml:6: page must be a page number from 1 (the page index a PDF viewer shows); "
     "got 0"),
    ("value-not-quoted", REPORT_HEAD +
     '  - {id: f1, kind: fact, statement: s, doc: d1, page: 1, quote: "Revenue 1,234.5", '
     'values: {rev: 1234.6}}\n',
     "claims/R.yaml:6: fact f1: value rev=1234.6 does not appear as a number in the quote (its "
     "numbers: 1234.5); every value a calc uses must be quoted"),
    ("cycle", REPORT_HEAD + FACT +
     '  - {id: c1, kind: calc, statement: s, basis: [c2], formula: "c2.result", result: 1}\n'
     '  - {id: c2, kind: calc, statement: s, basis: [c1], formula: "c1.result", result: 1}\n',
     "claims/R.yaml:7: basis cycle: c1 -> c2 -> c1; a claim cannot rest on itself"),
    ("inference-confidence", REPORT_HEAD + FACT +
     "  - {id: i1, kind: inference, statement: s, basis: [f1], confidence: 1, note: n}\n",
     "claims/R.yaml:7: confidence must be a number from 0 to below 1; got 1"),
    ("formula-code", REPORT_HEAD + FACT +
     "  - {id: c1, kind: calc, statement: s, basis: [f1], "
     "formula: '__import__(\"os\").system(\"true\")', result: 1}\n",
     "claims/R.yaml:7: calc c1: formula '__import__(\"os\").system(\"true\")' calls something "
     "other than abs, min, max, round or sum"),
    ("formula-not-in-basis", REPORT_HEAD + FACT +
     "  - {id: c2, kind: calc, statement: s, basis: [f1], formula: 'f1.rev', result: 1234.5}\n"
     "  - {id: c1, kind: calc, statement: s, basis: [f1], formula: 'c2.result', result: 1}\n",
     "claims/R.yaml:8: calc c1: formula uses c2.result but c2 is not in its basis; add it to "
     "basis"),
    ("edge-neither", REPORT_HEAD + FACT + "edges:\n  - {from: A, relation: buys_from, to: B}\n",
     "claims/R.yaml:8: edge A -buys_from-> B has neither anchors nor a gap; add `anchors: [fact "
     "ids]` or `gap: why it cannot be proved`"),
    ("edge-anchor-unknown", REPORT_HEAD + FACT +
     "edges:\n  - {from: A, relation: buys_from, to: B, anchors: [f7]}\n",
     "claims/R.yaml:8: edge A -buys_from-> B: anchor 'f7' is not a claim of the ledger"),
    ("summary-cite", "report:\n  id: R\n  title: T\n  summary: See [@f1; @f8].\nclaims:\n" + FACT,
     "claims/R.yaml:4: summary cites [@f8], which is not a claim of the ledger"),
    ("claim-ids-differ-in-case", REPORT_HEAD + FACT + FACT.replace("id: f1", "id: F1"),
     "claims/R.yaml:7: claim id 'F1' differs only in case from 'f1' at claims/R.yaml:6; their "
     "crops anchors/<id>.png would be one file on macOS and Windows: choose another id"),
    ("top-level-typo", REPORT_HEAD + FACT + "edgse: []\n",
     "claims/R.yaml:7: unknown top-level key 'edgse'; known keys: report, documents, sections, "
     "claims, edges, entities; did you mean 'edges'?"),
    ("not-mapping", "- just\n- a list\n",
     "claims/R.yaml:1: a report file must be a mapping with `report:`, `claims:` ..."),
]


@pytest.mark.parametrize("name,body,expected", CASES, ids=[c[0] for c in CASES])
def test_ledger_error_exact_message(ws: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                                    body: str, expected: str) -> None:
    write(ws, body)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert expected in res.output.splitlines(), res.output
    assert "Traceback" not in res.output


def test_every_problem_reported_at_once(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, REPORT_HEAD + '  - {id: f1, kind: fact, statement: s, doc: d9, page: 0, quote: q}\n'
          "  - {id: i1, kind: inference, statement: s, basis: [zz], confidence: 2, note: n}\n"
          "  - {id: i2, kind: inference, statement: s, basis: [zz], confidence: 0.5, note: n}\n")
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert len(res.output.strip().splitlines()) >= 3


def test_document_missing_file(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (ws / "claims" / "documents.yaml").write_text(
        "documents:\n  d1: {file: ../nope.pdf}\n", encoding="utf-8")
    write(ws, REPORT_HEAD + FACT)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert (f"claims/documents.yaml:2: document 'd1': file not found: '../nope.pdf' (resolved to "
            f"{(ws / 'nope.pdf').resolve()}); paths are relative to this file") in res.output


def test_document_outside_workspace_refused_unless_allowed(
        ws: Path, tmp_path_factory: pytest.TempPathFactory,
        monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "a.pdf").write_bytes((ws / "a.pdf").read_bytes())
    (ws / "claims" / "documents.yaml").write_text(
        f"documents:\n  d1: {{file: {elsewhere / 'a.pdf'}}}\n", encoding="utf-8")
    write(ws, REPORT_HEAD + FACT)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert "outside the ledger's workspace" in res.output and "--allow-outside" in res.output


def test_symlink_out_of_workspace_is_refused(ws: Path, tmp_path_factory: pytest.TempPathFactory,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere2")
    (elsewhere / "a.pdf").write_bytes((ws / "a.pdf").read_bytes())
    (ws / "link.pdf").symlink_to(elsewhere / "a.pdf")
    (ws / "claims" / "documents.yaml").write_text(
        "documents:\n  d1: {file: ../link.pdf}\n", encoding="utf-8")
    write(ws, REPORT_HEAD + FACT)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1 and "outside the ledger's workspace" in res.output


def test_missing_ledger_path(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    res = run(ws, "nowhere", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.output.strip() == ("nowhere: no such ledger folder or report file; pass a folder "
                                  "of claim files (default claims/) or a .yaml report")


def test_bad_option_is_usage_error(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    res = run(ws, "--nope", monkeypatch=monkeypatch)
    assert res.exit_code == 2


def test_jsonl_claims_and_edges(ws: Path) -> None:
    write(ws, REPORT_HEAD + FACT)
    (ws / "claims" / "more.jsonl").write_text(
        '{"report": "R", "id": "c1", "kind": "calc", "statement": "s", "basis": ["f1"], '
        '"formula": "f1.rev / 2", "result": 617.25}\n\n'
        '{"report": "R", "type": "edge", "from": "A", "relation": "buys_from", "to": "B", '
        '"anchors": ["f1"]}\n', encoding="utf-8")
    led = load_ledger([ws / "claims"])
    assert list(led.claims) == ["f1", "c1"]
    assert led.claims["c1"].loc.line == 1
    assert led.reports[0].edges[0].anchors == ("f1",)


def test_jsonl_errors_have_lines(ws: Path) -> None:
    write(ws, REPORT_HEAD + FACT)
    (ws / "claims" / "more.jsonl").write_text(
        '{"report": "R", "id": "c1"}\n{oops\n', encoding="utf-8")
    with pytest.raises(LedgerErrors) as ei:
        load_ledger([ws / "claims"])
    assert "claims/more.jsonl:2: invalid JSON at column 2" in str(ei.value)


def test_single_report_file_reads_documents_beside_it(ws: Path) -> None:
    p = write(ws, REPORT_HEAD + FACT)
    led = load_ledger([p])
    assert "d1" in led.documents


def test_workspace_is_git_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a" / "claims").mkdir(parents=True)
    assert workspace_of(tmp_path / "a" / "claims") == tmp_path.resolve()


def test_numbers_in_quote() -> None:
    assert numbers_in("供应商一 6,928,853,013.03 14.59%") == [6928853013.03, 14.59]
    assert numbers_in("２０２５年 7.8GWh") == [2025.0, 7.8]


# ---- property: arbitrary YAML never yields anything but a ledger error -------------------

yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["report", "id", "kind", "claims", "documents", "edges", "quote",
                         "basis", "formula", "result", "page", "doc", "title", "x"]),
        inner, max_size=5),
    max_leaves=20)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture],
          deadline=None)
@given(data=yaml_values)
def test_arbitrary_yaml_is_a_ledger_error_or_a_ledger(ws: Path, data: object) -> None:
    write(ws, yaml.safe_dump(data, allow_unicode=True))
    try:
        load_ledger([ws / "claims"])
    except LedgerErrors as e:
        assert all(isinstance(p, LedgerError) and p.file for p in e.problems)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture],
          deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_arbitrary_text_is_a_ledger_error_or_a_ledger(ws: Path, text: str) -> None:
    """Any text as a report file: a Ledger, or LedgerErrors each naming its file."""
    (ws / "claims" / "R.yaml").write_text(text, encoding="utf-8")
    try:
        ledger = load_ledger([ws / "claims"])
    except LedgerErrors as e:
        assert e.problems and all(isinstance(p, LedgerError) and p.file for p in e.problems)
    else:
        assert isinstance(ledger, Ledger)


def test_single_report_file_hints_at_the_folder(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A basis in another report file: verifying one file alone says to pass the folder."""
    write(ws, REPORT_HEAD.replace("R\n", "A\n").replace(" [@f1]", "") + FACT, "A.yaml")
    write(ws, "report: {id: B, title: T}\nclaims:\n"
          "  - {id: c1, kind: calc, statement: s, basis: [f1], formula: 'f1.rev', "
          "result: 1234.5}\n", "B.yaml")
    assert run(ws, "claims", monkeypatch=monkeypatch).exit_code == 0
    res = run(ws, "claims/B.yaml", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.output == ("claims/B.yaml:3: calc c1: basis 'f1' is not a claim of the ledger (a "
                          "single report file is read with documents.yaml only; pass the ledger "
                          "folder to include the other reports)\n"
                          "B: facts=0 hits=0 misses=0\nTOTAL: facts=0 hits=0 misses=0 errors=1\n")


def test_a_rejected_claim_is_reported_once_not_again_at_each_reference(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # f1 has page 0, so it is dropped; its citation, basis and anchor must not each add a
    # second, wrong "is not a claim of the ledger" error
    write(ws, REPORT_HEAD + FACT.replace("page: 1", "page: 0") +
          '  - {id: c1, kind: calc, statement: Doubled., basis: [f1], formula: "f1.rev * 2", '
          'result: 2469.0}\n'
          'edges:\n  - {from: A, relation: r, to: B, anchors: [f1]}\n')
    r = run(ws, "claims", monkeypatch=monkeypatch)
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [
        "claims/R.yaml:6: page must be a page number from 1 (the page index a PDF viewer "
        "shows); got 0"]
    # the calc resting on it is not computed, and says so
    assert r.stdout.splitlines()[0] == ("NOT CHECKED c1: it rests on claims with ledger errors; "
                                        "fix those first")


def test_malformed_values_are_reported_once_not_again_at_the_formula(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, REPORT_HEAD + FACT.replace("rev: 1234.5", "rev: 1.0e+400") +
          '  - {id: c1, kind: calc, statement: Doubled., basis: [f1], formula: "f1.rev * 2", '
          'result: 2469.0}\n')
    r = run(ws, "claims", monkeypatch=monkeypatch)
    assert r.exit_code == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.output
    assert "values must be" in lines[0]
    assert "NOT CHECKED c1: it rests on claims with ledger errors" in r.stdout


@pytest.mark.parametrize("line,expected", [
    ('{"report": "R", "id": "j1", "id": "j2"}', "claims/x.jsonl:1: duplicate key 'id'; keep one"),
    ('{"report": "R", "page": 1' + "0" * 5000 + "}", "claims/x.jsonl:1: invalid JSON ("),
    ("[" * 100000 + "]" * 100000, "claims/x.jsonl:1: invalid JSON (nested too deep)"),
], ids=["duplicate-key", "5000-digit-number", "deep-nesting"])
def test_jsonl_line_that_json_cannot_hold_is_a_ledger_error(
        ws: Path, monkeypatch: pytest.MonkeyPatch, line: str, expected: str) -> None:
    write(ws, REPORT_HEAD + FACT)
    (ws / "claims" / "x.jsonl").write_text(line + "\n", encoding="utf-8")
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.output.startswith(expected), res.output
    assert "internal error" not in res.output


def test_jsonl_byte_order_mark_is_accepted(ws: Path) -> None:
    write(ws, REPORT_HEAD + FACT)
    (ws / "claims" / "x.jsonl").write_text(
        '\ufeff{"type": "edge", "report": "R", "from": "A", "relation": "r", "to": "B", '
        '"gap": "unnamed"}\n', encoding="utf-8")
    assert len(load_ledger([ws / "claims"]).reports[0].edges) == 1


@pytest.mark.parametrize("value", ["2025-13-45", "1" + "0" * 5000])
def test_yaml_scalar_python_cannot_construct_is_a_ledger_error(
        ws: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    write(ws, REPORT_HEAD.replace("title: Test report", f"title: {value}") + FACT)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.output.startswith("claims/R.yaml:3: cannot read the value "), res.output
    assert "quote it to keep it as text" in res.output


@pytest.mark.parametrize("spec,why", [
    ("../loop.pdf", "a symlink loop"), ('"../a\\0.pdf"', "embedded null byte")])
def test_document_path_that_cannot_be_followed_is_a_ledger_error(
        ws: Path, monkeypatch: pytest.MonkeyPatch, spec: str, why: str) -> None:
    (ws / "loop.pdf").symlink_to(ws / "loop.pdf")
    (ws / "claims" / "documents.yaml").write_text(
        f"documents:\n  d1:\n    file: {spec}\n", encoding="utf-8")
    write(ws, REPORT_HEAD + FACT)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.output.startswith("claims/documents.yaml:3: document 'd1': cannot follow "), \
        res.output
    assert why in res.output and "internal error" not in res.output


@pytest.mark.parametrize("rid,other,clash", [
    ("index", None, "index.html, which the site already writes for the site's index page"),
    ("R.standalone", "R", "R.standalone.html, which the site already writes for report 'R'"),
    ("r", "R", "r.html, which the site already writes for report 'R'"),
])
def test_report_id_whose_page_overwrites_another_file_is_refused(
        ws: Path, monkeypatch: pytest.MonkeyPatch, rid: str, other: str | None,
        clash: str) -> None:
    if other:
        write(ws, REPORT_HEAD + FACT)
    write(ws, REPORT_HEAD.replace("id: R", f"id: {rid}").replace("[@f1]", "")
          + FACT.replace("f1", "f2"), name="S.yaml")
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert f"claims/S.yaml:2: report id {rid!r} would write {clash}" in res.output, res.output


def test_calc_whose_formula_uses_no_claim_value_is_refused(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a constant formula would "verify" any stated result without any anchored number
    write(ws, REPORT_HEAD + FACT +
          '  - {id: c1, kind: calc, statement: Doubled., basis: [f1], formula: "2469", '
          'result: 2469}\n')
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert ("claims/R.yaml:7: calc c1: formula '2469' uses no claim value, so nothing anchors "
            "its numbers; compute from its basis, e.g. f1.rev") in res.output, res.output


@pytest.mark.parametrize("sections", [
    "sections:\n  - {title: A, body: x, claims: [f1, f1]}\n",
    "sections:\n  - {title: A, body: x, claims: [f1]}\n  - {title: B, body: y, claims: [f1]}\n",
])
def test_claim_listed_twice_in_sections_is_refused(
        ws: Path, monkeypatch: pytest.MonkeyPatch, sections: str) -> None:
    # the page would show the row twice under one HTML id
    write(ws, REPORT_HEAD.replace("claims:\n", sections + "claims:\n") + FACT)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert "lists 'f1' again (already listed in section 'A'); list each claim once" \
        in res.output, res.output


@pytest.mark.parametrize("name,target,why", [
    ("x.yaml", "nowhere.yaml", "No such file or directory"),
    ("y.jsonl", "nowhere.jsonl", "No such file or directory"),
    ("z.yaml", "z.yaml", "Too many levels of symbolic links"),
])
def test_broken_claim_file_symlink_is_reported_not_skipped(
        ws: Path, monkeypatch: pytest.MonkeyPatch, name: str, target: str, why: str) -> None:
    write(ws, REPORT_HEAD + FACT)
    (ws / "claims" / name).symlink_to(target)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert f"claims/{name}: cannot read the file: {why}" in res.output, res.output


def test_jsonl_file_given_alone_hints_at_the_folder(ws: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, REPORT_HEAD + FACT)
    (ws / "claims" / "x.jsonl").write_text(
        '{"type": "edge", "report": "R", "from": "A", "relation": "r", "to": "B", '
        '"gap": "unnamed"}\n', encoding="utf-8")
    res = run(ws, "claims/x.jsonl", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert ("claims/x.jsonl:1: 'report' must name a report of the ledger (known: none); got 'R'; "
            "pass the ledger folder so its report files are read too") in res.output, res.output


# ---- values in quote order -----------------------------------------------------------

ROW = ('  - {id: t1, kind: fact, statement: s, doc: d1, page: 1, '
       'quote: "Class A 15,240 Class C 146,082", values: %s}\n')


def test_swapped_table_values_are_an_error(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, REPORT_HEAD.replace(" [@f1]", "") + ROW % "{class_a: 146082, class_c: 15240}")
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.stderr == (
        "claims/R.yaml:6: fact t1: values are out of quote order: class_c=15240 stands 1st in "
        "the quote but is listed after class_a=146082, which stands 2nd; list values in the "
        "order their numbers stand in the quote: {class_c: 15240, class_a: 146082}\n")
    write(ws, REPORT_HEAD.replace(" [@f1]", "") + ROW % "{class_c: 15240, class_a: 146082}")
    ledger, problems = read_ledger([ws / "claims"])
    assert problems == [] and ledger.claims["t1"].values == (("class_c", 15240.0),
                                                              ("class_a", 146082.0))


def _numbers(draw) -> list[str]:
    """Distinct numbers as a report prints them: thousands separators, decimals, percents."""
    values = draw(st.lists(st.decimals(min_value=0, max_value=10 ** 9, places=2,
                                       allow_nan=False, allow_infinity=False),
                           min_size=2, max_size=6, unique=True))
    return [f"{v:,}" for v in values]


@st.composite
def quote_and_pair(draw):
    printed = _numbers(draw)
    words = draw(st.lists(st.sampled_from(["Class", "A", "净利润", "total", "(", ")", "%"]),
                          min_size=len(printed), max_size=len(printed)))
    quote = " ".join(f"{w} {n}" for w, n in zip(words, printed))
    i, j = sorted(draw(st.lists(st.integers(0, len(printed) - 1), min_size=2, max_size=2,
                                unique=True)))
    return quote, printed[i].replace(",", ""), printed[j].replace(",", "")


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture],
          deadline=None)
@given(case=quote_and_pair(), swapped=st.booleans())
def test_values_in_the_wrong_order_are_an_error_in_the_right_order_never(
        ws: Path, case: tuple[str, str, str], swapped: bool) -> None:
    quote, first, second = case
    pair = (f"{{b: {second}, a: {first}}}" if swapped else f"{{a: {first}, b: {second}}}")
    write(ws, REPORT_HEAD.replace(" [@f1]", "") +
          f"  - {{id: t1, kind: fact, statement: s, doc: d1, page: 1, quote: {quote!r}, "
          f"values: {pair}}}\n")
    _, problems = read_ledger([ws / "claims"])
    if swapped:
        assert len(problems) == 1 and "values are out of quote order" in problems[0].message
    else:
        assert problems == []


def test_missing_value_lists_the_numbers_the_quote_holds(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, REPORT_HEAD + FACT.replace("rev: 1234.5", "rev: 1243.5"))
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.stderr == ("claims/R.yaml:6: fact f1: value rev=1243.5 does not appear as a "
                          "number in the quote (its numbers: 1234.5, 10); every value a calc uses "
                          "must be quoted\n")


# ---- files in the ledger folder ------------------------------------------------------

J1 = '{"report": "J1", "claims": []}\n'


@pytest.mark.parametrize("name,how", [
    ("J1.json", 'write it as .jsonl, one claim per line, each with a "report" field'),
    ("rows.csv", "convert it to one of those"),
    ("J1.toml", "convert it to one of those"),
])
def test_json_report_file_is_not_dropped(ws: Path, monkeypatch: pytest.MonkeyPatch,
                                         name: str, how: str) -> None:
    write(ws, REPORT_HEAD + FACT)
    (ws / "claims" / name).write_text(J1, encoding="utf-8")
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    fmt = name.rsplit(".", 1)[1]
    assert res.stderr == (
        f"claims/{name}: reportgen does not read .{fmt} files, so this one would be left out; "
        "claim files are .yaml or .yml (report files) and .jsonl (one claim or edge per line): "
        f"{how}, or move it out of the ledger folder\n")
    # the valid report is still checked in the same run
    assert res.stdout == "R: facts=1 hits=1 misses=0\nTOTAL: facts=1 hits=1 misses=0 errors=1\n"


def test_hidden_files_and_editor_backups_are_still_skipped(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, REPORT_HEAD + FACT)
    for name in (".J1.json", "J1.json~", "J1.json.bak", ".R.yaml.swp", "#R.yaml#", "R.yaml~"):
        (ws / "claims" / name).write_text("not: [valid", encoding="utf-8")
    (ws / "claims" / ".#R.yaml").symlink_to("user@host.1234")  # an editor's lock: dangling
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert (res.exit_code, res.output) == (0, "R: facts=1 hits=1 misses=0\n"
                                              "TOTAL: facts=1 hits=1 misses=0\n")


# ---- messages that say the fix -------------------------------------------------------

def test_unknown_basis_id_says_did_you_mean(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, REPORT_HEAD.replace("claims:\n", "sections:\n  - {title: A, claims: [f11]}\n"
                                  "claims:\n") + FACT +
          "  - {id: i1, kind: inference, statement: s, basis: [f11], confidence: 0.5, note: n}\n")
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        "claims/R.yaml:6: section 'A' lists 'f11', which is not a claim of the ledger; did you "
        "mean 'f1'?",
        "claims/R.yaml:9: inference i1: basis 'f11' is not a claim of the ledger; did you mean "
        "'f1'?"]


def test_unknown_document_says_did_you_mean(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, REPORT_HEAD + FACT.replace("doc: d1", "doc: d11"))
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.stderr == ("claims/R.yaml:6: fact f1: unknown document 'd11'; declare it under "
                          "documents: (known: d1); did you mean 'd1'?\n")


def test_unknown_formula_id_says_did_you_mean(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, REPORT_HEAD + FACT + '  - {id: c1, kind: calc, statement: s, basis: [f1], '
          'formula: "f1.rev + F1.rev", result: 2469}\n')
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.stderr == ("claims/R.yaml:7: calc c1: unknown claim id 'F1' in formula "
                          "'f1.rev + F1.rev'; references are written claim-id.value, separated "
                          "from operators by spaces; did you mean 'f1'?\n")


@pytest.mark.parametrize("pin,expected", [
    ("0x" + "a910" * 16, "YAML read 0xa910a910a9... as a hexadecimal number: write the 64 "
     'characters without 0x, in quotes: sha256: "' + "a910" * 16 + '"'),
    ("1234" * 16, 'YAML read 123412341234... as a number: quote it: sha256: "' + "1234" * 16
     + '"'),
])
def test_hex_looking_pin_says_to_quote_it(ws: Path, monkeypatch: pytest.MonkeyPatch, pin: str,
                                          expected: str) -> None:
    (ws / "claims" / "documents.yaml").write_text(
        f"documents:\n  d1:\n    file: ../a.pdf\n    sha256: {pin}\n", encoding="utf-8")
    write(ws, REPORT_HEAD + FACT)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.stderr == ("claims/documents.yaml:4: sha256 must be 64 hexadecimal characters "
                          f"(the file's SHA-256); {expected}\n")


@pytest.mark.parametrize("body,line,col", [
    ("report:\n\tid: R\n\ttitle: T\n", 2, 1),
    ("report:\n  id: R\n  title: T\nclaims:\n  - id: f1\n  \t kind: fact\n", 6, 3),
])
def test_tab_in_yaml_says_to_replace_the_tab_with_spaces(
        ws: Path, monkeypatch: pytest.MonkeyPatch, body: str, line: int, col: int) -> None:
    write(ws, body)
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.output == (f"claims/R.yaml:{line}: YAML syntax error: a tab at column {col}; "
                          "YAML indents with spaces only: replace the tab with spaces\n")


def test_missing_documents_yaml_is_one_line(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (ws / "claims" / "documents.yaml").unlink()
    write(ws, REPORT_HEAD + FACT + FACT.replace("f1", "f2") + FACT.replace("f1", "f3")
          .replace("d1", "d2"))
    res = run(ws, "claims", monkeypatch=monkeypatch)
    assert res.exit_code == 1
    assert res.stderr == (
        "claims/documents.yaml: not found, and no report file declares `documents:`, so the 3 "
        "facts cite unknown documents (d1, d2); declare each under documents: in "
        "claims/documents.yaml, e.g. d1: {file: path/to/the.pdf, title: its title}\n")
    assert res.stdout == "R: facts=0 hits=0 misses=0\nTOTAL: facts=0 hits=0 misses=0 errors=1\n"


def test_read_ledger_keeps_the_valid_claims_and_returns_every_error(ws: Path) -> None:
    """The library side of one run for every problem: claims with an error of their own are
    left out of the ledger (and reported), the others stay, in order."""
    write(ws, REPORT_HEAD + FACT + FACT.replace("f1", "f2").replace("page: 1", "page: 0") +
          FACT.replace("f1", "f3").replace("rev: 1234.5", "rev: 1234") +
          '  - {id: c1, kind: calc, statement: s, basis: [f3], formula: "f3.rev", result: 1}\n'
          '  - {id: c2, kind: calc, statement: s, basis: [f1], formula: "f1.rev", result: 1234.5}\n')
    ledger, problems = read_ledger([ws / "claims"])
    assert list(ledger.claims) == ["f1", "c1", "c2"] and ledger.reports[0].claims == ("f1", "c1",
                                                                                      "c2")
    assert [(p.line, p.message[:28]) for p in problems] == [
        (7, "page must be a page number f"), (8, "fact f3: value rev=1234 does")]
    with pytest.raises(LedgerErrors) as ei:  # load_ledger: a whole ledger or its errors
        load_ledger([ws / "claims"])
    assert [str(p) for p in ei.value.problems] == [str(p) for p in problems]
