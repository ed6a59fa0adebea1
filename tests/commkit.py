"""Entity graphs made by hand in the shape of `reportgen.graph.entity_graph` (one node
per entity; one edge per ledger edge keyed by its id, with relation, report, anchors, gap,
qualifiers, valid_from, valid_to, file, line), and facts to go with them."""

from __future__ import annotations

import random

import networkx as nx

from reportgen.communities.detect import FactInfo


def fact(fid: str, hit: bool = True, quote: str | None = None, sha: str = "a" * 64,
         statement: str | None = None) -> FactInfo:
    return FactInfo(fid, statement or f"Statement of {fid}.", quote or f"quote of {fid}", "D1",
                    1, sha, hit, "" if hit else "quote not found on p.1")


def graph(edges, names=None) -> nx.MultiDiGraph:
    """edges: (id, from, relation, to, anchors, gap)"""
    g = nx.MultiDiGraph()
    for eid, a, rel, b, anchors, gap in edges:
        for n in (a, b):
            if n not in g:
                g.add_node(n, name=(names or {}).get(n, n.title()), type=None, aliases=(),
                           docs=())
        g.add_edge(a, b, key=eid, relation=rel, report="R1", anchors=tuple(anchors), gap=gap,
                   qualifiers={}, valid_from=None, valid_to=None, file="R1.yaml", line=1)
    return g


def two_triangles():
    """Two groups of three joined by nothing but a gap edge: f1-f3 and f9-f11."""
    edges = [("e1", "alpha", "buys_from", "beta", ["f1"], None),
             ("e2", "alpha", "buys_from", "gamma", ["f2"], None),
             ("e3", "beta", "sells_to", "gamma", ["f3"], None),
             ("e4", "delta", "buys_from", "eps", ["f9"], None),
             ("e5", "delta", "buys_from", "zeta", ["f10"], None),
             ("e6", "eps", "sells_to", "zeta", ["f11"], None),
             ("e7", "gamma", "supplies", "delta", [], "no amount is given")]
    facts = {f: fact(f) for f in ("f1", "f2", "f3", "f9", "f10", "f11")}
    return graph(edges), facts


def planted(groups: int = 4, size: int = 15, p_in: float = 0.5, p_out: float = 0.01,
            seed: int = 1):
    """A planted partition with one fact per edge (edge e<k> anchored by f<k>)."""
    rnd = random.Random(seed)
    nodes = [f"n{i:03d}" for i in range(groups * size)]
    edges, facts = [], {}
    for i in range(len(nodes)):
        for j in range(i + 1, len(nodes)):
            if rnd.random() < (p_in if i // size == j // size else p_out):
                k = len(edges)
                edges.append((f"e{k:04d}", nodes[i], "buys_from", nodes[j], [f"f{k:04d}"], None))
                facts[f"f{k:04d}"] = fact(f"f{k:04d}")
    return graph(edges), facts
