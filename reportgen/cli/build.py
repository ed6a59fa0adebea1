"""`reportgen build`: verify, then write the site (only click is imported at load)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from reportgen.cli.common import echo_problems, fail, ledger_paths


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--out", default="site", show_default=True, type=click.Path(file_okay=False),
              help="The site folder; replaced as a whole only when the build succeeds.")
@click.option("--templates", type=click.Path(exists=True, file_okay=False),
              help="A folder of templates overriding the built-in ones file by file.")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=1),
              help="Check facts and render crops in this many processes.")
@click.option("--allow-outside", is_flag=True,
              help="Let document paths resolve outside the ledger's workspace.")
@click.option("--verbose", "-v", is_flag=True,
              help="Also say what was written (or that nothing changed), on stderr.")
def build(paths: tuple[str, ...], out: str, templates: str | None, jobs: int,
          allow_outside: bool, verbose: bool) -> None:
    """Check every claim, then write the site (HTML, crops, evidence.jsonl, bundle).

    Nothing is written when a fact misses, a calc mismatches or the ledger is invalid:
    the previous site stays as it was. When nothing changed since the last successful
    build (inputs and output alike), the verdict lines are repeated and nothing is done."""
    from reportgen.errors import ReportgenError
    from reportgen.site.build import build as run_build

    try:
        r = run_build(ledger_paths(paths), out, templates=Path(templates) if templates else None,
                      jobs=jobs, allow_outside=allow_outside)
    except ReportgenError as e:
        fail(e)
    if r.verification is not None:
        echo_problems(r.verification.problems)
    click.echo(r.text, nl=False)
    if not r.ok:
        click.echo(f"not writing {r.out}: fix the problems above first", err=True)
        sys.exit(1)
    if not verbose:  # stdout stays the verdict lines alone, as `make reports` promises
        return
    if r.up_to_date:
        click.echo(f"{r.out} is up to date: nothing changed since the last build", err=True)
    elif r.stats is not None:
        s = r.stats
        click.echo(f"wrote {r.out}: {s.reports} reports, {s.pages} pages, {s.crops} crops "
                   f"({s.crops_rendered} rendered, {s.crops_cached} cached)", err=True)
