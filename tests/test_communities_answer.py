"""Global answers: every sentence cites facts that hit, with and without a model;
--dry-run calls nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from commkit import fact, graph, two_triangles
from llmkit import Replay, make_model, tool_response
from reportgen.communities.answer import answer_global, ask_global, level_communities
from reportgen.communities.detect import detect
from reportgen.communities.store import SummaryStore
from reportgen.communities.summary import summarize, valid_citations

ROOT = Path(__file__).resolve().parent.parent


def _summaries(comms, tmp):
    return summarize(comms, SummaryStore(tmp)).summaries


def _assert_cited(ans, comms):
    hits = {f for f, i in comms.facts.items() if i.hit}
    by_id = comms.by_id()
    for s in ans.sentences:
        assert s["citations"] and set(s["citations"]) <= hits
        assert set(s["citations"]) <= set().union(
            *(valid_citations(by_id[c], comms.facts) for c in s["communities"]))


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    import shutil

    work = tmp_path_factory.mktemp("ledger")
    shutil.copytree(ROOT / "claims", work / "claims")
    shutil.copytree(ROOT / "samples", work / "samples")
    return work / "claims"


def test_the_sample_answers_a_global_question_with_cited_sentences(sample):
    ans, run = ask_global([sample], "Which suppliers does Sungrow buy from, and what share?")
    assert ans.mode == "extractive" and ans.calls == 0
    assert ans.sentences
    cited = {c for s in ans.sentences for c in s["citations"]}
    assert cited <= {"s3-5", "s3-6", "s3-7", "s3-8", "s3-9", "s3-10"}
    assert "s3-5" in cited
    assert ans.communities == [ans.sentences[0]["communities"][0]]


def test_extractive_answer_groups_by_community_best_first():
    g, facts = two_triangles()
    facts = {k: fact(k, statement=("Gamma ships cells." if k in ("f2", "f3")
                                   else f"Statement {k}.")) for k in facts}
    comms = detect(g, facts)
    ans = answer_global("Who ships cells?", comms, summarize(comms, _null()).summaries)
    assert [s["citations"] for s in ans.sentences] in ([["f2"], ["f3"]], [["f3"], ["f2"]])
    _assert_cited(ans, comms)


def test_a_tight_budget_leaves_sentences_out_with_the_reason():
    g, facts = two_triangles()
    facts = {k: fact(k, statement="Gamma ships cells to Alpha in bulk.") for k in facts}
    comms = detect(g, facts)
    sums = summarize(comms, _null()).summaries
    stop = answer_global("cells", comms, sums, budget=12, policy="stop")
    assert len(stop.sentences) == 1
    assert stop.left_out and "needs" in stop.left_out[0]["reason"]
    assert any("after the stop" in lo["reason"] for lo in stop.left_out)


def test_level_communities_cover_every_member_at_every_level():
    from commkit import planted

    g, facts = planted()
    comms = detect(g, facts)
    for level in range(len(comms.levels) + 1):
        members = sorted(m for c in level_communities(comms, level) for m in c.members)
        assert members == sorted(g.nodes)


# ---- the model path -------------------------------------------------------------------

def test_map_reduce_drops_what_it_cannot_cite(tmp_path):
    g, facts = two_triangles()
    comms = detect(g, facts)
    r = Replay("map_ok", "reduce_ok")
    m = make_model(r, tmp_path / "llm")
    ans = answer_global("Who supplies Alpha?", comms, _summaries(comms, tmp_path / "s"),
                        model=m)
    assert ans.mode == "model"
    assert ans.sentences == [{"text": "Alpha's suppliers are Beta and Gamma.",
                              "citations": ["f1", "f2"], "communities": [ans.communities[0]]}]
    stages = [(d["stage"], d["citations"]) for d in ans.dropped]
    assert stages == [("map", ["f9"]), ("reduce", ["f3"])]
    assert (ans.calls, ans.tokens_in, ans.tokens_out) == (2, 1420 + 980, 190 + 75)
    _assert_cited(ans, comms)
    reduce_in = json.loads(r.bodies()[1]["messages"][0]["content"])
    assert [p["score"] for p in reduce_in["partials"]] == [80]  # a score of 0 is not kept
    # asked again: the response cache answers, no request
    r2 = Replay()
    again = answer_global("Who supplies Alpha?", comms, _summaries(comms, tmp_path / "s"),
                          model=make_model(r2, tmp_path / "llm"))
    assert r2.requests == [] and again.sentences == ans.sentences and again.cached == 2


def test_dry_run_plans_and_calls_nothing(tmp_path):
    g, facts = two_triangles()
    comms = detect(g, facts)
    r = Replay("map_ok", "reduce_ok")
    ans = answer_global("Who supplies Alpha?", comms, _summaries(comms, tmp_path),
                        model=make_model(r), dry_run=True)
    assert r.requests == []
    assert ans.plan["map_calls"] == 1 and ans.plan["reduce_calls"] == 1
    assert ans.plan["estimated_input_tokens"] > 0 and ans.sentences == []
    small = answer_global("Who supplies Alpha?", comms, _summaries(comms, tmp_path),
                          model=make_model(r), dry_run=True, budget=10)
    assert small.plan["map_calls"] == 2 and r.requests == []


def _null():
    class Null(SummaryStore):
        def get(self, key):
            return None

        def put(self, key, entry):
            pass

        def prune(self):
            pass
    return Null(Path("/nonexistent"))


# ---- random ledgers --------------------------------------------------------------------

WORDS = ["cells", "storage", "supplier", "grid", "Alpha", "Beta", "储能", "电池", "供应商",
         "share", "contract", "project"]


@st.composite
def ledgers(draw):
    n = draw(st.integers(2, 12))
    nodes = [f"n{i}" for i in range(n)]
    edges, facts = [], {}
    for k in range(draw(st.integers(1, 30))):
        a, b = draw(st.sampled_from(nodes)), draw(st.sampled_from(nodes))
        if draw(st.booleans()) and k % 5 == 4:
            edges.append((f"e{k}", a, "rel", b, [], "a gap"))
            continue
        fids = [f"f{k}-{j}" for j in range(draw(st.integers(1, 2)))]
        for f in fids:
            words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
            facts[f] = fact(f, hit=draw(st.integers(0, 4)) > 0, statement=" ".join(words))
        edges.append((f"e{k}", a, "rel", b, fids, None))
    question = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4)))
    return graph(edges), facts, question


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ledgers(), st.integers(0, 2))
def test_extractive_answers_on_random_ledgers_cite_only_hits(case, level):
    g, facts, question = case
    comms = detect(g, facts)
    ans = answer_global(question, comms, summarize(comms, _null()).summaries, level=level)
    _assert_cited(ans, comms)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ledgers(), st.randoms(use_true_random=False))
def test_model_answers_on_random_ledgers_cite_only_hits(case, rnd):
    g, facts, question = case
    comms = detect(g, facts)
    sums = summarize(comms, _null()).summaries
    everything = sorted(facts) + ["nope"]
    plan = answer_global(question, comms, sums, model=make_model(Replay()), dry_run=True)
    units = [c.id for c in level_communities(comms, 0) if sums.get(c.id)]

    def sentences():
        return [{"text": "s", "citations": rnd.sample(everything, k=min(2, len(everything)))}
                for _ in range(rnd.randint(0, 3))]

    maps = [tool_response("record_partials", {"partials": [
        {"community": rnd.choice(units + ["c-unknown"]), "score": rnd.randint(0, 100),
         "answer": sentences()} for _ in range(rnd.randint(0, 4))]})
        for _ in range(plan.plan["map_calls"])]
    r = Replay(*maps, tool_response("record_answer", {"sentences": sentences() * 2}))
    ans = answer_global(question, comms, sums, model=make_model(r))
    _assert_cited(ans, comms)
    assert len(r.requests) == plan.plan["map_calls"] + plan.plan["reduce_calls"] \
        or len(r.requests) == plan.plan["map_calls"]  # no partial scored: no reduce
