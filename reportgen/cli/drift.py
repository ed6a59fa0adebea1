"""`reportgen drift DOC NEW.pdf [PATH]` (only click is imported at load)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from reportgen.cli.common import fail


@click.command()
@click.argument("doc")
@click.argument("new_pdf", type=click.Path(dir_okay=False))
@click.argument("path", required=False, type=click.Path())
@click.option("--write", is_flag=True,
              help="Switch the document to the new file in the claim files: moved pages "
                   "and the sha256 pin updated, comments and quoting kept, quotes untouched.")
@click.option("--allow-outside", is_flag=True,
              help="Let document paths resolve outside the ledger's workspace.")
def drift(doc: str, new_pdf: str, path: str | None, write: bool, allow_outside: bool) -> None:
    """Anchor every claim citing DOC on NEW.pdf: holds (same page), moved (old page -> new
    page) or changed (not found: the closest text and the first difference); the calcs and
    inferences above them are recomputed. Exit 0 only when nothing changed or broke."""
    from reportgen.drift.check import drift as run_drift
    from reportgen.errors import ReportgenError
    from reportgen.ledger import load_ledger

    try:
        ledger = load_ledger([Path(path or "claims")], allow_outside=allow_outside)
        d = run_drift(ledger, doc, Path(new_pdf))
        for line in d.lines():
            click.echo(line)
        if write:
            from reportgen.drift.write import write_drift
            from reportgen.errors import display_path

            for f in write_drift(ledger, d):
                click.echo(f"wrote {display_path(f)}", err=True)
    except ReportgenError as e:
        fail(e)
    sys.exit(0 if d.ok else 1)
