"""`reportgen verify` end to end: PDF error classes, MISS lines, --json, exit codes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pymupdf
import pytest
from click.testing import CliRunner

from reportgen.cli import main

TEXT = "Revenue 1,234.5 grew 10% in the year."
REPORT = ("report: {id: R, title: Test}\nclaims:\n"
          "  - {id: f1, kind: fact, statement: s, doc: d1, page: %d, quote: \"%s\"}\n")


def make_pdf(path: Path, pages: list[str]) -> Path:
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        if text:
            page.insert_text((72, 72), text)
    doc.save(path)
    return path


def setup(ws: Path, quote: str = "Revenue 1,234.5", page: int = 1, doc_line: str = "") -> None:
    (ws / "claims").mkdir(exist_ok=True)
    (ws / "claims" / "documents.yaml").write_text(
        "documents:\n" + (doc_line or "  d1: {file: ../a.pdf, title: Doc A}\n"), encoding="utf-8")
    (ws / "claims" / "R.yaml").write_text(REPORT % (page, quote), encoding="utf-8")


def verify(ws: Path, monkeypatch: pytest.MonkeyPatch, *args: str):
    monkeypatch.chdir(ws)
    return CliRunner().invoke(main, ["verify", "claims", *args], catch_exceptions=False)


def test_hit_prints_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path)
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 0
    assert res.output == "R: facts=1 hits=1 misses=0\nTOTAL: facts=1 hits=1 misses=0\n"


def test_json_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path)
    res = verify(tmp_path, monkeypatch, "--json")
    lines = [json.loads(x) for x in res.output.splitlines()]
    assert res.exit_code == 0
    assert list(lines[0]) == ["id", "report", "kind", "status", "doc", "page", "pageEnd", "bbox",
                              "anchorMethod", "message", "file", "line"]
    assert (lines[0]["file"], lines[0]["line"]) == ("claims/R.yaml", 3)
    assert lines[0]["status"] == "hit" and lines[0]["anchorMethod"] == "exact"
    x0, y0, x1, y1 = lines[0]["bbox"]
    assert 70 <= x0 < x1 <= 612 and 50 < y0 < y1 < 80
    assert lines[1] == {"total": {"facts": 1, "hits": 1, "misses": 0, "calcs": 0,
                                  "mismatches": 0}}


def test_miss_on_wrong_page_names_the_right_one(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", ["Cover", TEXT])
    setup(tmp_path, page=1)
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    assert res.output.splitlines()[0] == ("MISS f1 d1 p.1: quote not found on p.1; it occurs on "
                                          "p.2 (claims/R.yaml:3)")
    assert res.output.splitlines()[-1] == "TOTAL: facts=1 hits=0 misses=1"


def test_miss_with_changed_digit_shows_closest_text(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path, quote="Revenue 1,234.6")
    res = verify(tmp_path, monkeypatch)
    first = res.output.splitlines()[0]
    assert res.exit_code == 1
    assert first.startswith("MISS f1 d1 p.1: quote not found on p.1")
    assert "similarity" in first and "'5'" in first and "'6'" in first


def test_miss_on_page_without_text_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [""])
    setup(tmp_path)
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    assert res.output.splitlines()[0].startswith("MISS f1 d1 p.1: ")
    assert "no text layer" in res.output.splitlines()[0]


def test_page_out_of_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path, page=9)
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    assert res.output == ("claims/R.yaml:3: page 9 is out of range: document d1 has 1 pages; "
                          "page is the 1-based index a PDF viewer shows\n"
                          "R: facts=0 hits=0 misses=0\nTOTAL: facts=0 hits=0 misses=0 errors=1\n")


@pytest.mark.parametrize("name,content,expected", [
    ("zero-byte", b"", "file is empty (0 bytes); replace it with the real PDF"),
    ("not-pdf", b"<html><body>Not found</body></html>", "not a PDF (no %PDF- header;"),
    ("corrupt", b"%PDF-1.7\n" + b"\x00garbage" * 50, "cannot be read as a PDF"),
])
def test_bad_pdf_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                       content: bytes, expected: str) -> None:
    (tmp_path / "a.pdf").write_bytes(content)
    setup(tmp_path)
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    line = res.output.splitlines()[0]
    assert line.startswith("claims/documents.yaml:2: document 'd1' (a.pdf): " + expected), line
    assert "Traceback" not in res.output


def test_encrypted_pdf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), TEXT)
    doc.save(tmp_path / "a.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    setup(tmp_path)
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    assert res.output.startswith("claims/documents.yaml:2: document 'd1' (a.pdf): PDF is "
                                 "encrypted and needs a password;")


def test_sha256_pin_mismatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = make_pdf(tmp_path / "a.pdf", [TEXT])
    actual = hashlib.sha256(pdf.read_bytes()).hexdigest()
    setup(tmp_path, doc_line=f"  d1: {{file: ../a.pdf, sha256: '{'0' * 64}'}}\n")
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    assert res.output == (f"claims/documents.yaml:2: document 'd1' (a.pdf): SHA-256 mismatch: "
                          f"the ledger pins {'0' * 64} but the file has {actual}; if this new "
                          f"file is intended, update the pin to `sha256: {actual}`, otherwise "
                          "restore the pinned file\n"
                          "R: facts=0 hits=0 misses=0\nTOTAL: facts=0 hits=0 misses=0 errors=1\n")


def test_calc_mismatch_beyond_tolerance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path, quote="Revenue 1,234.5 grew 10%")
    (tmp_path / "claims" / "R.yaml").write_text(
        "report: {id: R, title: Test}\nclaims:\n"
        "  - {id: g1, kind: fact, statement: s, doc: d1, page: 1, "
        "quote: \"Revenue 1,234.5 grew 10%\", values: {rev: 1234.5, g: 10}}\n"
        "  - {id: c1, kind: calc, statement: s, basis: [g1], "
        "formula: \"g1.rev * g1.g / 100\", result: 123.6}\n"
        "  - {id: i1, kind: inference, statement: s, basis: [c1], confidence: 0.5, note: n}\n",
        encoding="utf-8")
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    out = res.output.splitlines()
    assert out[0] == ("MISMATCH c1: formula g1.rev * g1.g / 100 computes 123.45, stated 123.6, "
                      "tolerance 0.05 (off by 0.15) (claims/R.yaml:4)")
    assert out[1] == "INVALID i1: its basis failed: c1"


def test_inference_on_a_failed_inference_is_invalid(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Verdicts follow the basis graph, not file order: i2 rests on i1, which comes later."""
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path)
    (tmp_path / "claims" / "R.yaml").write_text(
        "report: {id: R, title: Test}\nclaims:\n"
        "  - {id: i2, kind: inference, statement: s, basis: [i1], confidence: 0.5, note: n}\n"
        "  - {id: i1, kind: inference, statement: s, basis: [f1], confidence: 0.5, note: n}\n"
        "  - {id: f1, kind: fact, statement: s, doc: d1, page: 1, quote: \"Revenue 9\"}\n",
        encoding="utf-8")
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    assert "INVALID i2: its basis failed: i1" in res.output.splitlines()
    assert "INVALID i1: its basis failed: f1" in res.output.splitlines()


def test_bad_source_date_epoch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    assert res.output == ("SOURCE_DATE_EPOCH='yesterday' is not a whole number of seconds "
                          "since 1970\n")


# ---- every problem in one run --------------------------------------------------------

THREE = """\
report: {id: R, title: Test}
claims:
  - id: f1
    kind: fact
    statement: s
    doc: d1
    page: 9
    quote: "Revenue 1,234.5"
  - {id: f2, kind: fact, statement: s, doc: d1, page: 1, quote: "Revenue 1,234.6"}
  - {id: f3, kind: fact, statement: s, doc: d1, page: 1, quote: "Revenue 1,234.5 grew 10%",
     values: {rev: 1234.5, g: 10}}
  - {id: c1, kind: calc, statement: s, basis: [f3], formula: "f3.rev * 2", result: 2496}
  - {id: f4, kind: fact, statement: s, doc: d1, page: 1, quote: "grew 10%", values: {g: 11}}
  - {id: c2, kind: calc, statement: s, basis: [f4], formula: "f4.g * 2", result: 22}
  - {id: i1, kind: inference, statement: s, basis: [f1, f3], confidence: 0.5, note: n}
"""


def test_every_problem_is_reported_in_one_run(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong page, a typo'd quote, a wrong calc and a value not in its quote: one run says
    all four, checks every valid claim, and reports what rests on the invalid ones."""
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path)
    (tmp_path / "claims" / "R.yaml").write_text(THREE, encoding="utf-8")
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    assert res.stderr == (
        "claims/R.yaml:7: page 9 is out of range: document d1 has 1 pages; page is the 1-based "
        "index a PDF viewer shows\n"
        "claims/R.yaml:13: fact f4: value g=11 does not appear as a number in the quote (its "
        "numbers: 10); every value a calc uses must be quoted\n")
    assert res.stdout.splitlines() == [
        "MISS f2 d1 p.1: quote not found on p.1; closest text on p.1 (similarity 0.93): "
        "\"Revenue 1,234.5\" — first difference at char 15: page has '5' (U+0035 DIGIT FIVE) "
        "where the quote has '6' (U+0036 DIGIT SIX) (claims/R.yaml:9)",
        "MISMATCH c1: formula f3.rev * 2 computes 2469, stated 2496, tolerance 0.5 (off by 27) "
        "(claims/R.yaml:12)",
        "NOT CHECKED c2, i1: they rest on claims with ledger errors; fix those first",
        "R: facts=2 hits=1 misses=1",
        "TOTAL: facts=2 hits=1 misses=1 errors=2"]
    js = [json.loads(x) for x in verify(tmp_path, monkeypatch, "--json").stdout.splitlines()]
    assert [r.get("id") for r in js] == ["f2", "f3", "c1", "c2", "i1", None]
    assert js[-1] == {"total": {"facts": 2, "hits": 1, "misses": 1, "calcs": 2,
                                "mismatches": 2, "errors": 2}}


def test_claims_resting_on_an_invalid_claim_are_reported_not_computed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each has its record, saying why; the text output names them on one line; a calc
    resting on a calc that was not computed is computed from its stated result."""
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path)
    (tmp_path / "claims" / "R.yaml").write_text(THREE + (
        "  - {id: c3, kind: calc, statement: s, basis: [c2, f3], formula: \"c2.result + f3.g\","
        " result: 32}\n"
        "  - {id: i2, kind: inference, statement: s, basis: [c2, f2], confidence: 0.5, note: n}\n"
    ), encoding="utf-8")
    res = verify(tmp_path, monkeypatch, "--json")
    recs = {r["id"]: r for r in map(json.loads, res.stdout.splitlines()) if "id" in r}
    assert res.exit_code == 1
    assert (recs["c2"]["status"], recs["c2"]["computed"], recs["c2"]["message"]) == (
        "mismatch", None, "not computed: f4 in its basis has a ledger error; fix that first")
    assert recs["i1"]["message"] == "its basis failed: f1 (a ledger error)"
    assert (recs["c3"]["status"], recs["c3"]["computed"]) == ("ok", 32)
    assert recs["i2"]["message"] == "its basis failed: c2, f2"
    lines = verify(tmp_path, monkeypatch).stdout.splitlines()
    assert "NOT CHECKED c2, i1: they rest on claims with ledger errors; fix those first" in lines
    assert "INVALID i2: its basis failed: c2, f2" in lines  # f2 missed: a failure of its own


def test_every_json_record_carries_file_and_line(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path)
    with open(tmp_path / "claims" / "R.yaml", "a", encoding="utf-8") as f:
        f.write("  - {id: c1, kind: calc, statement: s, basis: [g1], formula: \"g1.rev\", "
                "result: 1234.5}\n"
                "  - {id: g1, kind: fact, statement: s, doc: d1, page: 1, quote: \"1,234.5\", "
                "values: {rev: 1234.5}}\n"
                "  - {id: i1, kind: inference, statement: s, basis: [c1], confidence: 0.5, "
                "note: n}\n")
    res = verify(tmp_path, monkeypatch, "--json")
    assert res.exit_code == 0
    recs = [json.loads(x) for x in res.stdout.splitlines()][:-1]
    assert [(r["id"], r["file"], r["line"]) for r in recs] == [
        ("f1", "claims/R.yaml", 3), ("c1", "claims/R.yaml", 4), ("g1", "claims/R.yaml", 5),
        ("i1", "claims/R.yaml", 6)]
    assert [list(r)[-3:] for r in recs] == [["message", "file", "line"]] * 4


def test_miss_line_ends_with_the_claims_file_and_line(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path, quote="Revenue 9")
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    first = res.output.splitlines()[0]
    assert first.startswith("MISS f1 d1 p.1: quote not found on p.1") and \
        first.endswith(" (claims/R.yaml:3)"), first


def test_page_out_of_range_points_at_the_page_line(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path)
    (tmp_path / "claims" / "R.yaml").write_text(
        "report: {id: R, title: Test}\nclaims:\n  - id: f1\n    kind: fact\n    statement: s\n"
        "    doc: d1\n    quote: Revenue\n    page: 2\n", encoding="utf-8")
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    assert res.stderr == ("claims/R.yaml:8: page 2 is out of range: document d1 has 1 pages; "
                          "page is the 1-based index a PDF viewer shows\n")


@pytest.mark.parametrize("result,hint", [
    ("0.1235", "; the stated result is 100 times smaller than computed (a percentage written "
     "as a fraction?): state 12.35, or divide the formula by 100"),
    ("12345", "; the stated result is 1,000 times larger than computed (units written as "
     "thousands?): state 12.345, or multiply the formula by 1,000"),
    ("13.1", ""),
])
def test_calc_result_off_by_a_factor_of_100_or_1000_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, result: str, hint: str) -> None:
    make_pdf(tmp_path / "a.pdf", [TEXT])
    setup(tmp_path)
    (tmp_path / "claims" / "R.yaml").write_text(
        "report: {id: R, title: Test}\nclaims:\n"
        "  - {id: g1, kind: fact, statement: s, doc: d1, page: 1, "
        "quote: \"Revenue 1,234.5 grew 10%\", values: {rev: 1234.5, g: 10}}\n"
        "  - {id: c1, kind: calc, statement: s, basis: [g1], "
        f"formula: \"g1.rev / g1.g / 10\", result: {result}}}\n", encoding="utf-8")
    res = verify(tmp_path, monkeypatch)
    assert res.exit_code == 1
    line = res.output.splitlines()[0]
    assert line.startswith(f"MISMATCH c1: formula g1.rev / g1.g / 10 computes 12.345, stated "
                           f"{result}, tolerance "), line
    assert line.endswith(f"){hint} (claims/R.yaml:4)"), line


def test_evidence_records_name_the_claim_file_from_the_workspace_wherever_the_build_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reportgen.verify.records import evidence_records
    from reportgen.verify.run import verify as verify_paths

    ws = tmp_path / "ws"
    ws.mkdir()
    make_pdf(ws / "a.pdf", [TEXT])
    setup(ws)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # an absolute path of this machine must not be published
    v = verify_paths([ws / "claims"])
    assert [(r["file"], r["line"]) for r in evidence_records(v, {})] == [("claims/R.yaml", 3)]
    res = CliRunner().invoke(main, ["verify", str(ws / "claims"), "--json"])
    assert json.loads(res.stdout.splitlines()[0])["file"] == str(ws / "claims" / "R.yaml")
