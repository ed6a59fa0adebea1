"""The entity graph: vocabulary, entities and binding, the networkx graph, local queries.

Importing this package loads neither networkx nor YAML; the functions do when called."""

from reportgen.graph.build import entity_graph

__all__ = ["entity_graph"]
