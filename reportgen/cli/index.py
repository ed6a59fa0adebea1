"""`reportgen index` and `reportgen find`: evidence search for analysts.

Only click is imported at module load; the index package (SQLite, PyMuPDF) loads inside
the commands, so `reportgen --help` stays fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from reportgen.cli.common import fail, json_line


def _load_embedder(spec: str | None):
    """`module:factory` -> an Embedder instance (a callable is called without arguments)."""
    if not spec:
        return None
    import importlib

    from reportgen.index.errors import EmbedderError

    mod, _, attr = spec.partition(":")
    if not attr:
        raise EmbedderError(f"--embedder wants MODULE:NAME, not {spec!r}")
    try:
        obj = getattr(importlib.import_module(mod), attr)
    except (ImportError, AttributeError) as e:
        raise EmbedderError(f"cannot load embedder {spec}: {e}") from e
    return obj() if callable(obj) and not hasattr(obj, "embed") else obj


class _Progress:
    """A progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self) -> None:
        self.bar = None
        self.done = 0

    def __call__(self, doc: str, n: int, total: int) -> None:
        if not sys.stderr.isatty() or total == 0:
            return
        if self.bar is None:
            self.bar = click.progressbar(length=total, label="indexing", file=sys.stderr,
                                         item_show_func=lambda d: d or "")
            self.bar.__enter__()
        self.bar.update(n - self.done, doc)
        self.done = n
        if n >= total:
            self.bar.__exit__(None, None, None)
            self.bar = None


@click.command("index")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--db", type=click.Path(),
              help="The index file [default: .reportgen/index.sqlite beside the ledger folder].")
@click.option("--allow-outside", is_flag=True,
              help="Let document paths resolve outside the ledger's workspace.")
@click.option("--embedder", metavar="MODULE:NAME",
              help="Also fill the vector channel with this embedder (none by default).")
def index(paths: tuple[str, ...], db: str | None, allow_outside: bool,
          embedder: str | None) -> None:
    """Index the PDFs of ledger folders (default claims/) or PDF files for `reportgen find`.

    Incremental: documents whose SHA-256 is unchanged are skipped, changed ones replaced,
    ones no longer named removed.
    """
    from reportgen.errors import ReportgenError
    from reportgen.index.build import index_paths

    try:
        summary = index_paths([Path(p) for p in paths], Path(db) if db else None,
                              embedder=_load_embedder(embedder), allow_outside=allow_outside,
                              progress=_Progress())
    except ReportgenError as e:
        fail(e)
    for ln in summary.lines():
        click.echo(ln)
    if summary.no_text:
        # Indexed, but nothing in it can be quoted: no warning state, so the run fails.
        click.echo("a PDF without a text layer cannot back a quote; OCR it (e.g. ocrmypdf) "
                   "and index again", err=True)
        sys.exit(1)


def _hint(path: str | None) -> str:
    return path or "claims"


# Results a stub is chosen from: the one holding most of the query's terms.
STUB_POOL = 5


def _ledger_ids(path: str | None, report: str | None,
                allow_outside: bool = False) -> tuple[set[str], list[str]]:
    """(every id the ledger uses, the claim ids of `report`) for fresh stub ids. Without a
    ledger folder or report file at PATH there are none; an unknown report is an error."""
    from reportgen.errors import LedgerErrors
    from reportgen.index.errors import IndexInputError

    p = Path(_hint(path))
    if not (p.is_dir() or p.suffix in (".yaml", ".yml")):
        if report:
            raise IndexInputError(f"--report {report}: {p} is not a ledger folder; name the "
                                  "ledger as PATH")
        return set(), []
    from reportgen.ledger import load_ledger

    try:
        led = load_ledger([p], allow_outside=allow_outside, cross_check=False,
                          require_reports=False)
    except LedgerErrors as e:
        if report:
            raise
        click.echo(f"the ledger {p} has errors, so stub ids are not checked against it "
                   f"(run `reportgen verify {p}`):\n{e}", err=True)
        return set(), []
    taken = set(led.claims) | set(led.documents) | {r.id for r in led.reports}
    if report is None:
        return taken, []
    for r in led.reports:
        if r.id == report:
            return taken, list(r.claims)
    known = ", ".join(r.id for r in led.reports) or "none"
    raise IndexInputError(f"--report {report}: no such report in {p} (known: {known})")


@click.command("find")
@click.argument("query")
@click.argument("path", required=False, type=click.Path())
@click.option("--doc", "doc", metavar="ID", help="Search only this document.")
@click.option("-k", "k", type=click.IntRange(1, 1000), default=None,
              help="How many results [default: 5; 1 with --stub].")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per result.")
@click.option("--stub", is_flag=True,
              help="Print a fact claim (YAML) quoting the best sentence or table row.")
@click.option("--report", "report", metavar="ID",
              help="With --stub: the report the fact is for; its id continues that report's ids.")
@click.option("--id", "stub_id", metavar="ID", help="With --stub: the fact's id.")
@click.option("--force", is_flag=True, help="With --stub: print a stub for a weak match too.")
@click.option("--allow-outside", is_flag=True,
              help="With --stub: read a ledger whose PDFs lie outside its workspace.")
@click.option("--db", type=click.Path(dir_okay=False),
              help="The index file [default: .reportgen/index.sqlite beside PATH].")
@click.option("--embedder", metavar="MODULE:NAME", help="Add the vector channel.")
def find(query: str, path: str | None, doc: str | None, k: int | None, as_json: bool,
         stub: bool, report: str | None, stub_id: str | None, force: bool, allow_outside: bool,
         db: str | None, embedder: str | None) -> None:
    """Search the evidence index of PATH (default claims/) for QUERY.

    Prints each result's document, page, box, the matching sentence or table row with
    the query terms marked, and where each channel ranked it.
    """
    from reportgen.errors import ReportgenError
    from reportgen.index import finder as S
    from reportgen.index.evidence import mark
    from reportgen.index import stubs
    from reportgen.index.store import default_db

    if as_json and stub:
        raise click.UsageError("--json and --stub do not go together")
    if not stub and (report or stub_id or force):
        raise click.UsageError("--report, --id and --force go with --stub")
    if stub_id and (k or 1) > 1:
        raise click.UsageError("--id names one stub; leave out -k")
    if path is not None and not os.path.exists(path):  # not a silent fall back to ./
        from reportgen.index.errors import IndexInputError

        fail(IndexInputError(f"{path}: no such file or folder" if path else
                              "PATH is empty; name a ledger folder, report file or PDF"))
    k = k or (1 if stub else 5)
    dbp = Path(db) if db else default_db([Path(_hint(path))])
    hint = _hint(path) + (f" --db {db}" if db else "")
    try:
        # a stub quotes the result that holds most of the query, among a few more
        hits = S.search(dbp, query, doc=doc, k=max(k, STUB_POOL) if stub else k,
                        embedder=_load_embedder(embedder), hint=hint)
        if not hits:
            click.echo(f"no results for {query!r}", err=True)
            sys.exit(1)
        if stub:
            hits = sorted(hits, key=lambda h: -stubs.term_coverage(query, h.evidence.text)[0])
            _stubs(S, stubs, dbp, hits[:k], query, hint, path, report, stub_id, force,
                   allow_outside)
            return
        for msg in S.stale_documents(dbp, {h.doc for h in hits}, hint).values():
            click.echo(f"warning: {msg}", err=True)
    except ReportgenError as e:
        fail(e)
    share, missing = stubs.term_coverage(query, hits[0].evidence.text)
    if share <= stubs.WEAK_SHARE:
        click.echo(f"weak match: the best result lacks {_terms(missing)} of the query; the "
                   "index may hold nothing that says this", err=True)
    if as_json:

        for h in hits:
            click.echo(json_line(h.record()))
        return
    tty = sys.stdout.isatty()
    open_, close = ("\x1b[1m", "\x1b[0m") if tty else ("[", "]")
    for h in hits:
        ev = h.evidence
        box = " ".join(f"{v:.1f}" for v in (ev.bbox or h.bbox or ()))
        pages = f"p.{ev.page}" if h.page_end == ev.page else f"p.{ev.page}-{h.page_end}"
        ranks = " ".join(f"{c}#{r}" for c, r in h.channels.items())
        click.echo(f"{h.rank}. {h.doc} {pages} [{box}] {ev.kind} score={h.score:.4f} {ranks}")
        click.echo("   " + mark(ev.text, h.terms, open_, close))


def _terms(missing: list[str]) -> str:
    return ", ".join(repr(t) for t in missing)


def _stubs(S, stubs, dbp: Path, hits, query: str, hint: str, path: str | None,
           report: str | None, stub_id: str | None, force: bool, allow_outside: bool) -> None:
    """Print a fact stub per hit (or exit 1 when none can be made)."""
    taken, own = _ledger_ids(path, report, allow_outside)
    if stub_id is not None:
        from reportgen.index.errors import IndexInputError

        if stub_id in taken:
            raise IndexInputError(f"--id {stub_id}: the ledger already uses this id; choose "
                                  "another (or leave out --id for the next free one)")
    out: list[tuple[str, int, str]] = []
    for n, h in enumerate(hits, start=1):
        q = S.stub_quote(dbp, h, query, hint=hint)
        if q is None:
            click.echo(f"# result {n} ({h.doc} p.{h.evidence.page}): no sentence of it "
                       "is found on its page by the anchor rule; skipped", err=True)
            continue
        share, missing = stubs.term_coverage(query, q[0])
        if share <= stubs.WEAK_SHARE and not force:
            click.echo(f"weak match: result {n} ({h.doc} p.{h.evidence.page}) lacks "
                       f"{_terms(missing)} of the query, so it would not back a claim about "
                       "it; no stub printed. Rephrase the query, or pass --force to print "
                       "the stub anyway", err=True)
            continue
        out.append((h.doc, h.evidence.page, q[0]))
    if not out:
        sys.exit(1)
    ids = [stub_id] if stub_id else stubs.next_ids(taken, own, len(out))
    click.echo("\n".join(stubs.stub_yaml(cid, d, pg, q) for cid, (d, pg, q) in zip(ids, out)))
