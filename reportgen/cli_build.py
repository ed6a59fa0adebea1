"""`reportgen build`: verify, then write the site (only click is imported at load)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click


def site_folder(out: str) -> str:
    """--out as the folder to replace: a symlink (to a web server's folder, say) is
    followed, so the site lands where it points and the link itself stays."""
    return os.path.realpath(out) if os.path.islink(out) else out


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
    from reportgen import fingerprint
    from reportgen.build import check_out
    from reportgen.cli import fail, ledger_paths, verdict_lines
    from reportgen.errors import ReportgenError
    from reportgen.swap import recover

    tpl = Path(templates) if templates else None
    out = site_folder(out)
    lpaths = ledger_paths(paths)
    try:
        recover(Path(out))  # first of all: the site a killed build's swap left aside
        check_out(Path(out))  # before anything (caches, helper) is created for it
        same = fingerprint.unchanged(Path(out), lpaths, tpl, allow_outside)
        before = None if same is not None else fingerprint.snapshot(lpaths, tpl, allow_outside)
    except ReportgenError as e:
        fail(e)
    if same is not None:
        click.echo(same, nl=False)
        if verbose:
            click.echo(f"{out} is up to date: nothing changed since the last build", err=True)
        return
    assert before is not None
    from reportgen.build import publish, start_helper

    # compiles the templates in another process while this one verifies
    helper = start_helper(Path(out), tpl)
    try:
        from reportgen.build import EarlyCrops, default_cache_dir
        from reportgen.pipeline import verify

        # Each process keeps the bytes of the documents it checks and renders their crops
        # from them, so nothing reads a document's path after it was checked.
        early = EarlyCrops(default_cache_dir(Path(out)))
        try:
            v = verify(lpaths, allow_outside=allow_outside, jobs=jobs, after_doc=early)
        except ReportgenError as e:
            fail(e)
        text = "".join(line + "\n" for line in verdict_lines(v))
        click.echo(text, nl=False)
        if not v.ok:
            click.echo(f"not writing {out}: fix the problems above first", err=True)
            sys.exit(1)

        def record(site: Path) -> None:
            docs = {did: (os.fspath(d.path), os.fspath(d.declared) if d.declared else None,
                          v.sha256.get(did) or fingerprint.sha256_file(d.path))
                    for did, d in v.ledger.documents.items()}
            try:
                fingerprint.write(site, before, docs, text)
            except OSError:  # no record only costs a full build next time
                fingerprint.forget(site)

        try:
            s = publish(v, Path(out), tpl, jobs, helper=helper, on_swapped=record,
                        prerendered=early.rendered)
        except ReportgenError as e:
            fail(e)
    finally:
        if helper is not None:
            helper.shutdown(wait=True, cancel_futures=True)
    if verbose:  # stdout stays the verdict lines alone, as `make reports` promises
        click.echo(f"wrote {out}: {s.reports} reports, {s.pages} pages, {s.crops} crops "
                   f"({s.crops_rendered} rendered, {s.crops_cached} cached)", err=True)
