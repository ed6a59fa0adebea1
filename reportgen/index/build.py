"""`reportgen index`: bring the store in line with the documents of some ledgers or PDFs.

Incremental by SHA-256: a document whose file hash and path match the stored row is
skipped, a changed one is replaced, one no longer named by PATHs is pruned.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.index import store
from reportgen.index.chunking import chunk_blocks
from reportgen.errors import DocumentError
from reportgen.index.errors import EmbedderError, IndexInputError
from reportgen.index.tokens import both_tokens
from reportgen.pdf.blocks import page_blocks
from reportgen.pdf.files import sha256_file
from reportgen.pdf.documents import open_pdf


@dataclass(frozen=True)
class DocSpec:
    id: str
    path: Path
    title: str


@dataclass
class IndexSummary:
    db: Path
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    no_text: list[tuple[str, int]] = field(default_factory=list)  # (doc, pages), whole store
    rebuilt_from: int | None = None
    documents: int = 0
    pages: int = 0
    pages_indexed: int = 0  # pages read in this run
    blocks: int = 0
    chunks: dict[str, int] = field(default_factory=dict)  # anchorMethod -> count, whole store

    def lines(self) -> list[str]:
        from reportgen.errors import display_path

        out = []
        if self.rebuilt_from is not None:
            out.append(f"rebuilt the index: {display_path(self.db)} had schema version "
                       f"{self.rebuilt_from}, this reportgen writes version {store.SCHEMA_VERSION}")
        out.append(
            f"indexed {self.documents} document{'s' if self.documents != 1 else ''} into "
            f"{display_path(self.db)}: {len(self.added)} added, {len(self.changed)} changed, "
            f"{len(self.unchanged)} unchanged, {len(self.removed)} removed")
        if self.no_text:
            names = ", ".join(f"{d} ({p} page{'s' if p != 1 else ''})" for d, p in self.no_text)
            n = len(self.no_text)
            out.append(f"{n} document{'s' if n != 1 else ''} without a text layer, "
                       f"nothing to search: {names}")
        total = sum(self.chunks.values())
        out.append(f"{self.pages} pages, {self.blocks} blocks")
        out.append(f"{total} chunks: {self.chunks.get('exact', 0)} exact, "
                   f"{self.chunks.get('fuzzy', 0)} fuzzy, "
                   f"{self.chunks.get('unattributed', 0)} unattributed")
        return out


# ---- which documents ---------------------------------------------------------------------


def _ledger_documents(path: Path, allow_outside: bool) -> list[DocSpec]:
    """The documents of a ledger, read by the ledger's own loader (only the documents are
    indexed, so claims citing another report's claims are fine)."""
    from reportgen.ledger import load_ledger

    led = load_ledger([path], allow_outside=allow_outside, cross_check=False)
    return [DocSpec(d.id, Path(d.path), d.title or d.id) for d in led.documents.values()]


def resolve_documents(paths: Sequence[Path], allow_outside: bool = False) -> list[DocSpec]:
    """The documents named by PATHs: ledger folders, report files, or PDF files."""
    found: dict[str, DocSpec] = {}
    for p in paths:
        p = Path(p)
        if p.is_dir():
            specs = _ledger_documents(p, allow_outside)
        elif p.is_file() and p.suffix.lower() == ".pdf":
            specs = [DocSpec(p.stem, p.resolve(), p.stem)]
        elif p.is_file() and p.suffix.lower() in (".yaml", ".yml"):
            specs = _ledger_documents(p, allow_outside)
        elif not p.exists():
            raise IndexInputError(f"{p}: no such file or folder")
        else:
            raise IndexInputError(f"{p}: not a ledger folder, a report file or a PDF")
        for s in specs:
            old = found.get(s.id)
            if old is not None and old.path != s.path:
                raise IndexInputError(
                    f"document id {s.id} names two files: {old.path} and {s.path}")
            found[s.id] = s
    return sorted(found.values(), key=lambda s: s.id)


# ---- writing ------------------------------------------------------------------------------


RANGE_PAGES = 48  # pages per worker task; fixed, so the store does not depend on workers


@dataclass(frozen=True)
class Part:
    """A run of pages of one document read, chunked and tokenised, as rows ready to insert
    (plain tuples: they cross from worker processes cheaply). Sequence numbers (block,
    section, chunk) start at 0 within the part; `_write_doc` shifts them."""

    blocks: list  # (page, seq, x0, y0, x1, y1, text, line boxes blob)
    text_pages: int
    sections: list  # (seq, title, page, page_end, block_first, block_last)
    chunks: list  # (section, seq, page, page_end, x0, y0, x1, y1, method, bf, bl, text)
    ngrams: list[str]
    unigrams: list[str]
    df: dict  # channel -> Counter of document frequencies over this part's chunks


def prepare_part(blocks, text_pages: int = 0) -> Part:
    secs, chunks = chunk_blocks(blocks)
    ngrams, unigrams = [], []
    for c in chunks:
        ng, uni = both_tokens(c.text)
        ngrams.append(" ".join(ng))
        unigrams.append(" ".join(uni))
    return Part(
        [(b.page, b.seq, *b.bbox, b.text, store.pack_boxes([ln.bbox for ln in b.lines]))
         for b in blocks],
        text_pages,
        [(s.seq, s.title, s.page, s.page_end, s.block_first, s.block_last) for s in secs],
        [(c.parent, c.seq, c.page, c.page_end, *(c.bbox or (None,) * 4), c.method,
          c.block_first, c.block_last, c.text) for c in chunks],
        ngrams, unigrams,
        {"ngram": store.count_df(ngrams), "unigram": store.count_df(unigrams)})


# The PDF whose pages this process is reading: (path, sha256, MuPDF document). Its page
# tasks share it, so a file is read, hashed and parsed once per process and run, not once
# per task (re-opening per 48-page task made a 100,000-page PDF take minutes).
_current: tuple[Path, str, object] | None = None


def _document(spec: DocSpec, sha256: str | None = None):
    """(MuPDF document, sha256) of `spec`'s PDF, opened once per process while its pages
    are read; given `sha256`, the file read must still have that digest."""
    global _current
    if _current is not None and _current[0] == spec.path and sha256 in (None, _current[1]):
        return _current[2], _current[1]
    _release()
    try:
        doc, sha = open_pdf(spec.path)  # the verifier's opener: same refusals, same words
    except DocumentError as e:
        raise DocumentError(f"document {spec.id}: {e.message}", file=spec.path) from None
    if sha256 is not None and sha != sha256:
        doc.close()
        raise DocumentError(f"document {spec.id} changed while it was being indexed; run "
                            "`reportgen index` again", file=spec.path)
    _current = (spec.path, sha, doc)
    return doc, sha


def _release() -> None:
    global _current
    if _current is not None:
        _current[2].close()
        _current = None


def _read_part(args: tuple[DocSpec, str, int, int]) -> Part:
    """Read, chunk and tokenise pages start..end-1 of a document (in a worker process).
    Sections restart at a part's first page; chunks never cross pages anyway."""
    spec, sha256, start, end = args
    doc, _ = _document(spec, sha256)
    blocks: list = []
    text_pages = 0
    for i in range(start, min(end, doc.page_count)):
        bl = page_blocks(doc[i], spec.id, i + 1, len(blocks))
        text_pages += bool(bl)
        blocks.extend(bl)
    return prepare_part(blocks, text_pages)


def _write_doc(con, spec: DocSpec, sha256: str, pages: int, parts: Sequence[Part],
               embedder=None, df: store.DfDelta | None = None) -> tuple[int, int, int]:
    """Write a document from its parts in page order; (blocks, chunks, text pages)."""
    nblocks = sum(len(p.blocks) for p in parts)
    nchunks = sum(len(p.chunks) for p in parts)
    text_pages = sum(p.text_pages for p in parts)
    con.execute("INSERT INTO documents VALUES(?,?,?,?,?,?,?,?)",
                (spec.id, str(spec.path), spec.title, sha256, pages, text_pages, nblocks,
                 nchunks))
    own = df is None
    if own:
        df = store.DfDelta(con)
    d = spec.id
    b_off = s_off = c_off = 0
    for p in parts:
        con.executemany(
            "INSERT INTO blocks(doc, page, seq, x0, y0, x1, y1, text, lines) "
            "VALUES(?,?,?,?,?,?,?,?,?)",
            [(d, pg, seq + b_off, x0, y0, x1, y1, t, bx)
             for pg, seq, x0, y0, x1, y1, t, bx in p.blocks])
        con.executemany(
            "INSERT INTO sections(doc, seq, title, page, page_end, block_first, block_last) "
            "VALUES(?,?,?,?,?,?,?)",
            [(d, seq + s_off, title, pg, pe, bf + b_off, bl + b_off)
             for seq, title, pg, pe, bf, bl in p.sections])
        first = con.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchone()[0]
        ids = range(first, first + len(p.chunks))
        con.executemany(
            "INSERT INTO chunks(id, doc, section, seq, page, page_end, x0, y0, x1, y1, method, "
            "block_first, block_last, text) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(i, d, sec + s_off, seq + c_off, pg, pe, x0, y0, x1, y1, m, bf + b_off,
              bl + b_off, t)
             for i, (sec, seq, pg, pe, x0, y0, x1, y1, m, bf, bl, t) in zip(ids, p.chunks)])
        con.executemany("INSERT INTO fts_ngram(rowid, tokens) VALUES(?, ?)", zip(ids, p.ngrams))
        con.executemany("INSERT INTO fts_unigram(rowid, tokens) VALUES(?, ?)",
                        zip(ids, p.unigrams))
        df.add_counts("ngram", p.df["ngram"])
        df.add_counts("unigram", p.df["unigram"])
        if embedder is not None and p.chunks:
            from reportgen.index.channels import write_vectors

            write_vectors(con, embedder, list(ids), [c[-1] for c in p.chunks])
        b_off += len(p.blocks)
        s_off += len(p.sections)
        c_off += len(p.chunks)
    if own:
        df.flush()
    return nblocks, nchunks, text_pages


def _tasks(spec: DocSpec, sha256: str, pages: int) -> list[tuple[DocSpec, str, int, int]]:
    return [(spec, sha256, a, min(a + RANGE_PAGES, pages)) for a in range(0, pages, RANGE_PAGES)]


def _count(spec: DocSpec) -> tuple[int, str]:
    doc, sha = _document(spec)
    return doc.page_count, sha


def _prepared(todo: list[DocSpec], workers: int):
    """(pages, sha256, parts) of each document in `todo`, in order. The pages are read in
    `workers` processes when there is more than one task; each process opens a document
    once and its tasks share it."""
    try:
        if workers > 1:
            counts = [_count(s) for s in todo]  # one open each, for the page count
            tasks = [t for s, (n, sha) in zip(todo, counts) for t in _tasks(s, sha, n)]
            if len(tasks) > 1:
                _release()  # a MuPDF document does not cross processes: workers open their own
                import multiprocessing as mp
                from concurrent.futures import ProcessPoolExecutor

                ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
                with ProcessPoolExecutor(max_workers=min(workers, len(tasks)),
                                         mp_context=ctx) as ex:
                    it = ex.map(_read_part, tasks)
                    for n, sha in counts:
                        yield n, sha, [next(it) for _ in range(-(-n // RANGE_PAGES))]
                return
        for s in todo:
            doc, sha = _document(s)
            n = doc.page_count
            yield n, sha, [_read_part(t) for t in _tasks(s, sha, n)]
    finally:
        _release()


def _prepare_vectors(con, embedder) -> bool:
    """Create or check the vector table; True when every chunk must be (re-)embedded."""
    if embedder is None:
        return False
    dim = int(embedder.dim)
    name = f"{embedder.name}:{dim}"
    if store.has_vectors(con) and store.meta(con, "embedder") == name:
        return False
    if store.has_vectors(con):
        con.execute("DROP TABLE vec_chunks")
    try:
        con.execute(f"CREATE VIRTUAL TABLE vec_chunks USING vec0(embedding float[{dim}])")
    except Exception as e:  # sqlite-vec not loaded
        raise EmbedderError(f"cannot create the vector table: {e}") from e
    store.set_meta(con, "embedder", name)
    return True


def index_paths(paths: Sequence[Path], db: Path | None = None, *, embedder=None,
                allow_outside: bool = False,
                progress: Callable[[str, int, int], None] | None = None,
                workers: int | None = None,
                busy_timeout: float = store.BUSY_TIMEOUT) -> IndexSummary:
    """Index the documents named by `paths` into the store at `db` (default beside the
    ledger). `progress(doc_id, done, total)` is called per document. Documents are read
    in `workers` processes (default: the CPU count, at most 4). A write lock held by
    another process is waited for `busy_timeout` seconds."""
    paths = [Path(p) for p in paths] or [Path("claims")]
    specs = resolve_documents(paths, allow_outside)
    hint = " ".join(str(p) for p in paths) + (f" --db {db}" if db else "")
    db = Path(db) if db else store.default_db(paths)
    con, rebuilt_from = store.open_for_write(db, extensions=embedder is not None,
                                             busy_timeout=busy_timeout)
    try:
        return _index(con, db, specs, rebuilt_from, embedder, progress, workers)
    except store.db_errors() as e:
        raise store.db_error(e, db, hint) from e
    finally:
        con.close()


def _index(con, db: Path, specs: list[DocSpec], rebuilt_from: int | None, embedder,
           progress, workers: int | None) -> IndexSummary:
    """Bring the open store in line with `specs`; the caller closes `con`."""
    summary = IndexSummary(db=db, rebuilt_from=rebuilt_from)
    reembed = _prepare_vectors(con, embedder)
    df = store.DfDelta(con)
    stored = {r[0]: (r[1], r[2]) for r in con.execute("SELECT id, sha256, path FROM documents")}
    wanted = {s.id for s in specs}
    for doc in sorted(set(stored) - wanted):
        store.delete_doc(con, doc, df)
        summary.removed.append(doc)
    con.commit()
    todo = []
    for s in specs:
        old = stored.get(s.id)
        if (old is not None and old[1] == str(s.path) and s.path.is_file()
                and sha256_file(s.path) == old[0]):
            summary.unchanged.append(s.id)
        else:
            todo.append((s, old is not None))
    total = len(todo)
    if workers is None:
        workers = min(os.cpu_count() or 1, 4)
    for n, ((s, existed), (pages, digest, parts)) in enumerate(
            zip(todo, _prepared([t[0] for t in todo], workers))):
        if progress:
            progress(s.id, n, total)
        store.delete_doc(con, s.id, df)
        _write_doc(con, s, digest, pages, parts, embedder, df)
        con.commit()
        summary.pages_indexed += pages
        (summary.changed if existed else summary.added).append(s.id)
    if progress:
        progress("", total, total)
    df.flush()
    if reembed:
        rows = con.execute(
            "SELECT id, text FROM chunks WHERE id NOT IN (SELECT rowid FROM vec_chunks)"
        ).fetchall()
        from reportgen.index.channels import write_vectors

        for i in range(0, len(rows), 256):
            part = rows[i:i + 256]
            write_vectors(con, embedder, [r[0] for r in part], [r[1] for r in part])
        con.commit()
    _fill_totals(con, summary)
    return summary


def _fill_totals(con, summary: IndexSummary) -> None:
    row = con.execute("SELECT count(*), coalesce(sum(pages),0), coalesce(sum(blocks),0) "
                      "FROM documents").fetchone()
    summary.documents, summary.pages, summary.blocks = row
    summary.no_text = [(d, p) for d, p in con.execute(
        "SELECT id, pages FROM documents WHERE text_pages=0 ORDER BY id")]
    summary.chunks = {m: n for m, n in con.execute(
        "SELECT method, count(*) FROM chunks GROUP BY method")}
