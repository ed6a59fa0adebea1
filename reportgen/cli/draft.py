"""`reportgen draft`: a model drafts a document's facts and relations; only what passes
the vocabulary, the anchor rule and the values check is written (only click at load)."""

from __future__ import annotations

import click

from reportgen.cli.common import fail, ledger_paths


def _pages(ctx: click.Context, param: click.Parameter, value: str | None
           ) -> tuple[int, int] | None:
    if value is None:
        return None
    a, sep, b = value.partition("-")
    if not a.isdigit() or (sep and not b.isdigit()):
        raise click.BadParameter(f"{value!r} is not a page range A-B (or one page N)")
    first, last = int(a), int(b) if sep else int(a)
    if not 1 <= first <= last:
        raise click.BadParameter(f"{value!r}: pages run from 1, and A is at most B")
    return first, last


@click.command("draft")
@click.argument("doc")
@click.argument("path", required=False, type=click.Path())
@click.option("--pages", callback=_pages, metavar="A-B",
              help="Read only these pages (1-based, as a PDF viewer counts) [default: all].")
@click.option("--out", type=click.Path(dir_okay=False),
              help="The report file to write [default: drafts/DOC.yaml beside the ledger].")
@click.option("--db", type=click.Path(dir_okay=False),
              help="The evidence index [default: .reportgen/index.sqlite beside the ledger].")
@click.option("--allow-outside", is_flag=True,
              help="Let document paths resolve outside the ledger's workspace.")
def draft(doc: str, path: str | None, pages: tuple[int, int] | None, out: str | None,
          db: str | None, allow_outside: bool) -> None:
    """Draft the facts and relations of document DOC of the ledger at PATH (default
    claims/) with the model (ANTHROPIC_API_KEY, REPORTGEN_MODEL).

    The model reads the pages' text from the evidence index (`reportgen index` first).
    A record is kept only when its types and relation are declared in schema.yaml, its
    quote is found on its page by the anchor rule and its values stand in its quote;
    kept records are written with `draft: true`. Answers are cached: a rerun is free."""
    from pathlib import Path

    from reportgen.errors import ReportgenError

    from reportgen.llm.client import has_key

    if not has_key():
        fail(ReportgenError("reportgen draft exists to call the model, and ANTHROPIC_API_KEY "
                            "is not set: set it (and REPORTGEN_MODEL to pick a model)"))
    paths = ledger_paths((path,) if path else ())
    try:
        from reportgen.communities.run import llm_cache_folder
        from reportgen.draft.run import draft as run_draft
        from reportgen.llm.client import Model

        root = paths[0] if paths[0].is_dir() else paths[0].parent
        model = Model.from_env(llm_cache_folder(root), max_tokens=8192)
        res = run_draft(paths, doc, model, pages=pages, out=Path(out) if out else None,
                        db=Path(db) if db else None, allow_outside=allow_outside)
    except ReportgenError as e:
        fail(e)
    for r in res.records:
        if not r.kept:
            click.echo(f"rejected ({r.stage}) {r.kind} {r.n}: {r.reason}", err=True)
    click.echo(model.usage.line(), err=True)
    click.echo(f"wrote {res.out}")
    click.echo(res.summary())
