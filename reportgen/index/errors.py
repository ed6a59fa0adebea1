"""Errors of the evidence index; each is a ReportgenError, so the CLI prints it and exits 1."""

from __future__ import annotations

from reportgen.errors import ReportgenError


class IndexError_(ReportgenError):
    """Base of evidence-index errors (named with a trailing underscore: not the builtin)."""


class IndexMissingError(IndexError_):
    """No store where one was looked for."""


class IndexVersionError(IndexError_):
    """A store written by another schema version."""


class QueryError(IndexError_):
    """A query with nothing to search for (empty, punctuation, stopwords only)."""


class UnknownDocumentError(IndexError_):
    """`--doc` names a document the index does not hold (or one without a text layer)."""


class IndexInputError(IndexError_):
    """A PATH that is neither a ledger folder, a report file nor a PDF."""


class EmbedderError(IndexError_):
    """The vector channel was asked for but cannot run (no embedder, dimension clash)."""


class IndexDamagedError(IndexError_):
    """A store of ours that SQLite cannot read any more (truncated, overwritten)."""


class IndexBusyError(IndexError_):
    """Another process holds the store's write lock beyond the busy timeout."""
