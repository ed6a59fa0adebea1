"""Tool errors with a stable code, and the mapping from the library's typed errors."""

from __future__ import annotations

INVALID_ARGUMENT = "INVALID_ARGUMENT"
NOT_FOUND = "NOT_FOUND"
INDEX_NOT_READY = "INDEX_NOT_READY"
UPSTREAM_ERROR = "UPSTREAM_ERROR"
INTERNAL_ERROR = "INTERNAL_ERROR"
CODES = (INVALID_ARGUMENT, NOT_FOUND, INDEX_NOT_READY, UPSTREAM_ERROR, INTERNAL_ERROR)


class ToolError(Exception):
    """A tool call that cannot be answered: a code an agent can branch on, and a message
    that says what to do."""

    def __init__(self, code: str, message: str) -> None:
        assert code in CODES, code
        super().__init__(message)
        self.code = code
        self.message = message

    def payload(self) -> dict[str, dict[str, str]]:
        """The error as the tool result's structured content."""
        return {"error": {"code": self.code, "message": self.message}}


def from_library(err: Exception) -> ToolError:
    """The code of a typed reportgen error: a bad query is the caller's, a missing index is
    not ready yet, an unreadable PDF or index is upstream; anything else is a bug."""
    from reportgen.errors import DocumentError, LedgerError, LedgerErrors, ReportgenError
    from reportgen.index import errors as ix

    if isinstance(err, ToolError):
        return err
    if isinstance(err, ix.QueryError):
        return ToolError(INVALID_ARGUMENT, str(err))
    if isinstance(err, ix.UnknownDocumentError):
        return ToolError(NOT_FOUND, str(err))
    if isinstance(err, (ix.IndexMissingError, ix.IndexVersionError)):
        return ToolError(INDEX_NOT_READY, str(err))
    if isinstance(err, (DocumentError, ix.IndexError_)):
        return ToolError(UPSTREAM_ERROR, str(err))
    if isinstance(err, (LedgerError, LedgerErrors)):
        return ToolError(INDEX_NOT_READY, f"the ledger cannot be read: {err}")
    if isinstance(err, ReportgenError):
        return ToolError(UPSTREAM_ERROR, str(err))
    return ToolError(INTERNAL_ERROR, f"internal error: {type(err).__name__}: {err}; this is "
                     "a bug, please report it")
