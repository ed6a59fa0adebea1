"""The evidence index on the worked sample (samples/pdfs) and on the shared corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.index import build, finder

ROOT = Path(__file__).resolve().parent.parent
PDFS = ROOT / "samples" / "pdfs"
CORPUS = ROOT.parent / "shared" / "corpus"
DOCS = ("300750", "300014", "300274")


def _fill_sample_ws(ws: Path) -> None:
    (ws / "docs").mkdir()
    lines = ["report:", "  id: T", "  title: Stub round trip", "documents:"]
    for d in DOCS:
        shutil.copy(PDFS / f"{d}.pdf", ws / "docs" / f"{d}.pdf")
        lines += [f'  "{d}":', f"    file: ../docs/{d}.pdf"]
    (ws / "claims").mkdir()
    (ws / "claims" / "report.yaml").write_text("\n".join(lines) + "\nclaims: []\n",
                                               encoding="utf-8")
    build.index_paths([ws / "claims"])


@pytest.fixture(scope="session")
def sample_ws(run_once) -> Path:
    """A workspace with copies of the sample PDFs, a ledger naming them, and its index: made
    once per test run (conftest.run_once) and only read; a test that writes uses a copy."""
    return run_once("sample-index", _fill_sample_ws)


@pytest.fixture
def sample_ws_copy(sample_ws: Path, tmp_path: Path) -> Path:
    """A private copy of the sample workspace, index included, for a test that writes."""
    return Path(shutil.copytree(sample_ws, tmp_path / "sample"))


ACCEPTANCE = [
    ("前五名供应商", "300274", 36),
    ("Algihaz", "300274", 36),
    ("海博思创", "300750", 22),
    ("沃太能源", "300014", 16),
    ("沙特 储能项目", "300274", 28),
    ("7.8GWh", "300274", 28),
]


@pytest.mark.parametrize("query,doc,page", ACCEPTANCE)
def test_worked_case_pages_rank_in_the_top_3(sample_ws: Path, query: str, doc: str,
                                             page: int) -> None:
    hits = finder.search(sample_ws / ".reportgen" / "index.sqlite", query, k=3)
    assert (doc, page) in [(h.doc, h.evidence.page) for h in hits]


def test_evidence_is_the_row_or_sentence(sample_ws: Path) -> None:
    db = sample_ws / ".reportgen" / "index.sqlite"
    top = finder.search(db, "Algihaz", k=1)[0]
    assert top.evidence.text == "1 Algihaz Contracting 4,010,035,531.92 4.50%"
    top = finder.search(db, "海博思创", k=1)[0]
    assert top.evidence.text.startswith("报告期内，公司与海博思创、中车株洲所、思源电气")
    assert top.evidence.text.endswith("等方面开展合作。")  # one sentence over two blocks


SAMPLE_QUERIES = [
    "前五名供应商", "Algihaz", "海博思创", "沃太能源", "沙特 储能项目", "7.8GWh",
    "占营业成本比重", "营业成本合计", "欣旺达", "瑞浦兰钧", "明阳新能源", "供应商一 采购额",
    "前五名客户合计销售金额", "储能电池系统销量", "锂离子电池 库存量", "中车株洲所",
    "Wärtsilä", "台达电子 中国移动", "储能电池出货量", "PowerTitan", "全容量并网",
    "营业收入构成", "动力电池系统", "消费电池", "电池矿产资源", "荆门 成都",
    "对外捐赠", "可再生能源使用比例", "EBITDA利息保障倍数", "员工培训覆盖率",
    "日常关联交易金额", "董事会会议 监事会会议", "普通股股东总数", "折旧年限",
    "会计师事务所 审计服务", "危险废物 合规处置率", "新设服务网点", "专利申请",
    "主要研发项目", "应收账款按账龄披露", "合并资产负债表", "持股5%以上股东",
]


def test_stubs_pass_verify_over_many_queries(sample_ws_copy: Path, monkeypatch) -> None:
    """`find --stub` claims for 40-odd queries, two results each, pasted into the ledger's
    `claims:` list unchanged (ids renumbered only), all pass `reportgen verify`."""
    monkeypatch.chdir(sample_ws_copy)
    runner = CliRunner()
    stubs = []
    for n, q in enumerate(SAMPLE_QUERIES, start=1):
        r = runner.invoke(main, ["find", q, "--stub", "-k", "2"], catch_exceptions=False)
        assert r.exit_code == 0, (q, r.output)
        stubs.append(r.output.replace("id: new-", f"id: q{n}-"))
    report = sample_ws_copy / "claims" / "report.yaml"
    original = report.read_text(encoding="utf-8")
    try:
        report.write_text(original.replace("claims: []\n", "claims:\n" + "".join(stubs)),
                          encoding="utf-8")
        r = runner.invoke(main, ["verify", "claims"], catch_exceptions=False)
        n = sum(s.count("- id: ") for s in stubs)
        assert n >= 2 * len(SAMPLE_QUERIES) - 4
        assert r.exit_code == 0, r.output
        assert r.output.splitlines()[-1] == f"TOTAL: facts={n} hits={n} misses=0"
    finally:
        report.write_text(original, encoding="utf-8")


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(),
                                  reason="../shared/corpus is absent on this machine")


@pytest.mark.corpus
@needs_corpus
def test_corpus_pdfs_index_and_answer(tmp_path: Path) -> None:
    pdfs = [CORPUS / n for n in ("alphabet-10k-2022.pdf", "nedc-2018q1.pdf",
                                 "dpr-two-column.pdf", "scan-cn-book.pdf", "cn-bond-tables.pdf")]
    s = build.index_paths(pdfs, tmp_path / "c.sqlite")
    assert s.no_text == [("scan-cn-book", 2)]
    assert s.chunks.get("unattributed", 0) == 0
    top = finder.search(s.db, "share repurchases", k=3)
    assert any(h.doc == "alphabet-10k-2022" for h in top)
    top = finder.search(s.db, "dense passage retriever", k=3)
    assert top[0].doc == "dpr-two-column"
    top = finder.search(s.db, "前十名股东持股情况", k=3)
    assert top[0].doc == "nedc-2018q1"
