"""Local query (graph.md section 3): binding questions, walks, evidence, the CLI."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.cli import main
from reportgen.graph import entity_graph
from reportgen.model import Edge, Fact, Ledger, Loc, Report
from reportgen.graph.query import Adjacency, Options, run_query
from reportgen.graph.question import NameIndex, bind_question

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["query", *args])
    return res.exit_code, res.output


# ---- binding ---------------------------------------------------------------------------

INDEX = NameIndex([
    ("sungrow", "阳光电源", ["Sungrow", "Sungrow Power Supply"]),
    ("sunwoda", "欣旺达", ["Sunwoda"]),
    ("hw-de", "华为数字能源", []),
    ("hw-dt", "华为数字技术", []),
    ("abb", "ABB", []),
])


@pytest.mark.parametrize("q,entities,methods", [
    ("阳光电源 欣旺达", ["sungrow", "sunwoda"], ["name", "name"]),
    ("Sungrow and Sunwoda", ["sungrow", "sunwoda"], ["alias", "alias"]),
    ("ＳＵＮＧＲＯＷ 欣旺达", ["sungrow", "sunwoda"], ["alias", "name"]),  # NFKC and case
    ("sungrow power supply", ["sungrow"], ["alias"]),  # the longest name wins
    ("阳光电源和欣旺达之间的关系", ["sungrow", "sunwoda"], ["name", "name"]),
    ("hw-de", ["hw-de"], ["id"]),
])
def test_names_bind_across_scripts(q: str, entities: list[str], methods: list[str]) -> None:
    b = bind_question(q, INDEX)
    assert b.status == "ok"
    assert [x.entity for x in b.bindings] == entities
    assert [x.method for x in b.bindings] == methods


def test_a_latin_name_binds_as_a_word_only() -> None:
    b = bind_question("ABBA", INDEX)  # not the name ABB found inside a word: a fuzzy score
    assert [(x.entity, x.method, x.score) for x in b.bindings] == [("abb", "fuzzy", 0.8)]
    assert bind_question("ABBA", INDEX, threshold=0.81).status == "unbound"


def test_fuzzy_binding_above_threshold() -> None:
    b = bind_question("Sunwodaa", INDEX)
    assert b.status == "ok" and b.bindings[0].entity == "sunwoda"
    assert b.bindings[0].method == "fuzzy" and 0.75 <= b.bindings[0].score < 1


def test_two_subsidiaries_of_one_group_are_ambiguous() -> None:
    b = bind_question("华为数字", INDEX)
    assert b.status == "ambiguous" and not b.bindings
    assert sorted(c.entity for c in b.candidates) == ["hw-de", "hw-dt"]


def test_a_name_the_ledger_never_mentions_is_unbound_not_its_neighbour() -> None:
    b = bind_question("比亚迪 阳光电源", INDEX)
    assert b.status == "unbound"
    assert [c.mention for c in b.candidates] == ["比亚迪"]
    b = bind_question("Sunshine", INDEX)  # shares "Sun" with two names: below the threshold
    assert b.status == "unbound" and not b.bindings


def test_threshold_and_margin_are_options() -> None:
    assert bind_question("华为数字", INDEX, margin=0.0).status == "ambiguous"
    assert bind_question("Sunwodaa", INDEX, threshold=0.99).status == "unbound"


# ---- walks over a small graph ------------------------------------------------------------

def graph(edges: list[tuple[str, str, str, str, dict]]) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    for u, v, key, rel, extra in edges:
        for n in (u, v):
            g.add_node(n, name=n.upper(), type=None, aliases=(), docs=())
        d = dict(relation=rel, report="R", anchors=(f"f-{key}",), gap=None, qualifiers={},
                 valid_from=None, valid_to=None, file="R.yaml", line=1)
        d.update(extra)
        g.add_edge(u, v, key=key, **d)
    return g


def hits(ids):
    return {c: {"status": "hit", "message": "", "doc": "d", "page": 1, "pageEnd": 1,
                "quote": c, "bbox": [0, 0, 1, 1], "anchorMethod": "exact"} for c in ids}


G = graph([("a", "b", "e1", "buys_from", {}), ("c", "b", "e2", "buys_from", {}),
           ("a", "c", "e3", "sells_to", {"valid_to": "2024-12-31"}),
           ("c", "d", "e4", "buys_from", {"anchors": (), "gap": "not shown"})])


def paths(q: str, **kw) -> list[list[tuple[str, str, str]]]:
    ans = run_query(G, q, Options(**kw), hits)
    return [[(h["from"], h["to"], h["direction"]) for h in p["hops"]] for p in ans.json["paths"]]


def test_reverse_hops_say_so() -> None:
    assert paths("a c", hops=2) == [[("a", "c", "forward")],
                                    [("a", "b", "forward"), ("c", "b", "reverse")]]


def test_relation_filter() -> None:
    assert paths("a c", relations=("buys_from",)) == [[("a", "b", "forward"),
                                                       ("c", "b", "reverse")]]


def test_hop_budget() -> None:
    assert paths("a d", hops=1) == []
    assert paths("a d", hops=2) == [[("a", "c", "forward"), ("c", "d", "forward")]]


def test_fanout_cut_is_counted() -> None:
    ans = run_query(G, "c", Options(fanout=1, hops=1), hits)
    assert ans.json["truncated"] == {"fanout": 2, "paths": 0}
    assert len(ans.json["paths"]) == 1


def test_limit_cut_is_counted() -> None:
    ans = run_query(G, "a", Options(limit=1), hits)
    assert len(ans.json["paths"]) == 1 and ans.json["truncated"]["paths"] > 0


def test_as_of_flags_expired_edges_without_removing_them() -> None:
    ans = run_query(G, "a c", Options(hops=1, as_of="2025-06-30"), hits)
    [p] = ans.json["paths"]
    assert p["hops"][0]["expired"] is True
    ans = run_query(G, "a c", Options(hops=1, as_of="2024-06-30"), hits)
    assert ans.json["paths"][0]["hops"][0]["expired"] is False


def test_a_missing_anchor_is_a_gap_with_the_miss_message() -> None:
    def check(ids):
        got = hits(ids)
        got["f-e1"] = {"status": "miss", "message": "quote not found on p.1", "doc": "d",
                       "page": 1}
        return got

    ans = run_query(G, "a b", Options(hops=1), check)
    [p] = ans.json["paths"]
    hop = p["hops"][0]
    assert hop["evidence"] == []
    assert hop["gap"] == "MISS f-e1 d p.1: quote not found on p.1"


# ---- properties on random ledgers ---------------------------------------------------------

NODES = [f"N{i}" for i in range(6)]
RELS = ["r", "s"]
NO_VOCABULARY = Path(tempfile.gettempdir()) / "reportgen-test-no-vocabulary"  # never created


@st.composite
def random_ledgers(draw):
    """A Ledger of one report whose edges join random names, anchored on a fact or a gap."""
    n = draw(st.integers(0, 14))
    loc = Loc("R.yaml", 1)
    claims, edges = {}, []
    for i in range(n):
        u, v = draw(st.sampled_from(NODES)), draw(st.sampled_from(NODES))
        rel = draw(st.sampled_from(RELS))
        if draw(st.booleans()):
            edges.append(Edge("R", u, rel, v, (), "why", None, None, loc))
        else:
            claims[f"f{i}"] = Fact(f"f{i}", "R", "S.", None, None, loc, doc="d", page=1,
                                   quote=f"{u} {v}")
            edges.append(Edge("R", u, rel, v, (f"f{i}",), None, None, None, loc))
    rep = Report("R", "T", "", (), tuple(claims), tuple(edges), (), loc)
    return Ledger(NO_VOCABULARY, NO_VOCABULARY, (rep,), {}, claims)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(led=random_ledgers(), a=st.sampled_from(NODES), b=st.sampled_from(NODES),
       hops=st.integers(1, 3), limit=st.integers(1, 5), fanout=st.integers(1, 4))
def test_paths_are_real_walks_within_budget_and_limit(led, a, b, hops, limit, fanout) -> None:
    g = entity_graph(led)
    opts = Options(hops=hops, limit=limit, fanout=fanout)
    q = f"{a} {b}" if a != b else a
    first = run_query(g, q, opts, hits).json
    assert first == run_query(entity_graph(led), q, opts, hits).json  # identical across runs
    assert first == run_query(g, q, opts, hits, adjacency=Adjacency(g).prepare()).json
    assert len(first["paths"]) <= limit
    written = {(e.source, e.relation, e.target, e.gap) for e in led.reports[0].edges}
    for p in first["paths"]:
        assert 1 <= len(p["hops"]) <= hops
        assert len(set(p["nodes"])) == len(p["nodes"])  # simple
        assert p["nodes"][0] == a
        if a != b:
            assert p["nodes"][-1] == b
        for here, there, hop in zip(p["nodes"], p["nodes"][1:], p["hops"]):
            u, v = (here, there) if hop["direction"] == "forward" else (there, here)
            assert (hop["from"], hop["to"]) == (u, v)
            assert (u, hop["relation"], v, hop["gap"]) in written  # a ledger edge


# ---- the command on the sample ------------------------------------------------------------

@pytest.fixture(scope="module")
def sample_cwd(tmp_path_factory):
    import os
    here = os.getcwd()
    os.chdir(ROOT)
    yield ROOT
    os.chdir(here)


def test_cli_sample_one_hop(sample_cwd) -> None:
    code, out = run("阳光电源 欣旺达")
    assert code == 0
    assert out.splitlines()[:2] == [
        "阳光电源 -> 欣旺达 (1 hop)",
        '  [1] 阳光电源 -buys_from-> 欣旺达  300274 p.36  "4 欣旺达 1,210,902,177.36 2.55%"  s3-8']
    assert "  [1] 阳光电源 -buys_storage_cells_from-> 欣旺达  gap: The supplier table" in out


def test_cli_sample_two_hops_through_the_supplier_table(sample_cwd) -> None:
    code, out = run("Sunwoda REPT Battero", "--relation", "buys_from")
    assert code == 0
    assert out == ("欣旺达 -> 瑞浦兰钧 (2 hops)\n"
                   '  [1] 欣旺达 <-buys_from- 阳光电源  300274 p.36  "4 欣旺达 1,210,902,177.36 2.55%"  s3-8\n'
                   '  [2] 阳光电源 -buys_from-> 瑞浦兰钧  300274 p.36  "5 瑞浦兰钧 1,205,888,424.62 2.54%"  s3-9\n')


def test_cli_json_is_the_specified_object(sample_cwd) -> None:
    code, out = run("Sungrow 欣旺达", "--json", "--hops", "1", "--relation", "buys_from")
    assert code == 0
    got = json.loads(out)
    assert got == {
        "question": "Sungrow 欣旺达", "status": "ok",
        "bindings": [{"mention": "sungrow", "entity": "sungrow", "name": "阳光电源", "score": 1.0,
                      "method": "alias"},
                     {"mention": "欣旺达", "entity": "sunwoda", "name": "欣旺达", "score": 1.0,
                      "method": "name"}],
        "candidates": [],
        "paths": [{"nodes": ["sungrow", "sunwoda"], "hops": [{
            "from": "sungrow", "relation": "buys_from", "to": "sunwoda", "direction": "forward",
            "report": "S3", "gap": None, "expired": False, "qualifiers": {"share": 2.55},
            "evidence": [{"claim": "s3-8", "status": "hit", "doc": "300274", "page": 36,
                          "pageEnd": 36, "quote": "4 欣旺达 1,210,902,177.36 2.55%",
                          "bbox": got["paths"][0]["hops"][0]["evidence"][0]["bbox"],
                          "anchorMethod": "exact"}]}]}],
        "truncated": {"fanout": 0, "paths": 0}}
    assert len(got["paths"][0]["hops"][0]["evidence"][0]["bbox"]) == 4


def test_cli_unbound_and_ambiguous_exit_1(sample_cwd) -> None:
    code, out = run("比亚迪 阳光电源")
    assert code == 1
    assert out == ("unbound: '比亚迪' names no entity of the ledger\n"
                   "no traversal started: name the entity as declared, or pick it with --from ID\n")
    code, out = run("供应商", "--json")
    assert code == 1 and json.loads(out)["status"] in ("ambiguous", "unbound")


def test_cli_from_picks_the_start(sample_cwd) -> None:
    code, out = run("比亚迪", "--from", "sungrow", "--from", "sunwoda", "--hops", "1",
                    "--relation", "buys_from")
    assert code == 0 and out.startswith("note: '比亚迪' was not bound (candidate none)\n"
                                        "阳光电源 -> 欣旺达 (1 hop)\n")
    code, out = run("x", "--from", "sungrw")
    assert code == 1 and "--from 'sungrw' is not an entity id; did you mean 'sungrow'" in out


@pytest.mark.parametrize("args", [["q", "--hops", "0"], ["q", "--as-of", "2025-13-01"],
                                  ["q", "--limit", "x"], []])
def test_cli_usage_errors_exit_2(sample_cwd, args) -> None:
    assert run(*args)[0] == 2


def test_cli_invalid_ledger_exits_1(tmp_path: Path) -> None:
    (tmp_path / "R.yaml").write_text("report: {id: R}\n", encoding="utf-8")
    code, out = run("a", str(tmp_path))
    assert code == 1 and "missing required field 'title'" in out


def test_query_after_verify_cites_only_hits(tmp_path: Path) -> None:
    """A quote changed after the graph was drawn: the hop turns into a gap with the MISS."""
    ws = tmp_path / "ws"
    shutil.copytree(ROOT / "claims", ws / "claims")
    shutil.copytree(ROOT / "samples" / "pdfs", ws / "samples" / "pdfs")
    s3 = ws / "claims" / "S3.yaml"
    s3.write_text(s3.read_text(encoding="utf-8").replace(
        'page: 36\n    quote: "4 欣旺达', 'page: 35\n    quote: "4 欣旺达'), encoding="utf-8")
    code, out = run("阳光电源 欣旺达", str(ws / "claims"), "--relation", "buys_from")
    assert code == 0
    assert out.startswith("阳光电源 -> 欣旺达 (1 hop)\n  [1] 阳光电源 -buys_from-> 欣旺达  gap: "
                          "MISS s3-8 300274 p.35: ")
    assert "s3-8\n" not in out


def _all_walks(led, a, b, hops):
    """Every simple walk a .. b (or from a, maximal, when a == b) over the ledger's edges in
    either direction, as (relation, from, to) triples: the brute-force answer."""
    edges = [(e.source, e.relation, e.target, i) for i, e in enumerate(led.reports[0].edges)]
    out = set()

    def walk(node, on, path):
        extended = False
        if len(path) < hops:
            for u, r, v, i in edges:
                for here, there in ((u, v), (v, u)):
                    if here == node and there not in on:
                        if a == b:
                            extended = True
                            walk(there, on | {there}, path + [(r, u, v, i)])
                        elif there == b:
                            out.add(tuple(path + [(r, u, v, i)]))
                        else:
                            walk(there, on | {there}, path + [(r, u, v, i)])
                    if u == v:
                        break
        if a == b and not extended and path:
            out.add(tuple(path))

    walk(a, {a}, [])
    return {tuple((r, u, v) for r, u, v, _ in p) for p in out}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(led=random_ledgers(), a=st.sampled_from(NODES), b=st.sampled_from(NODES),
       hops=st.integers(1, 3))
def test_without_caps_every_path_is_found(led, a, b, hops) -> None:
    q = f"{a} {b}" if a != b else a
    got = run_query(entity_graph(led), q, Options(hops=hops, limit=10_000, fanout=100), hits)
    assert got.json["truncated"] == {"fanout": 0, "paths": 0}
    found = {tuple((h["relation"], h["from"], h["to"]) for h in p["hops"])
             for p in got.json["paths"]}
    assert found == _all_walks(led, a, b, hops)
