"""The evidence index: an embedded SQLite store of text blocks and chunks, searched by
lexical channels (FTS5 BM25 over character n-grams and over single characters) and an
optional vector channel, fused by Reciprocal Rank Fusion.

Public API: `index_paths`, `search`, `pack`, `rrf`, `Embedder`, `default_db`.
"""

from reportgen.index.build import IndexSummary, index_paths
from reportgen.index.channels import Embedder
from reportgen.index.fusion import rrf
from reportgen.index.pack import pack
from reportgen.index.finder import Hit, search
from reportgen.index.store import default_db, sqlite_module

__all__ = ["Embedder", "Hit", "IndexSummary", "default_db", "index_paths", "pack", "rrf",
           "search", "sqlite_module"]
