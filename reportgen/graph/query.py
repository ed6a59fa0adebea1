"""Local query (graph.md section 3): the neighbourhood of one entity, or the simple paths
that connect several, within a hop budget, every hop with its evidence verified now."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from reportgen.graph.names import nearest_names
from reportgen.graph.question import MARGIN, THRESHOLD, Bound, NameIndex, bind_question

# fact ids -> {fact id: claim record with "status" and "message"} (see verify_anchors)
Checker = Callable[[Sequence[str]], Mapping[str, Mapping[str, Any]]]
EVIDENCE_KEYS = ("doc", "page", "pageEnd", "quote", "bbox", "anchorMethod")


@dataclass(frozen=True)
class Options:
    hops: int = 2
    fanout: int = 20
    relations: tuple[str, ...] = ()
    as_of: str | None = None  # YYYY-MM-DD
    limit: int = 50
    threshold: float = THRESHOLD
    margin: float = MARGIN


@dataclass(frozen=True)
class Step:
    """One edge taken from `at` to `to`, forward or against its direction."""

    key: str
    source: str
    target: str
    to: str
    direction: str
    data: Mapping[str, Any]

    def order(self) -> tuple:
        return (self.data["gap"] is not None, -len(self.data["anchors"]), self.key,
                self.direction)


@dataclass
class Answer:
    """The `--json` object, and the entity names the text view needs."""

    json: dict[str, Any]
    names: dict[str, str] = field(default_factory=dict)


class Adjacency:
    """Each node's incident edges in expansion order (anchored before gap, then by number of
    anchors, then by id), worked out once per node and kept across queries of one graph."""

    def __init__(self, g) -> None:  # g: networkx.MultiDiGraph
        self.g = g
        self.raw: dict[str, list[tuple]] | None = None
        self.ranked: dict[str, list[tuple]] = {}

    def prepare(self) -> Adjacency:
        """Group every edge by node in one pass: for a graph that answers many queries."""
        raw: dict[str, list[tuple]] = {}
        for u, v, k, d in self.g.edges(keys=True, data=True):
            rank = (d["gap"] is not None, -len(d["anchors"]), k)
            raw.setdefault(u, []).append((rank + ("forward",), u, v, v, d))
            if v != u:  # a loop is taken forward only
                raw.setdefault(v, []).append((rank + ("reverse",), u, v, u, d))
        self.raw = raw
        return self

    def _incident(self, node: str) -> list[tuple]:
        if self.raw is not None:
            return self.raw.get(node, [])
        out = []
        for u, v, k, d in self.g.out_edges(node, keys=True, data=True):
            out.append(((d["gap"] is not None, -len(d["anchors"]), k, "forward"), u, v, v, d))
        for u, v, k, d in self.g.in_edges(node, keys=True, data=True):
            if u != v:  # a loop is taken forward only
                out.append(((d["gap"] is not None, -len(d["anchors"]), k, "reverse"),
                            u, v, u, d))
        return out

    def of(self, node: str) -> list[tuple]:
        """[(order, source, target, to, data)] of `node`, both directions, in order."""
        got = self.ranked.get(node)
        if got is None:
            got = self.ranked[node] = sorted(self._incident(node), key=itemgetter(0))
        return got


class Walker:
    """Capped expansion over a MultiDiGraph, both directions, counting what the caps cut."""

    def __init__(self, g, opts: Options, adjacency: Adjacency | None = None) -> None:
        self.g, self.opts = g, opts
        self.adj = adjacency if adjacency is not None else Adjacency(g)
        self.cache: dict[str, list[Step]] = {}
        self.cut: dict[str, int] = {}

    def steps(self, node: str) -> list[Step]:
        got = self.cache.get(node)
        if got is not None:
            return got
        cand = self.adj.of(node)
        if self.opts.relations:
            rel = set(self.opts.relations)
            cand = [c for c in cand if c[4]["relation"] in rel]
        if len(cand) > self.opts.fanout:
            self.cut[node] = len(cand) - self.opts.fanout
            cand = cand[:self.opts.fanout]
        out = [Step(o[2], u, v, to, o[3], d) for o, u, v, to, d in cand]
        self.cache[node] = out
        return out

    def halves(self, start: str, depth: int) -> dict[str, list[list[Step]]]:
        """Simple capped walks from `start` of at most `depth` steps, by the node they end at
        (the empty walk ends at `start`)."""
        out: dict[str, list[list[Step]]] = {start: [[]]}
        path: list[Step] = []
        on = {start}

        def walk(node: str) -> None:
            for s in self.steps(node):
                if s.to in on:
                    continue
                path.append(s)
                out.setdefault(s.to, []).append(list(path))
                if len(path) < depth:
                    on.add(s.to)
                    walk(s.to)
                    on.discard(s.to)
                path.pop()

        if depth > 0:
            walk(start)
        return out

    def between(self, a: str, b: str) -> list[list[Step]]:
        """Simple paths a .. b of at most `hops` steps, searched from both ends and joined
        where they meet: a path is found when either end's capped walks reach it, so a hub
        at one end or in the middle does not hide it (each node still expands at most
        `fanout` edges)."""
        if a == b:
            return []
        fwd = self.halves(a, self.opts.hops)
        back = self.halves(b, self.opts.hops)
        found: dict[tuple, list[Step]] = {}
        for meet in sorted(set(fwd) & set(back)):
            for head in fwd[meet]:
                for tail in back[meet]:
                    if not head and not tail or len(head) + len(tail) > self.opts.hops:
                        continue
                    path = head + _reversed(tail, b)
                    nodes = [a] + [s.to for s in path]
                    if len(set(nodes)) != len(nodes) or nodes[-1] != b:
                        continue
                    found.setdefault(tuple((s.key, s.direction) for s in path), path)
        return list(found.values())

    def around(self, a: str) -> list[list[Step]]:
        """The neighbourhood of `a`: every maximal simple path from it within `hops`."""
        found: list[list[Step]] = []
        path: list[Step] = []
        on = {a}

        def walk(node: str) -> None:
            extended = False
            if len(path) < self.opts.hops:
                for s in self.steps(node):
                    if s.to in on:
                        continue
                    extended = True
                    path.append(s)
                    on.add(s.to)
                    walk(s.to)
                    on.discard(s.to)
                    path.pop()
            if not extended and path:
                found.append(list(path))

        walk(a)
        return found


def _reversed(tail: list[Step], end: str) -> list[Step]:
    """A walk taken from `end`, walked back towards it: each step against its way."""
    out = []
    prev = [end] + [s.to for s in tail[:-1]]  # where each step of the tail started
    for s, at in zip(reversed(tail), reversed(prev)):
        out.append(Step(s.key, s.source, s.target, at,
                        "reverse" if s.direction == "forward" else "forward", s.data))
    return out


def find_paths(g, starts: Sequence[str], opts: Options, adjacency: Adjacency | None = None
               ) -> tuple[list[list[Step]], int, int]:
    """(paths within --limit, fan-out cut, paths cut): the neighbourhood of one start or the
    paths between each pair of starts, in a deterministic order."""
    w = Walker(g, opts, adjacency)
    groups: list[list[list[Step]]] = []
    if len(starts) == 1:
        groups.append(w.around(starts[0]))
    else:
        for i, a in enumerate(starts):
            for b in starts[i + 1:]:
                groups.append(w.between(a, b))
    paths = [p for grp in groups
             for p in sorted(grp, key=lambda p: (len(p), [s.order() for s in p]))]
    return paths[:opts.limit], sum(w.cut.values()), max(0, len(paths) - opts.limit)


def _hop(s: Step, opts: Options, verdicts: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    d = s.data
    gap = d["gap"]
    evidence, misses = [], []
    for cid in d["anchors"]:
        rec = verdicts.get(cid)
        if rec is None or rec.get("status") != "hit":
            msg = rec.get("message", "") if rec is not None else "not checked"
            doc, page = (rec.get("doc"), rec.get("page")) if rec is not None else ("?", "?")
            misses.append(f"MISS {cid} {doc} p.{page}: {msg}")
            continue
        evidence.append({"claim": cid, "status": "hit", **{k: rec.get(k) for k in EVIDENCE_KEYS}})
    if misses:
        gap = "; ".join(misses)
    expired = bool(opts.as_of and d.get("valid_to") and d["valid_to"] < opts.as_of)
    return {"from": s.source, "relation": d["relation"], "to": s.target,
            "direction": s.direction, "report": d["report"], "gap": gap, "expired": expired,
            "qualifiers": dict(d["qualifiers"]), "evidence": evidence}


def run_query(g, question: str, opts: Options, check: Checker, starts: Sequence[str] = (),
              index: NameIndex | None = None, adjacency: Adjacency | None = None) -> Answer:
    """The answer to `question` over graph `g`; `check` verifies the cited facts now.
    `index` and `adjacency` may be kept across queries of one graph (they only cache)."""
    index = index or NameIndex.of_graph(g)
    bound: Bound = bind_question(question, index, opts.threshold, opts.margin)
    out: dict[str, Any] = {"question": question, "status": bound.status,
                           "bindings": [], "candidates": [], "paths": [],
                           "truncated": {"fanout": 0, "paths": 0}}
    names = dict(index.display)
    out["bindings"] = [{"mention": eid, "entity": eid, "name": names[eid], "score": 1.0,
                        "method": "id"} for eid in starts]
    out["bindings"] += [{"mention": b.mention, "entity": b.entity, "name": b.name,
                         "score": b.score, "method": b.method} for b in bound.bindings
                        if b.entity not in starts]
    out["candidates"] = [{"mention": c.mention, "entity": c.entity or None,
                          "name": c.name or None, "score": c.score} for c in bound.candidates]
    if starts:
        out["status"] = "ok"  # picked by hand; the question's leftovers stay as candidates
    if out["status"] != "ok" or not out["bindings"]:
        if not out["bindings"] and out["status"] == "ok":
            out["status"] = "unbound"
        return Answer(out, names)
    ids = [b["entity"] for b in out["bindings"]]
    paths, cut_fan, cut_paths = find_paths(g, ids, opts, adjacency)
    cited = sorted({cid for p in paths for s in p for cid in s.data["anchors"]})
    verdicts = check(cited) if cited else {}
    for p in paths:
        nodes = [p[0].source if p[0].direction == "forward" else p[0].target]
        nodes += [s.to for s in p]
        out["paths"].append({"nodes": nodes, "hops": [_hop(s, opts, verdicts) for s in p]})
    out["truncated"] = {"fanout": cut_fan, "paths": cut_paths}
    return Answer(out, names)


def unknown_starts(g, starts: Iterable[str]) -> list[str]:
    """A message per --from id that names no entity, with the nearest ids."""
    return [f"--from {s!r} is not an entity id{nearest_names(s, list(g.nodes))}"
            for s in starts if s not in g]


# ---- verification through the library ---------------------------------------------------

def verify_anchors(ledger, fact_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Verdicts of the given facts now, through reportgen.verify (the one verifier), as claim
    records; a document that cannot be read makes its facts misses with the reason."""
    import dataclasses

    from reportgen.model import Fact, Verification
    from reportgen.verify.facts import check_facts
    from reportgen.verify.records import claim_record
    from reportgen.verify.run import verified_at

    facts = {c: ledger.claims[c] for c in fact_ids if isinstance(ledger.claims.get(c), Fact)}
    sub = dataclasses.replace(ledger, claims=facts)
    got = check_facts(sub, 1)
    v = Verification(sub, dict(got.results), verified_at(), dict(got.sha256))
    out = {c: claim_record(v, c) for c in facts if c in got.results}
    for p in got.problems:
        for c, f in facts.items():
            if c not in out and (f"fact {c}:" in p.message or f"document {f.doc!r}" in p.message):
                out[c] = {"status": "miss", "message": p.message, "doc": f.doc, "page": f.page}
    return out


def query_ledger(ledger, question: str, opts: Options, starts: Sequence[str] = ()) -> Answer:
    """`reportgen query` in one call: the ledger's entity graph, the question, the answer."""
    from reportgen.errors import LedgerErrors
    from reportgen.graph.build import entity_graph

    g = entity_graph(ledger)
    bad = unknown_starts(g, starts)
    if bad:
        from reportgen.errors import LedgerError
        raise LedgerErrors([LedgerError(m) for m in bad])
    return run_query(g, question, opts, lambda ids: verify_anchors(ledger, ids), starts)
