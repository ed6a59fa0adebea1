"""build(): the one library call behind `reportgen build` (and the preview and agents later).

Gather, then write (the shape of mkdocs' `commands.build.build`): load and verify the
ledger in memory; only when every verdict holds, render the site into a temporary folder
and swap it into place. The no-op check, the fingerprint record, the lock and the swap
live behind this call; the CLI parses, calls, prints and picks the exit code.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reportgen.model import Verification
from reportgen.pdf.files import sha256_file
from reportgen.site import fingerprint
from reportgen.site.helper import ledger_read, start_helper
from reportgen.site.publish import check_out, publish
from reportgen.site.swap import recover
from reportgen.site.write import BuildStats, KeepChecked, default_cache_dir


@dataclass(frozen=True)
class BuildResult:
    """What a build found and did; `lines` are the verdict lines `reportgen build` prints."""

    out: Path
    lines: tuple[str, ...]
    ok: bool  # every fact hit, every calc computed, every inference valid
    written: bool  # the site was replaced
    up_to_date: bool  # nothing changed since the last successful build: nothing was done
    verification: Verification | None = None  # None when up to date
    stats: BuildStats | None = None

    @property
    def text(self) -> str:
        """The verdict lines as printed, one per line."""
        return "".join(line + "\n" for line in self.lines)


def site_folder(out: Path | str) -> Path:
    """--out as the folder to replace: a symlink (to a web server's folder, say) is
    followed, so the site lands where it points and the link itself stays."""
    return Path(os.path.realpath(out) if os.path.islink(out) else out)


def build(paths: Sequence[Path], out: Path | str = "site", *, templates: Path | None = None,
          jobs: int = 1, allow_outside: bool = False) -> BuildResult:
    """Verify the ledger at `paths`; when every verdict holds, replace the site at `out`.

    Raises LedgerErrors for an invalid ledger or unusable PDF, BuildError when the site
    cannot be written; in both cases, and on any miss, the previous site stays as it was."""
    out = site_folder(out)
    paths = list(paths)
    recover(out)  # first of all: the site a killed build's swap left aside
    check_out(out)  # before anything (caches, helper) is created for it
    same = fingerprint.unchanged(out, paths, templates, allow_outside)
    if same is not None:
        return BuildResult(out, tuple(same.splitlines()), ok=True, written=False,
                           up_to_date=True)
    before = fingerprint.snapshot(paths, templates, allow_outside)

    from reportgen.verify.records import verdict_lines
    from reportgen.verify.run import verify

    # compiles the templates in another process while this one verifies
    helper = start_helper(out, templates)
    if jobs > 1:
        # The site's crops and kept copies need MuPDF in this process anyway: importing
        # it before the workers fork lets them inherit it instead of each importing it
        # (0.15-0.2 s apiece), and the crops start without an import once the verdicts
        # are in.
        import reportgen.pdf.documents  # noqa: F401
    try:
        # Each process keeps the bytes of the documents it checks; the crops are drawn
        # from them, so nothing reads a document's path after it was checked.
        keep = KeepChecked(default_cache_dir(out))
        v = verify(paths, allow_outside=allow_outside, jobs=jobs, after_doc=keep,
                   on_ledger=lambda ledger: ledger_read(helper, ledger))
        lines = tuple(verdict_lines(v))
        if not v.ok:
            return BuildResult(out, lines, ok=False, written=False, up_to_date=False,
                               verification=v)
        text = "".join(line + "\n" for line in lines)

        def record(site: Path) -> None:
            docs = {did: (os.fspath(d.path), os.fspath(d.declared) if d.declared else None,
                          v.sha256.get(did) or sha256_file(d.path))
                    for did, d in v.ledger.documents.items()}
            try:
                fingerprint.write(site, before, docs, text)
            except OSError:  # no record only costs a full build next time
                fingerprint.forget(site)

        stats = publish(v, out, templates, jobs, helper=helper, on_swapped=record)
    finally:
        if helper is not None:
            helper.shutdown(wait=True, cancel_futures=True)
    return BuildResult(out, lines, ok=True, written=True, up_to_date=False, verification=v,
                       stats=stats)
