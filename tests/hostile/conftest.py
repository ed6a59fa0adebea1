"""The hostile suite: attacks that once held or once broke reportgen, kept as fast tests.

Test files here import the shared fixtures of tests/ (pdf_fixtures, sitekit)."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent.parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
