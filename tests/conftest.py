"""Fixtures shared across test files: expensive read-only setups made once per test run."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def run_once(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[Path], None]], Path]:
    """`run_once(name, fill)`: a folder that `fill(folder)` fills once per test run, shared by
    every pytest-xdist worker (they wait on a lock while the first one fills it). Tests only
    read it; a test that writes works on a copy."""
    base = tmp_path_factory.getbasetemp()
    # under xdist each worker's base is <the run's base>/popen-gwN: share the run's
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base

    def get(name: str, fill: Callable[[Path], None]) -> Path:
        folder = shared / name
        done = shared / f"{name}.done"
        with open(shared / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if not done.exists():
                if folder.exists():  # left half-filled by a worker that failed
                    shutil.rmtree(folder)
                folder.mkdir()
                fill(folder)
                done.touch()
        return folder

    return get


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module. Not per session: Playwright's sync API runs an event
    loop in this thread while it lives, and the MCP tests (anyio) need the thread free."""
    from playwright.sync_api import sync_playwright

    from browserkit import ARGS, CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session", autouse=True)
def _html_libraries_imported() -> None:
    """Import what the HTML half of a build imports (Jinja2, markdown-it, and igraph,
    leidenalg and NumPy for the communities) and compile the built-in templates once per
    test process: every build forks a template helper, which otherwise does both again,
    a third of a second per build. Tests of what a command imports run it in a
    subprocess, so this hides nothing."""
    import igraph  # noqa: F401
    import leidenalg  # noqa: F401
    import numpy  # noqa: F401  (igraph imports it on the first Graph)

    import reportgen.communities.cluster  # noqa: F401
    import reportgen.render.markdown  # noqa: F401
    from reportgen.render.pages import get_env

    env = get_env()  # the built-in templates' environment, compiled once for every fork
    for name in env.list_templates(extensions=["html"]):
        env.get_template(name)


@pytest.fixture(scope="session")
def sample_site(run_once) -> Path:
    """The sample ledger (claims/) verified and published once per test run: read only."""

    def fill(folder: Path) -> None:
        from reportgen.site.publish import publish
        from reportgen.verify.run import verify

        v = verify([Path(__file__).resolve().parent.parent / "claims"])
        assert v.ok, "the sample ledger must verify"
        publish(v, folder / "site")

    return run_once("sample-site", fill) / "site"


# The modules that take longest, heaviest first: run before the rest, so that under
# pytest-xdist (`make test`: one module per worker at a time) no long module starts last.
# Two modules that share a run_once folder are kept apart (test_mcp/test_draft,
# test_index_sample/test_stub_round_trip), so one worker rarely waits for the other.
RUN_FIRST = ["test_sample.py", "test_hostile_site.py", "test_browser_site.py", "test_mcp.py",
             "test_drift.py", "test_hostile_cli.py", "test_browser.py", "test_index_sample.py",
             "test_hostile_ledger.py", "test_hostile_index.py", "test_cache.py",
             "test_build_cli.py", "test_corpus.py", "test_communities_answer.py"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(RUN_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(RUN_FIRST)))  # stable
