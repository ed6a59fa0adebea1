"""`reportgen index`: bring the store in line with the documents of some ledgers or PDFs.

Incremental by SHA-256: a document whose file hash and path match the stored row is
skipped, a changed one is replaced, one no longer named by PATHs is pruned.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.index import store
from reportgen.index.chunking import chunk_blocks
from reportgen.errors import DocumentError, LedgerErrors
from reportgen.index.errors import EmbedderError, IndexInputError
from reportgen.index.tokens import both_tokens
from reportgen.pdf.blocks import page_blocks
from reportgen.pdf.documents import open_read, read_pdf
from reportgen.verify.facts import gc_paused


@dataclass(frozen=True)
class DocSpec:
    id: str
    path: Path
    title: str
    pin: str | None = None  # the ledger's SHA-256 pin, checked as `verify` checks it
    loc: tuple[str, int] | None = None  # where the ledger declares it (file, line)


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

    led = load_ledger([path], allow_outside=allow_outside, cross_check=False,
                      require_reports=False)
    return [DocSpec(d.id, Path(d.path), d.title or d.id, d.sha256, (d.loc.file, d.loc.line))
            for d in led.documents.values()]


def resolve_documents(paths: Sequence[Path], allow_outside: bool = False) -> list[DocSpec]:
    """The documents named by PATHs: ledger folders, report files or documents.yaml, or PDF
    files. A PDF that a ledger among PATHs (or claims/, when it exists) declares takes
    that document's id and pin; any other PDF is named by its file stem."""
    found: dict[str, DocSpec] = {}
    pdfs: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            specs = _ledger_documents(p, allow_outside)
        elif p.is_file() and p.suffix.lower() == ".pdf":
            pdfs.append(p)
            continue
        elif p.is_file() and p.suffix.lower() in (".yaml", ".yml"):
            specs = _ledger_documents(p, allow_outside)
        elif not p.exists():
            raise IndexInputError(f"{p}: no such file or folder")
        else:
            raise IndexInputError(f"{p}: not a ledger folder, a report file or a PDF")
        for s in specs:
            _add(found, s)
    if pdfs:
        declared = {s.path: s for s in found.values()}
        if not found and Path("claims").is_dir():
            try:
                declared = {s.path: s for s in _ledger_documents(Path("claims"), allow_outside)}
            except LedgerErrors:
                declared = {}  # a broken ledger names nothing; its own run reports it
        for p in pdfs:
            real = p.resolve()
            _add(found, declared.get(real) or DocSpec(p.stem, real, p.stem))
    return sorted(found.values(), key=lambda s: s.id)


def _add(found: dict[str, DocSpec], s: DocSpec) -> None:
    old = found.get(s.id)
    if old is not None and old.path != s.path:
        raise IndexInputError(f"document id {s.id} names two files: {old.path} and {s.path}")
    found[s.id] = s


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
    ng_df: Counter = Counter()
    uni_df: Counter = Counter()
    for c in chunks:
        ng, uni = both_tokens(c.text)
        ngrams.append(" ".join(ng))
        unigrams.append(" ".join(uni))
        ng_df.update(set(ng))  # document frequency: each chunk counts a token once
        uni_df.update(set(uni))
    return Part(
        [(b.page, b.seq, *b.bbox, b.text, store.pack_boxes([ln.bbox for ln in b.lines]))
         for b in blocks],
        text_pages,
        [(s.seq, s.title, s.page, s.page_end, s.block_first, s.block_last) for s in secs],
        [(c.parent, c.seq, c.page, c.page_end, *(c.bbox or (None,) * 4), c.method,
          c.block_first, c.block_last, c.text) for c in chunks],
        ngrams, unigrams, {"ngram": ng_df, "unigram": uni_df})


# The PDFs of the batch being indexed: doc id -> (path, bytes as read once by `read_pdf`).
# Forked workers inherit it, so a file is read and hashed once per run, by this process,
# and each worker opens MuPDF over those same bytes (never the path, which may have
# changed since).
_sources: dict[str, tuple[Path, object]] = {}
# The MuPDF document this process is reading pages of: (doc id, document).
_current: tuple[str, object] | None = None


def _document(doc_id: str):
    """The MuPDF document of `doc_id` over the batch's bytes, opened once per process."""
    global _current
    if _current is not None and _current[0] == doc_id:
        return _current[1]
    _release()
    path, source = _sources[doc_id]
    _current = (doc_id, open_read(path, source))
    return _current[1]


def _release() -> None:
    global _current
    if _current is not None:
        _current[1].close()
        _current = None


def _read_part(args: tuple[DocSpec, int, int]) -> Part:
    """Read, chunk and tokenise pages start..end-1 of a document (in a worker process).
    Sections restart at a part's first page; chunks never cross pages anyway."""
    spec, start, end = args
    doc = _document(spec.id)
    blocks: list = []
    text_pages = 0
    for i in range(start, min(end, doc.page_count)):
        bl = page_blocks(doc[i], spec.id, i + 1, len(blocks))
        text_pages += bool(bl)
        blocks.extend(bl)
    return prepare_part(blocks, text_pages)


def _write_doc(con, spec: DocSpec, sha256: str, pages: int, parts: Iterable[Part],
               embedder=None, df: store.DfDelta | None = None) -> tuple[int, int, int]:
    """Write a document from its parts in page order, each as it comes (the parts of a
    document read by workers are written while the workers read the next ones); its
    `documents` row, with the totals, last. (blocks, chunks, text pages)."""
    text_pages = 0
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
        text_pages += p.text_pages
    con.execute("INSERT INTO documents VALUES(?,?,?,?,?,?,?,?)",
                (spec.id, str(spec.path), spec.title, sha256, pages, text_pages, b_off, c_off))
    if own:
        df.flush()
    return b_off, c_off, text_pages


def _tasks(spec: DocSpec, pages: int) -> list[tuple[DocSpec, int, int]]:
    return [(spec, a, min(a + RANGE_PAGES, pages)) for a in range(0, pages, RANGE_PAGES)]


# Changed documents are read in batches of at most this many bytes held in memory.
BATCH_BYTES = 512 << 20


def read_source(spec: DocSpec):
    """The bytes of `spec`'s PDF, read and hashed once (`read_pdf`: the verifier's reader,
    same refusals, same words), its pin checked as `verify` checks it."""
    try:
        return read_pdf(spec.path, spec.pin)
    except DocumentError as e:
        raise doc_error(spec, e) from None


def doc_error(spec: DocSpec, e: DocumentError) -> DocumentError:
    """A document's problem as `verify` words it: at the ledger line that declares it."""
    from reportgen.errors import display_path

    if spec.loc is None:
        return DocumentError(f"document {spec.id}: {e.message}", file=spec.path)
    return DocumentError(f"document {spec.id!r} ({display_path(e.file or spec.path)}): "
                         f"{e.message}", spec.loc[0], spec.loc[1])


def _page_count(spec: DocSpec) -> int:
    try:
        return _document(spec.id).page_count
    except DocumentError as e:
        raise doc_error(spec, e) from None


def _prepared(batch: list[DocSpec], workers: int):
    """(pages, parts) of each document of `batch` (their bytes in `_sources`), in order;
    the parts an iterator, to be consumed before the next document's.
    With more than one task and `workers` > 1 the pages are read in forked processes,
    which inherit the bytes; a document spooled to disk (larger than the in-memory
    limit) is read here."""
    counts = [_page_count(s) for s in batch]
    tasks = [t for s, n in zip(batch, counts) for t in _tasks(s, n)]
    in_memory = all(getattr(_sources[s.id][1], "data", None) is not None for s in batch)
    if workers > 1 and len(tasks) > 1 and in_memory:
        _release()  # a MuPDF document does not cross processes: workers open their own
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        if "fork" in mp.get_all_start_methods():
            with ProcessPoolExecutor(max_workers=min(workers, len(tasks)),
                                     mp_context=mp.get_context("fork")) as ex:
                it = ex.map(_read_part, tasks)
                for n in counts:
                    yield n, (next(it) for _ in range(-(-n // RANGE_PAGES)))
            return
    for s, n in zip(batch, counts):
        yield n, map(_read_part, _tasks(s, n))


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
        # Pages become tens of thousands of small acyclic tuples: collections they set
        # off would cost a tenth of the run; forked workers inherit the pause.
        with gc_paused():
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
    if workers is None:
        workers = min(os.cpu_count() or 1, 4)
    done = 0
    batch: list[tuple[DocSpec, bool]] = []
    size = 0

    def flush() -> None:
        nonlocal done, size
        try:
            last = batch[-1][0].id
            for (s, existed), (pages, parts) in zip(batch, _prepared([b[0] for b in batch],
                                                                    workers)):
                if progress:
                    progress(s.id, done, len(specs))
                if s.id == last:
                    # Before the batch's last document this process mostly waits for
                    # its pages: write the frequencies so far then, leaving only that
                    # document's to the serial end of the run.
                    df.apply()
                store.delete_doc(con, s.id, df)
                _write_doc(con, s, _sources[s.id][1].sha256, pages, parts, embedder, df)
                con.commit()
                summary.pages_indexed += pages
                (summary.changed if existed else summary.added).append(s.id)
                done += 1
        finally:
            _release()
            for s, _ in batch:
                _sources.pop(s.id)[1].close()
            batch.clear()
            size = 0

    try:
        for s in specs:
            source = read_source(s)
            old = stored.get(s.id)
            if old is not None and old[1] == str(s.path) and old[0] == source.sha256:
                source.close()
                summary.unchanged.append(s.id)
                done += 1
                continue
            _sources[s.id] = (s.path, source)
            batch.append((s, old is not None))
            size += len(getattr(source, "data", None) or b"")
            if size > BATCH_BYTES:
                flush()
        if batch:
            flush()
    finally:
        for _, source in _sources.values():
            source.close()
        _sources.clear()
    total = len(specs)
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
