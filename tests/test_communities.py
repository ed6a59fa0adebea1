"""Communities: the strict-partition rule, seeded reproducibility, fingerprints, summaries
kept by fingerprint and rebuilt only above an edited fact."""

from __future__ import annotations

import json

import pytest

from commkit import fact, planted, two_triangles
from reportgen.communities.cluster import community_id, hierarchy, strict_problem
from reportgen.communities.detect import detect, fingerprint
from reportgen.communities.run import to_json
from reportgen.communities.store import SummaryStore
from reportgen.communities.summary import check, summarize, valid_citations

PARENT = ["a", "b", "c", "d"]


def test_strict_partition_accepts_a_partition():
    assert strict_problem(PARENT, [["a", "b"], ["c", "d"]]) is None


@pytest.mark.parametrize("children, problem", [
    ([["a", "b", "c", "d"]], "1 child community, at least 2 needed"),
    ([["a", "b"], ["b", "c", "d"]], "member b is in two children"),
    ([["a", "b"], ["c", "d", "x"]], "child member x is not in the parent"),
    ([["a", "b"], ["c"]], "parent member d is in no child"),
])
def test_strict_partition_names_each_broken_condition(children, problem):
    assert strict_problem(PARENT, children) == problem


def test_a_split_into_one_group_makes_a_leaf_that_says_why():
    nodes = [f"n{i}" for i in range(6)]
    w = {(a, b): 1.0 for a in nodes for b in nodes if a < b}
    levels = hierarchy(nodes, w, split=lambda n, e, ws, s, r: [0] * n)
    assert len(levels) == 1
    assert levels[0][0].leaf == "partition not strict: 1 child community, at least 2 needed"


def test_leaf_reasons_too_small_and_level_cap():
    g, facts = planted()
    deep = detect(g, facts, max_levels=3)
    reasons = {c.leaf.split(" ")[0] for lv in deep.levels for c in lv if c.leaf}
    assert {"too", "level"} <= reasons
    capped = detect(g, facts, max_levels=1)
    assert all(c.leaf == "level cap (1 levels)" for c in capped.levels[0])


def test_hierarchy_is_strict_at_every_level():
    g, facts = planted()
    comms = detect(g, facts)
    assert len(comms.levels) >= 2
    assert sorted(m for c in comms.levels[0] for m in c.members) == sorted(g.nodes)
    by_id = comms.by_id()
    for lv in comms.levels:
        for c in lv:
            assert c.id == community_id(c.members)
            if c.children:
                assert strict_problem(c.members, [by_id[k].members for k in c.children]) is None
                assert all(by_id[k].parent == c.id for k in c.children)
            else:
                assert c.leaf


def test_same_seed_same_bytes_and_another_seed_may_differ():
    g, facts = planted(seed=7)
    out = []
    for _ in range(2):
        comms = detect(g, facts, seed=42)
        run = summarize(comms, _NullStore())
        out.append(json.dumps(to_json(comms, run), ensure_ascii=False))
    assert out[0] == out[1]


def test_gap_edges_join_nothing_and_are_listed_beside():
    g, facts = two_triangles()
    comms = detect(g, facts)
    groups = sorted(c.members for c in comms.levels[0])
    assert groups == [("alpha", "beta", "gamma"), ("delta", "eps", "zeta")]
    for c in comms.levels[0]:
        assert [e.id for e in c.gaps] == ["e7"]
        assert "e7" not in [e.id for e in c.edges]


def test_an_edge_whose_anchor_misses_is_a_gap_and_is_never_cited():
    g, facts = two_triangles()
    facts["f2"] = fact("f2", hit=False)
    comms = detect(g, facts)
    a = next(c for c in comms.levels[0] if "alpha" in c.members)
    assert [e.id for e in a.gaps if e.id == "e2"] == ["e2"]
    assert "does not hit" in next(e.gap for e in a.gaps if e.id == "e2")
    run = summarize(comms, _NullStore())
    assert all("f2" not in s["citations"] for s in run.summaries[a.id])


# ---- fingerprints --------------------------------------------------------------------

def _fp_of(g, facts, member="alpha"):
    comms = detect(g, facts)
    return next(c.fingerprint for c in comms.levels[0] if member in c.members)


def test_fingerprint_changes_with_member_edge_quote_and_pdf_hash():
    g, facts = two_triangles()
    base = _fp_of(g, facts)
    # a member
    g2, _ = two_triangles()
    g2.add_edge("alpha", "omega", key="e8", relation="buys_from", report="R1", anchors=("f12",),
                gap=None, qualifiers={}, valid_from=None, valid_to=None, file="R1.yaml", line=9)
    g2.nodes["omega"].update(name="Omega", type=None, aliases=(), docs=())
    assert _fp_of(g2, {**facts, "f12": fact("f12")}) != base
    # an edge (its relation; its qualifiers)
    g3, _ = two_triangles()
    g3.edges["alpha", "beta", "e1"]["relation"] = "sells_to"
    assert _fp_of(g3, facts) != base
    g4, _ = two_triangles()
    g4.edges["alpha", "beta", "e1"]["qualifiers"] = {"share": 14.59}
    assert _fp_of(g4, facts) != base
    # an anchor's quote; a PDF's SHA-256
    assert _fp_of(g, {**facts, "f1": fact("f1", quote="another quote")}) != base
    assert _fp_of(g, {**facts, "f1": fact("f1", sha="b" * 64)}) != base


def test_fingerprint_stays_when_nothing_it_covers_changes():
    g, facts = two_triangles()
    base = _fp_of(g, facts)
    # a statement, the edge's place in its file, a fact of the other community
    assert _fp_of(g, {**facts, "f1": fact("f1", statement="Reworded.")}) == base
    g2, _ = two_triangles()
    g2.edges["alpha", "beta", "e1"]["line"] = 40
    assert _fp_of(g2, facts) == base
    assert _fp_of(g, {**facts, "f9": fact("f9", quote="changed elsewhere")}) == base


def test_fingerprint_function_is_order_free():
    g, facts = two_triangles()
    c = next(c for c in detect(g, facts).levels[0] if "alpha" in c.members)
    assert fingerprint(reversed(c.members), c.edges, c.gaps, facts) == c.fingerprint


# ---- summaries -----------------------------------------------------------------------

class _NullStore(SummaryStore):
    def __init__(self) -> None:
        super().__init__(None)  # type: ignore[arg-type]

    def get(self, key):
        return None

    def put(self, key, entry):
        self.written += 1

    def prune(self):
        pass


def test_extractive_summaries_cite_only_valid_facts_bottom_up():
    g, facts = planted()
    comms = detect(g, facts)
    run = summarize(comms, _NullStore())
    for lv in comms.levels:
        for c in lv:
            valid = valid_citations(c, facts)
            sents = run.summaries[c.id]
            assert sents, c.id
            assert all(s["citations"] and set(s["citations"]) <= valid for s in sents)
            assert all(s["text"] == facts[s["citations"][0]].statement for s in sents)
    assert run.n_dropped == 0


def test_check_drops_sentences_citing_outside_or_nothing():
    kept, dropped = check([{"text": "ok", "citations": ["f1"]},
                           {"text": "outside", "citations": ["f1", "f9"]},
                           {"text": "none", "citations": []}, {"text": "", "citations": ["f1"]},
                           "not a sentence"], {"f1"})
    assert kept == [{"text": "ok", "citations": ["f1"]}]
    assert [d["reason"] for d in dropped] == [
        "cites f9, not a fact that hits and anchors an edge here", "no citation", "no text",
        "no text"]


def test_summaries_are_kept_by_fingerprint(tmp_path):
    g, facts = planted()
    comms = detect(g, facts)
    n = sum(len(lv) for lv in comms.levels)
    first = summarize(comms, SummaryStore(tmp_path))
    assert first.counts == {"reused": 0, "written": n, "removed": 0}
    again = summarize(detect(g, facts), SummaryStore(tmp_path))
    assert again.counts == {"reused": n, "written": 0, "removed": 0}
    assert again.summaries == first.summaries


def test_editing_one_fact_rewrites_only_the_summaries_above_it(tmp_path):
    g, facts = planted()
    comms = detect(g, facts)
    summarize(comms, SummaryStore(tmp_path))
    by_id = comms.by_id()
    deepest = max((c for lv in comms.levels for c in lv if c.edges),
                  key=lambda c: c.level)
    target = deepest.edges[0].anchors[0]
    chain = []
    c = deepest
    while c is not None:
        chain.append(c.id)
        c = by_id.get(c.parent) if c.parent else None
    assert len(chain) >= 2
    edited = {**facts, target: fact(target, quote="a corrected quote")}
    after = detect(g, edited)
    assert {c.id for lv in after.levels for c in lv} == set(by_id)  # same members, same ids
    changed = {c.id for lv in after.levels for c in lv
               if c.fingerprint != by_id[c.id].fingerprint}
    assert changed == set(chain)
    run = summarize(after, SummaryStore(tmp_path))
    n = sum(len(lv) for lv in comms.levels)
    assert run.counts == {"reused": n - len(chain), "written": len(chain),
                          "removed": len(chain)}


def test_a_community_that_is_gone_is_removed(tmp_path):
    g, facts = two_triangles()
    summarize(detect(g, facts), SummaryStore(tmp_path))
    g.remove_node("zeta")
    run = summarize(detect(g, facts), SummaryStore(tmp_path))
    assert run.counts["removed"] == 1 and run.counts["written"] == 1


def test_leiden_imports_no_numpy_and_partitions_as_igraphs_own_constructor_does():
    """igraph.Graph's constructor imports NumPy (0.1 s a process) only to look at its edge
    list; `leiden` builds the same graph without it."""
    import subprocess
    import sys

    code = ("import sys, igraph, leidenalg\n"
            "from reportgen.communities.cluster import leiden\n"
            "edges = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]\n"
            "ws = [1.0, 2.0, 1.0, 1.0, 1.0, 3.0, 0.5]\n"
            "got = leiden(6, edges, ws, 42, 1.0)\n"
            "print('numpy' in sys.modules)\n"
            "g = igraph.Graph(n=6, edges=edges, directed=False)\n"
            "g.es['weight'] = ws\n"
            "p = leidenalg.find_partition(g, leidenalg.RBConfigurationVertexPartition,\n"
            "    weights='weight', resolution_parameter=1.0, seed=42, n_iterations=2)\n"
            "print(got == list(p.membership), len(set(got)))\n")
    from pathlib import Path

    root = str(Path(__file__).resolve().parent.parent)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=root, check=True).stdout.split("\n")
    assert out[0] == "False"
    assert out[1] == "True 2"
