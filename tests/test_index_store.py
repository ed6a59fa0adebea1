"""The store: building, incremental runs, schema versions, module choice, vectors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_index_support import (ALPHA_PAGES, BETA_PAGES, HashingEmbedder, ledger_with_two_docs,
                                make_pdf, make_scan, write_ledger)

from reportgen.index import build, finder, store
from reportgen.index.errors import (IndexInputError, IndexMissingError, IndexVersionError,
                                   UnknownDocumentError)


def test_module_choice_stdlib_for_lexical_sqlean_for_extensions() -> None:
    assert store.sqlite_module(extensions=False) is sqlite3
    mod = store.sqlite_module(extensions=True)
    assert hasattr(mod.Connection, "enable_load_extension")
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        import sqlean

        assert mod is sqlean


def test_default_db_sits_beside_the_ledger_folder(tmp_path: Path) -> None:
    (tmp_path / "claims").mkdir()
    assert store.default_db([tmp_path / "claims"]) == tmp_path / ".reportgen" / "index.sqlite"


def test_index_then_incremental_runs(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    s = build.index_paths([claims], workers=1)
    assert sorted(s.added) == ["alpha", "beta"] and s.documents == 2
    assert s.db == tmp_path / ".reportgen" / "index.sqlite"
    assert sum(s.chunks.values()) == s.chunks["exact"] > 0
    assert s.pages == 5

    s = build.index_paths([claims])
    assert sorted(s.unchanged) == ["alpha", "beta"] and not s.added and not s.changed

    make_pdf(tmp_path / "docs" / "beta.pdf", BETA_PAGES, extra_text="修订版")
    s = build.index_paths([claims])
    assert s.changed == ["beta"] and s.unchanged == ["alpha"]

    write_ledger(tmp_path, {"alpha": "docs/alpha.pdf"})
    s = build.index_paths([claims])
    assert s.removed == ["beta"] and s.documents == 1
    con = sqlite3.connect(s.db)
    assert con.execute("SELECT count(*) FROM chunks WHERE doc='beta'").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM fts_ngram").fetchone()[0] == \
        con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert "1 removed" in s.lines()[0]


def test_parallel_and_serial_builds_agree(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    a = build.index_paths([claims], tmp_path / "a.sqlite", workers=1)
    b = build.index_paths([claims], tmp_path / "b.sqlite", workers=2)
    q = "SELECT doc, page, method, text FROM chunks ORDER BY doc, seq"
    assert sqlite3.connect(a.db).execute(q).fetchall() == sqlite3.connect(b.db).execute(q).fetchall()


def test_a_long_pdf_read_by_workers_agrees_with_a_serial_read(tmp_path: Path) -> None:
    """Page tasks of one PDF spread over worker processes (each opening it once) store
    what one process reading it whole stores."""
    pages = [[f"Item {i}. Section {i}", f"Revenue of segment {i} grew by {i}.5% this year."]
             for i in range(build.RANGE_PAGES * 2 + 5)]
    pdf = make_pdf(tmp_path / "long.pdf", pages)
    dumps = []
    for workers in (1, 2):
        s = build.index_paths([pdf], tmp_path / f"w{workers}.sqlite", workers=workers)
        con = sqlite3.connect(s.db)
        dumps.append([con.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
                      for t in ("documents", "blocks", "sections", "chunks", "vocab")])
        con.close()
    assert dumps[0] == dumps[1]
    assert dumps[0][0][0][4] == len(pages)


def test_chunks_record_page_bbox_and_method(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    s = build.index_paths([claims])
    rows = sqlite3.connect(s.db).execute(
        "SELECT page, page_end, x0, y0, x1, y1, method FROM chunks").fetchall()
    for page, page_end, x0, y0, x1, y1, method in rows:
        assert page >= 1 and page_end >= page and method == "exact"
        assert 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 792


def test_older_schema_is_rebuilt_with_a_message(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    db = tmp_path / ".reportgen" / "index.sqlite"
    db.parent.mkdir()
    con = sqlite3.connect(db)  # an index of ours (application id) of an older schema
    con.execute("CREATE TABLE chunks(x)")
    con.execute(f"PRAGMA application_id={store.APPLICATION_ID}")
    con.execute("PRAGMA user_version=0")
    con.commit()
    con.close()
    s = build.index_paths([claims])
    assert s.rebuilt_from == 0 and len(s.added) == 2
    assert s.lines()[0].startswith("rebuilt the index:")


def test_find_refuses_a_store_of_another_version(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA application_id={store.APPLICATION_ID}")
    con.execute("PRAGMA user_version=99")
    con.close()
    with pytest.raises(IndexVersionError, match="run `reportgen index claims`"):
        finder.search(db, "储能")


def test_missing_index_says_how_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(IndexMissingError, match=r"run `reportgen index claims` first"):
        finder.search(tmp_path / "nope.sqlite", "储能")


def test_pdf_without_text_layer_is_indexed_and_reported(tmp_path: Path) -> None:
    make_pdf(tmp_path / "docs" / "alpha.pdf", ALPHA_PAGES)
    make_scan(tmp_path / "docs" / "scan.pdf", pages=2)
    claims = write_ledger(tmp_path, {"alpha": "docs/alpha.pdf", "scan": "docs/scan.pdf"})
    s = build.index_paths([claims])
    assert s.no_text == [("scan", 2)]
    assert any("without a text layer" in ln and "scan (2 pages)" in ln for ln in s.lines())
    with pytest.raises(UnknownDocumentError, match="no text layer"):
        finder.search(s.db, "储能", doc="scan")


def test_pdf_files_as_paths(tmp_path: Path) -> None:
    a = make_pdf(tmp_path / "pdfs" / "alpha.pdf", ALPHA_PAGES)
    s = build.index_paths([a])
    assert s.added == ["alpha"] and s.db == tmp_path / ".reportgen" / "index.sqlite"


def test_vector_channel_with_sqlean_and_a_hashing_embedder(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    emb = HashingEmbedder()
    s = build.index_paths([claims], embedder=emb)
    con = store.open_for_read(s.db, extensions=True)
    assert store.has_vectors(con)
    n_vec = con.execute("SELECT count(*) FROM vec_chunks").fetchone()[0]
    n_chunks = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    con.close()
    assert n_vec == n_chunks
    hits = finder.search(s.db, "沃太能源签订储能电芯采购框架协议", embedder=emb, k=3)
    assert hits[0].doc == "alpha" and hits[0].page == 1
    assert set(hits[0].channels) == {"ngram", "unigram", "vector"}
    only_vec = finder.search(s.db, "沃太能源签订储能电芯", embedder=emb, k=2, channel="vector")
    assert only_vec and set(only_vec[0].channels) == {"vector"}
    # the lexical channels still work on the same store through the stdlib module
    assert finder.search(s.db, "沃太能源", k=1)[0].page == 1
    # an unchanged embedder does not re-embed; removing a document prunes its vectors
    write_ledger(tmp_path, {"alpha": "docs/alpha.pdf"})
    s = build.index_paths([claims], embedder=emb)
    con = store.open_for_read(s.db, extensions=True)
    assert con.execute("SELECT count(*) FROM vec_chunks").fetchone()[0] == \
        con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    con.close()


def test_search_results_carry_evidence(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    s = build.index_paths([claims])
    hits = finder.search(s.db, "Algihaz", k=3)
    assert {(h.doc, h.page) for h in hits} >= {("alpha", 2), ("alpha", 3)}
    for h in hits:
        assert "Algihaz" in h.evidence.text
        assert h.channels and all(r >= 1 for r in h.channels.values())
    table = finder.search(s.db, "前五名供应商 采购金额", k=1)[0]
    assert (table.doc, table.page) == ("alpha", 1)
    assert "前五名供应商" in table.evidence.text
    only = finder.search(s.db, "储能", doc="beta", k=10)
    assert only and {h.doc for h in only} == {"beta"}


def test_vocab_matches_a_recount_after_incremental_runs(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    s = build.index_paths([claims])
    make_pdf(tmp_path / "docs" / "beta.pdf", BETA_PAGES, extra_text="第二版 修订")
    build.index_paths([claims])
    write_ledger(tmp_path, {"beta": "docs/beta.pdf"})
    build.index_paths([claims])
    con = sqlite3.connect(s.db)
    q = "SELECT channel, term, df FROM vocab ORDER BY channel, term"
    before = con.execute(q).fetchall()
    store.rebuild_df(con)
    assert con.execute(q).fetchall() == before and before


def test_an_interrupted_run_is_recounted(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    s = build.index_paths([claims])
    con = sqlite3.connect(s.db)
    con.execute("DELETE FROM vocab")
    con.execute("UPDATE meta SET value='1' WHERE key='vocab_dirty'")
    con.commit()
    build.index_paths([claims])
    assert con.execute("SELECT count(*) FROM vocab").fetchone()[0] > 0


def test_find_with_an_embedder_needs_vectors(tmp_path: Path) -> None:
    from reportgen.index.errors import EmbedderError

    s = build.index_paths([ledger_with_two_docs(tmp_path)])
    with pytest.raises(EmbedderError, match="holds no vectors"):
        finder.search(s.db, "储能", embedder=HashingEmbedder())


def test_pack_search_hits(tmp_path: Path) -> None:
    from reportgen.index.pack import pack

    s = build.index_paths([ledger_with_two_docs(tmp_path)])
    hits = finder.search(s.db, "储能 采购", k=5)
    p = pack(hits, budget=80, max_blocks=3, policy="skip")
    assert p.chosen and all(h in hits for h in p.chosen)
    assert p.tokens <= 80 and len(p.chosen) <= 3


def test_default_db_for_a_missing_ledger_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert store.default_db([Path("claims")]) == tmp_path / ".reportgen" / "index.sqlite"
    assert store.default_db([]) == tmp_path / ".reportgen" / "index.sqlite"


@pytest.mark.parametrize("kind", ["text", "foreign-sqlite"])
def test_index_never_replaces_a_file_that_is_not_an_index(tmp_path: Path, kind: str) -> None:
    claims = ledger_with_two_docs(tmp_path)
    db = tmp_path / "notes.db"
    if kind == "text":
        db.write_text("an analyst's notes\n")
    else:
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE users(name)")
        con.commit()
        con.close()
    before = db.read_bytes()
    with pytest.raises(IndexInputError, match="is not an evidence index"):
        build.index_paths([claims], db=db)
    assert db.read_bytes() == before
