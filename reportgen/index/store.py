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

The schema version lives in `PRAGMA user_version`; a store of another version is
rebuilt by `reportgen index` (it is a cache of the PDFs) and refused by `find`.
"""

from __future__ import annotations

import functools
from array import array
from collections import Counter
import os
from pathlib import Path
from types import ModuleType

from reportgen.index.errors import IndexInputError, IndexMissingError, IndexVersionError

SCHEMA_VERSION = 1
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
        con.close()
    except sqlite3.OperationalError:
        return False
    return True


def sqlite_module(extensions: bool = False) -> ModuleType:
    """The DB-API module to use: the stdlib `sqlite3` when it can do the job (FTS5, and
    loading extensions when `extensions`), else `sqlean` (package sqlean.py), a drop-in
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


def _connect(path: Path, extensions: bool):
    mod = sqlite_module(extensions)
    con = mod.connect(str(path))
    con.execute("PRAGMA foreign_keys=OFF")
    if extensions:
        load_vec(con)
    return con


def open_for_write(path: Path, extensions: bool = False):
    """(connection, rebuilt_from): creates the store, or rebuilds one of another version."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rebuilt_from = None
    if path.exists():
        con = _connect(path, extensions=False)
        try:
            ver = con.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
        except Exception:  # not a database at all
            ver, tables = -1, None
        finally:
            con.close()
        # the index is a cache and is rebuilt freely, but only a file that is one: an empty
        # file, an empty database or one with the index's tables; never someone's other file
        ours = path.stat().st_size == 0 or (tables is not None and (
            not tables or bool(tables & {"meta", "chunks", "documents"})))
        if ver != SCHEMA_VERSION and not ours:
            what = "another SQLite database" if tables else "not an SQLite file"
            raise IndexInputError(
                f"{_show(path)} is not an evidence index ({what}); "
                "reportgen index replaces only its own index: choose another --db, or delete "
                "the file yourself")
        if ver != SCHEMA_VERSION:
            rebuilt_from = ver
            for suffix in ("", "-wal", "-shm", "-journal"):
                p = Path(str(path) + suffix)
                if p.exists():
                    p.unlink()
    con = _connect(path, extensions)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    if con.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
        con.executescript(SCHEMA)
        con.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        con.commit()
    return con, rebuilt_from


def open_for_read(path: Path, extensions: bool = False, hint: str = "claims"):
    """A connection to an existing store of this version, else a typed error that says
    how to build it."""
    if not path.is_file():
        raise IndexMissingError(
            f"no evidence index at {_show(path)}; run `reportgen index {hint}` first")
    con = _connect(path, extensions)
    ver = con.execute("PRAGMA user_version").fetchone()[0]
    if ver != SCHEMA_VERSION:
        con.close()
        raise IndexVersionError(
            f"the evidence index at {_show(path)} has schema version {ver}, this reportgen "
            f"reads version {SCHEMA_VERSION}; run `reportgen index {hint}` to rebuild it")
    return con


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
    rows = [(channel, t, n) for t, n in sorted(delta.items()) if n]
    if not rows:
        return
    con.executemany(
        "INSERT INTO vocab(channel, term, df) VALUES(?, ?, ?) "
        "ON CONFLICT(channel, term) DO UPDATE SET df = df + excluded.df", rows)
    if any(n < 0 for _, _, n in rows):
        con.execute("DELETE FROM vocab WHERE channel=? AND df <= 0", (channel,))


def rebuild_df(con) -> None:
    """Recount the vocab table from the FTS tables (after an interrupted run)."""
    con.execute("DELETE FROM vocab")
    for channel in ("ngram", "unigram"):
        apply_df(con, channel, count_df(r[0] for r in con.execute(f"SELECT tokens FROM fts_{channel}")))


class DfDelta:
    """Document-frequency changes gathered over an indexing run and written once at its
    end. `meta.vocab_dirty` is set while changes are pending, so a run cut short is
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

    def flush(self) -> None:
        for channel, d in self.delta.items():
            apply_df(self.con, channel, d)
            d.clear()
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
