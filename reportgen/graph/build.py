"""The entity graph of a ledger as a networkx MultiDiGraph (graph.md section 1-2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reportgen.errors import LedgerErrors
from reportgen.graph.bind import bind_ledger
from reportgen.graph.model import EntityModel
from reportgen.model import Ledger

if TYPE_CHECKING:
    import networkx as nx


def graph_of(model: EntityModel) -> nx.MultiDiGraph:
    """One node per entity, one edge per ledger edge, keyed by its stable id."""
    import networkx as nx

    g = nx.MultiDiGraph()
    for node in model.entities.values():
        g.add_node(node.id, name=node.name, type=node.type, aliases=tuple(node.aliases),
                   docs=node.docs)
    g.add_edges_from((b.source, b.target, b.id, {
        "relation": b.edge.relation, "report": b.edge.report, "anchors": b.edge.anchors,
        "gap": b.edge.gap, "qualifiers": dict(b.qualifiers), "valid_from": b.edge.valid_from,
        "valid_to": b.edge.valid_to, "file": b.edge.loc.file, "line": b.edge.loc.line})
        for b in model.edges)
    return g


def entity_graph(ledger: Ledger) -> nx.MultiDiGraph:
    """All edges of all reports over one node per entity; raises LedgerErrors when the
    vocabulary or the binding has problems (load_ledger reports them first)."""
    model = bind_ledger(ledger)
    if model.problems:
        raise LedgerErrors(model.problems)
    return graph_of(model)
