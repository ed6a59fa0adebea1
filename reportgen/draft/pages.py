"""The pages a draft reads, from the evidence index (the text `reportgen find` searches),
and their batches within the model's context."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reportgen.errors import DocumentError, ReportgenError

BATCH_CHARS = 12_000  # page text per model call: a few dense pages, well within the context


@dataclass(frozen=True)
class IndexedDoc:
    id: str
    pages: int  # the document's page count
    sha256: str  # of the file that was indexed


def page_texts(db: Path, doc: str, first: int, last: int, hint: str,
               sha256: str | None = None) -> tuple[IndexedDoc, list[tuple[int, str]]]:
    """The text of pages first..last (clipped to the document) as the index holds it, one
    block per line. With `sha256`, the indexed file must be that one (else the index is
    stale and the model would read other text than the verifier checks)."""
    from reportgen.index.finder import open_index
    from reportgen.index.store import db_error, db_errors

    con = open_index(db, hint=hint)
    try:
        row = con.execute("SELECT pages, sha256 FROM documents WHERE id=?", (doc,)).fetchone()
        if row is None:
            raise ReportgenError(f"document {doc!r} is not in the evidence index {db}; run "
                                 f"`reportgen index {hint}` first")
        info = IndexedDoc(doc, int(row[0]), row[1])
        if sha256 is not None and sha256 != info.sha256:
            raise DocumentError(f"document {doc!r} changed since it was indexed; run "
                                f"`reportgen index {hint}` again")
        last = min(last, info.pages)
        out = []
        for page in range(first, last + 1):
            blocks = [t for (t,) in con.execute(
                "SELECT text FROM blocks WHERE doc=? AND page=? ORDER BY seq", (doc, page))]
            out.append((page, "\n".join(blocks)))
    except db_errors() as e:
        raise db_error(e, db, hint) from e
    finally:
        con.close()
    return info, out


def batches(pages: Sequence[tuple[int, str]], limit: int = BATCH_CHARS
            ) -> list[list[tuple[int, str]]]:
    """Consecutive pages grouped up to `limit` characters (a longer page goes alone)."""
    out: list[list[tuple[int, str]]] = []
    size = 0
    for page, text in pages:
        if not out or size + len(text) > limit:
            out.append([])
            size = 0
        out[-1].append((page, text))
        size += len(text)
    return [b for b in out if any(t.strip() for _, t in b)]
