"""Shared by the MCP tests: a copy of the sample ledger with its evidence index, and the
environment a `reportgen mcp` subprocess runs in (this checkout's code)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sample_workspace(tmp: Path, index: bool = True) -> Path:
    """tmp/claims and tmp/samples/pdfs, as in the repository; unless told not to, the
    evidence index of the ledger's three documents at its default place (what
    `reportgen index claims` makes)."""
    shutil.copytree(ROOT / "claims", tmp / "claims")
    shutil.copytree(ROOT / "samples" / "pdfs", tmp / "samples" / "pdfs")
    if index:
        from reportgen.index import index_paths

        index_paths([tmp / "claims"])
    return tmp


def server_env() -> dict[str, str]:
    """The environment of a server subprocess: this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["SOURCE_DATE_EPOCH"] = "1700000000"
    return env


def indexed_sample_workspace(tmp: Path, run_once) -> Path:
    """What sample_workspace(tmp) makes, copied from the one made once per test run
    (sample_index_workspace): indexing is most of its cost. The copy's index names the PDFs
    of the original, byte for byte the copy's own."""
    ready = sample_index_workspace(run_once)
    shutil.copytree(ready, tmp, dirs_exist_ok=True)
    return tmp


def sample_index_workspace(run_once) -> Path:
    """sample_workspace(), made once per test run (conftest.run_once) and only copied: the
    MCP, draft, index and stub round-trip tests each search a copy of this one index (a
    search in place writes SQLite's WAL files beside it, under another worker's copy)."""
    return run_once("sample-index", sample_workspace)
