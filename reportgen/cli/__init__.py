"""The command line: the only place that prints and picks exit codes; imports stay lazy."""

from __future__ import annotations

import io
import json
import os
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
            click.echo(json_line(rec))
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


class OutputError(Exception):
    """Standard output cannot be written (disk full, a read-only descriptor): not a bug."""


def _escape(err: UnicodeError) -> tuple[str, int]:
    """Codec error handler: a character the encoding lacks becomes its \\uXXXX escape
    (\\UXXXXXXXX beyond the BMP), as YAML double-quoted strings (`find --stub`) read them
    back; JSON lines are plain ASCII instead (`json_line`)."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    _Output.escaped = True
    return "".join(f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
                   for c in err.object[err.start:err.end]), err.end


class _Output(io.TextIOWrapper):
    """Standard output as the commands write it: what the encoding cannot show is escaped
    (`_escape`); a reader that has gone (EPIPE, `| head -1`) is not an error, the output
    is dropped and the command ends as it would have; another write error (`>/dev/full`)
    drops it too and raises OutputError."""

    escaped = False

    @classmethod
    def over(cls, stream):
        """A new wrapper over `stream`'s buffer, or `stream` itself when it has none."""
        import codecs

        if not hasattr(stream, "buffer"):
            return stream
        codecs.register_error("reportgen.escape", _escape)
        return cls(stream.buffer, encoding=stream.encoding, errors="reportgen.escape",
                   line_buffering=stream.line_buffering)

    def _drop(self, err: OSError) -> None:
        """Send what is still buffered, and anything written later, to /dev/null."""
        import errno

        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self.fileno())
        finally:
            os.close(devnull)
        if err.errno != errno.EPIPE:
            raise OutputError(err.strerror or str(err)) from err

    def write(self, s: str) -> int:
        try:
            return super().write(s)
        except OSError as e:
            self._drop(e)
            return len(s)

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as e:
            self._drop(e)


STDOUT_CLOSED = ("reportgen: standard output is closed, so nothing can be printed; "
                 "redirect it (e.g. >/dev/null) instead of closing it")


def json_line(rec: dict) -> str:
    """One JSON object on one line; plain ASCII when stdout's encoding is not a UTF, so the
    line stays valid JSON whatever the terminal."""
    import codecs

    enc = getattr(sys.stdout, "encoding", None) or "utf-8"
    return json.dumps(rec, ensure_ascii=not codecs.lookup(enc).name.startswith("utf"))


def _shown(filename) -> str:
    """A file name for a message (display_path cuts an absurdly long one short)."""
    from reportgen.errors import display_path

    return display_path(os.fsdecode(filename))


def run() -> None:
    """Console entry point: an unexpected exception becomes one line, not a traceback;
    standard output is checked and wrapped (`_Output`) first."""
    if sys.stdout is None:  # fd 1 closed (`>&-`): a file opened later would become fd 1
        click.echo(STDOUT_CLOSED, err=True)
        sys.exit(1)
    original = sys.stdout
    sys.stdout = wrapped = _Output.over(original)
    _Output.escaped = False
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
        if _Output.escaped:
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
            where = f"{_shown(e.filename)}: " if e.filename is not None else ""
            click.echo(f"reportgen: {where}{e.strerror}", err=True)
            sys.exit(1)
        click.echo(f"reportgen: internal error: {type(e).__name__}: {e}; this is a bug, "
                   "please report it (set REPORTGEN_DEBUG=1 for the traceback)", err=True)
        sys.exit(1)
