"""build(): the one library call that verifies a ledger and replaces a site."""

from __future__ import annotations

from pathlib import Path

import pytest

import sitekit
from reportgen.errors import LedgerErrors
from reportgen.site.build import build


def test_build_writes_then_a_second_build_is_a_no_op(tmp_path: Path) -> None:
    claims = sitekit.make_ledger(tmp_path)
    first = build([claims], tmp_path / "site")
    assert first.ok and first.written and not first.up_to_date
    assert first.lines[-1] == "TOTAL: facts=3 hits=3 misses=0"
    assert first.stats is not None and first.stats.reports == 1
    before = sitekit.snapshot(tmp_path / "site")
    again = build([claims], tmp_path / "site")
    assert again.up_to_date and not again.written and again.verification is None
    assert again.lines == first.lines and again.text == first.text
    assert sitekit.snapshot(tmp_path / "site") == before


def test_a_miss_returns_the_verdicts_and_leaves_the_site(tmp_path: Path) -> None:
    claims = sitekit.make_ledger(tmp_path)
    build([claims], tmp_path / "site")
    before = sitekit.snapshot(tmp_path / "site")
    sitekit.make_ledger(tmp_path, quote_f1="The top five suppliers held 14.59 % of all purchases.")
    r = build([claims], tmp_path / "site")
    assert not r.ok and not r.written and r.verification is not None
    assert r.lines[0].startswith("MISS f1 d1 p.1: ")
    assert r.lines[-1] == "TOTAL: facts=3 hits=2 misses=1"
    assert sitekit.snapshot(tmp_path / "site") == before


def test_an_invalid_ledger_raises_and_writes_nothing(tmp_path: Path) -> None:
    claims = sitekit.make_ledger(tmp_path)
    (claims / "s1.yaml").write_text("report: {id: S1}\nclaims: [{id: x}]\n", encoding="utf-8")
    with pytest.raises(LedgerErrors):
        build([claims], tmp_path / "site")
    assert not (tmp_path / "site").exists()
