"""The hierarchy of communities over a weighted undirected graph: Leiden (`leidenalg` over
`igraph`) with a fixed seed, each community partitioned again on its own subgraph while
the child partition is strict. Pure apart from the two libraries: nodes and weights in,
clusters out, so the ledger's graph and the bench's generated graphs take the same path."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

MIN_SPLIT = 4  # a community of fewer members is not split: its children would be 1 or 2

# (node count, edges as index pairs, weights, seed, resolution) -> membership per node
Split = Callable[[int, Sequence[tuple[int, int]], Sequence[float], int, float], list[int]]


@dataclass(frozen=True)
class Cluster:
    id: str
    level: int
    members: tuple[str, ...]  # sorted
    parent: str | None
    children: tuple[str, ...]
    leaf: str | None  # why it has no children (None when it has)


def community_id(members: Sequence[str]) -> str:
    """From the sorted member ids alone, so the same members keep the same id."""
    blob = "\x1f".join(sorted(members)).encode("utf-8")
    return "c" + hashlib.sha256(blob).hexdigest()[:12]


def strict_problem(parent: Sequence[str], children: Sequence[Sequence[str]]) -> str | None:
    """Why `children` is not a strict partition of `parent`, or None when it is: at least
    two children, no member twice, every child member in the parent, every parent member
    in exactly one child."""
    if len(children) < 2:
        return f"{len(children)} child community, at least 2 needed"
    seen: set[str] = set()
    inside = set(parent)
    for ch in children:
        for m in ch:
            if m in seen:
                return f"member {m} is in two children"
            if m not in inside:
                return f"child member {m} is not in the parent"
            seen.add(m)
    missing = sorted(inside - seen)
    if missing:
        return f"parent member {missing[0]} is in no child"
    return None


def preload() -> None:
    """Import igraph and leidenalg (0.1 s) ahead of clustering: the build's template
    helper does it while the ledger is verified, when the ledger has edges."""
    leiden(2, [(0, 1)], [1.0], 42, 1.0)


def leiden(n: int, edges: Sequence[tuple[int, int]], weights: Sequence[float], seed: int,
           resolution: float) -> list[int]:
    """Leiden membership of nodes 0..n-1 (RB configuration model, i.e. modularity with a
    resolution), seeded so the same graph gives the same partition."""
    import igraph
    import leidenalg

    # igraph.Graph's own constructor imports NumPy (0.1 s) only to ask whether the edges
    # are an array; they are a list here, so the graph is made by its base constructor.
    g = igraph.Graph.__new__(igraph.Graph)
    igraph.GraphBase.__init__(g, n, list(edges), False)
    g.es["weight"] = list(weights)
    part = leidenalg.find_partition(g, leidenalg.RBConfigurationVertexPartition,
                                    weights="weight", resolution_parameter=resolution,
                                    seed=seed, n_iterations=2)
    return list(part.membership)


def hierarchy(nodes: Sequence[str], weights: Mapping[tuple[str, str], float], *,
              seed: int = 42, resolution: float = 1.0, max_levels: int = 3,
              min_size: int = MIN_SPLIT, split: Split = leiden,
              on_level: Callable[[int, list[Cluster]], None] | None = None
              ) -> list[list[Cluster]]:
    """Levels of clusters: level 0 partitions every node; a cluster is split again on its
    own subgraph up to `max_levels` levels, and kept split only if the split is strict.
    `weights` maps an unordered pair (any order, no self pairs) to its weight; `on_level`
    is called as each level is done (the bench times and measures the levels with it)."""
    if max_levels < 1:
        raise ValueError("max_levels must be at least 1")
    order = sorted(set(nodes))
    index = {m: i for i, m in enumerate(order)}
    adj: dict[int, dict[int, float]] = {}
    for (a, b), w in sorted(weights.items()):
        i, j = index[a], index[b]
        if i == j or w <= 0:
            continue
        i, j = min(i, j), max(i, j)
        adj.setdefault(i, {})
        adj[i][j] = adj[i].get(j, 0.0) + w
    levels: list[list[Cluster]] = []
    # groups of node indexes to make clusters of at this level, with their parent's id
    current = [(g, None) for g in _partition(list(range(len(order))), adj, seed, resolution,
                                              split)]
    for level in range(max_levels):
        found: list[Cluster] = []
        nxt: list[tuple[list[int], str | None]] = []
        for group, parent in current:
            names = tuple(order[i] for i in group)
            cid = community_id(names)
            reason = None
            if len(names) < min_size:
                reason = f"too small ({len(names)} members, {min_size} needed to split)"
            elif level + 1 >= max_levels:
                reason = f"level cap ({max_levels} levels)"
            else:
                child_groups = _partition(group, adj, seed, resolution, split)
                problem = strict_problem(names, [[order[i] for i in g] for g in child_groups])
                if problem is not None:
                    reason = f"partition not strict: {problem}"
            if reason is None:
                ids = tuple(community_id([order[i] for i in g]) for g in child_groups)
                found.append(Cluster(cid, level, names, parent, ids, None))
                nxt.extend((g, cid) for g in child_groups)
            else:
                found.append(Cluster(cid, level, names, parent, (), reason))
        levels.append(found)
        if on_level is not None:
            on_level(level, found)
        if not nxt:
            break
        current = nxt
    return levels


def _partition(members: list[int], adj: dict[int, dict[int, float]], seed: int,
               resolution: float, split: Split) -> list[list[int]]:
    """`members` (sorted global indexes) split into groups of global indexes, each sorted,
    ordered largest first, then by their first member."""
    if len(members) == 1:
        return [members]
    local = {m: k for k, m in enumerate(members)}
    edges: list[tuple[int, int]] = []
    ws: list[float] = []
    for m in members:
        for o, w in adj.get(m, {}).items():
            k = local.get(o)
            if k is not None:
                edges.append((local[m], k))
                ws.append(w)
    if not edges:  # nothing joins any two: each member alone, as Leiden gives (and no
        # igraph and leidenalg to import, 0.1 s, for a ledger without a graph)
        return [[m] for m in members]
    membership = split(len(members), edges, ws, seed, resolution)
    groups: dict[int, list[int]] = {}
    for k, label in enumerate(membership):
        groups.setdefault(label, []).append(members[k])
    out = list(groups.values())
    out.sort(key=lambda g: (-len(g), g[0]))
    return out
