"""Every fact's verdict, one document at a time, in this process or split over N processes.

Facts are visited grouped by (document, page), so a page's text layer is extracted once
and the DocumentSet's small cache hits; each PDF is closed as soon as its facts are done,
so memory stays flat however many documents the ledger names. With jobs > 1 the documents
are tasks for forked workers, heaviest first; the verdicts are the same values in the same
order as a serial run, because each document is checked the same way wherever it runs.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reportgen.errors import DocumentError, LedgerError, ReportgenError, display_path
from reportgen.model import Fact, FactResult, Ledger

if TYPE_CHECKING:
    from reportgen.pdf.documents import DocumentSet


@dataclass
class FactVerdicts:
    """What checking some documents' facts found; merged across workers."""

    results: dict[str, FactResult] = field(default_factory=dict)
    problems: list[ReportgenError] = field(default_factory=list)
    sha256: dict[str, str] = field(default_factory=dict)  # doc id -> actual SHA-256

    def merge(self, other: FactVerdicts) -> None:
        self.results.update(other.results)
        self.problems.extend(other.problems)
        self.sha256.update(other.sha256)


def facts_by_doc(ledger: Ledger) -> dict[str, list[Fact]]:
    """doc id -> its facts sorted by page (ledger order within a page), doc ids sorted."""
    by: dict[str, list[Fact]] = {}
    for claim in ledger.claims.values():
        if isinstance(claim, Fact):
            by.setdefault(claim.doc, []).append(claim)
    return {d: sorted(by[d], key=lambda f: f.page) for d in sorted(by)}


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: a page's text layer is thousands of small
    tuples, and the collections they would set off took half of the checking time. They
    hold no cycles, so reference counting frees them (memory stays flat: the page cache
    is bounded); the collector resumes afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# Called after each document's facts, in whichever process checked them, while the PDF
# is still open: (ledger, doc id, the open set, that document's verdicts). build.py keeps
# the checked bytes there (KeepChecked). For a document whose verdicts all came from the
# verdict cache, the set holds the bytes hashed for the lookup, not opened (nor parsed);
# a document too large to keep in memory is then not given (the build reads it again and
# checks its hash).
AfterDoc = Callable[[Ledger, str, "DocumentSet", dict[str, FactResult]], None]


def check_docs(ledger: Ledger, doc_ids: Sequence[str],
               after: AfterDoc | None = None) -> FactVerdicts:
    """Open each document once, check its facts page by page, then close it."""
    from reportgen.verify.cache import VerdictCache

    groups = facts_by_doc(ledger)
    out = FactVerdicts()
    cache = VerdictCache.for_ledger(ledger)
    docs = None  # opened only when a fact is not in the verdict cache (or `after` needs it)
    # One pause for the whole run: resuming the collector sets off a full collection,
    # which costs about 13 ms per resume with a full page cache.
    with gc_paused():
        try:
            for doc_id in doc_ids:
                facts = groups.get(doc_id, [])
                # the bytes hashed for the lookup are the ones opened: one read
                sha, got, todo, source = cache.split(ledger.documents.get(doc_id), facts)
                opened = bool(todo) or sha is None
                given = source is not None and (opened or after is not None)
                if given or opened:
                    if docs is None:
                        from reportgen.pdf.documents import DocumentSet
                        docs = DocumentSet(ledger.documents)
                if given:
                    docs.adopt(doc_id, source)
                elif source is not None:
                    source.close()
                if opened:
                    if sha is not None and not given and not _same_bytes(docs, doc_id, sha):
                        got, todo = {}, list(facts)  # the file changed since it was hashed
                    new = _check_doc(ledger, doc_id, todo, docs, out)
                    cache.put(out.sha256.get(doc_id, ""),
                              [(f, new[f.id]) for f in todo if f.id in new])
                    got = {f.id: got.get(f.id) or new[f.id] for f in facts
                           if f.id in got or f.id in new}
                else:
                    out.sha256[doc_id] = sha
                out.results.update(got)
                if after is not None and got and (opened or given):
                    after(ledger, doc_id, docs, got)
                if docs is not None:
                    docs.release(doc_id)
        finally:
            if docs is not None:
                docs.close()
    return out


def _same_bytes(docs: DocumentSet, doc_id: str, sha: str) -> bool:
    """The document as opened is the file that was hashed for the cache lookup."""
    try:
        return docs.sha256(doc_id) == sha
    except DocumentError:
        return False  # the check that follows reports it


def _check_doc(ledger: Ledger, doc_id: str, facts: Sequence[Fact], docs: DocumentSet,
               out: FactVerdicts) -> dict[str, FactResult]:
    """One document's verdicts (facts sorted by page); its problems go into `out`."""
    from reportgen.verify.fact import verify_fact

    results: dict[str, FactResult] = {}
    d = ledger.documents.get(doc_id)
    if d is not None:  # an undeclared doc: verify_fact says so for each fact
        try:
            out.sha256[doc_id] = docs.sha256(doc_id)
            docs.page_count(doc_id)
        except DocumentError as e:
            where = display_path(e.file or d.path)
            out.problems.append(LedgerError(
                f"document {doc_id!r} ({where}): {e.message}", d.loc.file, d.loc.line))
            return results
    for fact in facts:
        try:
            results[fact.id] = verify_fact(fact, docs)
        except LedgerError as e:
            out.problems.append(e)
        except DocumentError as e:
            out.problems.append(LedgerError(f"fact {fact.id}: {e.message}",
                                            fact.loc.file, fact.loc.line))
    return results


def heaviest_first(weights: dict[str, float]) -> list[str]:
    """Documents in the order workers take them: the heaviest first (ties by id), so the
    last ones taken are small and the processes finish together."""
    return sorted(weights, key=lambda k: (-weights[k], k))


def weight(facts: Sequence[Fact]) -> float:
    """Work for one document: page extractions dominate, each fact's match adds a little."""
    return 1.0 + len({f.page for f in facts}) + 0.2 * len(facts)


# Set before forking: workers read them from inherited memory (nothing is pickled).
_LEDGER: Ledger | None = None
_AFTER: AfterDoc | None = None


def _start_worker() -> None:
    # paused for the worker's life, as check_docs pauses it for a serial run: resuming it
    # after each document would set off a full collection each time
    gc.disable()


def _worker(doc_ids: list[str]) -> FactVerdicts:
    assert _LEDGER is not None
    return check_docs(_LEDGER, doc_ids, _AFTER)


def check_facts(ledger: Ledger, jobs: int = 1, after: AfterDoc | None = None) -> FactVerdicts:
    """Every fact's verdict; with jobs > 1 each document is a task for `jobs` forked
    processes, taken heaviest first by whichever process is free (a split made in advance
    left one process working on while the other waited). Merged in document order, as a
    serial run finds them. Falls back to serial where fork is unavailable."""
    import multiprocessing

    global _LEDGER, _AFTER
    groups = facts_by_doc(ledger)
    if jobs < 2 or len(groups) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return check_docs(ledger, list(groups), after)
    from concurrent.futures import ProcessPoolExecutor

    out = FactVerdicts()
    _LEDGER, _AFTER = ledger, after
    ex = ProcessPoolExecutor(max_workers=min(jobs, len(groups)),
                             mp_context=multiprocessing.get_context("fork"),
                             initializer=_start_worker)
    try:
        futures = {d: ex.submit(_worker, [d])
                   for d in heaviest_first({d: weight(fs) for d, fs in groups.items()})}
        for d in groups:
            out.merge(futures[d].result())
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
        _LEDGER = _AFTER = None
    return out
