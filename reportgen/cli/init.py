"""`reportgen init`: a new ledger workspace over some PDFs (only click is imported at load)."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import click

from reportgen.cli.common import fail


def split_dir(args: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """(DIR, PDFs): the first argument is DIR when more follow and it is a folder, or names
    nothing yet and does not end in .pdf (init creates it)."""
    if len(args) >= 2:
        first = args[0]
        if os.path.isdir(first) or (not os.path.lexists(first)
                                    and not first.lower().endswith(".pdf")):
            return first, args[1:]
    if len(args) == 1 and os.path.isdir(args[0]):
        raise click.UsageError(f"{args[0]} is a folder: name the PDFs after it "
                               "(reportgen init DIR PDF...)")
    return ".", args


@click.command()
@click.argument("args", nargs=-1, required=True, metavar="[DIR] PDF...", type=click.Path())
@click.option("--allow-outside", is_flag=True,
              help="Accept PDFs outside the workspace (verify and build then need it too).")
def init(args: tuple[str, ...], allow_outside: bool) -> None:
    """Start a new ledger over some PDFs, in DIR (default: here).

    Writes claims/documents.yaml (each PDF's id, title, path and SHA-256 pin), an example
    report whose one fact verifies (claims/example.yaml), the JSON Schema for editors
    (claims/.schema/report.json) and a .gitignore for site/ and .reportgen/. Never
    overwrites a file."""
    from reportgen.errors import ReportgenError
    from reportgen.ledger.scaffold import init_workspace

    folder, pdfs = split_dir(args)
    try:
        ws = init_workspace(Path(folder), [Path(p) for p in pdfs], allow_outside=allow_outside)
    except ReportgenError as e:
        fail(e)
    for path in ws.written:
        click.echo(f"wrote {_shown(path)}")
    ids = ", ".join(d.id for d in ws.documents)
    click.echo(f"{len(ws.documents)} document{'s' * (len(ws.documents) != 1)}: {ids}")
    if ws.example is not None:
        click.echo(f"example fact example-1: {ws.example.doc} p.{ws.example.page}")
    else:
        click.echo("no PDF has a line of text on its first pages (scans?): claims/example.yaml "
                   "holds no fact yet", err=True)
    flag = " --allow-outside" if ws.outside else ""
    go = "" if ws.root == Path.cwd() else f"cd {shlex.quote(_shown(ws.root))} && "
    click.echo(f"next: {go}reportgen verify{flag}, write claims in claims/example.yaml, "
               f"then reportgen build{flag}")


def _shown(path: Path) -> str:
    """A path relative to the working folder when below it."""
    from reportgen.errors import display_path

    return display_path(path)
