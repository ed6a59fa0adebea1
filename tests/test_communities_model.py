"""Model summaries through recorded responses: uncitable sentences dropped and counted,
kept by fingerprint so a rerun sends nothing."""

from __future__ import annotations

import pytest

from commkit import two_triangles
from llmkit import Replay, make_model, tool_response
from reportgen.communities.detect import detect
from reportgen.communities.store import SummaryStore
from reportgen.communities.summary import summarize
from reportgen.llm.errors import MalformedToolCall


def _comms():
    g, facts = two_triangles()
    comms = detect(g, facts)
    a, b = sorted(comms.levels[0], key=lambda c: c.members)
    return comms, a, b


def test_a_sentence_citing_outside_its_community_is_dropped_and_counted(tmp_path):
    comms, a, b = _comms()
    order = [c.id for c in comms.levels[0]]
    answers = {a.id: "summary_outside",
               b.id: tool_response("record_summary", {"sentences": [
                   {"text": "Delta buys from Eps.", "citations": ["f9"]}]})}
    r = Replay(*[answers[cid] for cid in order])
    m = make_model(r, tmp_path / "llm")
    run = summarize(comms, SummaryStore(tmp_path / "s"), m)
    assert run.summaries[a.id] == [{"text": "Alpha buys from Beta.", "citations": ["f1"]}]
    assert [d["citations"] for d in run.dropped[a.id]] == [["f9"], ["f2", "f9"]]
    assert run.n_dropped == 2
    assert run.summaries[b.id] == [{"text": "Delta buys from Eps.", "citations": ["f9"]}]
    sent = {body["messages"][0]["content"] for body in r.bodies()}
    assert len(sent) == 2 and m.usage.calls == 2
    # a rerun reuses the kept summaries: no request at all
    r2 = Replay()
    again = summarize(comms, SummaryStore(tmp_path / "s"), make_model(r2, tmp_path / "llm"))
    assert r2.requests == [] and again.counts["reused"] == 2
    assert again.summaries == run.summaries and again.n_dropped == 2


def test_the_response_cache_alone_makes_a_rerun_free(tmp_path):
    comms, a, b = _comms()
    r = Replay("summary_ok", "summary_ok")
    summarize(comms, SummaryStore(tmp_path / "s1"), make_model(r, tmp_path / "llm"))
    r2 = Replay()
    m2 = make_model(r2, tmp_path / "llm")
    summarize(comms, SummaryStore(tmp_path / "s2"), m2)  # a fresh summary store
    assert r2.requests == [] and m2.usage.cached == 2


def test_nothing_valid_left_falls_back_to_the_extractive_summary(tmp_path):
    comms, a, b = _comms()
    r = Replay("summary_ok", "summary_ok")  # both cite f1 and f2: valid in one of the two
    run = summarize(comms, SummaryStore(tmp_path), make_model(r))
    other = b if "alpha" in a.members else a
    assert run.fallbacks == 1
    assert {c for s in run.summaries[other.id] for c in s["citations"]} <= {"f9", "f10", "f11"}
    assert run.summaries[other.id]


def test_a_malformed_call_asked_again_then_used(tmp_path):
    comms, a, b = _comms()
    r = Replay("summary_malformed", "summary_ok", "summary_ok")
    m = make_model(r)
    summarize(comms, SummaryStore(tmp_path), m)
    assert m.usage.malformed == 1 and m.usage.calls == 3


def test_malformed_twice_stops_the_run(tmp_path):
    comms, a, b = _comms()
    r = Replay("summary_malformed", "summary_malformed")
    with pytest.raises(MalformedToolCall):
        summarize(comms, SummaryStore(tmp_path), make_model(r))


def test_the_model_reads_members_edges_facts(tmp_path):
    comms, a, b = _comms()
    r = Replay("summary_ok", "summary_ok")
    summarize(comms, SummaryStore(tmp_path), make_model(r))
    import json
    payload = json.loads(r.bodies()[0]["messages"][0]["content"])
    assert {f["id"] for f in payload["facts"]} in ({"f1", "f2", "f3"}, {"f9", "f10", "f11"})
    assert payload["children"] == [] and len(payload["edges"]) == 3
