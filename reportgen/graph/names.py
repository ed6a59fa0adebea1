"""Names as a reader compares them: NFKC, case folded, whitespace collapsed; stdlib only."""

from __future__ import annotations

import difflib
import functools
import unicodedata
from collections import Counter
from collections.abc import Iterable


@functools.lru_cache(maxsize=1 << 16)  # endpoints repeat: a ledger names its hubs often
def norm(name: str) -> str:
    """The form two names are compared in (graph.md section 2): NFKC, casefold, one space."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def squash(text: str) -> str:
    """`norm` without any whitespace: how a name is looked for inside a quote."""
    return "".join(norm(text).split())


def bigrams(text: str) -> Counter[str]:
    """Character bigrams of the squashed text (a one-character name is its own bigram)."""
    s = squash(text)
    if len(s) < 2:
        return Counter([s]) if s else Counter()
    return Counter(s[i:i + 2] for i in range(len(s) - 1))


def dice(a: str, b: str) -> float:
    """Character-bigram Dice coefficient, 0..1, over multisets of bigrams."""
    x, y = bigrams(a), bigrams(b)
    total = sum(x.values()) + sum(y.values())
    if not total:
        return 0.0
    return 2 * sum((x & y).values()) / total


def closest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names nearest to `name`, for "did you mean" in an error message."""
    known = list(known)
    got = difflib.get_close_matches(name, known, n=n, cutoff=0.5)
    if not got:
        folded = {k.casefold(): k for k in known}
        got = [folded[k] for k in difflib.get_close_matches(name.casefold(), list(folded), n=n,
                                                            cutoff=0.5)]
    if not got:
        scored = sorted(known, key=lambda k: (-dice(name, k), k))
        got = [k for k in scored[:n] if dice(name, k) > 0]
    return got


def nearest_names(name: str, known: Iterable[str]) -> str:
    """`; did you mean X or Y?` naming up to three entity names (any script, bigram Dice
    when difflib finds none), or the known names when they are few; the single closest
    declared name of a vocabulary is reportgen.errors.did_you_mean."""
    known = sorted(set(known))
    near = closest(name, known)
    if near:
        return "; did you mean " + " or ".join(repr(k) for k in near) + "?"
    if known and len(known) <= 12:
        return "; known: " + ", ".join(known)
    return ""
