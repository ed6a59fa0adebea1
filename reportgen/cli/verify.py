"""`reportgen verify` and `reportgen schema` (only click is imported at load)."""

from __future__ import annotations

import sys

import click

from reportgen.cli.common import echo_problems, fail, json_line, ledger_paths


def echo_verdicts(v) -> None:  # v: reportgen.model.Verification
    """Print the verdict lines on stdout."""
    from reportgen.verify.records import verdict_lines

    for line in verdict_lines(v):
        click.echo(line)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="One JSON object per claim, then a total.")
@click.option("--allow-outside", is_flag=True,
              help="Let document paths resolve outside the ledger's workspace.")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=1),
              help="Check facts in this many processes (documents are split between them).")
def verify(paths: tuple[str, ...], as_json: bool, allow_outside: bool, jobs: int) -> None:
    """Check every fact's quote, calc and inference without writing a site."""
    from reportgen.errors import ReportgenError
    from reportgen.verify.run import verify as run_verify
    from reportgen.verify.records import verdict_records

    try:
        v = run_verify(ledger_paths(paths), allow_outside=allow_outside, jobs=jobs)
    except ReportgenError as e:
        fail(e)
    echo_problems(v.problems)
    if as_json:
        for rec in verdict_records(v):
            click.echo(json_line(rec))
    else:
        echo_verdicts(v)
    sys.exit(0 if v.ok else 1)


@click.command()
@click.option("--of", "of", type=click.Choice(["report", "schema", "entities"]), default="report",
              show_default=True, help="Which file's schema: a report file, schema.yaml or "
              "entities.yaml.")
@click.option("--all", "every", is_flag=True, help="All three, as one object keyed by --of's names.")
def schema(of: str, every: bool) -> None:
    """Print the JSON Schema of a report file (or schema.yaml, entities.yaml), for
    yaml-language-server."""
    import json

    from reportgen.graph.vocab import vocabulary_schemas
    from reportgen.ledger.fields import report_schema, schema_text

    if every:
        click.echo(json.dumps({"report": report_schema(), **vocabulary_schemas()}, indent=2,
                              ensure_ascii=False))
    elif of == "report":
        click.echo(schema_text(), nl=False)
    else:
        click.echo(json.dumps(vocabulary_schemas()[of], indent=2, ensure_ascii=False))
