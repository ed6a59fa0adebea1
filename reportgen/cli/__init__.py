"""The command line: the only place that prints and picks exit codes; imports stay lazy."""

from __future__ import annotations

import os
import sys

import click

from reportgen import __version__
from reportgen.cli.output import STDOUT_CLOSED, Output, OutputError, shown


class LazyGroup(click.Group):
    """Commands imported only when named (click's lazy-loading pattern), so `--help` and
    each command load only what they need."""

    COMMANDS = {"verify": "reportgen.cli.verify", "schema": "reportgen.cli.verify",
                "build": "reportgen.cli.build", "index": "reportgen.cli.index",
                "find": "reportgen.cli.index", "serve": "reportgen.cli.serve",
                "drift": "reportgen.cli.drift", "init": "reportgen.cli.init",
                "query": "reportgen.cli.query", "communities": "reportgen.cli.communities",
                "mcp": "reportgen.cli.mcp", "draft": "reportgen.cli.draft"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.COMMANDS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.COMMANDS:
            import importlib

            return getattr(importlib.import_module(self.COMMANDS[name]), name)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reportgen")
def main() -> None:
    """Compile a claim ledger into verified, cited reports."""


def run() -> None:
    """Console entry point: an unexpected exception becomes one line, not a traceback;
    standard output is checked and wrapped (`Output`) first."""
    if sys.stdout is None:  # fd 1 closed (`>&-`): a file opened later would become fd 1
        click.echo(STDOUT_CLOSED, err=True)
        sys.exit(1)
    original = sys.stdout
    sys.stdout = wrapped = Output.over(original)
    Output.escaped = False
    try:
        try:
            _run_main()
        finally:
            wrapped.flush()
    except OutputError as e:
        click.echo(f"reportgen: cannot write to standard output: {e}", err=True)
        sys.exit(1)
    finally:
        if wrapped is not original:
            wrapped.detach()  # the buffer is the original stream's: leave it open
            sys.stdout = original
        if Output.escaped:
            click.echo(f"reportgen: standard output ({original.encoding}) cannot show some "
                       "characters; they are written as \\uXXXX escapes, so nothing is lost "
                       "(set PYTHONIOENCODING=utf-8 to see them)", err=True)


def _run_main() -> None:
    """`main` in standalone mode, with the exceptions that are not bugs made messages."""
    try:
        main(standalone_mode=True)
    except (SystemExit, OutputError):
        raise
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as e:  # noqa: BLE001 - the last line of defence for users
        if os.environ.get("REPORTGEN_DEBUG"):
            raise
        if isinstance(e, OSError) and e.strerror:  # the system refused: a file, a disk
            where = f"{shown(e.filename)}: " if e.filename is not None else ""
            click.echo(f"reportgen: {where}{e.strerror}", err=True)
            sys.exit(1)
        click.echo(f"reportgen: internal error: {type(e).__name__}: {e}; this is a bug, "
                   "please report it (set REPORTGEN_DEBUG=1 for the traceback)", err=True)
        sys.exit(1)
