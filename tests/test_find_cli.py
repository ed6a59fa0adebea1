"""`reportgen index` and `reportgen find` through click's CliRunner: output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from test_index_support import make_scan, run, two_doc_workspace, write_ledger


@pytest.fixture()
def ws(tmp_path: Path, monkeypatch) -> Path:
    return two_doc_workspace(tmp_path, monkeypatch)


def test_index_prints_a_summary_then_skips_unchanged(ws: Path) -> None:
    r = run("index", "claims")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == ("indexed 2 documents into .reportgen/index.sqlite: 2 added, 0 changed, "
                        "0 unchanged, 0 removed")
    assert lines[1] == "5 pages, 19 blocks"
    assert lines[2].endswith("exact, 0 fuzzy, 0 unattributed")
    assert (ws / ".reportgen" / "index.sqlite").is_file()
    r = run("index")  # default PATH is claims/
    assert "0 added, 0 changed, 2 unchanged, 0 removed" in r.output


def test_index_reports_a_pdf_without_text_layer(ws: Path) -> None:
    make_scan(ws / "docs" / "scan.pdf")
    write_ledger(ws, {"alpha": "docs/alpha.pdf", "scan": "docs/scan.pdf"})
    r = run("index", "claims")
    assert r.exit_code == 1  # indexed and reported, but a scan cannot back a quote
    assert "1 document without a text layer, nothing to search: scan (2 pages)" in r.output
    assert "OCR it" in r.output
    r = run("find", "储能", "--doc", "scan")
    assert r.exit_code == 1 and "no text layer" in r.output


def test_index_of_a_missing_path_fails(ws: Path) -> None:
    r = run("index", "nowhere")
    assert r.exit_code == 1 and "nowhere: no such file or folder" in r.output


def test_find_plain_output_marks_terms_and_names_channels(ws: Path) -> None:
    run("index", "claims")
    r = run("find", "沃太能源")
    assert r.exit_code == 0, r.output
    first, evidence = r.output.splitlines()[:2]
    assert first.startswith("1. alpha p.1 [")
    assert "ngram#1" in first and "unigram#" in first
    assert "[沃太能源]" in evidence


def test_find_json_one_object_per_line(ws: Path) -> None:
    run("index", "claims")
    r = run("find", "Algihaz", "-k", "2", "--json")
    assert r.exit_code == 0
    recs = [json.loads(ln) for ln in r.output.splitlines()]
    assert [x["rank"] for x in recs] == [1, 2]
    for rec in recs:
        assert {"rank", "doc", "page", "pageEnd", "bbox", "text", "score", "channels"} <= set(rec)
        assert len(rec["bbox"]) == 4 and "Algihaz" in rec["text"]


def test_find_doc_filter_and_unknown_doc(ws: Path) -> None:
    run("index", "claims")
    r = run("find", "储能", "--doc", "beta", "--json", "-k", "10")
    assert {json.loads(ln)["doc"] for ln in r.output.splitlines()} == {"beta"}
    r = run("find", "储能", "--doc", "gamma")
    assert r.exit_code == 1
    assert r.output.strip() == "unknown document 'gamma'; the index holds: alpha, beta"


@pytest.mark.parametrize("query", ["", "   ", "，。！？", "...", "的了和"])
def test_find_rejects_queries_with_nothing_to_search(ws: Path, query: str) -> None:
    run("index", "claims")
    r = run("find", query)
    assert r.exit_code == 1
    assert "nothing to search for in the query" in r.output


def test_find_without_index_says_how_to_build_it(ws: Path) -> None:
    r = run("find", "储能")
    assert r.exit_code == 1
    assert r.output.strip() == ("no evidence index at .reportgen/index.sqlite; "
                                "run `reportgen index claims` first")


def test_find_usage_errors_exit_2(ws: Path) -> None:
    assert run("find").exit_code == 2
    assert run("find", "储能", "-k", "0").exit_code == 2
    assert run("find", "储能", "--json", "--stub").exit_code == 2


def test_find_with_db_option(ws: Path) -> None:
    r = run("index", "claims", "--db", "elsewhere/x.sqlite")
    assert r.exit_code == 0 and (ws / "elsewhere" / "x.sqlite").is_file()
    assert run("find", "沙特", "--db", "elsewhere/x.sqlite").exit_code == 0


def test_stub_is_yaml_with_a_quote_from_the_page(ws: Path) -> None:
    run("index", "claims")
    r = run("find", "前五名供应商", "--stub")
    assert r.exit_code == 0, r.output
    claims = yaml.safe_load(r.stdout)
    assert claims == [{"id": "new-1", "kind": "fact", "statement": "TODO", "doc": "alpha",
                       "page": 1, "quote": claims[0]["quote"],
                       "values": {"v1": 6928853013.03, "v2": 14.59}}]
    assert "前五名供应商" in claims[0]["quote"]


STUB_QUERIES = ["前五名供应商", "Algihaz", "沃太能源", "沙特 储能项目", "7.8GWh", "海博思创",
                "独立董事", "欣旺达", "Class A shares", "energy storage revenue", "采购总额 比例",
                "董事会 保证", "board met", "储能电芯 框架协议", "出货量 增长", "14.59%"]


def test_stub_round_trip_passes_verify(ws: Path) -> None:
    """Stubs pasted into a report's claims pass `reportgen verify` unchanged."""
    run("index", "claims")
    stubs = []
    for n, q in enumerate(STUB_QUERIES, start=1):
        r = run("find", q, "--stub", "-k", "2")
        assert r.exit_code == 0, (q, r.output)
        text = r.stdout.replace("id: new-1", f"id: q{n}-1").replace("id: new-2", f"id: q{n}-2")
        stubs.append(text)
    report = (ws / "claims" / "report.yaml").read_text(encoding="utf-8")
    report = report.replace("claims: []\n", "claims:\n" + "".join(stubs))
    (ws / "claims" / "report.yaml").write_text(report, encoding="utf-8")
    r = run("verify", "claims")
    assert r.exit_code == 0, r.output
    n = sum(s.count("- id: ") for s in stubs)
    assert n >= len(STUB_QUERIES)
    assert r.output.splitlines()[-1] == f"TOTAL: facts={n} hits={n} misses=0"


def test_find_with_a_missing_db_option_names_it_in_the_fix(ws: Path) -> None:
    r = run("find", "储能", "--db", "x/idx.sqlite")
    assert r.exit_code == 1
    assert "run `reportgen index claims --db x/idx.sqlite` first" in r.output


def test_index_of_a_ledger_naming_a_missing_pdf_fails_with_its_name(ws: Path) -> None:
    write_ledger(ws, {"alpha": "docs/alpha.pdf", "ghost": "docs/ghost.pdf"})
    r = run("index", "claims")
    assert r.exit_code == 1
    assert "ghost" in r.output


def test_vector_channel_through_the_cli(ws: Path) -> None:
    emb = "test_index_support:hashing_embedder"
    r = run("index", "claims", "--embedder", emb)
    assert r.exit_code == 0, r.output
    r = run("find", "沃太能源签订储能电芯", "--embedder", emb, "--json", "-k", "1")
    assert r.exit_code == 0, r.output
    assert set(json.loads(r.output)["channels"]) == {"ngram", "unigram", "vector"}
    r = run("find", "沃太能源", "--embedder", "nowhere:thing")
    assert r.exit_code == 1 and "cannot load embedder nowhere:thing" in r.output
