"""Benchmark of the communities hierarchy on planted-partition graphs.

    .venv/bin/python bench/communities_bench.py [--sizes 1000,10000,100000] [--runs 3]

For each size, a generated graph of N entities in planted communities of --community
entities (about --degree edges per entity, a share --mixing of them leaving the
community), then in a fresh process per run:

- Leiden time and peak memory (VmHWM of the process) after each level of the hierarchy
  (`reportgen.communities.cluster.hierarchy`, seed 42, resolution 1.0, 3 levels);
- the normalised mutual information of level 0 against the planted partition (igraph's
  `compare_communities(method="nmi")`);
- the summary pass's cost model: one model call per community with an anchored edge,
  bottom up; a leaf reads its facts (at most 60), a parent its children's summaries (at
  most 8 sentences each) and the facts of the edges between them. Tokens are estimated as
  `find` estimates them (reportgen.index.pack.estimate_tokens) on a typical fact (statement
  and quote) and a typical summary sentence. The seeds' arithmetic: with every community
  split into b children, the leaves are about (b-1)/b of all calls, so they dominate; the
  bench checks that on the hierarchy it found.

Times are medians of --runs; the machine is shared, so figures vary from run to run.
Target: 100,000 entities with the full hierarchy in under 60 s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FACT = {"id": "s3-10", "statement": "Sungrow's first customer row names Algihaz Contracting "
        "at 4,010,035,531.92 元, 4.50% of sales.",
        "quote": "Algihaz Contracting 4,010,035,531.92 4.50%"}
SENTENCE = {"text": "欣旺达 is Sungrow's fourth-largest supplier at 2.55% of procurement.",
            "citations": ["s3-8"]}
OUTPUT_TOKENS_PER_CALL = 8 * 35  # the prompt's 8 sentences at most, about 35 tokens each


def planted(n: int, size: int, degree: float, mixing: float, seed: int):
    """Node labels 0..n-1 in communities of `size`; about n*degree/2 distinct edges."""
    rnd = random.Random(seed)
    truth = [i // size for i in range(n)]
    groups = (n + size - 1) // size
    edges: set[tuple[int, int]] = set()
    target = int(n * degree / 2)
    while len(edges) < target:
        u = rnd.randrange(n)
        if rnd.random() < mixing:
            v = rnd.randrange(n)
        else:
            g = truth[u]
            v = g * size + rnd.randrange(min(size, n - g * size))
        if u != v:
            edges.add((min(u, v), max(u, v)))
    return truth, sorted(edges), groups


def vm_hwm_mib() -> float:
    """The process's peak resident memory so far (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_run(n: int, size: int, degree: float, mixing: float, seed: int) -> dict:
    """In this process: generate, cluster with per-level time and memory, score, cost."""
    import igraph

    from reportgen.communities.cluster import hierarchy
    from reportgen.index.pack import estimate_tokens

    truth, edges, groups = planted(n, size, degree, mixing, seed)
    names = [f"e{i:06d}" for i in range(n)]  # sorted order = index order
    weights = {(names[a], names[b]): 1.0 for a, b in edges}
    base_mem = vm_hwm_mib()
    marks = []
    t0 = time.perf_counter()
    c0 = time.process_time()
    levels = hierarchy(names, weights, seed=42, resolution=1.0, max_levels=3,
                       on_level=lambda k, found: marks.append(
                           (k, time.perf_counter(), vm_hwm_mib(), len(found))))
    total = time.perf_counter() - t0
    cpu = time.process_time() - c0
    per_level = []
    prev = t0
    for k, t, mem, count in marks:
        per_level.append({"level": k, "seconds": t - prev, "peak_mib": mem,
                          "communities": count,
                          "leaves": sum(1 for c in levels[k] if c.leaf)})
        prev = t
    # NMI per level: each entity labelled by its community at that level, or by the leaf
    # above it when its branch stopped earlier (as `query --global --level` reads them)
    label: dict[str, int] = {}
    for k, lv in enumerate(levels):
        base = len(label) + k * n
        for i, c in enumerate(lv):
            for m in c.members:
                label[m] = base + i
        per_level[k]["nmi"] = igraph.compare_communities(truth, [label[nm] for nm in names],
                                                         method="nmi")
    nmi = per_level[0]["nmi"]

    # cost model: internal edges per community, and edges between its children
    index = {nm: i for i, nm in enumerate(names)}
    fact_t = estimate_tokens(json.dumps(FACT, ensure_ascii=False, indent=1)) + 8
    sent_t = estimate_tokens(json.dumps(SENTENCE, ensure_ascii=False, indent=1))
    from reportgen.llm.prompts import load_prompt

    p = load_prompt("summary")
    overhead = estimate_tokens(p.system) + estimate_tokens(json.dumps(p.tool)) + 40
    cost = []
    for k, lv in enumerate(levels):
        label = [-1] * n
        for i, c in enumerate(lv):
            for m in c.members:
                label[index[m]] = i
        child = [-1] * n
        if k + 1 < len(levels):
            for i, c in enumerate(levels[k + 1]):
                for m in c.members:
                    child[index[m]] = i
        inside = [0] * len(lv)
        between = [0] * len(lv)
        for a, b in edges:
            if label[a] == label[b] and label[a] >= 0:
                inside[label[a]] += 1
                if child[a] != child[b] or child[a] < 0:
                    between[label[a]] += 1
        calls = tokens = leaf_calls = 0
        for i, c in enumerate(lv):
            if not inside[i]:
                continue
            calls += 1
            if c.leaf:
                leaf_calls += 1
                tokens += overhead + min(inside[i], 60) * fact_t
            else:
                tokens += overhead + len(c.children) * 8 * sent_t + min(between[i], 60) * fact_t
        cost.append({"level": k, "calls": calls, "leaf_calls": leaf_calls,
                     "input_tokens": tokens, "output_tokens": calls * OUTPUT_TOKENS_PER_CALL})
    return {"n": n, "edges": len(edges), "planted": groups, "seconds": total, "cpu": cpu,
            "levels": per_level, "nmi": nmi, "cost": cost, "base_mib": base_mem}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--community", type=int, default=50, help="planted community size")
    ap.add_argument("--degree", type=float, default=10.0,
                    help="mean degree (about 5 edges per entity)")
    ap.add_argument("--mixing", type=float, default=0.1)
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a run in this process
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_run(args.one, args.community, args.degree, args.mixing, 1)))
        return
    for n in (int(s) for s in args.sizes.split(",")):
        runs = []
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, __file__, "--one", str(n), "--community",
                                  str(args.community), "--degree", str(args.degree),
                                  "--mixing", str(args.mixing)],
                                 capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout))
        r = min(runs, key=lambda x: abs(x["seconds"] - statistics.median(
            y["seconds"] for y in runs)))  # the median run
        secs = sorted(x["seconds"] for x in runs)
        print(f"\n{n:,} entities, {r['edges']:,} edges, {r['planted']} planted communities: "
              f"hierarchy in {statistics.median(secs):.2f} s (median of {len(runs)}: "
              f"{', '.join(f'{s:.2f}' for s in secs)}; CPU {r['cpu']:.2f} s in the median run), "
              f"NMI level 0 = {r['nmi']:.3f}"
              f"{'  [target < 60 s: ' + ('met' if statistics.median(secs) < 60 else 'MISSED') + ']' if n >= 100000 else ''}")
        print(f"  graph in memory before clustering: {r['base_mib']:.0f} MiB peak")
        print("  level | communities | leaves | seconds | peak MiB | NMI")
        for lv in r["levels"]:
            print(f"  {lv['level']:5} | {lv['communities']:11,} | {lv['leaves']:6,} | "
                  f"{lv['seconds']:7.2f} | {lv['peak_mib']:8.0f} | {lv['nmi']:.3f}")
        print("  cost model (model summaries): level | calls | of them leaves | input tokens "
              "| output tokens")
        calls = sum(c["calls"] for c in r["cost"])
        leaf = sum(c["leaf_calls"] for c in r["cost"])
        for c in r["cost"]:
            print(f"    {c['level']:5} | {c['calls']:6,} | {c['leaf_calls']:6,} | "
                  f"{c['input_tokens']:12,} | {c['output_tokens']:10,}")
        tin = sum(c["input_tokens"] for c in r["cost"])
        tout = sum(c["output_tokens"] for c in r["cost"])
        print(f"    total {calls:,} calls ({leaf:,} leaves, {leaf / max(calls, 1):.0%}), "
              f"{tin:,} tokens in, {tout:,} out; leaves dominate: "
              f"{'yes' if leaf * 2 > calls else 'NO'}")


if __name__ == "__main__":
    main()
