"""Communities of the entity graph: which edges join entities (the anchored ones whose
facts hit), the hierarchy (cluster.py), each community's edges, gaps and fingerprint."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reportgen.communities.cluster import MIN_SPLIT, Cluster, hierarchy
from reportgen.model import Fact, FactResult, Verification

if TYPE_CHECKING:
    import networkx


@dataclass(frozen=True)
class FactInfo:
    """What a community needs of a fact: its text, its quote, its PDF's hash, its verdict."""

    id: str
    statement: str
    quote: str
    doc: str
    page: int
    sha256: str | None
    hit: bool
    message: str = ""


@dataclass(frozen=True)
class EdgeInfo:
    id: str
    source: str
    relation: str
    target: str
    anchors: tuple[str, ...]
    gap: str | None  # the ledger's reason, or why an anchored edge counts as a gap here
    report: str = ""
    qualifiers: tuple[tuple[str, Any], ...] = ()
    valid_from: str | None = None
    valid_to: str | None = None


@dataclass(frozen=True)
class Community:
    id: str
    level: int
    members: tuple[str, ...]
    parent: str | None
    children: tuple[str, ...]
    leaf: str | None  # why it is a leaf (too small, partition not strict, level cap)
    edges: tuple[EdgeInfo, ...]  # anchored edges with both ends inside
    gaps: tuple[EdgeInfo, ...]  # gap edges with an end inside (they join nothing)
    fingerprint: str


@dataclass(frozen=True)
class Communities:
    levels: tuple[tuple[Community, ...], ...]
    facts: Mapping[str, FactInfo]
    names: Mapping[str, str]  # entity id -> its name

    def by_id(self) -> dict[str, Community]:
        return {c.id: c for lv in self.levels for c in lv}


def facts_of(v: Verification) -> dict[str, FactInfo]:
    """Every fact of a verified ledger with its verdict and its PDF's actual SHA-256."""
    out = {}
    for cid, c in v.ledger.claims.items():
        if isinstance(c, Fact):
            r = v.results.get(cid)
            hit = isinstance(r, FactResult) and r.status == "hit"
            sha = (r.sha256 if isinstance(r, FactResult) else None) or v.sha256.get(c.doc)
            out[cid] = FactInfo(cid, c.statement, c.quote, c.doc, c.page, sha, hit,
                                r.message if r is not None else "")
    return out


def edge_infos(raw: Iterable[tuple[Any, Any, Any, Mapping[str, Any]]],
               facts: Mapping[str, FactInfo]) -> list[EdgeInfo]:
    """(id, from, to, attributes as entity_graph gives them) -> edges sorted by id; an edge
    with an anchor that does not hit is a gap here (the query does the same: a relation is
    never shown on a fact that misses)."""
    out = []
    for key, u, v, d in raw:
        anchors = tuple(d.get("anchors") or ())
        gap = d.get("gap")
        if gap is None:
            bad = [a for a in anchors if a not in facts or not facts[a].hit]
            if not anchors:
                gap = "no anchors"
            elif bad:
                f = facts.get(bad[0])
                gap = f"anchor {bad[0]} does not hit" + (f": {f.message}" if f and f.message
                                                          else "")
        quals = tuple(sorted((d.get("qualifiers") or {}).items()))
        out.append(EdgeInfo(str(key), str(u), str(d.get("relation", "")), str(v), anchors, gap,
                            str(d.get("report") or ""), quals, d.get("valid_from"),
                            d.get("valid_to")))
    out.sort(key=lambda e: e.id)
    return out


def edges_of(graph: networkx.MultiDiGraph, facts: Mapping[str, FactInfo]) -> list[EdgeInfo]:
    """The edges of an entity graph (reportgen.graph.entity_graph)."""
    return edge_infos(((k, u, v, d) for u, v, k, d in graph.edges(keys=True, data=True)),
                      facts)


def clustering_weights(edges: Iterable[EdgeInfo]) -> dict[tuple[str, str], float]:
    """Undirected weight per pair: the number of anchored edges between the two."""
    w: dict[tuple[str, str], float] = {}
    for e in edges:
        if e.gap is None and e.source != e.target:
            pair = (min(e.source, e.target), max(e.source, e.target))
            w[pair] = w.get(pair, 0.0) + 1.0
    return w


def fingerprint(members: Iterable[str], edges: Iterable[EdgeInfo], gaps: Iterable[EdgeInfo],
                facts: Mapping[str, FactInfo]) -> str:
    """A hash over the members, the edges (all but their place in the file), and the quote
    and PDF SHA-256 of every anchor: what a summary of the community rests on."""
    anchors = sorted({a for e in edges for a in e.anchors})
    blob = {
        "members": sorted(members),
        "edges": [_edge_key(e) for e in edges],
        "gaps": [_edge_key(e) for e in gaps],
        "anchors": [[a, facts[a].quote, facts[a].sha256] if a in facts else [a, None, None]
                    for a in anchors],
    }
    text = json.dumps(blob, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _edge_key(e: EdgeInfo) -> list[Any]:
    return [e.id, e.source, e.relation, e.target, list(e.anchors), e.gap, e.report,
            [list(q) for q in e.qualifiers], e.valid_from, e.valid_to]


def detect(graph: networkx.MultiDiGraph, facts: Mapping[str, FactInfo], *, seed: int = 42,
           resolution: float = 1.0, max_levels: int = 3, min_size: int = MIN_SPLIT,
           **kw: Any) -> Communities:
    """The communities of `graph` at every level, with their edges, gaps and fingerprints."""
    names = {str(n): str(d.get("name") or n) for n, d in graph.nodes(data=True)}
    return detect_edges(names, edges_of(graph, facts), facts, seed=seed, resolution=resolution,
                        max_levels=max_levels, min_size=min_size, **kw)


def detect_edges(names: Mapping[str, str], edges: list[EdgeInfo],
                 facts: Mapping[str, FactInfo], *, seed: int = 42, resolution: float = 1.0,
                 max_levels: int = 3, min_size: int = MIN_SPLIT, **kw: Any) -> Communities:
    """`detect` over entities (id -> name) and edges already read (no networkx needed)."""
    levels = hierarchy(list(names), clustering_weights(edges), seed=seed,
                       resolution=resolution, max_levels=max_levels, min_size=min_size, **kw)
    incident: dict[str, list[int]] = {}  # node -> positions of its edges in `edges`
    for k, e in enumerate(edges):
        incident.setdefault(e.source, []).append(k)
        if e.target != e.source:
            incident.setdefault(e.target, []).append(k)
    return Communities(tuple(tuple(_community(c, edges, incident, facts) for c in lv)
                             for lv in levels), facts, names)


def _community(c: Cluster, edges: list[EdgeInfo], incident: Mapping[str, list[int]],
               facts: Mapping[str, FactInfo]) -> Community:
    inside = set(c.members)
    mine = sorted({k for m in c.members for k in incident.get(m, ())})  # edges sorted by id
    own = tuple(edges[k] for k in mine if edges[k].gap is None
                and edges[k].source in inside and edges[k].target in inside)
    gaps = tuple(edges[k] for k in mine if edges[k].gap is not None)
    return Community(c.id, c.level, c.members, c.parent, c.children, c.leaf, own, gaps,
                     fingerprint(c.members, own, gaps, facts))
