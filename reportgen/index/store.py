"""The embedded SQLite store of the evidence index: schema, versioning, module choice.

One file (default `.reportgen/index.sqlite` beside the ledger folder), no server.
Tables: `documents` (one row per PDF, with its SHA-256 for incremental runs), `blocks`
(text blocks with their line boxes), `sections` (parent sections), `chunks` (child
chunks with their anchor: page, pageEnd, bbox, anchorMethod), two FTS5 tables holding
the pre-tokenised text of each chunk (`fts_ngram`, `fts_unigram`, rowid = chunk id) and,
when an embedder was given, a sqlite-vec `vec_chunks` table.

Why FTS5 over pre-tokenised n-grams rather than FTS5's own tokenizers or a Python BM25:
FTS5 has no Chinese word tokenizer, its `trigram` tokenizer cannot match two-character
words (most Chinese words have two characters) and ranks nothing by BM25 on bigrams.
We tokenise in Python (`tokens.py`) into space-separated tokens made only of letters,
digits and `.`, and let FTS5's `unicode61` tokenizer (diacritics kept, `.` a token
character) split them on the spaces unchanged. FTS5 then stores the postings on disk,
updates incrementally, and ranks with its built-in `bm25()` (k1=1.2, b=0.75): the BM25
of a Python library without holding every document's term counts in memory, and with
the store, the index and the text in one file. `bench/index_bench.py` compares both.

A file is recognised as an index by its SQLite header alone, never by its table names:
`PRAGMA application_id` is `APPLICATION_ID` and the schema version is `PRAGMA
user_version`. The header is read with plain file calls before SQLite opens the file
(SQLite may write to a file it opens, and blocks opening a FIFO), so anything else at the
path (another application's database, an empty file, a device, a folder) is refused
untouched. A new index is made under a temporary name and linked into place, so the path
never holds a half-made file; an index of another version is rebuilt by `reportgen
index` (it is a cache of the PDFs) and refused by `find`.
"""

from __future__ import annotations

import functools
import json
import os
import stat
import sys
import tempfile
from array import array
from collections import Counter
from pathlib import Path
from types import ModuleType

from reportgen.index.errors import (IndexBusyError, IndexDamagedError, IndexError_,
                                    IndexInputError, IndexMissingError, IndexVersionError)

SCHEMA_VERSION = 1
APPLICATION_ID = 0x52474958  # "RGIX" in the header: this file is reportgen's evidence index
BUSY_TIMEOUT = 10.0  # seconds to wait for another process's write lock before giving up
_SQLITE_MAGIC = b"SQLite format 3\x00"
FTS_TOKENIZE = "unicode61 remove_diacritics 0 tokenchars '.'"

SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents(
  id TEXT PRIMARY KEY, path TEXT NOT NULL, title TEXT NOT NULL, sha256 TEXT NOT NULL,
  pages INTEGER NOT NULL, text_pages INTEGER NOT NULL, blocks INTEGER NOT NULL,
  chunks INTEGER NOT NULL);
CREATE TABLE blocks(
  id INTEGER PRIMARY KEY, doc TEXT NOT NULL, page INTEGER NOT NULL, seq INTEGER NOT NULL,
  x0 REAL, y0 REAL, x1 REAL, y1 REAL,
  text TEXT NOT NULL,      -- lines joined by newlines
  lines BLOB NOT NULL);    -- line boxes, one per line of `text`: float32 x0 y0 x1 y1 each
CREATE INDEX blocks_doc_page ON blocks(doc, page, seq);
CREATE TABLE sections(
  id INTEGER PRIMARY KEY, doc TEXT NOT NULL, seq INTEGER NOT NULL, title TEXT NOT NULL,
  page INTEGER NOT NULL, page_end INTEGER NOT NULL,
  block_first INTEGER NOT NULL, block_last INTEGER NOT NULL);
CREATE INDEX sections_doc ON sections(doc, seq);
CREATE TABLE chunks(
  id INTEGER PRIMARY KEY, doc TEXT NOT NULL, section INTEGER NOT NULL, seq INTEGER NOT NULL,
  page INTEGER NOT NULL, page_end INTEGER NOT NULL,
  x0 REAL, y0 REAL, x1 REAL, y1 REAL,
  method TEXT NOT NULL, block_first INTEGER NOT NULL, block_last INTEGER NOT NULL,
  text TEXT NOT NULL);
CREATE INDEX chunks_doc ON chunks(doc, seq);
CREATE TABLE vocab(           -- document frequency of each token per channel
  channel TEXT NOT NULL, term TEXT NOT NULL, df INTEGER NOT NULL,
  PRIMARY KEY(channel, term)) WITHOUT ROWID;
CREATE VIRTUAL TABLE fts_ngram USING fts5(tokens, tokenize="{FTS_TOKENIZE}");
CREATE VIRTUAL TABLE fts_unigram USING fts5(tokens, tokenize="{FTS_TOKENIZE}");
"""


@functools.cache
def _stdlib_ok(extensions: bool) -> bool:
    import sqlite3

    if extensions and not hasattr(sqlite3.Connection, "enable_load_extension"):
        return False
    try:
        con = sqlite3.connect(":memory:")
        con.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        con.execute("SELECT count(*) FROM json_each('{}')")  # `apply_df` uses JSON
        con.close()
    except sqlite3.OperationalError:
        return False
    return True


def sqlite_module(extensions: bool = False) -> ModuleType:
    """The DB-API module to use: the stdlib `sqlite3` when it can do the job (FTS5, JSON,
    and loading extensions when `extensions`), else `sqlean` (package sqlean.py), a drop-in
    `sqlite3` built with extension loading and a recent SQLite."""
    if os.environ.get("REPORTGEN_SQLITE") != "sqlean" and _stdlib_ok(extensions):
        import sqlite3

        return sqlite3
    import sqlean

    return sqlean


def load_vec(con) -> None:
    """Load sqlite-vec into a connection made by `sqlite_module(extensions=True)`."""
    import sqlite_vec

    con.enable_load_extension(True)
    sqlite_vec.load(con)
    con.enable_load_extension(False)


def default_db(paths: list[Path]) -> Path:
    """`.reportgen/index.sqlite` beside the ledger folder (in the folder's parent).

    For a report file or a PDF the folder holding it counts as the ledger folder.
    """
    first = Path(paths[0]) if paths else Path("claims")
    is_file = first.is_file() or (not first.exists() and first.suffix.lower() in
                                  (".pdf", ".yaml", ".yml"))
    folder = first.parent if is_file else first
    return folder.resolve().parent / ".reportgen" / "index.sqlite"


def _connect(path: Path, extensions: bool, busy_timeout: float = BUSY_TIMEOUT):
    mod = sqlite_module(extensions)
    con = mod.connect(str(path), timeout=busy_timeout)
    con.execute("PRAGMA foreign_keys=OFF")
    if extensions:
        load_vec(con)
    return con


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def _not_ours(path: Path, what: str, fix: str = "") -> IndexInputError:
    fix = fix or ("reportgen writes and reads only its own index: choose another --db, or "
                  "delete the file yourself if you are sure it is not needed")
    return IndexInputError(f"{what}; {fix}", file=path)


def _not_a_file(path: Path, mode: int) -> IndexInputError:
    what = next((w for test, w in _KINDS if test(mode)), "not a regular file")
    return _not_ours(path, f"is {what}, not an index file", "give --db the path of a file "
                     "(a new index is created where nothing exists)")


def probe(path: Path) -> int | None:
    """The schema version of the index at `path`, None when nothing is there.

    Anything else raises IndexInputError naming it. Read with plain file calls and never
    by SQLite, which blocks opening a FIFO and may write to a database it opens."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.lexists(path):
            raise _not_ours(path, "is a symbolic link to nothing, not an index file") from None
        return None
    except OSError as e:
        raise _not_ours(path, f"cannot be read ({e.strerror})", "choose another --db") from e
    if not stat.S_ISREG(st.st_mode):
        raise _not_a_file(path, st.st_mode)
    try:  # O_NONBLOCK: should a FIFO replace the file since the stat, opening it cannot hang
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise _not_ours(path, f"cannot be read ({e.strerror})", "choose another --db") from e
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_a_file(path, mode)
        head = os.read(fd, 100)
    finally:
        os.close(fd)
    if not head:
        raise _not_ours(path, "is an empty file, not an evidence index",
                        "reportgen creates its index only where no file exists: choose "
                        "another --db, or delete the empty file yourself")
    if len(head) < 100 or not head.startswith(_SQLITE_MAGIC):
        raise _not_ours(path, "is not an evidence index (not an SQLite file)")
    if int.from_bytes(head[68:72], "big", signed=True) != APPLICATION_ID:
        raise _not_ours(path, "is not an evidence index (an SQLite database without "
                              "reportgen's application id)",
                        "reportgen writes and reads only its own index: choose another --db "
                        "(an index written by an older reportgen: delete it and run "
                        "`reportgen index` again)")
    return int.from_bytes(head[60:64], "big", signed=True)


def _journals(path: Path) -> list[Path]:
    return [Path(str(path) + s) for s in ("-wal", "-journal", "-shm")]


def _new_file(path: Path) -> Path:
    """A complete empty index under a temporary name in `path`'s folder."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise IndexInputError(f"cannot create the index here ({e.strerror}); choose another "
                              "--db", file=path) from e
    os.close(fd)
    tmp = Path(name)
    try:
        con = _connect(tmp, extensions=False)
        try:
            # One transaction: statement by statement, each CREATE synced the file four
            # times (56 fsyncs, most of the waiting of a small run).
            con.executescript("BEGIN;\n" + SCHEMA + f"PRAGMA application_id={APPLICATION_ID};\n"
                              f"PRAGMA user_version={SCHEMA_VERSION};\nCOMMIT;\n")
        finally:
            con.close()
    except BaseException:
        for p in (tmp, *_journals(tmp)):
            p.unlink(missing_ok=True)
        raise
    return tmp


def _create(path: Path) -> bool:
    """Make a new index at `path` where nothing is; False when another process made one
    there first. A journal left without its database would be replayed into the new
    index by SQLite, so it is refused."""
    for j in _journals(path)[:2]:
        if os.path.lexists(j):
            raise _not_ours(j, f"is an SQLite journal without its database {path.name}",
                            "it may hold someone's unsaved changes: delete it yourself if "
                            "it is not needed, or choose another --db")
    tmp = _new_file(path)
    try:
        os.link(tmp, path)  # fails when anything is at `path`: nothing is ever replaced
    except FileExistsError:
        return False
    except OSError:  # a file system without hard links
        if os.path.lexists(path):
            return False
        os.rename(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return True


def _replace(path: Path, busy_timeout: float) -> None:
    """Rebuild our index of another version in place, once no process is writing it."""
    con = _connect(path, extensions=False, busy_timeout=busy_timeout)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.rollback()
    except tuple(db_errors()) as e:
        raise db_error(e, path) from e
    finally:
        con.close()
    tmp = _new_file(path)
    for j in _journals(path):
        j.unlink(missing_ok=True)
    os.replace(tmp, path)


def open_for_write(path: Path, extensions: bool = False, busy_timeout: float = BUSY_TIMEOUT):
    """(connection, rebuilt_from): opens our index, creates one where nothing is, or
    rebuilds ours of another version; anything else at `path` is refused untouched."""
    rebuilt_from = None
    ver = probe(path)
    while ver is None and not _create(path):
        ver = probe(path)  # another process created it first: it must be an index too
    if ver is not None and ver != SCHEMA_VERSION:
        _replace(path, busy_timeout)
        rebuilt_from = ver
    con = _connect(path, extensions, busy_timeout)
    try:
        if con.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            raise _not_ours(path, "is not an evidence index (it changed while being opened)")
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
    except BaseException as e:
        con.close()
        if isinstance(e, tuple(db_errors())):
            raise db_error(e, path) from e
        raise
    return con, rebuilt_from


def open_for_read(path: Path, extensions: bool = False, hint: str = "claims"):
    """A connection to an existing store of this version, else a typed error that says
    how to build it."""
    ver = probe(path)
    if ver is None:
        raise IndexMissingError(
            f"no evidence index at {_show(path)}; run `reportgen index {hint}` first")
    if ver != SCHEMA_VERSION:
        raise IndexVersionError(
            f"the evidence index at {_show(path)} has schema version {ver}, this reportgen "
            f"reads version {SCHEMA_VERSION}; run `reportgen index {hint}` to rebuild it")
    try:
        return _connect(path, extensions)
    except tuple(db_errors()) as e:
        raise db_error(e, path, hint) from e


def db_errors() -> tuple[type[BaseException], ...]:
    """The DB-API error classes a store connection may raise (stdlib and sqlean)."""
    import sqlite3

    out: list[type[BaseException]] = [sqlite3.DatabaseError]
    sqlean = sys.modules.get("sqlean")
    if sqlean is not None:
        out.append(sqlean.DatabaseError)
    return tuple(out)


def db_error(e: BaseException, path: Path, hint: str = "claims") -> IndexError_:
    """A typed error for what SQLite said about our store: busy, not writable, or damaged."""
    msg = " ".join(str(e).split()) or type(e).__name__
    if "locked" in msg or "busy" in msg:
        return IndexBusyError(
            "another process is writing the index; wait until it has finished, then run "
            "the command again", file=path)
    if any(w in msg for w in ("readonly", "unable to open", "disk is full", "I/O error")):
        return IndexInputError(
            f"cannot use the index ({msg}); check the permissions of the file and its "
            "folder and the free space, or choose another --db", file=path)
    return IndexDamagedError(
        f"the evidence index is damaged ({msg}); delete it (with its -wal and -shm files) "
        f"and run `reportgen index {hint}` to build it again", file=path)


def has_vectors(con) -> bool:
    return con.execute(
        "SELECT 1 FROM sqlite_master WHERE name='vec_chunks'").fetchone() is not None


def meta(con, key: str) -> str | None:
    row = con.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(con, key: str, value: str) -> None:
    con.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))


def pack_boxes(boxes) -> bytes:
    return array("f", [v for b in boxes for v in b]).tobytes()


def unpack_boxes(blob: bytes) -> list[tuple[float, float, float, float]]:
    a = array("f")
    a.frombytes(blob)
    return [(round(a[i], 2), round(a[i + 1], 2), round(a[i + 2], 2), round(a[i + 3], 2))
            for i in range(0, len(a), 4)]


def count_df(token_strings) -> Counter:
    """Document frequency of every token over some chunks' token strings."""
    df: Counter = Counter()
    for s in token_strings:
        df.update(set(s.split()))
    return df


def apply_df(con, channel: str, delta: dict[str, int]) -> None:
    """Add per-token document-frequency changes (negative for removed chunks), in term
    order so the B-tree is walked once."""
    if not any(delta.values()):
        return
    # One statement over the changes as a JSON object (encoded and parsed in C), rather
    # than a row per term bound from Python: half the cost for the tens of thousands of
    # terms of a document.
    con.execute(
        "INSERT INTO vocab(channel, term, df) SELECT ?, key, value FROM json_each(?) "
        "WHERE value <> 0 ON CONFLICT(channel, term) DO UPDATE SET df = df + excluded.df",
        (channel, json.dumps(delta, ensure_ascii=False, sort_keys=True)))
    if any(n < 0 for n in delta.values()):
        con.execute("DELETE FROM vocab WHERE channel=? AND df <= 0", (channel,))


def rebuild_df(con) -> None:
    """Recount the vocab table from the FTS tables (after an interrupted run)."""
    con.execute("DELETE FROM vocab")
    for channel in ("ngram", "unigram"):
        apply_df(con, channel, count_df(r[0] for r in con.execute(f"SELECT tokens FROM fts_{channel}")))


class DfDelta:
    """Document-frequency changes gathered over an indexing run and written at its end
    (and, by `apply`, once before its last document). `meta.vocab_dirty` is set while changes are pending, so a run cut short is
    recounted (`rebuild_df`) by the next one."""

    def __init__(self, con) -> None:
        self.con = con
        self.delta: dict[str, Counter] = {"ngram": Counter(), "unigram": Counter()}
        if meta(con, "vocab_dirty") == "1":
            rebuild_df(con)
        set_meta(con, "vocab_dirty", "1")
        con.commit()

    def add(self, channel: str, token_strings, sign: int = 1) -> None:
        self.add_counts(channel, count_df(token_strings), sign)

    def add_counts(self, channel: str, counts: Counter, sign: int = 1) -> None:
        d = self.delta[channel]
        if sign > 0:
            d.update(counts)
        else:
            d.subtract(counts)

    def apply(self) -> None:
        """Write the changes gathered so far, inside the caller's transaction; the vocab
        stays marked dirty until `flush`."""
        for channel, d in self.delta.items():
            apply_df(self.con, channel, d)
            d.clear()

    def flush(self) -> None:
        self.apply()
        set_meta(self.con, "vocab_dirty", "0")
        self.con.commit()


def delete_doc(con, doc: str, df: DfDelta) -> None:
    ids = "SELECT id FROM chunks WHERE doc=?"
    for channel in ("ngram", "unigram"):
        rows = con.execute(f"SELECT tokens FROM fts_{channel} WHERE rowid IN ({ids})", (doc,))
        df.add(channel, (r[0] for r in rows), -1)
    con.execute(f"DELETE FROM fts_ngram WHERE rowid IN ({ids})", (doc,))
    con.execute(f"DELETE FROM fts_unigram WHERE rowid IN ({ids})", (doc,))
    if has_vectors(con):
        con.execute(f"DELETE FROM vec_chunks WHERE rowid IN ({ids})", (doc,))
    for table in ("chunks", "sections", "blocks"):
        con.execute(f"DELETE FROM {table} WHERE doc=?", (doc,))
    con.execute("DELETE FROM documents WHERE id=?", (doc,))


def _show(path: Path) -> str:
    from reportgen.errors import display_path

    return display_path(path)
