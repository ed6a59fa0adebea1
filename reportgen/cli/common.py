"""What the command modules share: the error exit, the default ledger, JSON lines."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import click


def fail(err: Exception) -> NoReturn:
    """Print a typed error as `file:line: message` lines on stderr and exit 1."""
    click.echo(str(err), err=True)
    sys.exit(1)


def echo_problems(problems) -> None:  # problems: Iterable[ReportgenError]
    """The ledger's errors as `file:line: message` lines on stderr, before the verdicts."""
    for p in problems:
        click.echo(str(p), err=True)


def ledger_paths(paths: tuple[str, ...]) -> list[Path]:
    """Without a PATH, the ledger is `claims/`."""
    return [Path(p) for p in paths] or [Path("claims")]


def json_line(rec: dict) -> str:
    """One JSON object on one line; plain ASCII when stdout's encoding is not a UTF, so the
    line stays valid JSON whatever the terminal."""
    import codecs

    enc = getattr(sys.stdout, "encoding", None) or "utf-8"
    return json.dumps(rec, ensure_ascii=not codecs.lookup(enc).name.startswith("utf"))
