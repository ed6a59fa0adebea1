"""Retrieval channels: each turns a query into a ranking of chunk ids, best first.

- `ngram`: FTS5 `bm25()` over character bigrams+trigrams (and whole Latin words);
- `unigram`: FTS5 `bm25()` over single characters without function characters;
- `vector`: optional, sqlite-vec nearest neighbours under a pluggable `Embedder`.

The lexical channels need nothing but SQLite's FTS5, which the stdlib module has; the
vector channel needs an extension, hence `store.sqlite_module(extensions=True)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from reportgen.index.tokens import ngram_tokens, unigram_tokens, unique

LEXICAL = {"ngram": ("fts_ngram", ngram_tokens), "unigram": ("fts_unigram", unigram_tokens)}


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into fixed-size float vectors. `name` identifies the
    model in the store (a different name or `dim` re-embeds every chunk)."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> Sequence[Sequence[float]]: ...


def match_expr(tokens: Sequence[str]) -> str:
    """An FTS5 query OR-ing every token as a quoted string (tokens hold no quotes)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)


POSTINGS_BUDGET = 10000  # rows a channel may score per query (see `select_terms`)
ALWAYS_KEEP = 2  # the rarest tokens are kept whatever their frequency


def select_terms(con, channel: str, tokens: Sequence[str]) -> list[str]:
    """The query tokens worth scoring, rarest first.

    FTS5's `bm25()` costs about a microsecond per matching row, and a common bigram
    (公司) matches most rows, so a query is pruned by document frequency (kept per token
    in the `vocab` table) before it reaches FTS5:

    - tokens absent from the index are dropped (they match nothing);
    - tokens in more than half of the chunks are dropped: FTS5 gives them an IDF of
      1e-6, so they change no score;
    - the rest are taken rarest first while the rows they match stay within
      `POSTINGS_BUDGET` (the `ALWAYS_KEEP` rarest are always taken). On the sample
      corpus the budget never binds; on 200k blocks it keeps p50 under 50 ms by
      leaving out the least informative terms (static query pruning, Moffat & Zobel).

    When every token is in more than half of the chunks the rarest one alone is kept.
    """
    if not tokens:
        return []
    marks = ",".join("?" * len(tokens))
    df = dict(con.execute(f"SELECT term, df FROM vocab WHERE channel=? AND term IN ({marks})",
                          (channel, *tokens)))
    present = sorted((t for t in tokens if df.get(t, 0) > 0), key=lambda t: (df[t], t))
    if not present:
        return []
    n = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    useful = [t for t in present if df[t] <= n / 2]
    if not useful:
        return present[:1]
    out, total = [], 0
    for i, t in enumerate(useful):
        if i >= ALWAYS_KEEP and total + df[t] > POSTINGS_BUDGET:
            break
        out.append(t)
        total += df[t]
    return out


def lexical(con, channel: str, query: str, limit: int = 100, doc: str | None = None) -> list[int]:
    """Chunk ids ranked by FTS5 `bm25()` over the channel's tokens of `query`."""
    table, tok = LEXICAL[channel]
    tokens = select_terms(con, channel, unique(tok(query)))
    if not tokens:
        return []
    expr = match_expr(tokens)
    if doc is None:
        sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY bm25({table}) LIMIT ?"
        args: tuple = (expr, limit)
    else:
        sql = (f"SELECT f.rowid FROM {table} f JOIN chunks c ON c.id = f.rowid "
               f"WHERE {table} MATCH ? AND c.doc = ? ORDER BY bm25({table}) LIMIT ?")
        args = (expr, doc, limit)
    return [r[0] for r in con.execute(sql, args)]


def _blob(vec: Sequence[float]) -> bytes:
    from array import array

    return array("f", [float(x) for x in vec]).tobytes()


def write_vectors(con, embedder: Embedder, ids: Sequence[int], texts: Sequence[str]) -> None:
    from reportgen.index.errors import EmbedderError

    vecs = embedder.embed(list(texts))
    rows = []
    for i, v in zip(ids, vecs):
        if len(v) != embedder.dim:
            raise EmbedderError(f"embedder {embedder.name} returned {len(v)} numbers, "
                                f"it declares dim={embedder.dim}")
        rows.append((i, _blob(v)))
    con.executemany("INSERT INTO vec_chunks(rowid, embedding) VALUES(?, ?)", rows)


def vector(con, embedder: Embedder, query: str, limit: int = 100,
           doc: str | None = None) -> list[int]:
    q = _blob(embedder.embed([query])[0])
    want = limit * 4 if doc else limit
    rows = con.execute(
        "SELECT rowid FROM vec_chunks WHERE embedding MATCH ? AND k = ? ORDER BY distance",
        (q, want)).fetchall()
    ids = [r[0] for r in rows]
    if doc is not None and ids:
        marks = ",".join("?" * len(ids))
        keep = {r[0] for r in con.execute(
            f"SELECT id FROM chunks WHERE doc = ? AND id IN ({marks})", (doc, *ids))}
        ids = [i for i in ids if i in keep]
    return ids[:limit]
