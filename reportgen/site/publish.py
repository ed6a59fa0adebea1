"""Put a built site in place: check --out, take the lock, build into this output's own
work folder, swap it in one atomic step (reportgen.site.swap), record the fingerprint.

A failed or killed build leaves the previous site byte-identical, and two builds never
write one folder at once."""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from reportgen.errors import BuildError
from reportgen.model import Verification
from reportgen.site import fingerprint
from reportgen.site.swap import locked, recover_locked, swap, work_dir
from reportgen.site.write import BuildStats, build_site, default_cache_dir


def _is_site(p: Path) -> bool:
    return (p / "index.html").is_file() and (p / "evidence.jsonl").is_file()


def check_out(out: Path) -> None:
    """Refuse an --out that a build must not replace, before anything is created for it:
    a filesystem root, a file, or a folder with files that is not a reportgen site."""
    full = Path(os.path.abspath(out))
    if full.parent == full:
        raise BuildError(f"refusing --out {out}: the site folder is replaced as a whole, "
                         "so it cannot be a filesystem root; choose a new folder", file=out)
    if full.exists() and not full.is_dir():
        raise BuildError(f"--out {out} is a file, not a folder", file=out)
    if full.is_dir() and any(full.iterdir()) and not _is_site(full):
        raise BuildError(f"refusing to replace {out}: it is not a reportgen site "
                         "(no index.html and evidence.jsonl); choose another --out", file=out)


def publish(v: Verification, out: Path, templates: Path | None = None, jobs: int = 1,
            cache_dir: Path | None = None, helper=None,
            on_swapped: Callable[[Path], None] | None = None) -> BuildStats:
    """build_site() into this output's temporary folder beside it, then swap it into place
    in one step (see reportgen.site.swap). A swap a killed build left half done is undone first.

    The lock (`.reportgen/<name>.lock` beside `out`, held with flock) keeps a second build
    of the same output from running at once; it fails at once with BuildError.
    `on_swapped(out)` runs after the swap, still under the lock (the no-op fingerprint is
    recorded there, so it can never describe another build's output)."""
    out = Path(os.path.realpath(out) if os.path.islink(out) else os.path.abspath(out))
    try:
        return _publish(v, out, templates, jobs, cache_dir, helper, on_swapped)
    except OSError as e:  # an unwritable or vanished folder: the previous site is untouched
        hint = _WRITE_HINTS.get(e.errno or 0, "choose an --out in a folder you can write to")
        raise BuildError(f"cannot write {_written(e, out)} ({e.strerror or e}); the site was "
                         f"not written: {hint}", file=out) from None


_WRITE_HINTS = {
    errno.EFBIG: "raise the file size limit (ulimit -f) or write to a filesystem that takes "
                 "files this large",
    errno.ENOSPC: "free some space or choose an --out on another filesystem",
    errno.EDQUOT: "free some space or choose an --out on another filesystem",
}


def _written(e: OSError, out: Path) -> str:
    """The output file an OSError is about, as it would stand in the site (not the
    temporary folder it was being built in, nor the source of a copy that failed to write)."""
    from reportgen.errors import display_path

    where = e.filename
    if e.filename2 is not None and e.errno in _WRITE_HINTS:
        where = e.filename2  # shutil's copies give (source, destination)
    if where is None:
        return display_path(out)
    try:
        rel = Path(os.fsdecode(where)).relative_to(work_dir(out) / "new")
    except ValueError:
        return display_path(os.fsdecode(where))
    return display_path(out / rel)


def _publish(v: Verification, out: Path, templates: Path | None, jobs: int,
             cache_dir: Path | None, helper, on_swapped: Callable[[Path], None] | None
             ) -> BuildStats:
    check_out(out)
    with locked(out):
        recover_locked(out)  # a swap a killed build left half done; its leftovers
        check_out(out)  # what recovery put back is checked too
        wd = work_dir(out)
        new = wd / "new"
        wd.mkdir(parents=True)
        try:
            stats = build_site(v, new, templates, jobs,
                               cache_dir if cache_dir is not None else default_cache_dir(out),
                               helper=helper, previous=out)
            fingerprint.forget(out)  # from here on the recorded output is gone
            swap(new, out)
            if on_swapped is not None:
                on_swapped(out)
        finally:
            shutil.rmtree(wd, ignore_errors=True)
        return stats
