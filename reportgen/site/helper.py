"""The template helper: a forked process that imports Jinja2 and compiles the templates
while the build verifies, then renders the HTML while the build renders crops."""

from __future__ import annotations

import os
from pathlib import Path

from reportgen.model import Ledger
from reportgen.site.write import default_cache_dir


def die_with_parent(parent: int) -> None:
    """In a forked helper: end this process when `parent` ends, however it ends (kill -9
    too). A pool worker holds both ends of its task pipe, so it would wait for a task
    forever. Linux: PR_SET_PDEATHSIG; elsewhere a thread that watches the parent's pid."""
    import signal

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        ok = False
    if not ok:
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, name="die-with-parent", daemon=True).start()
    if os.getppid() != parent:  # the parent went before the signal was armed
        os._exit(1)


def _warm_helper(parent: int, templates: str | None, bytecode: str | None) -> None:
    from reportgen.render.pages import warm_up

    die_with_parent(parent)
    try:
        warm_up(Path(templates) if templates else None, Path(bytecode) if bytecode else None)
    except Exception:  # only a head start: the same problem is reported by the build itself
        pass


def preload_clustering() -> None:
    """In the helper, while the build verifies: the clustering libraries the graph pages
    will need (only a head start: a failure here is the page's to report)."""
    from reportgen.communities.cluster import preload

    try:
        preload()
    except Exception:
        pass


def ledger_read(helper, ledger: Ledger) -> None:
    """Give the helper the work the ledger calls for, ahead of its pages: the clustering
    imports when a report has edges."""
    if helper is None or not any(rep.edges for rep in ledger.reports):
        return
    try:
        helper.submit(preload_clustering)
    except Exception:  # a broken helper: build_site renders without it
        pass


def start_helper(out: Path, templates: Path | None = None):
    """A process that imports Jinja2 and markdown-it and compiles the templates while the
    caller verifies the ledger; build_site() then renders the HTML in it while the caller
    renders crops. None where fork is unavailable (build_site then works alone)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    bytecode = default_cache_dir(Path(out)).parent / "jinja"
    ex = ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("fork"),
        initializer=_warm_helper,
        initargs=(os.getpid(), os.fspath(templates) if templates else None,
                  os.fspath(bytecode)))
    ex.submit(int)  # the pool forks on the first submit: start warming up now
    return ex
