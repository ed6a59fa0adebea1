"""verify(): load the ledger, open each PDF once, and give every claim its verdict."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from reportgen.model import Verification


def verify(paths: Sequence[Path], allow_outside: bool = False) -> Verification:
    """Gather every verdict in memory; raises LedgerErrors for an invalid ledger or PDF."""
    raise NotImplementedError  # being written by the lead


def verdict_records(v: Verification) -> Iterator[dict]:
    """The `verify --json` objects: one per claim in ledger order, then the total."""
    raise NotImplementedError
