"""Shared by the MCP tests: a copy of the sample ledger with its evidence index, and the
environment a `reportgen mcp` subprocess runs in (this checkout's code)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sample_workspace(tmp: Path, index: bool = True) -> Path:
    """tmp/claims and tmp/samples/pdfs, as in the repository; unless told not to, the
    evidence index at its default place, holding one of the three documents (300274: a
    third of the time of the whole sample)."""
    shutil.copytree(ROOT / "claims", tmp / "claims")
    shutil.copytree(ROOT / "samples" / "pdfs", tmp / "samples" / "pdfs")
    if index:
        from reportgen.index import default_db, index_paths

        index_paths([tmp / "samples" / "pdfs" / "300274.pdf"], default_db([tmp / "claims"]))
    return tmp


def server_env() -> dict[str, str]:
    """The environment of a server subprocess: this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["SOURCE_DATE_EPOCH"] = "1700000000"
    return env


def indexed_sample_workspace(tmp: Path, run_once) -> Path:
    """What sample_workspace(tmp) makes, copied from one made once per test run
    (conftest.run_once): indexing 300274 is most of its cost. The copy's index names the
    PDFs of the original, byte for byte the copy's own."""
    ready = run_once("sample-300274-index", sample_workspace)
    shutil.copytree(ready, tmp, dirs_exist_ok=True)
    return tmp
