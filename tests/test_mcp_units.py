"""The MCP layer's pure parts: argument checks against the tool table, and output caps."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.agent.errors import ToolError
from reportgen.agent.output import MIN_STRING, cap, size
from reportgen.agent.tools import TOOLS, tool


def test_defaults_are_filled_and_bounds_enforced() -> None:
    find = tool("find_evidence")
    assert find.check({"query": "储能"}) == {"query": "储能", "doc": None, "k": 5}
    assert find.check({"query": "储能", "k": 7.0})["k"] == 7  # a whole float is a number
    for bad in ({"query": "储能", "k": True}, {"query": "储能", "k": 0},
                {"query": " "}, {"query": "储能", "doc": "../x"},
                {"query": "储能", "extra": 1}, {"query": ["储能"]}):
        with pytest.raises(ToolError) as e:
            find.check(bad)
        assert e.value.code == "INVALID_ARGUMENT"


def test_every_tool_schema_lists_what_it_checks() -> None:
    for t in TOOLS:
        schema = t.input_schema()
        assert set(schema["required"]) <= set(schema["properties"])
        json.dumps(schema)  # JSON as it is shown to clients


def test_cap_keeps_a_small_payload_whole() -> None:
    p = {"results": [{"text": "a"}], "query": "q"}
    assert cap(p, 1000, "results") == {**p, "truncated": False, "omitted": 0}


def test_cap_never_changes_the_callers_payload() -> None:
    p = {"claim": {"quote": "字" * 5000}}
    out = cap(p, 1000)
    assert out["truncated"] is True and size(out) <= 1000
    assert len(p["claim"]["quote"]) == 5000


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(st.text(min_size=0, max_size=300), max_size=20),
       limit=st.integers(1000, 6000))
def test_cap_fits_the_limit_and_says_when_it_cut(texts: list[str], limit: int) -> None:
    p = {"results": [{"text": t, "n": i} for i, t in enumerate(texts)]}
    out = cap(p, limit, "results")
    assert size(out) <= limit
    kept = out["results"]
    assert len(kept) + out["omitted"] == len(texts)
    whole = all(a == b for a, b in zip(kept, p["results"])) and not out["omitted"]
    assert out["truncated"] is (not whole)
    for a, b in zip(kept, p["results"]):  # a cut string is a prefix and says so
        assert a["text"] == b["text"] or (a["text"].endswith("…")
                                          and b["text"].startswith(a["text"][:-1])
                                          and len(a["text"]) > MIN_STRING)
