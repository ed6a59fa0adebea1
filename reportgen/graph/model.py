"""The entity graph's values: entities with every name they go by, and edges bound to them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reportgen.errors import LedgerError
from reportgen.graph.vocab import Schema
from reportgen.model import Edge


@dataclass
class EntityNode:
    """One entity, however many names it appears under; `aliases` excludes `name`."""

    id: str
    name: str
    type: str | None
    aliases: list[str]
    docs: tuple[str, ...]
    file: str | None
    line: int | None
    declared: bool  # in entities.yaml or a report's entities: list (not only an endpoint)

    def names(self) -> list[str]:
        return [self.name, *self.aliases]


@dataclass(frozen=True)
class BoundEdge:
    """A ledger edge with both ends bound to entities and a stable id."""

    id: str
    edge: Edge
    source: str  # entity id
    target: str
    qualifiers: tuple[tuple[str, Any], ...]
    written: tuple[tuple[str, str], ...] = ()  # the qualifiers as their facts write them


@dataclass
class EntityModel:
    """Every entity and edge of a ledger, and what was wrong with them."""

    entities: dict[str, EntityNode] = field(default_factory=dict)
    edges: list[BoundEdge] = field(default_factory=list)
    schema: Schema | None = None
    names: dict[str, str] = field(default_factory=dict)  # normalised name -> entity id
    has_entities_file: bool = False
    problems: list[LedgerError] = field(default_factory=list)
