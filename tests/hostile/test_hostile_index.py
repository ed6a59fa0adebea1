"""Attacks on the evidence index (`reportgen index`, `reportgen find`): what `--db` may
touch, damaged and busy stores, single report files, and queries that try to speak FTS5."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_index_support import ALPHA_PAGES, ledger_with_two_docs, make_pdf

from reportgen.cli import main
from reportgen.index import build, finder, store
from reportgen.index.errors import IndexBusyError, IndexDamagedError, IndexInputError

REPO = Path(__file__).resolve().parents[2]


def run(*args: str):
    """The CLI in-process; an exception that escapes the commands stays in `r.exception`."""
    return CliRunner().invoke(main, list(args))


def clean_exit(r) -> bool:
    """Ended by the command itself (exit code), not by an exception escaping it."""
    return r.exception is None or isinstance(r.exception, SystemExit)


@pytest.fixture()
def ws(tmp_path: Path, monkeypatch) -> Path:
    ledger_with_two_docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# ---- 3: `index --db` touches nothing that is not its own index ---------------------------


def _foreign_db(path: Path, user_version: int) -> None:
    """Another application's database that happens to have a `documents` table."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE documents(id TEXT PRIMARY KEY, body TEXT)")
    con.execute("CREATE TABLE invoices(n INTEGER, amount REAL)")
    con.execute("INSERT INTO documents VALUES('contract', 'signed')")
    con.execute("INSERT INTO invoices VALUES(1, 99.5)")
    con.execute(f"PRAGMA user_version={user_version}")
    con.commit()
    con.close()


@pytest.mark.parametrize("user_version", [0, 1, 7])
def test_hardening_03_another_apps_database_with_a_documents_table_is_left_alone(
        ws: Path, user_version: int) -> None:
    folder = ws / "data"
    folder.mkdir()
    db = folder / "app.db"
    _foreign_db(db, user_version)
    before = _files(folder)
    r = run("index", "claims", "--db", str(db))
    assert clean_exit(r) and r.exit_code == 1, r.output
    assert "data/app.db" in r.output and "is not an evidence index" in r.output
    assert "choose another --db" in r.output
    assert _files(folder) == before  # same bytes, and no -wal or -shm beside it


def test_hardening_03_a_zero_byte_file_is_refused_not_replaced(ws: Path) -> None:
    db = ws / "empty.sqlite"
    db.write_bytes(b"")
    r = run("index", "claims", "--db", str(db))
    assert clean_exit(r) and r.exit_code == 1, r.output
    assert "empty.sqlite" in r.output and "empty file" in r.output
    assert db.read_bytes() == b"" and sorted(p.name for p in ws.iterdir()) == [
        "claims", "docs", "empty.sqlite"]


def test_hardening_03_a_folder_as_db_is_refused_with_the_fix(ws: Path) -> None:
    (ws / "store").mkdir()
    r = run("index", "claims", "--db", "store")
    assert clean_exit(r) and r.exit_code == 1, r.output
    assert "store: is a folder, not an index file" in r.output
    assert list((ws / "store").iterdir()) == []


def test_hardening_03_a_device_node_as_db_is_not_unlinked(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("cannot make a device node here")
    with pytest.raises(IndexInputError, match="is a character device, not an index file"):
        build.index_paths([claims], db=node)
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_hardening_03_a_journal_left_without_its_database_is_not_replayed(ws: Path) -> None:
    (ws / "idx.sqlite-wal").write_bytes(b"someone's unsaved pages")
    r = run("index", "claims", "--db", "idx.sqlite")
    assert clean_exit(r) and r.exit_code == 1, r.output
    assert "idx.sqlite-wal: is an SQLite journal without its database idx.sqlite" in r.output
    assert not (ws / "idx.sqlite").exists()
    assert (ws / "idx.sqlite-wal").read_bytes() == b"someone's unsaved pages"


def test_hardening_03_find_reads_only_its_own_index(ws: Path) -> None:
    _foreign_db(ws / "app.db", 1)  # the version number of ours, but not our application id
    before = (ws / "app.db").read_bytes()
    r = run("find", "储能", "claims", "--db", "app.db")
    assert clean_exit(r) and r.exit_code == 1, r.output
    assert "app.db: is not an evidence index" in r.output
    assert (ws / "app.db").read_bytes() == before


def test_hardening_03_an_index_of_another_version_is_rebuilt(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    db = tmp_path / "idx.sqlite"
    build.index_paths([claims], db=db)
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA user_version={store.SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    s = build.index_paths([claims], db=db)
    assert s.rebuilt_from == store.SCHEMA_VERSION + 1 and len(s.added) == 2
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA application_id").fetchone()[0] == store.APPLICATION_ID
    assert con.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    con.close()


def test_hardening_03_a_new_index_carries_the_application_id(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    db = tmp_path / "new" / "idx.sqlite"
    build.index_paths([claims], db=db)
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA application_id").fetchone()[0] == store.APPLICATION_ID
    con.close()
    # and a second run recognises it: incremental, nothing rebuilt
    s = build.index_paths([claims], db=db)
    assert s.rebuilt_from is None and len(s.unchanged) == 2
    assert sorted(p.name for p in db.parent.iterdir()) == ["idx.sqlite"]


# ---- 11: damaged stores, busy stores, FIFOs: a message, never an internal error --------


def _damage(db: Path, how: str) -> None:
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    if how == "truncated":
        data = data[: len(data) // 2]
    else:  # every page after the first two overwritten with noise
        for i in range(2 * page, len(data)):
            data[i] = (i * 131 + 7) % 251
    db.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["truncated", "overwritten"])
def test_hardening_11_find_on_a_damaged_index_says_it_is_damaged(ws: Path, how: str) -> None:
    assert run("index", "claims").exit_code == 0
    db = ws / ".reportgen" / "index.sqlite"
    _damage(db, how)
    r = run("find", "储能 采购", "claims")
    assert clean_exit(r) and r.exit_code == 1, (r.output, r.exception)
    assert "index.sqlite" in r.output and "is damaged" in r.output
    assert "reportgen index" in r.output


def test_hardening_11_index_while_another_process_writes_says_wait(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    db = tmp_path / "idx.sqlite"
    build.index_paths([claims], db=db)
    make_pdf(tmp_path / "docs" / "beta.pdf", ALPHA_PAGES[:1])  # a change to write
    other = sqlite3.connect(db, timeout=0)
    other.execute("BEGIN IMMEDIATE")  # holds the write lock
    try:
        with pytest.raises(IndexBusyError, match="another process is writing the index"):
            build.index_paths([claims], db=db, busy_timeout=0.05)
    finally:
        other.rollback()
        other.close()
    s = build.index_paths([claims], db=db)  # free again: the change goes in
    assert s.changed == ["beta"]


def test_hardening_11_index_on_a_damaged_index_of_ours_says_delete_it(tmp_path: Path) -> None:
    claims = ledger_with_two_docs(tmp_path)
    db = tmp_path / "idx.sqlite"
    build.index_paths([claims], db=db)
    _damage(db, "overwritten")
    with pytest.raises(IndexDamagedError, match="is damaged"):
        build.index_paths([claims], db=db)


@pytest.mark.parametrize("command", ["index", "find"])
def test_hardening_11_a_fifo_as_db_is_refused_without_reading_it(ws: Path, command: str) -> None:
    fifo = ws / "pipe"
    os.mkfifo(fifo)
    args = ["index", "claims"] if command == "index" else ["find", "储能", "claims"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    try:  # sqlite opening a FIFO would block: the timeout only keeps a regression from hanging
        p = subprocess.run([sys.executable, "-m", "reportgen", *args, "--db", "pipe"], cwd=ws,
                           env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`reportgen {command} --db pipe` blocked on the FIFO")
    assert p.returncode == 1, p.stderr
    assert "pipe: is a FIFO (named pipe), not an index file" in p.stderr
    assert "internal error" not in p.stderr and "Traceback" not in p.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# ---- 12: a single report file; each PDF read once per run -------------------------------


def test_hardening_12_a_report_file_whose_basis_lives_in_another_report_is_indexed(
        ws: Path) -> None:
    claims = ws / "claims"
    (claims / "report.yaml").unlink()
    (claims / "documents.yaml").write_text(
        'documents:\n  "alpha":\n    file: ../docs/alpha.pdf\n    title: alpha\n', "utf-8")
    (claims / "R1.yaml").write_text(
        "report:\n  id: R1\n  title: One\nclaims:\n"
        "  - id: r1-1\n    kind: inference\n    statement: Built on the other report.\n"
        "    basis: [r2-1]\n    confidence: 0.6\n    note: Read from R2.\n", "utf-8")
    (claims / "R2.yaml").write_text(
        "report:\n  id: R2\n  title: Two\nclaims:\n"
        "  - id: r2-1\n    kind: fact\n    statement: The warning.\n    doc: alpha\n"
        "    page: 1\n    quote: 本公司董事会保证年度报告内容的真实、准确、完整。\n", "utf-8")
    r = run("index", "claims/R1.yaml", "--db", "one.sqlite")
    assert clean_exit(r) and r.exit_code == 0, r.output
    assert "indexed 1 document into one.sqlite: 1 added" in r.output


def test_a_report_file_given_alone_still_fails_on_its_own_errors(ws: Path) -> None:
    (ws / "claims" / "report.yaml").write_text("report:\n  id: T1\nclaims: 3\n", "utf-8")
    r = run("index", "claims/report.yaml")
    assert clean_exit(r) and r.exit_code == 1
    assert "report.yaml" in r.output


def test_hardening_12_each_pdf_is_read_once_per_run(tmp_path: Path) -> None:
    """Every page task of a long PDF shares one read of it (Python's `open` audit event
    counts the reads), not one read and hash of the whole file per task."""
    pages = [[f"Item {i}. Section {i}", f"Revenue of segment {i} grew by {i}.5% this year."]
             for i in range(build.RANGE_PAGES * 3 + 5)]
    pdf = make_pdf(tmp_path / "long.pdf", pages)
    opened: list[str] = []
    watching = True

    def hook(event: str, args: tuple) -> None:
        if watching and event == "open" and isinstance(args[0], (str, os.PathLike)) \
                and os.fspath(args[0]) == str(pdf):
            opened.append(event)

    sys.addaudithook(hook)  # hooks cannot be removed; `watching` turns this one off
    try:
        s = build.index_paths([pdf], db=tmp_path / "i.sqlite", workers=1)
    finally:
        watching = False
    assert s.pages_indexed == len(pages)
    assert len(opened) == 1


# ---- attacks that held: FTS5 syntax in a query is only text -----------------------------


FTS5_ATTACKS = [
    '"', '""', '"储能', '储能*', '*', 'NEAR(储能 采购)', 'NEAR(', 'AND OR NOT', 'storage AND',
    'NOT storage', '^储能', 'tokens:储能', 'fts_ngram:x', '{a b}:storage', '(储能 OR (采购',
    '储能)', '-储能', '+储能 +采购', '储能 ' * 2000, 'a\x00b 储能', '\x01\x02\x1b[2J 储能',
    "'; DROP TABLE chunks; --", '🔋⚡ 储能', 'שלום עולם \u202e储能', '!?.,;:()[]{}"\'*^-+',
]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fts")
    ledger_with_two_docs(root)
    build.index_paths([root / "claims"], db=root / "idx.sqlite")
    return root


@pytest.mark.parametrize("query", FTS5_ATTACKS, ids=range(len(FTS5_ATTACKS)))
def test_fts5_syntax_in_a_query_is_searched_as_text(built: Path, query: str) -> None:
    db = built / "idx.sqlite"
    before = db.read_bytes()
    r = run("find", "--db", str(db), "--", query, str(built / "claims"))
    assert clean_exit(r) and r.exit_code in (0, 1), (r.output, r.exception)
    assert r.output.strip() and "Traceback" not in r.output
    assert "internal error" not in r.output
    assert db.read_bytes() == before


@pytest.mark.parametrize("spelled", ['"储能" "采购"', "储能* ^采购", "-储能 +采购",
                                     "(储能 采购)", "{储能}: 采购"])
def test_fts5_operators_in_a_query_do_not_change_its_results(built: Path, spelled: str) -> None:
    """Operators and quotes are punctuation: the query finds what its words find."""
    db = built / "idx.sqlite"
    plain = [(h.chunk, h.score) for h in finder.search(db, "储能 采购", k=10)]
    assert plain and [(h.chunk, h.score) for h in finder.search(db, spelled, k=10)] == plain


def test_each_pdf_is_read_and_hashed_once_per_run_with_workers(tmp_path: Path) -> None:
    """With worker processes too, and on a run that finds it unchanged, each PDF is read
    once per run: the forked workers open the bytes this process read, never the file
    (the audit hook is inherited by the workers and logs their opens to a file)."""
    pages = [[f"Item {i}. Section {i}", f"Revenue of segment {i} grew by {i}.5% this year."]
             for i in range(build.RANGE_PAGES * 2 + 3)]
    pdfs = [make_pdf(tmp_path / f"long{k}.pdf", pages) for k in range(2)]
    names = {str(p) for p in pdfs}
    log = tmp_path / "opens.log"
    watching = [True]

    def hook(event: str, args: tuple) -> None:
        if watching[0] and event == "open" and isinstance(args[0], (str, os.PathLike)) \
                and os.fspath(args[0]) in names:
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            os.write(fd, (os.fspath(args[0]) + "\n").encode())
            os.close(fd)

    def reads() -> list[str]:
        got = sorted(log.read_text().split()) if log.exists() else []
        log.unlink(missing_ok=True)
        return got

    sys.addaudithook(hook)  # hooks cannot be removed; `watching` turns this one off
    try:
        s = build.index_paths(pdfs, db=tmp_path / "i.sqlite", workers=2)
        assert s.pages_indexed == 2 * len(pages)
        assert reads() == sorted(names)
        s = build.index_paths(pdfs, db=tmp_path / "i.sqlite", workers=2)
        assert s.unchanged == ["long0", "long1"] and reads() == sorted(names)
    finally:
        watching[0] = False
