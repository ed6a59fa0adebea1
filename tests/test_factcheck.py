"""Fact checking by document: the small page cache, release, and --jobs N giving the very
same verdicts, order and messages as a serial run."""

from __future__ import annotations

import pickle
from pathlib import Path

import pymupdf
import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.errors import DocumentError, LedgerError, LedgerErrors
from reportgen.verify.facts import facts_by_doc, heaviest_first
from reportgen.ledger import load_ledger
from reportgen.model import Document, Loc
from reportgen.pdf.documents import DocumentSet
from reportgen.verify.records import verdict_records
from reportgen.verify.run import verify_ledger

REPO = Path(__file__).resolve().parent.parent


def make_pdf(path: Path, doc: str, n: int) -> Path:
    pdf = pymupdf.open()
    for p in range(1, n + 1):
        page = pdf.new_page()
        page.insert_text((72, 72), [f"{doc} page {p}", f"Revenue of {doc} was {p * 1111}.50 yuan.",
                                    "Unit cost fell by 3.5% in the year."])
    pdf.save(path)
    return path


def make_ledger(ws: Path, broken: bool = False) -> Path:
    """Four documents; hits, a wrong-page miss, a changed-digit miss, facts out of file order."""
    claims = ws / "claims"
    claims.mkdir(parents=True)
    docs = ["documents:"]
    for i in range(4):
        make_pdf(ws / f"d{i}.pdf", f"d{i}", 6 + i)
        docs.append(f"  d{i}: {{file: ../d{i}.pdf, title: Doc {i}}}")
    if broken:
        (ws / "bad.pdf").write_bytes(b"<html>login</html>")
        docs.append("  bad: {file: ../bad.pdf, title: Bad}")
    (claims / "documents.yaml").write_text("\n".join(docs) + "\n")
    lines = ["report: {id: R, title: T}", "claims:"]
    k = 0
    for i in (3, 0, 2, 1):
        for p in (5, 1, 3, 1):
            k += 1
            lines.append(f"  - {{id: f{k}, kind: fact, statement: s, doc: d{i}, page: {p}, "
                         f"quote: \"Revenue of d{i} was {p * 1111}.50 yuan.\""
                         + (f", values: {{rev: {p * 1111}.5}}" if k == 1 else "") + "}")
    lines.append("  - {id: m1, kind: fact, statement: s, doc: d2, page: 2, "
                 "quote: \"Revenue of d2 was 4444.50 yuan.\"}")
    lines.append("  - {id: m2, kind: fact, statement: s, doc: d0, page: 3, "
                 "quote: \"Revenue of d0 was 3334.50 yuan.\"}")
    lines.append("  - {id: c1, kind: calc, statement: s, basis: [f1], formula: \"f1.rev - 5553.5\", "
                 "result: 2}")
    lines.append("  - {id: i1, kind: inference, statement: s, basis: [m1], confidence: 0.5, note: n}")
    if broken:
        lines.append("  - {id: b1, kind: fact, statement: s, doc: bad, page: 1, quote: x}")
        lines.append("  - {id: b2, kind: fact, statement: s, doc: d1, page: 99, quote: x}")
    (claims / "r.yaml").write_text("\n".join(lines) + "\n")
    return claims


def records(claims: Path, jobs: int) -> list[dict]:
    v = verify_ledger(load_ledger([claims]), "2025-01-01T00:00:00Z", jobs=jobs)
    return list(verdict_records(v))


@pytest.mark.parametrize("jobs", [2, 3, 8])
def test_jobs_give_the_serial_verdicts(tmp_path, jobs):
    claims = make_ledger(tmp_path)
    serial = records(claims, 1)
    assert [r.get("id") for r in serial][:3] == ["f1", "f2", "f3"]  # ledger order
    assert {r["id"]: r["status"] for r in serial if "id" in r}["m1"] == "miss"
    m1 = next(r for r in serial if r.get("id") == "m1")
    assert "p.4" in m1["message"]
    assert records(claims, jobs) == serial


def test_the_sample_ledger_is_the_same_with_two_jobs():
    serial = records(REPO / "claims", 1)
    assert records(REPO / "claims", 2) == serial


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_problems_are_collected_the_same_way(tmp_path, jobs):
    claims = make_ledger(tmp_path, broken=True)
    serial = verify_ledger(load_ledger([claims]), jobs=1)
    par = verify_ledger(load_ledger([claims]), jobs=jobs)
    assert [str(p) for p in par.problems] == [str(p) for p in serial.problems]
    msgs = [p.message for p in serial.problems]
    assert len(msgs) == 2 and "page 99 is out of range" in msgs[1] and "not a PDF" in msgs[0]
    # the other claims are checked all the same; the two with errors have no verdict
    assert par.results == serial.results and "b1" not in par.results and "b2" not in par.results
    assert par.results["f1"].status == "hit" and par.results["m1"].status == "miss"
    assert not par.ok


def test_verify_cli_jobs(tmp_path, monkeypatch):
    make_ledger(tmp_path)
    monkeypatch.chdir(tmp_path)
    one = CliRunner().invoke(main, ["verify", "claims"])
    two = CliRunner().invoke(main, ["verify", "claims", "--jobs", "2"])
    assert one.exit_code == two.exit_code == 1
    assert one.output == two.output and "MISS m1 d2 p.2" in one.output
    assert CliRunner().invoke(main, ["verify", "claims", "--jobs", "0"]).exit_code == 2


def test_errors_pickle_with_their_place():
    e = pickle.loads(pickle.dumps(LedgerError("bad", "claims/r.yaml", 3)))
    assert (type(e), e.message, e.file, e.line) == (LedgerError, "bad", "claims/r.yaml", 3)
    d = pickle.loads(pickle.dumps(DocumentError("gone", "a.pdf")))
    assert str(d) == "a.pdf: gone"
    many = pickle.loads(pickle.dumps(LedgerErrors([e, LedgerError("x", "a.yaml", 1)])))
    assert str(many) == "a.yaml:1: x\nclaims/r.yaml:3: bad"


def test_heaviest_first_is_deterministic():
    w = {"a": 10.0, "b": 9.0, "c": 5.0, "d": 9.0, "e": 1.0}
    assert heaviest_first(w) == ["a", "b", "d", "c", "e"]


def test_facts_grouped_by_doc_then_page(tmp_path):
    groups = facts_by_doc(load_ledger([make_ledger(tmp_path)]))
    assert list(groups) == ["d0", "d1", "d2", "d3"]
    assert [f.page for f in groups["d0"]] == [1, 1, 3, 3, 5]


# ---- the page cache ------------------------------------------------------------------


def test_page_cache_is_bounded_lru(tmp_path):
    pdf = make_pdf(tmp_path / "a.pdf", "a", 10)
    ds = DocumentSet({"a": Document("a", pdf, "t", None, Loc("x", 1))}, cache_pages=3)
    first = ds.page_text("a", 1)
    for p in (2, 3, 1, 4):  # 1 is used again, so 2 is the one to go
        ds.page_text("a", p)
    assert ds.cached_pages() == [("a", 3), ("a", 1), ("a", 4)]
    assert ds.page_text("a", 1) is first
    pdf = ds.pdf("a")
    ds.release("a")
    assert ds.cached_pages() == [] and pdf.is_closed
    assert ds.page_text("a", 2).number == 2  # reopens on demand


# ---- the after_doc hook: the checked bytes kept by the process that checked them ------


@pytest.mark.parametrize("jobs", [1, 3])
def test_checked_bytes_kept_in_every_worker(tmp_path, jobs):
    import hashlib

    from reportgen.pdf.documents import kept_name
    from reportgen.site.write import KeepChecked, pdf_store

    claims = make_ledger(tmp_path)
    keep = KeepChecked(tmp_path / "cache")
    v = verify_ledger(load_ledger([claims]), jobs=jobs, after_doc=keep)
    kept = {p.name: p.read_bytes() for p in pdf_store(tmp_path / "cache").glob("*.pdf")}
    shas = {hashlib.sha256(b).hexdigest(): b
            for b in (tmp_path.joinpath(f"d{i}.pdf").read_bytes() for i in range(4))}
    assert kept == {kept_name(sha): b for sha, b in shas.items()}
    assert set(v.sha256.values()) == set(shas)
