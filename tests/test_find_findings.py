"""Search that respects the ledger: one test per finding of the first-use trial, each with
the exact message and exit code (`reportgen index` and `reportgen find` through CliRunner)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pymupdf
import pytest
import yaml
from test_index_support import make_pdf, run, two_doc_workspace

from reportgen.index.evidence import mark, sentences
from reportgen.index.stubs import quote_candidates
from reportgen.pdf.anchors import match_quote
from reportgen.pdf.documents import open_pdf
from reportgen.pdf.textlayer import extract_page


@pytest.fixture()
def ws(tmp_path: Path, monkeypatch) -> Path:
    return two_doc_workspace(tmp_path, monkeypatch)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def documents_only(ws: Path, pins: dict[str, str] | None = None) -> None:
    """claims/ holding documents.yaml alone, no report file."""
    (ws / "claims" / "report.yaml").unlink()
    lines = ["documents:"]
    for d in ("alpha", "beta"):
        lines += [f"  {d}:", f"    file: ../docs/{d}.pdf"]
        if pins and d in pins:
            lines.append(f"    sha256: {pins[d]}")
    (ws / "claims" / "documents.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---- the ledger's documents --------------------------------------------------------------


def test_index_of_a_ledger_with_only_documents_yaml_uses_its_ids(ws: Path) -> None:
    documents_only(ws)
    r = run("index", "claims")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == ("indexed 2 documents into .reportgen/index.sqlite: "
                                        "2 added, 0 changed, 0 unchanged, 0 removed")
    r = run("find", "前五名供应商", "--stub")
    assert r.exit_code == 0, r.output
    assert yaml.safe_load(r.stdout)[0]["doc"] == "alpha"


def test_indexing_a_pdf_directly_takes_the_ledgers_document_id(ws: Path) -> None:
    shutil.copy(ws / "docs" / "alpha.pdf", ws / "docs" / "report-2025-final.pdf")
    (ws / "claims" / "report.yaml").write_text(
        (ws / "claims" / "report.yaml").read_text("utf-8").replace("docs/alpha.pdf",
                                                                   "docs/report-2025-final.pdf"),
        "utf-8")
    r = run("index", "docs/report-2025-final.pdf")
    assert r.exit_code == 0, r.output
    r = run("find", "前五名供应商", "--stub")
    assert yaml.safe_load(r.stdout)[0]["doc"] == "alpha"  # not the file stem


def test_index_refuses_a_pin_mismatch_as_verify_does(ws: Path) -> None:
    good = sha(ws / "docs" / "alpha.pdf")
    documents_only(ws, {"alpha": "a" * 64})
    r = run("index", "claims")
    assert r.exit_code == 1
    assert r.stderr == (
        f"claims/documents.yaml:2: document 'alpha' (docs/alpha.pdf): SHA-256 mismatch: the "
        f"ledger pins {'a' * 64} but the file has {good}; if this new file is intended, update "
        f"the pin to `sha256: {good}`, otherwise restore the pinned file\n")
    assert not (ws / ".reportgen" / "index.sqlite").exists() or "alpha" not in run(
        "find", "前五名供应商", "--json").output


def test_find_warns_when_the_index_is_older_than_a_pdf(ws: Path) -> None:
    run("index", "claims")
    make_pdf(ws / "docs" / "alpha.pdf", [["第一节 重要提示", "公司前五名供应商已更换。"]])
    r = run("find", "前五名供应商")
    assert r.exit_code == 0
    assert ("warning: docs/alpha.pdf: the file changed since it was indexed (its SHA-256 is "
            "not the indexed one), so its text may not be what the index holds; run "
            "`reportgen index claims` again\n") in r.stderr
    r = run("find", "前五名供应商", "--stub")
    assert r.exit_code == 1
    assert r.stderr == ("docs/alpha.pdf: the file changed since it was indexed (its SHA-256 is "
                        "not the indexed one), so its text may not be what the index holds; "
                        "run `reportgen index claims` again\n")
    assert r.stdout == ""


# ---- weak matches --------------------------------------------------------------------------


def test_a_query_absent_from_the_documents_is_a_weak_match(ws: Path) -> None:
    run("index", "claims")
    r = run("find", "operating income")
    assert r.exit_code == 0
    assert r.stderr.startswith("weak match: the best result lacks ")
    assert r.stderr.endswith(" of the query; the index may hold nothing that says this\n")
    r = run("find", "operating income", "--stub")
    assert r.exit_code == 1 and r.stdout == ""
    assert "of the query, so it would not back a claim about it; no stub printed. Rephrase " \
           "the query, or pass --force to print the stub anyway\n" in r.stderr
    assert "'operating'" in r.stderr and "'income'" in r.stderr
    r = run("find", "operating income", "--stub", "--force")
    assert r.exit_code == 0 and yaml.safe_load(r.stdout)[0]["kind"] == "fact"


def test_a_query_the_documents_hold_is_not_a_weak_match(ws: Path) -> None:
    run("index", "claims")
    r = run("find", "Class A shares repurchased")
    assert r.exit_code == 0 and "weak match" not in r.stderr


# ---- stubs ---------------------------------------------------------------------------------


def test_stub_ids_are_the_next_free_id_of_the_target_report(ws: Path) -> None:
    report = ws / "claims" / "report.yaml"
    report.write_text(report.read_text("utf-8").replace("claims: []\n", (
        "claims:\n"
        "  - {id: t1-1, kind: inference, statement: A., basis: [t1-2], confidence: 0.5, note: N.}\n"
        "  - {id: t1-2, kind: inference, statement: B., basis: [t1-1], confidence: 0.5, note: N.}\n")),
        "utf-8")
    run("index", "claims")
    r = run("find", "前五名供应商", "--stub", "--report", "T1", "-k", "2", "--force")
    assert r.exit_code == 0, r.output
    assert [c["id"] for c in yaml.safe_load(r.stdout)] == ["t1-3", "t1-4"]
    r = run("find", "前五名供应商", "--stub")
    assert yaml.safe_load(r.stdout)[0]["id"] == "new-1"
    r = run("find", "前五名供应商", "--stub", "--id", "supplier-total")
    assert yaml.safe_load(r.stdout)[0]["id"] == "supplier-total"
    r = run("find", "前五名供应商", "--stub", "--id", "t1-2")
    assert r.exit_code == 1
    assert r.stderr == ("--id t1-2: the ledger already uses this id; choose another (or leave "
                        "out --id for the next free one)\n")
    r = run("find", "前五名供应商", "--stub", "--report", "T9")
    assert r.exit_code == 1
    assert r.stderr == "--report T9: no such report in claims (known: T1)\n"


def test_stub_id_is_not_new_1_when_the_ledger_has_new_1(ws: Path) -> None:
    report = ws / "claims" / "report.yaml"
    run("index", "claims")
    first = run("find", "前五名供应商", "--stub").stdout
    report.write_text(report.read_text("utf-8").replace("claims: []\n", "claims:\n")
                      + "".join("  " + ln + "\n" for ln in first.splitlines()), "utf-8")
    second = yaml.safe_load(run("find", "Algihaz", "--stub").stdout)
    assert yaml.safe_load(first)[0]["id"] == "new-1" and second[0]["id"] == "new-2"


def _bullets_and_hyphens(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    y = 100.0
    for line in ("• Each layer carries a unique iden-", "tifier that the viewer shows.",
                 "• The register holds 1,204 entries and 37.5% of them are empty."):
        page.insert_text((72, y), line, fontname="helv", fontsize=10)
        y += 13
    doc.save(path)
    doc.close()
    return path


def test_stub_quote_is_dehyphenated_without_bullet_and_still_anchors(ws: Path) -> None:
    pdf = _bullets_and_hyphens(ws / "docs" / "list.pdf")
    report = ws / "claims" / "report.yaml"
    report.write_text(report.read_text("utf-8").replace(
        "documents:\n", "documents:\n  list:\n    file: ../docs/list.pdf\n"), "utf-8")
    run("index", "claims")
    stub = yaml.safe_load(run("find", "unique identifier", "--stub", "--doc", "list").stdout)[0]
    assert stub["quote"] == "Each layer carries a unique identifier that the viewer shows."
    doc, _ = open_pdf(pdf)
    page = extract_page(doc[0])
    doc.close()
    assert match_quote(stub["quote"], page) is not None  # the verifier's own rule


def test_stub_values_are_the_quotes_numbers_in_order(ws: Path) -> None:
    pdf = _bullets_and_hyphens(ws / "docs" / "list.pdf")
    report = ws / "claims" / "report.yaml"
    report.write_text(report.read_text("utf-8").replace(
        "documents:\n", f"documents:\n  list:\n    file: ../docs/{pdf.name}\n"), "utf-8")
    run("index", "claims")
    r = run("find", "register entries empty", "--stub", "--doc", "list")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[-2:] == [
        '  quote: "The register holds 1,204 entries and 37.5% of them are empty."',
        "  values: {v1: 1204, v2: 37.5}"]


def test_quote_candidates_try_the_tidy_forms_first() -> None:
    assert quote_candidates("• a unique iden- tifier") == [
        "a unique identifier", "a unique iden-tifier", "a unique iden- tifier",
        "• a unique identifier", "• a unique iden-tifier", "• a unique iden- tifier"]


# ---- results -------------------------------------------------------------------------------


def test_marks_whole_latin_words_not_letters_inside_words() -> None:
    assert mark("with respect to Class C stock", ["c", "class"]) == \
        "with respect to [Class] [C] stock"
    assert mark("前五名供应商合计", ["供应商"]) == "前五名[供应商]合计"


class _L:
    def __init__(self, text: str, y: float) -> None:
        self.text, self.bbox, self.block = text, (72.0, y, 500.0, y + 10), 0


def test_sentences_do_not_end_at_inc_or_no() -> None:
    lines = [_L("Alphabet Inc. became the successor issuer of Google Inc. under", 100),
             "Rule 12g-3(a). See Contract No. 7 for details. It ends here."]
    lines[1] = _L(lines[1], 112)
    assert [t for t, _ in sentences(lines)] == [
        "Alphabet Inc. became the successor issuer of Google Inc. under Rule 12g-3(a).",
        "See Contract No. 7 for details.", "It ends here."]


def test_results_hold_no_duplicate_hits(ws: Path) -> None:
    # one paragraph longer than a chunk: its chunks share its sentences, and the best
    # sentence of each is the same one
    para = ("公司前五名供应商合计采购金额为6,928,853,013.03元。"
            + "报告期内公司与多家供应商保持稳定合作关系，采购流程规范透明。" * 14
            + "前五名供应商之外的供应商采购占比较低。")
    pages = [["第一节 重要提示", para]]
    make_pdf(ws / "docs" / "alpha.pdf", pages)
    run("index", "claims")
    r = run("find", "前五名供应商", "--json", "-k", "5")
    import json

    recs = [json.loads(ln) for ln in r.stdout.splitlines()]
    keys = [(x["doc"], x["page"], x["text"]) for x in recs]
    assert len(keys) == len(set(keys)) and recs


def test_table_rows_in_one_block_are_rows_not_one_sentence() -> None:
    lines = [_L("Natural Questions 79,168 58,880 8,757 3,610", 100),
             _L("TriviaQA 78,785 60,413 8,837 11,313", 112),
             _L("The table lists 2 splits and 4 sets of", 124), _L("questions.", 136)]
    assert [t for t, _ in sentences(lines)] == [
        "Natural Questions 79,168 58,880 8,757 3,610", "TriviaQA 78,785 60,413 8,837 11,313",
        "The table lists 2 splits and 4 sets of questions."]


@pytest.mark.parametrize("quote", ["a\u2028b", "x\u0085y", "p\u2029q", 'say "hi"\\'])
def test_stub_quote_with_a_line_separator_reads_back_unchanged(quote: str) -> None:
    """YAML folds a raw NEL, U+2028 or U+2029 in a double-quoted scalar: the stub escapes
    them, so the quote pasted into a report is the quote on the page."""
    import yaml
    from reportgen.index.stubs import stub_yaml

    assert yaml.safe_load(stub_yaml("x-1", "d", 1, quote))[0]["quote"] == quote
