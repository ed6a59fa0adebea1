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


@click.command("find")
@click.argument("query")
@click.argument("path", required=False, type=click.Path())
@click.option("--doc", "doc", metavar="ID", help="Search only this document.")
@click.option("-k", "k", type=click.IntRange(1, 1000), default=None,
              help="How many results [default: 5; 1 with --stub].")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per result.")
@click.option("--stub", is_flag=True,
              help="Print a fact claim (YAML) quoting the best sentence or table row.")
@click.option("--db", type=click.Path(dir_okay=False),
              help="The index file [default: .reportgen/index.sqlite beside PATH].")
@click.option("--embedder", metavar="MODULE:NAME", help="Add the vector channel.")
def find(query: str, path: str | None, doc: str | None, k: int | None, as_json: bool,
         stub: bool, db: str | None, embedder: str | None) -> None:
    """Search the evidence index of PATH (default claims/) for QUERY.

    Prints each result's document, page, box, the matching sentence or table row with
    the query terms marked, and where each channel ranked it.
    """
    from reportgen.errors import ReportgenError
    from reportgen.index import finder as S
    from reportgen.index.store import default_db

    if as_json and stub:
        raise click.UsageError("--json and --stub do not go together")
    if path is not None and not os.path.exists(path):  # not a silent fall back to ./
        from reportgen.index.errors import IndexInputError

        fail(IndexInputError(f"{path}: no such file or folder" if path else
                              "PATH is empty; name a ledger folder, report file or PDF"))
    k = k or (1 if stub else 5)
    dbp = Path(db) if db else default_db([Path(_hint(path))])
    hint = _hint(path) + (f" --db {db}" if db else "")
    try:
        hits = S.search(dbp, query, doc=doc, k=k, embedder=_load_embedder(embedder), hint=hint)
        if not hits:
            click.echo(f"no results for {query!r}", err=True)
            sys.exit(1)
        if stub:
            out = []
            for n, h in enumerate(hits, start=1):
                q = S.stub_quote(dbp, h, query, hint=hint)
                if q is None:
                    click.echo(f"# result {n} ({h.doc} p.{h.evidence.page}): no sentence of it "
                               "is found on its page by the anchor rule; skipped", err=True)
                    continue
                out.append(S.stub_yaml(h, q[0], n))
            if not out:
                sys.exit(1)
            click.echo("\n".join(out))
            return
    except ReportgenError as e:
        fail(e)
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
        click.echo("   " + S.mark(ev.text, h.terms, open_, close))
