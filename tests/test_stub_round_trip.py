"""The stub round trip: `find --stub` output pasted into a report verifies unchanged.

Fifty queries, over the worked sample and the shared corpus (10-K, manuals, a Federal
Register notice, a two-column paper, a Chinese quarterly report): each stub is appended
to the report as printed (its id is the next free one, so nothing is renumbered), then
the whole ledger goes through the library's verification (`reportgen.verify`): every
fact must hit, and every stub's `values` must follow its quote's numbers in order.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.index import build
from reportgen.ledger.validate import decimals_in
from reportgen.model import FactResult
from reportgen.verify.run import verify

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"

SAMPLE_QUERIES = [
    "前五名供应商", "Algihaz", "海博思创", "沃太能源", "沙特 储能项目", "7.8GWh",
    "占营业成本比重", "营业成本合计", "欣旺达", "瑞浦兰钧", "明阳新能源", "供应商一 采购额",
    "前五名客户合计销售金额", "储能电池系统销量", "中车株洲所", "Wärtsilä", "PowerTitan",
    "全容量并网", "营业收入构成", "对外捐赠", "EBITDA利息保障倍数", "员工培训覆盖率",
    "普通股股东总数", "会计师事务所 审计服务", "持股5%以上股东",
]
CORPUS_DOCS = {
    "tenk": "alphabet-10k-2022.pdf", "fedreg": "fedreg-2020-17221.pdf",
    "dpr": "dpr-two-column.pdf", "nedc": "nedc-2018q1.pdf", "naacl": "naacl06-shinyama.pdf",
    "gaoce": "gaoce-research-cn.pdf", "bonds": "cn-bond-tables.pdf",
}
CORPUS_QUERIES = [
    "share repurchases Class A", "Alphabet Inc. successor issuer", "holders of record",
    "stock performance graph", "airworthiness directive", "Operating Procedures chapter",
    "comments to the docket", "dense passage retriever", "in-batch negatives",
    "top-20 retrieval accuracy", "前十名股东持股情况", "营业收入", "归属于上市公司股东的净利润",
    "unrestricted relation discovery", "named entities clustering", "基本每股收益",
    "经营活动产生的现金流量净额", "非经常性损益", "研究报告", "应付债券", "发行人历史评级情况",
    "Natural Questions TriviaQA", "cosine similarity", "effective date",
    "Boeing Special Attention Service Bulletin",
]


def _ledger(ws: Path, docs: dict[str, Path]) -> Path:
    (ws / "claims").mkdir(parents=True)
    lines = ["report:", "  id: RT", "  title: Stub round trip", "documents:"]
    for d, p in docs.items():
        lines += [f'  "{d}":', f"    file: {p}"]
    report = ws / "claims" / "RT.yaml"
    report.write_text("\n".join(lines) + "\nclaims:\n", encoding="utf-8")
    return report


@pytest.fixture
def sample_index(run_once, tmp_path) -> Path:
    """A copy of the sample workspace and its index, which are made once per test run
    (mcpkit.sample_index_workspace), with the report RT over the sample PDFs as its ledger."""
    from mcpkit import sample_index_workspace

    ws = tmp_path / "rt-sample"
    shutil.copytree(sample_index_workspace(run_once), ws)
    shutil.rmtree(ws / "claims")
    pdfs = sorted((ws / "samples" / "pdfs").glob("*.pdf"))
    _ledger(ws, {d.stem: Path("..") / "samples" / "pdfs" / d.name for d in pdfs})
    return ws


@pytest.fixture(scope="session")
def corpus_index(tmp_path_factory) -> Path:
    """The shared corpus's PDFs (read in place, never copied) indexed once per session."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is absent on this machine")
    ws = tmp_path_factory.mktemp("rt-corpus")
    _ledger(ws, {d: CORPUS / n for d, n in CORPUS_DOCS.items()})
    build.index_paths([ws / "claims"], allow_outside=True)
    return ws


def _round_trip(ws: Path, queries: list[str], monkeypatch, allow_outside: bool) -> None:
    monkeypatch.chdir(ws)
    report = ws / "claims" / "RT.yaml"
    original = report.read_text(encoding="utf-8")
    runner = CliRunner()
    stubs = []
    try:
        for q in queries:
            r = runner.invoke(main, ["find", q, "--stub", "--report", "RT"]
                              + (["--allow-outside"] if allow_outside else []),
                              catch_exceptions=False)
            assert r.exit_code == 0, (q, r.output)
            assert "weak match" not in r.stderr, (q, r.stderr)
            # pasted as printed, indented under `claims:`
            with report.open("a", encoding="utf-8") as f:
                f.write("".join("  " + ln + "\n" for ln in r.stdout.splitlines()))
            stubs.append(yaml.safe_load(r.stdout)[0])
        ids = [s["id"] for s in stubs]
        assert len(set(ids)) == len(ids) and ids[0] == "new-1"
        for s in stubs:  # the quote's numbers, in the order they stand
            assert list(s.get("values", {}).values()) == [float(d) for d in
                                                           decimals_in(s["quote"])], s
        v = verify([ws / "claims"], allow_outside=allow_outside)
        facts = [r for r in v.results.values() if isinstance(r, FactResult)]
        assert len(facts) == len(queries)
        assert [r.id for r in facts if r.status != "hit"] == []
    finally:
        report.write_text(original, encoding="utf-8")


def test_stub_round_trip_over_the_sample(sample_index: Path, monkeypatch) -> None:
    _round_trip(sample_index, SAMPLE_QUERIES, monkeypatch, allow_outside=False)


@pytest.mark.corpus
def test_stub_round_trip_over_the_corpus(corpus_index: Path, monkeypatch) -> None:
    _round_trip(corpus_index, CORPUS_QUERIES, monkeypatch, allow_outside=True)


def test_fifty_queries() -> None:
    assert len(SAMPLE_QUERIES) + len(CORPUS_QUERIES) == 50
