"""`reportgen init`: a new ledger workspace that verifies as written (reportgen.ledger.scaffold)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pymupdf
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.cli import main
from reportgen.ledger.fields import ID_RE, schema_text
from reportgen.ledger.scaffold import RESERVED, document_id, yaml_quote
from reportgen.verify.records import verdict_lines
from reportgen.verify.run import verify

EXISTS = "already exists; init never overwrites a file: move it away, or init another folder"
WRITTEN = ["wrote claims/documents.yaml", "wrote claims/example.yaml",
           "wrote claims/.schema/report.json", "wrote .gitignore"]
NEXT = "next: reportgen verify, write claims in claims/example.yaml, then reportgen build"


def make_pdf(path: Path, lines: list[str], title: str | None = None, pages: int = 1) -> Path:
    """A PDF whose first page holds `lines`; `title` goes into its metadata."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = pymupdf.open()
    for n in range(pages):
        p = doc.new_page(width=595, height=842)
        for i, line in enumerate(lines if n == 0 else [f"Page {n + 1} of the notes"]):
            p.insert_text((72, 120 + 18 * i), line, fontsize=11)
    if title is not None:
        doc.set_metadata({"title": title})
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path


def run(*args: str):
    return CliRunner().invoke(main, ["init", *args], catch_exceptions=False)


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    make_pdf(tmp_path / "pdfs" / "Annual Report 2025.pdf",
             ["Annual report 2025", "Revenue from storage systems was 1,234.5 million yuan."],
             title="  Annual\treport\n2025 of Example Co.  ")
    make_pdf(tmp_path / "pdfs" / "notes.pdf", ["Notes to the accounts", "Other notes follow."])
    return tmp_path


def test_init_writes_a_workspace_and_says_what_next(ws: Path) -> None:
    r = run("pdfs/Annual Report 2025.pdf", "pdfs/notes.pdf")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == WRITTEN + [
        "2 documents: Annual-Report-2025, notes",
        "example fact example-1: Annual-Report-2025 p.1",
        NEXT,
    ]
    assert r.stderr == ""
    docs = yaml.safe_load((ws / "claims" / "documents.yaml").read_text(encoding="utf-8"))
    assert docs == {"documents": {
        "Annual-Report-2025": {"file": "../pdfs/Annual Report 2025.pdf",
                               "title": "Annual report 2025 of Example Co.",  # trimmed
                               "sha256": sha(ws / "pdfs" / "Annual Report 2025.pdf")},
        "notes": {"file": "../pdfs/notes.pdf", "title": "Notes to the accounts",  # 1st line
                  "sha256": sha(ws / "pdfs" / "notes.pdf")},
    }}
    # the pin is a quoted string: YAML never reads it as a number
    assert '    sha256: "' in (ws / "claims" / "documents.yaml").read_text(encoding="utf-8")


def test_the_workspace_verifies_as_written(ws: Path) -> None:
    assert run("pdfs/Annual Report 2025.pdf", "pdfs/notes.pdf").exit_code == 0
    v = verify([ws / "claims"])
    assert v.ok
    assert verdict_lines(v) == ["example: facts=1 hits=1 misses=0",
                                "TOTAL: facts=1 hits=1 misses=0"]
    fact = v.ledger.claims["example-1"]
    assert (fact.doc, fact.page, fact.quote) == ("Annual-Report-2025", 1, "Annual report 2025")
    r = CliRunner().invoke(main, ["verify"], catch_exceptions=False)  # default: claims/
    assert (r.exit_code, r.stdout.splitlines()[-1]) == (0, "TOTAL: facts=1 hits=1 misses=0")


def test_report_files_point_at_the_schema_they_validate_against(ws: Path) -> None:
    assert run("pdfs/notes.pdf").exit_code == 0
    schema_file = ws / "claims" / ".schema" / "report.json"
    assert schema_file.read_text(encoding="utf-8") == schema_text()
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    for name in ("example.yaml", "documents.yaml"):
        text = (ws / "claims" / name).read_text(encoding="utf-8")
        first = text.splitlines()[0]
        assert first == "# yaml-language-server: $schema=.schema/report.json"
        target = (ws / "claims" / first.split("$schema=")[1])
        assert target == schema_file
        jsonschema.validate(yaml.safe_load(text), schema)


def test_gitignore_holds_the_site_and_the_cache(ws: Path) -> None:
    assert run("pdfs/notes.pdf").exit_code == 0
    lines = (ws / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert [ln for ln in lines if not ln.startswith("#")] == ["site/", ".reportgen/"]


def test_dir_is_created_and_paths_are_relative_to_its_claims(ws: Path) -> None:
    (ws / ".git").mkdir()  # the workspace is the repository: ../pdfs is inside it
    r = run("ledger", "pdfs/notes.pdf")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[:4] == [w.replace("wrote ", "wrote ledger/") for w in WRITTEN]
    assert r.stdout.splitlines()[-1] == ("next: cd ledger && reportgen verify, write claims in "
                                         "claims/example.yaml, then reportgen build")
    docs = yaml.safe_load((ws / "ledger" / "claims" / "documents.yaml").read_text("utf-8"))
    assert docs["documents"]["notes"]["file"] == "../../pdfs/notes.pdf"
    assert verify([ws / "ledger" / "claims"]).ok


def test_init_refuses_to_overwrite_and_writes_nothing(ws: Path) -> None:
    (ws / ".gitignore").write_text("*.pyc\n", encoding="utf-8")
    r = run("pdfs/notes.pdf")
    assert r.exit_code == 1
    assert r.stdout == ""
    assert r.stderr == f".gitignore: {EXISTS}\n"
    assert (ws / ".gitignore").read_text(encoding="utf-8") == "*.pyc\n"
    assert not (ws / "claims").exists()


def test_a_second_init_refuses_every_file(ws: Path) -> None:
    assert run("pdfs/notes.pdf").exit_code == 0
    before = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    r = run("pdfs/notes.pdf")
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [f"{p}: {EXISTS}" for p in (
        ".gitignore", "claims/.schema/report.json", "claims/documents.yaml",
        "claims/example.yaml")]
    assert {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()} == before


def test_init_refuses_a_folder_that_already_holds_a_ledger(ws: Path) -> None:
    (ws / "claims").mkdir()
    (ws / "claims" / "S1.yaml").write_text("report: {id: S1, title: T}\n", encoding="utf-8")
    r = run("pdfs/notes.pdf")
    assert r.exit_code == 1
    assert r.stderr == ("claims/S1.yaml: a claim file is already here; init starts a new "
                        "ledger: init another folder\n")
    assert sorted(p.name for p in (ws / "claims").iterdir()) == ["S1.yaml"]


def test_a_file_named_claims_is_refused(ws: Path) -> None:
    (ws / "claims").write_text("notes\n", encoding="utf-8")
    r = run("pdfs/notes.pdf")
    assert r.exit_code == 1
    assert r.stderr == ("claims: is not a folder; init writes the ledger into claims/: move "
                        "this file away, or init another folder\n")
    assert not (ws / ".gitignore").exists()


def test_bad_pdfs_are_refused_with_the_pdf_layers_errors(ws: Path) -> None:
    (ws / "pdfs" / "page.pdf").write_text("<!DOCTYPE html><html>login</html>", encoding="utf-8")
    (ws / "pdfs" / "cut.pdf").write_bytes((ws / "pdfs" / "notes.pdf").read_bytes()[:40])
    doc = pymupdf.open(ws / "pdfs" / "notes.pdf")
    doc.save(ws / "pdfs" / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256,
             owner_pw="o", user_pw="u")
    doc.close()
    r = run("pdfs/page.pdf", "pdfs/cut.pdf", "pdfs/locked.pdf", "pdfs/missing.pdf",
            "pdfs/notes.pdf")
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert lines[0].startswith("pdfs/cut.pdf: cannot be read as a PDF (")
    assert lines[0].endswith("); the file is damaged: download or export it again")
    assert lines[1:] == [
        "pdfs/locked.pdf: PDF is encrypted and needs a password; save an unencrypted copy "
        "(e.g. `qpdf --decrypt --password=... in.pdf out.pdf`) and point `file:` at it",
        "pdfs/missing.pdf: file not found; check the `file:` path, which is relative to the "
        "claim file that declares it",
        "pdfs/page.pdf: not a PDF (no %PDF- header; it looks like an HTML page (a download "
        "that saved an error or login page?)); point `file:` at the PDF itself",
    ]
    assert not (ws / "claims").exists() and not (ws / ".gitignore").exists()


def test_a_pdf_outside_the_workspace_needs_allow_outside(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    outside = make_pdf(tmp_path / "elsewhere" / "a.pdf", ["Outside the workspace today"])
    (tmp_path / "ws").mkdir()
    monkeypatch.chdir(tmp_path / "ws")
    r = run(str(outside))
    assert r.exit_code == 1
    assert r.stderr == (f"{outside}: resolves to {outside}, outside the ledger's workspace "
                        f"{tmp_path / 'ws'}; move the PDF inside it or pass --allow-outside\n")
    assert not (tmp_path / "ws" / "claims").exists()
    r = run("--allow-outside", str(outside))
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[-1] == ("next: reportgen verify --allow-outside, write claims "
                                         "in claims/example.yaml, then reportgen build "
                                         "--allow-outside")
    assert verify([tmp_path / "ws" / "claims"], allow_outside=True).ok


def test_a_scan_gives_an_example_without_a_fact_that_still_loads(ws: Path) -> None:
    doc = pymupdf.open()
    doc.new_page()
    doc.save(ws / "pdfs" / "scan.pdf")
    doc.close()
    r = run("pdfs/scan.pdf")
    assert r.exit_code == 0, r.output
    assert r.stderr == ("no PDF has a line of text on its first pages (scans?): "
                        "claims/example.yaml holds no fact yet\n")
    v = verify([ws / "claims"])
    assert verdict_lines(v) == ["example: facts=0 hits=0 misses=0",
                                "TOTAL: facts=0 hits=0 misses=0"]
    assert v.ledger.documents["scan"].title == "scan"  # no metadata, no text: the file name


def test_the_same_pdf_twice_is_declared_once_and_names_become_unique_ids(ws: Path) -> None:
    make_pdf(ws / "b" / "notes.pdf", ["Other notes entirely"])
    make_pdf(ws / "c" / "Example.pdf", ["A file named like the example report"])
    r = run("pdfs/notes.pdf", "pdfs/notes.pdf", "b/notes.pdf", "c/Example.pdf")
    assert r.exit_code == 0, r.output
    assert "3 documents: notes, notes-2, Example-2" in r.stdout.splitlines()
    assert verify([ws / "claims"]).ok


def test_usage_errors_exit_2(ws: Path) -> None:
    r = CliRunner().invoke(main, ["init"])
    assert r.exit_code == 2 and "Missing argument '[DIR] PDF...'" in r.stderr
    r = CliRunner().invoke(main, ["init", "pdfs"])
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == ("Error: pdfs is a folder: name the PDFs after it "
                                         "(reportgen init DIR PDF...)")


def test_shell_completion_offers_init() -> None:
    r = CliRunner().invoke(main, [], prog_name="reportgen",
                           env={"_REPORTGEN_COMPLETE": "bash_complete",
                                "COMP_WORDS": "reportgen in", "COMP_CWORD": "1"})
    assert r.exit_code == 0
    assert r.stdout.splitlines() == ["plain,index", "plain,init"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=40), min_size=1, max_size=12))
def test_ids_from_any_file_names_are_valid_and_unique(names: list[str]) -> None:
    taken = list(RESERVED)
    for name in names:
        did = document_id(name + ".pdf", taken)
        assert ID_RE.match(did), (name, did)
        assert did.casefold() not in {t.casefold() for t in taken}, (name, did)
        taken.append(did)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",))))
def test_yaml_quote_reads_back_as_the_text(s: str) -> None:
    assert yaml.safe_load(f"k: {yaml_quote(s)}\n") == {"k": s}
