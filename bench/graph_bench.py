"""Benchmark of the entity graph and the local query at scale.

    .venv/bin/python bench/graph_bench.py [--entities 10000] [--edges 50000] [--queries 300]

A generated ledger in memory (entities.yaml written to a temporary folder, one fact per
edge whose quote names both ends, endpoints drawn with a skewed degree distribution so a
few hubs have hundreds of edges) is turned into the entity graph with
`reportgen.graph.entity_graph` (reading and checking entities.yaml, binding every
endpoint, checking that each edge's evidence names its ends, building the networkx
MultiDiGraph): median of --runs builds. The memory of the graph is what tracemalloc sees
held after a build (the MultiDiGraph and its attributes), and the process's peak RSS.

Queries: two-entity questions whose entities are two hops apart, answered in process by
`reportgen.graph.query.run_query` (binding the names in the question, capped walks in both
directions, the JSON answer) with hop evidence taken as hits: verifying the cited facts is
reportgen.verify's work, cached by PDF SHA-256 (see the README). Side by side, the same
question the plain way: networkx `all_simple_paths` over an undirected view, cutoff 2, no
caps, with the two names looked up in a dict. p50 and p95 over --queries questions.

Targets: query p50 under 50 ms, graph memory under 200 MB.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def make_ledger(root: Path, n_ent: int, n_edges: int, seed: int = 7):
    """A Ledger with n_edges anchored edges over n_ent entities, and root/entities.yaml."""
    from reportgen.model import Document, Edge, Fact, Ledger, Loc, Report

    rng = random.Random(seed)
    names = [f"公司{i:05d}" for i in range(n_ent)]
    lines = ["entities:"]
    for i, n in enumerate(names):
        lines.append(f"  c{i}: {{name: {n}, type: Company, aliases: [Company {i:05d}]}}")
    (root / "entities.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    weights = [1.0 / (i + 1) ** 0.6 for i in range(n_ent)]
    ends = rng.choices(range(n_ent), weights=weights, k=2 * n_edges)
    rng.shuffle(ends)
    docs = {f"d{k}": Document(f"d{k}", root / f"d{k}.pdf", f"doc {k}", None, Loc("docs", 1))
            for k in range(100)}
    claims, edges = {}, []
    file = str(root / "R.yaml")
    for j in range(n_edges):
        a, b = ends[2 * j], ends[2 * j + 1]
        if a == b:
            b = (b + 1) % n_ent
        fid = f"f{j}"
        claims[fid] = Fact(fid, "R", "S.", None, None, Loc(file, j + 1), doc=f"d{j % 100}",
                           page=1 + j % 50, quote=f"{names[a]} 向 {names[b]} 采购 {j}")
        rel = ("buys_from", "sells_to", "supplies")[j % 3]
        edges.append(Edge("R", names[a], rel, names[b], (fid,), None, None, None,
                          Loc(file, j + 1)))
    rep = Report("R", "T", "", (), tuple(claims), tuple(edges), (), Loc(file, 1))
    return Ledger(root, root, (rep,), docs, claims), names


def two_hop_questions(g, names_by_id, n: int, seed: int = 11) -> list[tuple[str, str, str]]:
    """(question, id a, id b) for pairs joined by a two-hop walk in either direction."""
    rng = random.Random(seed)
    nodes = sorted(g.nodes)
    out = []
    while len(out) < n:
        mid = rng.choice(nodes)
        nb = sorted(set(g.successors(mid)) | set(g.predecessors(mid)))
        if len(nb) < 2:
            continue
        a, b = rng.sample(nb, 2)
        if g.has_edge(a, b) or g.has_edge(b, a):
            continue
        out.append((f"{names_by_id[a]} {names_by_id[b]}", a, b))
    return out


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entities", type=int, default=10_000)
    ap.add_argument("--edges", type=int, default=50_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    import networkx as nx

    from reportgen.graph import entity_graph
    from reportgen.graph.query import Adjacency, Options, run_query
    from reportgen.graph.question import NameIndex

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ledger, names = make_ledger(root, args.entities, args.edges)
        builds, cpu = [], []
        for _ in range(args.runs):
            t, c = time.perf_counter(), time.process_time()
            g = entity_graph(ledger)
            builds.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            del g
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        g = entity_graph(ledger)
        held = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()

    names_by_id = {n: d["name"] for n, d in g.nodes(data=True)}
    questions = two_hop_questions(g, names_by_id, args.queries)
    degrees = sorted((d for _, d in g.degree()), reverse=True)

    def hits(ids):
        return {c: {"status": "hit", "message": "", "doc": "d", "page": 1, "pageEnd": 1,
                    "quote": "", "bbox": [0, 0, 0, 0], "anchorMethod": "exact"} for c in ids}

    t = time.perf_counter()
    index = NameIndex.of_graph(g)
    adjacency = Adjacency(g).prepare()  # edges grouped by node once, kept across queries
    t_index = time.perf_counter() - t
    opts = Options(hops=2)
    ours, ours_cpu, found, cut = [], [], [], 0
    for q, a, b in questions:
        t, c = time.perf_counter(), time.process_time()
        ans = run_query(g, q, opts, hits, index=index, adjacency=adjacency).json
        ours.append(time.perf_counter() - t)
        ours_cpu.append(time.process_time() - c)
        assert ans["status"] == "ok" and [x["entity"] for x in ans["bindings"]] == [a, b], q
        found.append(len(ans["paths"]))
        cut += ans["truncated"]["paths"] + ans["truncated"]["fanout"]
    by_name = {d["name"]: n for n, d in g.nodes(data=True)}
    und = g.to_undirected(as_view=True)
    plain, plain_cpu, plain_n = [], [], []
    for q, a, b in questions:
        t, c = time.perf_counter(), time.process_time()
        x, y = (by_name[s] for s in q.split())
        ps = list(nx.all_simple_paths(und, x, y, cutoff=2))
        plain.append(time.perf_counter() - t)
        plain_cpu.append(time.process_time() - c)
        plain_n.append(len(ps))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print(f"graph: {g.number_of_nodes():,} entities, {g.number_of_edges():,} anchored edges; "
          f"degree max {degrees[0]}, median {degrees[len(degrees) // 2]}")
    print(f"build (entities.yaml, binding, checks, MultiDiGraph): median {statistics.median(builds):.2f} s "
          f"of {args.runs} ({', '.join(f'{b:.2f}' for b in builds)}); CPU time median "
          f"{statistics.median(cpu):.2f} s")
    print(f"memory held by the graph (tracemalloc): {held / 2**20:.0f} MiB; peak RSS of this "
          f"process {rss:.0f} MiB")
    print(f"prepared once for all questions (NameIndex, Adjacency): {t_index * 1000:.0f} ms")
    print(f"{len(questions)} two-hop questions, two entities each:")
    print(f"  run_query (bind, capped walk, JSON): p50 {pct(ours, 50) * 1000:.1f} ms, "
          f"p95 {pct(ours, 95) * 1000:.1f} ms; paths per answer median "
          f"{statistics.median(found)}, cut by the caps in total {cut}; CPU p50 "
          f"{pct(ours_cpu, 50) * 1000:.1f} ms, p95 {pct(ours_cpu, 95) * 1000:.1f} ms")
    print(f"  all_simple_paths (no caps):          p50 {pct(plain, 50) * 1000:.1f} ms, "
          f"p95 {pct(plain, 95) * 1000:.1f} ms; paths per answer median "
          f"{statistics.median(plain_n)}; CPU p50 {pct(plain_cpu, 50) * 1000:.1f} ms, p95 "
          f"{pct(plain_cpu, 95) * 1000:.1f} ms")
    print(f"  questions answered with a path: {sum(n > 0 for n in found)} of {len(found)} "
          f"(plain: {sum(n > 0 for n in plain_n)}); the rest lost their path to --fanout 20 at "
          "a hub, and say so in truncated.fanout")
    print(f"targets: p50 < 50 ms: {'met' if pct(ours, 50) < 0.05 else 'MISSED'}; "
          f"memory < 200 MB: {'met' if held < 200 * 2**20 else 'MISSED'}")


if __name__ == "__main__":
    main()
