"""`reportgen find`: rank chunks by every channel, fuse with RRF, show quotable evidence.

Each hit carries the chunk (doc, page, pageEnd, box, anchorMethod) and the *evidence*:
the sentence or table row of that chunk that covers the most query terms, with its own
box. That evidence text is taken from the page's text layer unchanged (only whitespace
runs collapsed), so it can be pasted as a fact's `quote` (`reportgen.index.stubs`). The
sentences, rows and marking are `reportgen.index.evidence`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.index import channels, store
from reportgen.index.errors import QueryError, UnknownDocumentError
from reportgen.index.evidence import Evidence, best_evidence, ranked_evidence
from reportgen.index.fusion import rrf
from reportgen.index.tokens import query_terms, unigram_tokens
from reportgen.model import BBox

CANDIDATES = 100  # per channel, before fusion

_WS_RE = re.compile(r"\s+")


@dataclass(frozen=True)
class Hit:
    rank: int
    chunk: int
    doc: str
    page: int
    page_end: int
    bbox: BBox | None
    method: str
    score: float
    channels: dict[str, int]
    text: str  # the chunk's text
    evidence: Evidence
    path: str = ""
    section: str = ""
    terms: tuple[str, ...] = field(default=())

    def record(self) -> dict:
        ev = self.evidence
        return {"rank": self.rank, "doc": self.doc, "page": ev.page, "pageEnd": self.page_end,
                "bbox": list(ev.bbox or self.bbox) if (ev.bbox or self.bbox) else None,
                "text": ev.text, "score": round(self.score, 6), "channels": self.channels,
                "kind": ev.kind, "chunk": self.text, "anchorMethod": self.method,
                "section": self.section}


def check_query(query: str) -> None:
    if not unigram_tokens(query):
        shown = query if query.strip() else "(empty)"
        raise QueryError(f"nothing to search for in the query {shown!r}: it has no letters, "
                         "digits or characters other than punctuation and function words")


def documents(con) -> dict[str, tuple[str, int]]:
    return {r[0]: (r[1], r[2]) for r in con.execute("SELECT id, path, text_pages FROM documents")}


def rankings(con, query: str, doc: str | None = None, embedder=None,
             limit: int = CANDIDATES) -> dict[str, list[int]]:
    out = {name: channels.lexical(con, name, query, limit, doc) for name in channels.LEXICAL}
    if embedder is not None and store.has_vectors(con):
        out["vector"] = channels.vector(con, embedder, query, limit, doc)
    return out


def open_index(db: Path, extensions: bool = False, hint: str = "claims"):
    """`store.open_for_read`, with a file that is not an SQLite database (`--db` naming
    some other file) reported as such rather than as SQLite's DatabaseError."""
    from reportgen.index.errors import IndexInputError

    try:
        return store.open_for_read(db, extensions=extensions, hint=hint)
    except store.sqlite_module(extensions).DatabaseError as e:
        raise IndexInputError(f"not an evidence index ({e}); give --db the file that "
                              "`reportgen index` wrote", file=db) from e


def search(db: Path, query: str, *, doc: str | None = None, k: int = 5, embedder=None,
           hint: str = "claims", channel: str | None = None) -> list[Hit]:
    """The top `k` chunks for `query`, fused over the channels (or only `channel`)."""
    check_query(query)
    con = open_index(Path(db), extensions=embedder is not None, hint=hint)
    try:
        docs = documents(con)
        if doc is not None:
            if doc not in docs:
                known = ", ".join(sorted(docs)) or "none"
                raise UnknownDocumentError(
                    f"unknown document {doc!r}; the index holds: {known}")
            if docs[doc][1] == 0:
                raise UnknownDocumentError(
                    f"document {doc!r} has no text layer (a scan?); there is nothing to search")
        if embedder is not None:
            _check_embedder(con, embedder, hint)
        ranks = rankings(con, query, doc, embedder)
        if channel is not None:
            ranks = {channel: ranks.get(channel, [])}
        hits: list[Hit] = []
        seen: set[tuple[str, int, str]] = set()
        for f in rrf(ranks):  # one hit per sentence or row: overlapping chunks repeat them
            h = _hit(con, len(hits) + 1, f, query, docs)
            key = (h.doc, h.evidence.page, _WS_RE.sub("", h.evidence.text))
            if key in seen:
                continue
            seen.add(key)
            hits.append(h)
            if len(hits) == k:
                break
        return hits
    except store.db_errors() as e:
        raise store.db_error(e, Path(db), hint) from e
    finally:
        con.close()


def _check_embedder(con, embedder, hint: str) -> None:
    from reportgen.index.errors import EmbedderError

    want = store.meta(con, "embedder")
    have = f"{embedder.name}:{int(embedder.dim)}"
    if not store.has_vectors(con) or want is None:
        raise EmbedderError("the evidence index holds no vectors; run "
                            f"`reportgen index {hint} --embedder ...` to add them")
    if want != have:
        raise EmbedderError(f"the evidence index was embedded with {want}, not {have}; "
                            f"run `reportgen index {hint} --embedder ...` with this embedder")


def _hit(con, rank: int, f, query: str, docs) -> Hit:
    row = con.execute(
        "SELECT c.doc, c.page, c.page_end, c.x0, c.y0, c.x1, c.y1, c.method, c.block_first, "
        "c.block_last, c.text, s.title FROM chunks c LEFT JOIN sections s "
        "ON s.doc = c.doc AND s.seq = c.section WHERE c.id = ?", (f.id,)).fetchone()
    d, page, page_end, x0, y0, x1, y1, method, bf, bl, text, title = row
    bbox = (x0, y0, x1, y1) if x0 is not None else None
    ev = best_evidence(con, d, page, bf, bl, query) or Evidence("chunk", text, page, bbox)
    return Hit(rank, f.id, d, page, page_end, bbox, method, f.score, dict(f.ranks), text, ev,
               docs[d][0], title or "", tuple(query_terms(query)))


def _stale(path: str, indexed_sha: str, hint: str, got: str | None):
    from reportgen.errors import DocumentError

    if got is None:
        return DocumentError(f"the indexed file is gone: {path}; run `reportgen index {hint}` "
                             "again")
    return DocumentError("the file changed since it was indexed (its SHA-256 is not the "
                         "indexed one), so its text may not be what the index holds; run "
                         f"`reportgen index {hint}` again", file=path)


def stale_documents(db: Path, docs: Iterable[str], hint: str = "claims") -> dict[str, str]:
    """The message for each of `docs` whose file is gone or is not the indexed one (its
    SHA-256 differs): the index is older than the PDF. Each file is read once."""
    from reportgen.pdf.files import sha256_file

    con = open_index(Path(db), hint=hint)
    try:
        rows = {d: (p, sha) for d, p, sha in con.execute("SELECT id, path, sha256 FROM documents")}
    except store.db_errors() as e:
        raise store.db_error(e, Path(db), hint) from e
    finally:
        con.close()
    out: dict[str, str] = {}
    for d in sorted(set(docs)):
        if d not in rows:
            continue
        path, sha = rows[d]
        got = sha256_file(Path(path)) if Path(path).is_file() else None
        if got != sha:
            out[d] = str(_stale(path, sha, hint, got))
    return out


def quote_on_page(path: str, page: int, evidence: Sequence[str], sha256: str,
                  hint: str = "claims") -> tuple[str, str] | None:
    """(quote, method) for the first evidence text, in rank order, that the anchor rule
    finds on `page` of the PDF, in its tidiest form the rule still finds
    (`stubs.quote_candidates`). The file is read once, and must be the indexed one
    (SHA-256 `sha256`): a stub quoting text the file no longer holds would be stale."""
    from reportgen.errors import DocumentError
    from reportgen.index.stubs import quote_candidates
    from reportgen.pdf.anchors import match_quote
    from reportgen.pdf.documents import open_read, read_pdf
    from reportgen.pdf.textlayer import extract_page

    if not Path(path).is_file():
        raise _stale(path, sha256, hint, None)
    source = read_pdf(Path(path))
    try:
        if source.sha256 != sha256:
            raise _stale(path, sha256, hint, source.sha256)
        doc = open_read(Path(path), source)
    finally:
        source.close()
    try:
        if not 1 <= page <= doc.page_count:
            raise DocumentError(f"the indexed file has no page {page}; run `reportgen index "
                                f"{hint}` again", file=path)
        pt = extract_page(doc[page - 1])
    finally:
        doc.close()
    for text in evidence:
        for q in quote_candidates(text):
            a = match_quote(q, pt)
            if a is not None:
                return q, a.method
    return None


def stub_quote(db: Path, hit: Hit, query: str, hint: str = "claims") -> tuple[str, str] | None:
    """(quote, method) for a fact stub: the best evidence of the hit that the anchor rule
    finds on its page, trying the ranked sentences and rows in order."""
    con = open_index(Path(db), hint=hint)
    try:
        row = con.execute("SELECT block_first, block_last FROM chunks WHERE id=?",
                          (hit.chunk,)).fetchone()
        ranked = ranked_evidence(con, hit.doc, hit.evidence.page, row[0], row[1], query)
        (indexed_sha,) = con.execute("SELECT sha256 FROM documents WHERE id=?",
                                     (hit.doc,)).fetchone()
    except store.db_errors() as e:
        raise store.db_error(e, Path(db)) from e
    finally:
        con.close()
    quotes = [e.text for e in ranked[:12] if len(_WS_RE.sub("", e.text)) >= 4]
    return quote_on_page(hit.path, hit.evidence.page, quotes, indexed_sha, hint)
