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
    for b in model.edges:
        e = b.edge
        g.add_edge(b.source, b.target, key=b.id, relation=e.relation, report=e.report,
                   anchors=e.anchors, gap=e.gap, qualifiers=dict(b.qualifiers),
                   valid_from=e.valid_from, valid_to=e.valid_to, file=e.loc.file,
                   line=e.loc.line)
    return g


def entity_graph(ledger: Ledger) -> nx.MultiDiGraph:
    """All edges of all reports over one node per entity; raises LedgerErrors when the
    vocabulary or the binding has problems (load_ledger reports them first)."""
    model = bind_ledger(ledger)
    if model.problems:
        raise LedgerErrors(model.problems)
    return graph_of(model)
