"""The model module through the real anthropic client and recorded responses."""

from __future__ import annotations

import json

import pytest

from llmkit import Replay, make_model
from reportgen.llm.client import Model, default_backoff
from reportgen.llm.errors import MalformedToolCall, MissingKey, ModelError
from reportgen.llm.prompts import load_prompt, parse_prompt

PAYLOAD = {"community": "c-1", "facts": [{"id": "f1", "statement": "Alpha buys from Beta."}]}


def test_a_call_forces_the_tool_and_counts_tokens():
    r = Replay("summary_ok")
    m = make_model(r)
    got = m.call(load_prompt("summary"), PAYLOAD)
    assert got["sentences"][0]["citations"] == ["f1", "f2"]
    body = r.bodies()[0]
    assert body["tool_choice"] == {"type": "tool", "name": "record_summary"}
    assert [t["name"] for t in body["tools"]] == ["record_summary"]
    assert body["model"] == "claude-sonnet-5-5"
    assert json.loads(body["messages"][0]["content"]) == PAYLOAD
    assert r.requests[0].headers["authorization"] == "Bearer sk-ant-test"
    assert (m.usage.calls, m.usage.input_tokens, m.usage.output_tokens) == (1, 812, 96)


def test_rate_limited_then_success_waits_the_servers_retry_after():
    r = Replay("rate_limited", "summary_ok")
    m = make_model(r)
    m.call(load_prompt("summary"), PAYLOAD)
    assert len(r.requests) == 2
    assert m.waits == [7.0]  # the 429's retry-after header
    assert (m.usage.calls, m.usage.retries) == (2, 1)
    assert m.usage.input_tokens == 812  # the 429 carried no usage


@pytest.mark.parametrize("first", ["server_error", "overloaded"])
def test_5xx_then_success_backs_off(first):
    r = Replay(first, first, "summary_ok")
    m = make_model(r, backoff=lambda attempt, after: 10.0 * (attempt + 1))
    m.call(load_prompt("summary"), PAYLOAD)
    assert len(r.requests) == 3
    assert m.waits == [10.0, 20.0]
    assert m.usage.retries == 2


def test_retries_spent_is_an_error_naming_the_status():
    r = Replay(*["server_error"] * 3)
    m = make_model(r, max_retries=2)
    with pytest.raises(ModelError, match="500 3 times"):
        m.call(load_prompt("summary"), PAYLOAD)
    assert len(r.requests) == 3


def test_a_4xx_is_not_retried():
    r = Replay("bad_request", "summary_ok")
    m = make_model(r)
    with pytest.raises(ModelError, match=r"refused the request \(400\)"):
        m.call(load_prompt("summary"), PAYLOAD)
    assert len(r.requests) == 1


def test_malformed_tool_call_is_asked_again():
    r = Replay("summary_malformed", "summary_ok")
    m = make_model(r)
    got = m.call(load_prompt("summary"), PAYLOAD)
    assert got["sentences"][0]["text"].startswith("Alpha buys")
    assert (m.usage.calls, m.usage.malformed) == (2, 1)


def test_malformed_twice_is_an_error(tmp_path):
    r = Replay("summary_malformed", "summary_malformed")
    m = make_model(r, tmp_path / "cache")
    with pytest.raises(MalformedToolCall, match=r"input.sentences\[0\].citations must be an array"):
        m.call(load_prompt("summary"), PAYLOAD)
    assert not list((tmp_path / "cache").rglob("*.json"))  # nothing malformed is cached


def test_cache_hit_makes_no_request(tmp_path):
    first = make_model(Replay("summary_ok"), tmp_path / "cache")
    a = first.call(load_prompt("summary"), PAYLOAD)
    r = Replay()
    again = make_model(r, tmp_path / "cache")
    b = again.call(load_prompt("summary"), dict(reversed(list(PAYLOAD.items()))))
    assert a == b and r.requests == []
    assert (again.usage.calls, again.usage.cached) == (0, 1)


def test_cache_key_covers_model_prompt_and_input(tmp_path):
    m = make_model(Replay())
    p = load_prompt("summary")
    base = m.key(p, PAYLOAD)
    assert m.key(p, {**PAYLOAD, "community": "c-2"}) != base
    assert m.key(load_prompt("map"), PAYLOAD) != base
    edited = parse_prompt("summary", "v1", "Be brief.\n\n## Tool\n\n```json\n"
                          + json.dumps(p.tool) + "\n```\n")
    assert m.key(edited, PAYLOAD) != base
    other = Model("k", "claude-haiku-4-5", http_client=Replay().client())
    assert other.key(p, PAYLOAD) != base


def test_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingKey, match="ANTHROPIC_API_KEY is not set"):
        Model.from_env()


def test_model_from_environment(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    monkeypatch.setenv("REPORTGEN_MODEL", "claude-haiku-4-5")
    assert Model.from_env().model == "claude-haiku-4-5"
    monkeypatch.delenv("REPORTGEN_MODEL")
    assert Model.from_env().model.startswith("claude-")


def test_default_backoff_grows_and_honours_retry_after():
    assert default_backoff(0, 3.0) == 3.0
    waits = [default_backoff(a) for a in range(8)]
    assert 0.75 <= waits[0] <= 1.0 and 1.5 <= waits[1] <= 2.0
    assert max(waits) <= 30.0


@pytest.mark.parametrize("name", ["summary", "map", "reduce"])
def test_every_prompt_file_parses_with_its_tool(name):
    p = load_prompt(name)
    assert p.system and p.tool["input_schema"]["type"] == "object"
    assert p.id == f"{name}.v1"
