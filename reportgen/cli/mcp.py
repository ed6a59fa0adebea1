"""`reportgen mcp`: the ledger's evidence tools for agents, over the Model Context Protocol
(only click is imported at load; the SDK loads when the command runs)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from reportgen.cli.common import fail


def parse_http(value: str) -> tuple[str, int]:
    """HOST:PORT (an IPv6 host in brackets, [::1]:8000) -> (host, port)."""
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{value!r} is not HOST:PORT, e.g. 127.0.0.1:8765")
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        raise click.BadParameter(f"put an IPv6 host in brackets: [{host}]:{port}")
    return host.strip("[]"), int(port)


@click.command("mcp")
@click.argument("path", required=False, type=click.Path())
@click.option("--http", "http", metavar="HOST:PORT",
              help="Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--allow-remote", is_flag=True,
              help="Let --http listen on an address other than loopback: anyone who can "
                   "reach it can read the ledger's evidence and start builds.")
@click.option("--out", type=click.Path(file_okay=False),
              help="The site folder builds write [default: site/ beside the ledger folder].")
@click.option("--db", type=click.Path(dir_okay=False),
              help="The evidence index [default: .reportgen/index.sqlite beside the ledger].")
@click.option("--max-output", type=click.IntRange(1000, 1_000_000), default=16_000,
              show_default=True, help="Characters of one tool result; longer ones are cut "
                                      "and marked `truncated`.")
@click.option("--allow-outside", is_flag=True,
              help="Let document paths resolve outside the ledger's workspace.")
def mcp(path: str | None, http: str | None, allow_remote: bool, out: str | None,
        db: str | None, max_output: int, allow_outside: bool) -> None:
    """Serve the ledger at PATH (default claims/) to MCP clients: find_evidence,
    verify_quote, get_claim, list_reports, submit_build_job, get_build_job.

    The ledger is fixed when the server starts and no tool takes a file path. A first
    build starts at once; queries answer from the last successful build."""
    from reportgen.errors import LedgerError, ReportgenError

    ledger = Path(path or "claims")
    if not ledger.exists():
        fail(LedgerError("no such ledger folder or report file; pass a folder of claim "
                         "files (default claims/) or a .yaml report", str(ledger)))
    target = parse_http(http) if http else None
    from reportgen.agent.server import is_loopback

    if target and not is_loopback(target[0]) and not allow_remote:
        raise click.UsageError(f"--http {http} listens beyond this machine; the server "
                               "has no authentication, so use a loopback address "
                               "(127.0.0.1) or pass --allow-remote")
    import anyio

    from reportgen.agent.server import serve_http, serve_stdio
    from reportgen.agent.service import Service
    from reportgen.site.build import site_folder
    from reportgen.site.publish import check_out

    service = Service([ledger], Path(out) if out else None, db=Path(db) if db else None,
                      allow_outside=allow_outside, max_output=max_output)
    try:
        check_out(site_folder(service.out))
    except ReportgenError as e:
        fail(e)
    service.jobs.submit()  # the first build: queries answer once it is in place
    try:
        if target is None:
            anyio.run(serve_stdio, service)
        else:
            host, port = target
            shown = f"[{host}]" if ":" in host else host
            click.echo(f"reportgen mcp: serving {os.fspath(ledger)} at "
                       f"http://{shown}:{port}/mcp", err=True)
            anyio.run(serve_http, service, host, port)
    finally:
        service.close()
