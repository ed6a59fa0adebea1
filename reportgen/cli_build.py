"""`reportgen build`: verify, then write the site (only click is imported at load)."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--out", default="site", show_default=True, type=click.Path(file_okay=False),
              help="The site folder; replaced as a whole only when the build succeeds.")
@click.option("--templates", type=click.Path(exists=True, file_okay=False),
              help="A folder of templates overriding the built-in ones file by file.")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=1),
              help="Render crops in this many worker processes.")
@click.option("--allow-outside", is_flag=True,
              help="Let document paths resolve outside the ledger's workspace.")
def build(paths: tuple[str, ...], out: str, templates: str | None, jobs: int,
          allow_outside: bool) -> None:
    """Check every claim, then write the site (HTML, crops, evidence.jsonl, bundle).

    Nothing is written when a fact misses, a calc mismatches or the ledger is invalid:
    the previous site stays as it was."""
    from reportgen.build import publish, start_helper
    from reportgen.cli import echo_verdicts, fail, ledger_paths
    from reportgen.errors import ReportgenError

    tpl = Path(templates) if templates else None
    # compiles the templates in another process while this one verifies
    helper = start_helper(Path(out), tpl)
    try:
        from reportgen.pipeline import verify

        try:
            v = verify(ledger_paths(paths), allow_outside=allow_outside)
        except ReportgenError as e:
            fail(e)
        echo_verdicts(v)
        if not v.ok:
            click.echo(f"not writing {out}: fix the problems above first", err=True)
            sys.exit(1)
        try:
            s = publish(v, Path(out), tpl, jobs, helper=helper)
        except ReportgenError as e:
            fail(e)
    finally:
        if helper is not None:
            helper.shutdown(wait=True, cancel_futures=True)
    click.echo(f"wrote {out}: {s.reports} reports, {s.pages} pages, {s.crops} crops "
               f"({s.crops_rendered} rendered, {s.crops_cached} cached)", err=True)
