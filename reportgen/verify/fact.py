"""Give one fact its verdict: the quote's anchor on the named page, or a miss that says how to fix it."""

from __future__ import annotations

import re
import unicodedata

from reportgen.errors import DocumentError, LedgerError
from reportgen.model import Fact, FactResult
from reportgen.pdf.anchors import match_across, match_page, match_quote
from reportgen.pdf.hints import miss_hint
from reportgen.pdf.documents import DocumentSet

# At most this many other pages get a full extraction while hinting one miss.
MAX_HINT_PAGES = 60


def verify_fact(fact: Fact, docs: DocumentSet) -> FactResult:
    """Hit with an Anchor, or miss with the message that follows `MISS <id> <doc> p.<n>: `.

    Raises DocumentError for a PDF that cannot serve as evidence, LedgerError for a page
    the document does not have.
    """
    if fact.doc not in docs.documents:
        raise LedgerError(f"unknown document {fact.doc!r}; declare it under `documents:`",
                          fact.loc.file, fact.loc.line)
    sha = docs.sha256(fact.doc)
    count = docs.page_count(fact.doc)
    if not 1 <= fact.page <= count:
        msg = (f"page {fact.page} is out of range: document {fact.doc} has {count} pages; "
               "page is the 1-based index a PDF viewer shows")
        if docs.is_repaired(fact.doc):
            msg += " (the file is damaged and MuPDF had to repair it: it may be truncated)"
        raise LedgerError(msg, fact.loc.file, fact.page_line or fact.loc.line)
    page = docs.page_text(fact.doc, fact.page)
    hit = match_quote(fact.quote, page, (lambda: docs.page_text(fact.doc, fact.page + 1))
                      if fact.page < count else None)
    if hit is not None:
        return FactResult(fact.id, "hit", hit, sha)
    if not page.has_text_layer:
        if docs.is_repaired(fact.doc):
            return FactResult(fact.id, "miss", None, sha, (
                f"p.{fact.page} has no text layer, and the file is damaged (MuPDF had to "
                "repair it; it may be truncated): download or export it again"))
        return FactResult(fact.id, "miss", None, sha, miss_hint(fact.quote, page))
    found = find_elsewhere(fact.quote, docs, fact.doc, fact.page)
    nxt = docs.page_text(fact.doc, fact.page + 1) if fact.page < count and not found else None
    return FactResult(fact.id, "miss", None, sha, miss_hint(fact.quote, page, found, nxt))


_GAPS = re.compile(r"[\s\-\u00ad\u2010\u200b\u200c\u200d\u2060\ufeff]+")
CHUNK = 8


def _squash(text: str) -> str:
    """Text for the pre-filter: NFKC, no whitespace, no hyphens (so line-end breaks vanish)."""
    return _GAPS.sub("", unicodedata.normalize("NFKC", text))


def _could_hold(chunks: list[str], need: int, text: str) -> bool:
    """Cheap screen: enough of the quote's 8-character pieces occur in the page's plain text.

    Not every piece is required, since a piece may straddle two lines that another
    reading order joins; half of them is a strong enough screen.
    """
    found = 0
    for c in chunks:
        if c in text:
            found += 1
            if found >= need:
                return True
    return False


def _squashed(docs: DocumentSet, doc_id: str, page: int) -> str:
    """The page's plain text squashed for the pre-filter, once per run."""
    memo = docs.memo(doc_id)
    key = ("squashed", page)
    got = memo.get(key)
    if got is None:
        got = memo[key] = _squash(docs.plain_text(doc_id, page))
    return got  # type: ignore[return-value]


def find_elsewhere(quote: str, docs: DocumentSet, doc_id: str, page: int) -> list[str]:
    """Other pages of the document where the quote hits by the same rule ("p.13").

    Also "p.11 running onto p.12" when the quote begins on the page before the named one.
    Scans with a character-count pre-filter, then matches fully on the pages that pass.
    """
    q = _squash(quote)
    if not q:
        return []
    chunks = [q[i:i + CHUNK] for i in range(0, len(q), CHUNK)]
    if len(chunks) > 1 and len(chunks[-1]) < CHUNK:
        chunks[-1] = q[-CHUNK:]
    need = max(1, len(chunks) // 2)
    out: list[str] = []
    tried = 0
    try:
        if page > 1:
            prev = docs.page_text(doc_id, page - 1)
            here = docs.page_text(doc_id, page)
            if match_page(quote, prev) is None and match_across(quote, prev, here) is not None:
                out.append(f"p.{page - 1} running onto p.{page}")
        for k in docs.pages(doc_id):
            if k == page or not _could_hold(chunks, need, _squashed(docs, doc_id, k)):
                continue
            tried += 1
            if tried > MAX_HINT_PAGES:
                break
            if match_page(quote, docs.page_text(doc_id, k)) is not None:
                out.append(f"p.{k}")
    except DocumentError:
        pass  # a damaged page elsewhere only costs the hint, not the verdict
    return out
