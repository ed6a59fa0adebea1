"""The command line: the only place that prints and picks exit codes; imports stay lazy."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import click

from reportgen import __version__


def fail(err: Exception) -> NoReturn:
    """Print a typed error as `file:line: message` lines on stderr and exit 1."""
    click.echo(str(err), err=True)
    sys.exit(1)


def ledger_paths(paths: tuple[str, ...]) -> list[Path]:
    """Without a PATH, the ledger is `claims/`."""
    return [Path(p) for p in paths] or [Path("claims")]


def echo_verdicts(v) -> None:  # v: reportgen.model.Verification
    """Print the verdict lines on stdout."""
    from reportgen.verify.records import verdict_lines

    for line in verdict_lines(v):
        click.echo(line)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reportgen")
def main() -> None:
    """Compile a claim ledger into verified, cited reports."""


@main.command()
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
    if as_json:
        for rec in verdict_records(v):
            click.echo(json.dumps(rec, ensure_ascii=False))
    else:
        echo_verdicts(v)
    sys.exit(0 if v.ok else 1)


@main.command()
def schema() -> None:
    """Print the JSON Schema of a report file, for yaml-language-server."""
    from reportgen.ledger.fields import schema_text

    click.echo(schema_text(), nl=False)


def _register() -> None:
    """Commands that live in their own modules; those modules import only click at load."""
    import importlib

    for mod, names in (("reportgen.cli.build", ("build",)),
                       ("reportgen.cli.index", ("index", "find"))):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise
            continue
        for n in names:
            main.add_command(getattr(m, n))


_register()


def run() -> None:
    """Console entry point: an unexpected exception becomes one line, not a traceback."""
    import os

    try:
        main(standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as e:  # noqa: BLE001 - the last line of defence for users
        if os.environ.get("REPORTGEN_DEBUG"):
            raise
        click.echo(f"reportgen: internal error: {type(e).__name__}: {e}; this is a bug, "
                   "please report it (set REPORTGEN_DEBUG=1 for the traceback)", err=True)
        sys.exit(1)
