"""`reportgen serve`: build, serve on 127.0.0.1, rebuild on every save (only click at load)."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

import click

from reportgen.cli.common import ledger_paths


def _report(state) -> None:
    """One stderr line per rebuild, then its problems."""
    if state.ok:
        click.echo(f"rebuilt in {state.seconds * 1000:.0f} ms: "
                   f"{state.lines[-1] if state.lines else 'ok'}", err=True)
        return
    click.echo(f"not rebuilt ({len(state.problems)} problems); serving the last good site:",
               err=True)
    for p in state.problems:
        click.echo(f"  {p.where}: {p.message}" if p.where else f"  {p.message}", err=True)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="The port on 127.0.0.1 (0 picks a free one).")
@click.option("--out", default="site", show_default=True, type=click.Path(file_okay=False),
              help="The site folder, replaced by each good build as `reportgen build` does.")
@click.option("--templates", type=click.Path(exists=True, file_okay=False),
              help="A folder of templates overriding the built-in ones file by file.")
@click.option("--allow-outside", is_flag=True,
              help="Let document paths resolve outside the ledger's workspace.")
def serve(paths: tuple[str, ...], port: int, out: str, templates: str | None,
          allow_outside: bool) -> None:
    """Build, serve the site on 127.0.0.1 and rebuild on every save of a claim file, a
    document or a template; open pages reload, or list the problems over the last good site."""
    from reportgen.serve.http import make_server
    from reportgen.serve.live import Preview, watch

    preview = Preview(ledger_paths(paths), Path(out),
                      Path(templates) if templates else None, allow_outside)
    preview.warm()
    _report(preview.rebuild())
    try:
        server = make_server(preview, port)
    except OSError as e:
        click.echo(f"cannot listen on 127.0.0.1:{port}: {e.strerror}; pick another --port",
                   err=True)
        sys.exit(1)
    stop = threading.Event()

    def watching() -> None:
        last = preview.state.generation
        done = threading.Event()

        def loop() -> None:
            watch(preview, stop)
            done.set()

        threading.Thread(target=loop, name="watch", daemon=True).start()
        while not done.is_set():
            st = preview.wait(last, timeout=0.5)
            if st.generation != last:
                last = st.generation
                _report(st)

    threading.Thread(target=watching, name="report", daemon=True).start()

    def interrupted(signum, frame) -> None:  # SIGTERM ends the preview as Ctrl-C does
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    click.echo(f"serving {preview.out} at http://127.0.0.1:{server.server_address[1]}/ "
               "(Ctrl-C stops)", err=True)
    try:
        server.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.server_close()
