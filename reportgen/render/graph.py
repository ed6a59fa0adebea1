"""A deterministic SVG layout of an entity graph (a report's edges, or every edge of the
ledger), computed at build time.

Hand-written on purpose (no layout engine): two columns. Every entity once on the left,
however many names it appears under and whether it is a source, a target or both; one row
per edge on the right holding the relation's label. Every edge runs source -> its label ->
target, so labels never overlap however many edges share a pair. Edges are sorted by
(source, target, relation, id); entities are ordered by the mean row of their edges (ties
by name) to cut crossings. The same ledger gives the same picture on every machine.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

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


def _r(v: float) -> float:
    return round(v, 1)


def _curve(x0: float, y0: float, x1: float, y1: float) -> str:
    dx = (x1 - x0) / 2
    return f"M{_r(x0)},{_r(y0)} C{_r(x0 + dx)},{_r(y0)} {_r(x1 - dx)},{_r(y1)} {_r(x1)},{_r(y1)}"


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
