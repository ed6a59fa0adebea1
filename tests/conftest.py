"""Fixtures shared across test files: expensive read-only setups made once per test run."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from runkit import check_unchanged, folder_state

# No per-example deadline for any property: CI runs the suite on a loaded 2-core machine,
# where a slow example says nothing about the property it checks.
settings.register_profile("reportgen", deadline=None)
settings.load_profile("reportgen")


@pytest.fixture(scope="session")
def run_once(tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[Callable[[str, Callable[[Path], None]], Path]]:
    """`run_once(name, fill)`: a folder that `fill(folder)` fills once per test run, shared by
    every pytest-xdist worker (they wait on a lock while the first one fills it). Tests only
    read it, and only through a copy when they open a database in it; a test that writes
    works on a copy. Each use, and the end of each worker's session, checks that nothing
    changed it since it was filled."""
    base = tmp_path_factory.getbasetemp()
    # under xdist each worker's base is <the run's base>/popen-gwN: share the run's
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    used: set[str] = set()

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
                done.write_text(json.dumps(folder_state(folder)), encoding="utf-8")
            check_unchanged(folder, done)
        used.add(name)
        return folder

    yield get
    for name in sorted(used):
        with open(shared / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            check_unchanged(shared / name, shared / f"{name}.done")


# The browser test modules. `make test` runs them one after the other in one worker (see
# FAMILIES below), and they share one Chromium there.
BROWSER_MODULES = {"test_browser.py", "test_browser_site.py", "test_browser_serve.py",
                   "test_graph_browser.py"}


class _Chromium:
    """One Playwright and one Chromium for a run of consecutive browser modules in a test
    process (starting them costs about a second and a half of CPU). It is closed before a
    test of any other module runs: Playwright's sync API runs an event loop in this thread
    while it lives, and the MCP tests (anyio) need the thread free."""

    def __init__(self) -> None:
        self.playwright = None
        self.browser = None

    def get(self):
        if self.browser is None:
            from playwright.sync_api import sync_playwright

            from browserkit import ARGS, CHROMIUM

            self.playwright = sync_playwright().start()
            self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        return self.browser

    def close(self) -> None:
        if self.browser is not None:
            try:
                self.browser.close()
            finally:
                self.playwright.stop()
                self.browser = self.playwright = None


_CHROMIUM = _Chromium()


@pytest.fixture(scope="module")
def browser():
    """The Chromium of this run of browser modules (see _Chromium)."""
    return _CHROMIUM.get()


@pytest.fixture(scope="module")
def tabs(browser):
    """Pages of this module's browser, re-navigated rather than opened anew."""
    from browserkit import Tabs

    t = Tabs(browser)
    yield t
    t.close()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.path.name not in BROWSER_MODULES:
        _CHROMIUM.close()


def pytest_sessionfinish() -> None:
    _CHROMIUM.close()


@pytest.fixture(scope="session", autouse=True)
def _html_libraries_imported() -> None:
    """Import what the HTML half of a build imports (Jinja2, markdown-it, and igraph and
    leidenalg for the communities) and compile the built-in templates once per
    test process: every build forks a template helper, which otherwise does both again,
    a third of a second per build. Tests of what a command imports run it in a
    subprocess, so this hides nothing."""
    import igraph  # noqa: F401
    import leidenalg  # noqa: F401

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


# Under `make test` (pytest-xdist, --dist loadscope) a worker takes one unit of work at a
# time: a module, or one of these families of modules, which share what is costly to start
# once per test process: Chromium (the browser modules), anthropic and mcp (a second and a
# half and a second of CPU to import; the agent modules).
FAMILIES = {name: "browser" for name in BROWSER_MODULES} | {
    name: "agent" for name in ("test_mcp.py", "test_draft.py", "test_mcp_jobs.py",
                               "test_llm.py", "test_communities_model.py",
                               "test_communities_answer.py", "test_communities_cli.py",
                               "test_mcp_units.py")}

# The modules that take longest, heaviest first: run before the rest, so that no long unit
# starts last. Units are handed out in this order (not by their number of tests).
RUN_FIRST = ["test_browser_site.py", "test_browser.py", "test_browser_serve.py",
             "test_graph_browser.py", "test_sample.py", "test_mcp.py", "test_draft.py",
             "test_mcp_jobs.py", "test_llm.py", "test_communities_model.py",
             "test_communities_answer.py", "test_communities_cli.py", "test_mcp_units.py",
             "test_hostile_site.py",
             "test_drift.py", "test_cache.py", "test_stub_round_trip.py",
             "test_index_sample.py", "test_hostile_cli.py", "test_hostile_ledger.py",
             "test_corpus.py", "test_hostile_index.py", "test_build_cli.py", "test_serve.py",
             "test_noop_build.py"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(RUN_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(RUN_FIRST)))  # stable


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """--dist loadscope with the FAMILIES as units, handed out in collection order."""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FamilyScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return FAMILIES.get(module.rsplit("/", 1)[-1]) or super()._split_scope(nodeid)

    config.option.loadscopereorder = False  # keep RUN_FIRST's order
    return FamilyScheduling(config, log)
