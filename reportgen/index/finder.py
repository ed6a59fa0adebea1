"""`reportgen find`: rank chunks by every channel, fuse with RRF, show quotable evidence.

Each hit carries the chunk (doc, page, pageEnd, box, anchorMethod) and the *evidence*:
the sentence or table row of that chunk that covers the most query terms, with its own
box. That evidence text is taken from the page's text layer unchanged (only whitespace
runs collapsed), so it can be pasted as a fact's `quote` (`stub_yaml`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.index import channels, store
from reportgen.index.errors import QueryError, UnknownDocumentError
from reportgen.index.chunking import HEADING_RE
from reportgen.index.fusion import rrf
from reportgen.index.tokens import (is_cjk, ngram_tokens, normalize, query_terms,
                                    unigram_tokens)
from reportgen.model import BBox, union

CANDIDATES = 100  # per channel, before fusion

_SENT_RE = re.compile(r".*?(?:[。！？；!?;]|\.(?=\s)|\Z)", re.S)
_WS_RE = re.compile(r"\s+")
# A full stop that ends an abbreviation or an initial, not a sentence: "Apple Inc.",
# "No. 3", "U.S.", "e.g.", "J. Smith".
_ABBREV_END_RE = re.compile(
    r"(?:^|[\s(\[])(?:inc|no|nos|co|corp|ltd|llc|plc|mr|mrs|ms|dr|prof|st|vs|etc|e\.g|i\.e|"
    r"cf|fig|figs|jr|sr|u\.s|u\.k|vol|pp|approx|dept|art|sec|ref|jan|feb|mar|apr|jun|jul|"
    r"aug|sep|sept|oct|nov|dec|[a-z])\.$", re.IGNORECASE)
_CJK_GAP_RE = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")


@dataclass(frozen=True)
class Evidence:
    kind: str  # sentence | row | chunk
    text: str  # as on the page, whitespace runs collapsed
    page: int
    bbox: BBox | None


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


def collapse(text: str) -> str:
    return _CJK_GAP_RE.sub("", _WS_RE.sub(" ", text).strip())


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


# ---- evidence: the best sentence or table row -------------------------------------------


@dataclass(frozen=True)
class _Line:
    block: int  # block seq
    bbox: BBox
    text: str


def page_lines(con, doc: str, page: int) -> list[_Line]:
    out = []
    for seq, text, lines in con.execute(
            "SELECT seq, text, lines FROM blocks WHERE doc=? AND page=? ORDER BY seq", (doc, page)):
        for t, bb in zip(text.split("\n"), store.unpack_boxes(lines)):
            out.append(_Line(seq, tuple(bb), t))
    return out


def _union(boxes: Iterable[BBox]) -> BBox | None:
    """The union of the boxes, None when there are none."""
    bs = list(boxes)
    return union(bs) if bs else None


_ROW_NUM_RE = re.compile(r"\d[\d,]*(?:\.\d+)?%?")
_ROW_END_RE = re.compile(r"\d[\d,]*(?:\.\d+)?%?\)?\s*$")


def _row_line(text: str) -> bool:
    """A line that reads as a table row: two numbers or more, the last at its end."""
    return len(_ROW_NUM_RE.findall(text)) >= 2 and _ROW_END_RE.search(text) is not None


def sentences(lines: Sequence[_Line]) -> list[tuple[str, BBox | None]]:
    """Sentences of consecutive lines (of one paragraph), each with the box of its lines;
    lines that read as table rows, one after another, are a row each, never joined."""
    out: list[tuple[str, BBox | None]] = []
    looks = [_row_line(ln.text) for ln in lines]
    # a row is a row-like line beside another: one such line alone may be wrapped prose
    row = [r and ((k > 0 and looks[k - 1]) or (k + 1 < len(looks) and looks[k + 1]))
           for k, r in enumerate(looks)]
    start = 0
    for i in range(1, len(lines) + 1):
        if i == len(lines) or row[i - 1] or row[i]:
            out.extend(_sentences(lines[start:i]))
            start = i
    return out


def _sentences(lines: Sequence[_Line]) -> list[tuple[str, BBox | None]]:
    out = []
    text = ""
    owner: list[int] = []
    for i, ln in enumerate(lines):
        text += ln.text + "\n"
        owner.extend([i] * (len(ln.text) + 1))
    spans: list[tuple[int, int]] = []
    joined = False
    for m in _SENT_RE.finditer(text):
        if joined and spans:  # the last piece ended at "Inc." or "No.": not a sentence end
            spans[-1] = (spans[-1][0], m.end())
        elif m.end() > m.start():
            spans.append((m.start(), m.end()))
        joined = _ABBREV_END_RE.search(m.group()) is not None
    for a, b in spans:
        s = text[a:b]
        if len(_WS_RE.sub("", s)) < 2:
            continue
        idx = sorted(set(owner[a:b]))
        out.append((collapse(s), _union(lines[i].bbox for i in idx)))
    return out


def rows(lines: Sequence[_Line]) -> list[list[_Line]]:
    """Visual rows: lines whose vertical extents overlap by half the smaller height, left to
    right; only rows that hold lines of two or more blocks (table cells), at most one of
    them wider than 30% of the page's text, are kept."""
    order = sorted(lines, key=lambda ln: ((ln.bbox[1] + ln.bbox[3]) / 2, ln.bbox[0]))
    groups: list[list[_Line]] = []
    for ln in order:
        if groups:
            g = groups[-1][0]
            top, bot = max(g.bbox[1], ln.bbox[1]), min(g.bbox[3], ln.bbox[3])
            h = min(g.bbox[3] - g.bbox[1], ln.bbox[3] - ln.bbox[1]) or 1.0
            if bot - top >= 0.5 * h:
                groups[-1].append(ln)
                continue
        groups.append([ln])
    if not lines:
        return []
    width = (max(ln.bbox[2] for ln in lines) - min(ln.bbox[0] for ln in lines)) or 1.0

    def is_table_row(g: list[_Line]) -> bool:
        # two columns of prose side by side are not a table row: at most one wide cell
        wide = sum(ln.bbox[2] - ln.bbox[0] > 0.3 * width for ln in g)
        return len({ln.block for ln in g}) > 1 and wide <= 1

    return [sorted(g, key=lambda ln: ln.bbox[0]) for g in groups if is_table_row(g)]


def unit_score(text: str, q_ngrams: set[str], q_uni: set[str]) -> float:
    cov_n = len(q_ngrams & set(ngram_tokens(text))) / len(q_ngrams) if q_ngrams else 0.0
    cov_u = len(q_uni & set(unigram_tokens(text))) / len(q_uni) if q_uni else 0.0
    length = len(_WS_RE.sub("", text))
    return 2 * cov_n + cov_u + min(length, 80) / 800 - (0.5 if length < 6 else 0.0)


def _is_row_block(lines: Sequence[_Line]) -> bool:
    """A block whose lines stand side by side (table cells of one row)."""
    return len(lines) > 1 and any(
        min(a.bbox[3], b.bbox[3]) - max(a.bbox[1], b.bbox[1]) > 0
        for a, b in zip(lines, lines[1:]))


def paragraphs(lines: Sequence[_Line]) -> list[list[_Line]]:
    """Lines grouped by block, and consecutive blocks of prose that continue one another
    merged (the next starts within a line's height below the last line, not indented
    against it and at most 30 pt left of it; neither is a heading nor a table row), so a
    sentence that a PDF writes one line per block is read whole."""
    by_block: dict[int, list[_Line]] = {}
    for ln in lines:
        by_block.setdefault(ln.block, []).append(ln)
    out: list[list[_Line]] = []
    prev_row = True
    for seq in sorted(by_block):
        bl = by_block[seq]
        row = _is_row_block(bl)
        heading = bool(out) and (
            (len(out[-1]) == 1 and HEADING_RE.match(out[-1][0].text) is not None)
            or (len(bl) == 1 and HEADING_RE.match(bl[0].text) is not None))
        if out and not row and not prev_row and not heading:
            last = out[-1][-1]
            first = bl[0]
            h = (last.bbox[3] - last.bbox[1]) or 1.0
            gap = first.bbox[1] - last.bbox[3]
            # a continuation is not indented against the line before (a new paragraph is)
            if -0.3 * h <= gap <= 0.9 * h and last.bbox[0] - 30 <= first.bbox[0] <= last.bbox[0] + 5:
                out[-1].extend(bl)
                prev_row = row
                continue
        out.append(list(bl))
        prev_row = row
    return out


def candidates(con, doc: str, page: int, bf: int, bl: int) -> list[Evidence]:
    """Sentences of the paragraphs that touch the chunk's blocks, and table rows."""
    lines = page_lines(con, doc, page)
    out: list[Evidence] = []
    for para in paragraphs(lines):
        if any(bf <= ln.block <= bl for ln in para):
            out.extend(Evidence("sentence", t, page, bb) for t, bb in sentences(para))
    for r in rows(lines):
        if any(bf <= ln.block <= bl for ln in r):
            out.append(Evidence("row", collapse(" ".join(ln.text for ln in r)), page,
                                _union(ln.bbox for ln in r)))
    return out


def best_evidence(con, doc: str, page: int, bf: int, bl: int, query: str) -> Evidence | None:
    ranked = ranked_evidence(con, doc, page, bf, bl, query)
    return ranked[0] if ranked else None


def ranked_evidence(con, doc: str, page: int, bf: int, bl: int, query: str) -> list[Evidence]:
    qn, qu = set(ngram_tokens(query)), set(unigram_tokens(query))
    cands = candidates(con, doc, page, bf, bl)
    scored = sorted(enumerate(cands),
                    key=lambda ic: (-unit_score(ic[1].text, qn, qu), len(ic[1].text), ic[0]))
    return [c for _, c in scored]


# ---- marking and stubs ------------------------------------------------------------------


def folded(text: str) -> tuple[str, list[tuple[int, int]]]:
    """`normalize(text)`, and for each of its characters the span of `text` it came from.

    Case folding and NFKC change lengths (U+0130 lower-cases to two characters, U+FB01
    is "fi"), so each character is folded with the combining marks that follow it, and
    what it folds to points back at it: a match in the folded text marks the original."""
    out: list[str] = []
    owner: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and unicodedata.combining(text[j]):
            j += 1
        f = normalize(text[i:j])
        out.append(f)
        same = len(f) == j - i
        owner.extend([(k, k + 1) for k in range(i, j)] if same else [(i, j)] * len(f))
        i = j
    return "".join(out), owner


def mark_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Character spans of `text` that match the query: every occurrence of a word or number
    term, and of every bigram of a CJK term (a lone character stands for itself)."""
    low, owner = folded(text)
    mask = [False] * len(text)
    for t in terms:
        cjk = is_cjk(t)
        pieces = [t] if not cjk or len(t) < 2 else [t[i:i + 2] for i in range(len(t) - 1)]
        for p in pieces:
            start = low.find(p) if p else -1
            while start >= 0:
                end = start + len(p)
                # a word or number of a script with spaces is marked whole, never inside
                # a longer word ("c" is not marked in "respect")
                if cjk or ((start == 0 or not low[start - 1].isalnum())
                           and (end == len(low) or not low[end].isalnum())):
                    for i in range(owner[start][0], owner[end - 1][1]):
                        mask[i] = True
                start = low.find(p, start + 1)
    spans = []
    i = 0
    while i < len(mask):
        if mask[i]:
            j = i
            while j < len(mask) and mask[j]:
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


def mark(text: str, terms: Sequence[str], open_: str = "[", close: str = "]") -> str:
    out, pos = [], 0
    for a, b in mark_spans(text, terms):
        out.append(text[pos:a] + open_ + text[a:b] + close)
        pos = b
    out.append(text[pos:])
    return "".join(out)


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
