"""`reportgen query`: local questions over the entity graph (only click at load)."""

from __future__ import annotations

import sys

import click

from reportgen.cli.common import fail, json_line


def _date(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from reportgen.ledger.fields import is_date

    if value is not None and not is_date(value):
        raise click.BadParameter(f"{value!r} is not a date YYYY-MM-DD, such as 2025-06-30")
    return value


@click.command()
@click.argument("question")
@click.argument("path", required=False, type=click.Path())
@click.option("--from", "starts", multiple=True, metavar="ID",
              help="Start at this entity id (repeatable); binds by hand what the question cannot.")
@click.option("--hops", default=2, show_default=True, type=click.IntRange(min=1, max=6),
              help="Hop budget.")
@click.option("--fanout", default=20, show_default=True, type=click.IntRange(min=1),
              help="Edges expanded at each node (what is cut is counted).")
@click.option("--relation", "relations", multiple=True, metavar="R",
              help="Follow only this relation (repeatable).")
@click.option("--as-of", "as_of", callback=_date, metavar="DATE",
              help="Flag edges whose valid_to is earlier as expired.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(min=1),
              help="Paths shown at most (what is cut is counted).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (graph.md section 3).")
@click.option("--allow-outside", is_flag=True,
              help="Let document paths resolve outside the ledger's workspace.")
@click.option("--global", "global_", is_flag=True, help="A question over the whole graph: map "
              "over the community summaries at --level, reduce under --budget (graph.md 5).")
@click.option("--level", default=0, show_default=True, type=click.IntRange(min=0),
              help="With --global: the community level.")
@click.option("--budget", default=8000, show_default=True, type=click.IntRange(min=1),
              help="With --global: the token budget of each call.")
@click.option("--dry-run", is_flag=True, help="With --global: the plan, calls and tokens; no call.")
@click.option("--extractive", is_flag=True,
              help="With --global: answer without the model even when a key is set.")
def query(question: str, path: str | None, starts: tuple[str, ...], hops: int, fanout: int,
          relations: tuple[str, ...], as_of: str | None, limit: int, as_json: bool,
          allow_outside: bool, global_: bool, level: int, budget: int, dry_run: bool,
          extractive: bool) -> None:
    """Answer QUESTION from the entity graph of the ledger at PATH (default claims/): the
    paths between the entities it names, every hop with its page and quote."""
    if global_:
        from reportgen.cli.communities import global_query

        return global_query(question, path, level=level, budget=budget, dry_run=dry_run,
                            as_json=as_json, extractive=extractive, allow_outside=allow_outside)
    from reportgen.cli.common import ledger_paths
    from reportgen.errors import ReportgenError
    from reportgen.graph.answer import answer_lines
    from reportgen.graph.query import Options, query_ledger
    from reportgen.ledger import load_ledger

    opts = Options(hops=hops, fanout=fanout, relations=relations, as_of=as_of, limit=limit)
    try:
        ledger = load_ledger(ledger_paths((path,) if path else ()), allow_outside=allow_outside)
        ans = query_ledger(ledger, question, opts, starts)
    except ReportgenError as e:
        fail(e)
    if as_json:
        click.echo(json_line(ans.json))
    else:
        for line in answer_lines(ans):
            click.echo(line)
    sys.exit(0 if ans.json["status"] == "ok" else 1)
