"""Fact stubs from search results: a quote the anchor rule finds, its numbers as `values`
in quote order, and an id no claim of the ledger uses.

The quote is taken from the page's text layer and tidied the way an analyst would type
it (a word broken at a line end joined, a leading bullet dropped), but a tidied quote is
only kept when the verifier's own anchor rule (`reportgen.pdf.anchors.match_quote`)
still finds it on the page: otherwise the text as it stands is quoted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal

from reportgen.index.tokens import ngram_tokens, query_terms, unigram_tokens, is_cjk

# Bullets and list marks a text layer keeps at the start of a line of a list.
_BULLET_RE = re.compile(r"^\s*(?:[•·▪▫◦●○■□►▶➢✓✔–—*-]|\(?[a-z]\)|\(?[ivx]{1,4}\))\s+")
# A word broken at a line end: "iden- tifier" (the newline collapsed to a space).
_BROKEN_RE = re.compile(r"([^\W\d_])-\s+([^\W\d_])")
_ID_RE = re.compile(r"^(.*?)(\d+)$")


def quote_candidates(text: str) -> list[str]:
    """Tidied forms of a sentence or row, tidiest first, the text itself last: leading
    bullet dropped; line-end hyphen dropped (or kept, for a compound word); both."""
    out: list[str] = []
    unbulleted = _BULLET_RE.sub("", text, count=1)
    for t in (unbulleted, text):
        joined = _BROKEN_RE.sub(r"\1\2", t)
        kept = _BROKEN_RE.sub(r"\1-\2", t)
        for c in (joined, kept, t):
            if c.strip() and c not in out:
                out.append(c)
    return out


def number_values(quote: str) -> list[tuple[str, str]]:
    """(name, number as written in plain decimal) for each number of the quote, in the
    order they stand (the verifier's own reading of numbers: `decimals_in`)."""
    from reportgen.ledger.validate import decimals_in

    return [(f"v{i}", _plain(d)) for i, d in enumerate(decimals_in(quote), start=1)]


def _plain(d: Decimal) -> str:
    s = format(d, "f")
    return s


def next_ids(taken: Iterable[str], report_ids: Sequence[str], n: int) -> list[str]:
    """`n` ids no claim, report or document uses: the report's own pattern (its most common
    prefix before a number, "s2-" for s2-1 ... s2-12) continued after its highest number,
    else new-1, new-2 ..."""
    used = set(taken)
    prefixes: dict[str, int] = {}
    top: dict[str, int] = {}
    for cid in report_ids:
        m = _ID_RE.match(cid)
        if m:
            prefixes[m.group(1)] = prefixes.get(m.group(1), 0) + 1
            top[m.group(1)] = max(top.get(m.group(1), 0), int(m.group(2)))
    if prefixes:
        prefix = max(sorted(prefixes), key=lambda p: prefixes[p])
        k = top[prefix]
    else:
        prefix, k = "new-", 0
    out: list[str] = []
    while len(out) < n:
        k += 1
        cid = f"{prefix}{k}"
        if cid not in used:
            used.add(cid)
            out.append(cid)
    return out


def term_coverage(query: str, text: str) -> tuple[float, list[str]]:
    """How much of the query the text holds (0..1) and the query terms it lacks: a word or
    number counts when it stands whole in the text, a CJK term by the share of its bigrams."""
    terms = query_terms(query)
    if not terms:
        return 1.0, []
    grams = set(ngram_tokens(text)) | set(unigram_tokens(text))
    total = 0.0
    missing: list[str] = []
    for t in terms:
        if is_cjk(t) and len(t) > 1:
            pairs = [t[i:i + 2] for i in range(len(t) - 1)]
            share = sum(p in grams for p in pairs) / len(pairs)
        else:
            share = 1.0 if t.replace(",", "") in grams else 0.0
        total += share
        if share < 0.5:
            missing.append(t)
    return total / len(terms), missing


# A best result holding at most this share of the query's terms is a weak match.
WEAK_SHARE = 0.5


def yaml_str(s: str) -> str:
    """A YAML double-quoted scalar that reads back as `s` (the one quoting `init` uses too)."""
    from reportgen.ledger.scaffold import yaml_quote

    return yaml_quote(s)


def stub_yaml(cid: str, doc: str, page: int, quote: str) -> str:
    """A fact claim ready for a report's `claims:` list."""
    lines = [
        f"- id: {yaml_str(cid) if not re.fullmatch(r'[A-Za-z][A-Za-z0-9._-]*', cid) else cid}",
        "  kind: fact",
        "  statement: TODO",
        f"  doc: {yaml_str(doc)}",
        f"  page: {page}",
        f"  quote: {yaml_str(quote)}",
    ]
    values = number_values(quote)
    if values:
        lines.append("  values: {" + ", ".join(f"{k}: {v}" for k, v in values) + "}")
    return "\n".join(lines)
