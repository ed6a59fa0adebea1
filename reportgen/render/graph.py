"""A deterministic SVG layout for a report's relation graph, computed at build time.

Hand-written on purpose (no layout engine): three columns. Sources on the left, one row
per edge in the middle holding the relation's label, targets on the right. Every edge runs
source -> its label -> target, so labels never overlap however many edges share a pair.
Edges are sorted by (source, target, relation); each source sits centred on its block of
rows; targets are ordered by the mean row of their edges (ties by name) to cut
crossings. The same ledger gives the same picture on every machine.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from reportgen.model import Edge, Entity

ROW = 30.0  # one row per edge
NODE_H = 24.0
PAD = 12.0
GAP_X = 110.0  # horizontal room for the curves on each side of the label column
FONT = 13.0
LABEL_FONT = 12.0


def text_width(s: str, size: float = FONT) -> float:
    """Rough advance width: wide (CJK) characters 1 em, others 0.6 em."""
    w = 0.0
    for ch in s:
        w += size if unicodedata.east_asian_width(ch) in ("W", "F") else size * 0.6
    return w


@dataclass(frozen=True)
class Node:
    name: str
    x: float
    y: float
    w: float
    h: float

    @property
    def tx(self) -> float:  # text centre
        return round(self.x + self.w / 2, 1)

    @property
    def ty(self) -> float:
        return round(self.y + self.h / 2 + FONT * 0.35, 1)


@dataclass(frozen=True)
class DrawnEdge:
    edge: Edge
    source: str
    target: str
    path: str
    label: str
    bx: float  # label box
    by: float
    bw: float
    bh: float
    anchored: bool

    @property
    def tx(self) -> float:
        return round(self.bx + self.bw / 2, 1)

    @property
    def ty(self) -> float:
        return round(self.by + self.bh / 2 + LABEL_FONT * 0.35, 1)


@dataclass(frozen=True)
class Graph:
    width: float
    height: float
    left: tuple[Node, ...]
    right: tuple[Node, ...]
    edges: tuple[DrawnEdge, ...]
    gaps: int


def canonical_names(entities: Sequence[Entity]) -> dict[str, str]:
    out: dict[str, str] = {}
    for e in entities:
        for a in e.aliases:
            out[a] = e.name
    return out


def _r(v: float) -> float:
    return round(v, 1)


def _curve(x0: float, y0: float, x1: float, y1: float) -> str:
    dx = (x1 - x0) / 2
    return f"M{_r(x0)},{_r(y0)} C{_r(x0 + dx)},{_r(y0)} {_r(x1 - dx)},{_r(y1)} {_r(x1)},{_r(y1)}"


def layout(edges: Sequence[Edge], entities: Sequence[Entity] = ()) -> Graph | None:
    if not edges:
        return None
    canon = canonical_names(entities)

    def name(n: str) -> str:
        return canon.get(n, n)

    def label(e: Edge) -> str:
        return e.relation if e.gap is None else f"{e.relation} (gap)"

    es = sorted(edges, key=lambda e: (name(e.source), name(e.target), e.relation,
                                      e.gap is not None, e.anchors, e.gap or ""))
    sources = sorted({name(e.source) for e in es})
    rows = {i: PAD + i * ROW + ROW / 2 for i in range(len(es))}  # centre y of each row
    height = _r(len(es) * ROW + 2 * PAD)
    lw = _r(max(text_width(s) for s in sources) + 2 * PAD)
    mw = _r(max(text_width(label(e), LABEL_FONT) for e in es) + 2 * PAD)
    xs_l, xs_m = PAD, PAD + lw + GAP_X
    xs_r = xs_m + mw + GAP_X
    # sources: centred on their block of rows
    left = {}
    for s_ in sources:
        idx = [i for i, e in enumerate(es) if name(e.source) == s_]
        cy = (rows[idx[0]] + rows[idx[-1]]) / 2
        left[s_] = Node(s_, xs_l, _r(cy - NODE_H / 2), lw, NODE_H)
    # targets: ordered by the mean row of their edges, spread over the height
    tgt_rows: dict[str, list[int]] = {}
    for i, e in enumerate(es):
        tgt_rows.setdefault(name(e.target), []).append(i)
    targets = sorted(tgt_rows, key=lambda t: (sum(tgt_rows[t]) / len(tgt_rows[t]), t))
    rw = _r(max(text_width(t) for t in targets) + 2 * PAD)
    step = (height - 2 * PAD) / len(targets)
    right = {t: Node(t, _r(xs_r), _r(PAD + k * step + step / 2 - NODE_H / 2), rw, NODE_H)
             for k, t in enumerate(targets)}
    drawn = []
    for i, e in enumerate(es):
        a, b = left[name(e.source)], right[name(e.target)]
        y = rows[i]
        bh = ROW - 8
        d = (_curve(a.x + a.w, a.y + a.h / 2, xs_m, y) + " "
             + _curve(xs_m + mw, y, b.x - 8, b.y + b.h / 2))
        drawn.append(DrawnEdge(e, name(e.source), name(e.target), d, label(e), _r(xs_m),
                               _r(y - bh / 2), mw, bh, e.gap is None))
    return Graph(_r(xs_r + rw + PAD), height, tuple(left.values()), tuple(right.values()),
                 tuple(drawn), sum(1 for e in edges if e.gap is not None))


# ---- the whole entity graph: one node per entity --------------------------------------


@dataclass(frozen=True)
class EntityBox:
    id: str
    name: str
    href: str
    x: float
    y: float
    w: float
    h: float

    @property
    def tx(self) -> float:
        return round(self.x + self.w / 2, 1)

    @property
    def ty(self) -> float:
        return round(self.y + self.h / 2 + FONT * 0.35, 1)


@dataclass(frozen=True)
class EntityEdge:
    """An edge of the entity graph as drawn: `out` from the source to the label, `into`
    from the label to the target (with the arrowhead)."""

    id: str
    source: str  # entity names, for titles
    target: str
    relation: str
    anchors: tuple[str, ...]
    gap: str | None
    out: str
    into: str
    label: str
    bx: float
    by: float
    bw: float
    bh: float

    @property
    def anchored(self) -> bool:
        return self.gap is None

    @property
    def tx(self) -> float:
        return round(self.bx + self.bw / 2, 1)

    @property
    def ty(self) -> float:
        return round(self.by + self.bh / 2 + LABEL_FONT * 0.35, 1)


@dataclass(frozen=True)
class EntityGraph:
    width: float
    height: float
    nodes: tuple[EntityBox, ...]
    edges: tuple[EntityEdge, ...]
    gaps: int


def entity_layout(nodes: Sequence[tuple[str, str, str]],
                  edges: Sequence[tuple[str, str, str, str, tuple[str, ...], str | None]]
                  ) -> EntityGraph | None:
    """Two columns: every entity once on the left (id, name, href), one row per edge on the
    right (id, source id, target id, relation, anchors, gap) holding its label; each edge
    runs from its source to its label and on to its target. Rows are sorted by (source
    name, target name, relation, id), entities by the mean row of their edges, so the
    same graph gives the same picture whatever order it was read in."""
    if not nodes:
        return None
    name = {i: n for i, n, _ in nodes}
    href = {i: h for i, _, h in nodes}
    es = sorted(edges, key=lambda e: (name[e[1]], name[e[2]], e[3], e[5] is not None, e[0]))

    def label(e: tuple) -> str:
        return e[3] if e[5] is None else f"{e[3]} (gap)"

    rows: dict[str, list[int]] = {i: [] for i in name}
    for r, e in enumerate(es):
        rows[e[1]].append(r)
        rows[e[2]].append(r)
    order = sorted(name, key=lambda i: (0, sum(rows[i]) / len(rows[i]), name[i], i)
                   if rows[i] else (1, 0.0, name[i], i))
    n_rows = max(len(es), len(order))
    height = _r(n_rows * ROW + 2 * PAD)
    nw = _r(max(text_width(n) for n in name.values()) + 2 * PAD)
    mw = _r(max((text_width(label(e), LABEL_FONT) for e in es), default=0.0) + 2 * PAD)
    xm = PAD + nw + GAP_X
    step = (height - 2 * PAD) / len(order)
    boxes = {i: EntityBox(i, name[i], href[i], PAD, _r(PAD + k * step + step / 2 - NODE_H / 2),
                          nw, NODE_H) for k, i in enumerate(order)}
    drawn = []
    edge_step = (height - 2 * PAD) / max(1, len(es))
    for r, e in enumerate(es):
        a, b = boxes[e[1]], boxes[e[2]]
        y = PAD + r * edge_step + edge_step / 2
        bh = ROW - 8
        drawn.append(EntityEdge(
            e[0], name[e[1]], name[e[2]], e[3], e[4], e[5],
            _curve(a.x + a.w, a.y + a.h / 2, xm, y), _curve(xm, y, b.x + b.w + 8, b.y + b.h / 2),
            label(e), _r(xm), _r(y - bh / 2), mw, bh))
    return EntityGraph(_r(xm + mw + PAD), height, tuple(boxes[i] for i in order), tuple(drawn),
                       sum(1 for e in es if e[5] is not None))
