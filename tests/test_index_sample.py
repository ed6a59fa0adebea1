"""The evidence index on the worked sample (samples/pdfs) and on the shared corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcpkit import indexed_sample_workspace

from reportgen.index import build, finder

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture(scope="module")
def sample_ws(run_once, tmp_path_factory) -> Path:
    """The sample ledger, copies of its PDFs and their index (`reportgen index claims`):
    made once per test run (mcpkit.indexed_sample_workspace) and searched here in a copy,
    since a search writes SQLite's WAL files beside the index."""
    return indexed_sample_workspace(tmp_path_factory.mktemp("index-sample"), run_once)


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
