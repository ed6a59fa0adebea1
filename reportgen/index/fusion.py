"""Reciprocal Rank Fusion: combine rankings by rank alone (Cormack et al., SIGIR 2009).

score(d) = sum over channels c of 1 / (k + rank_c(d)), ranks from 1, k = 60, every channel
weighted equally; a channel that did not rank d contributes 0. Scores of different
channels (BM25 values, cosine distances) are never compared, only positions.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

RRF_K = 60


@dataclass(frozen=True)
class Fused:
    id: Hashable
    score: float
    ranks: dict[str, int]  # channel -> 1-based rank, only channels that ranked it


def rrf(rankings: Mapping[str, Sequence[Hashable]], k: int = RRF_K) -> list[Fused]:
    """Fuse channel rankings (best first); ties go to the better best rank, then to the
    order the candidate was first seen in, so the result is deterministic."""
    ranks: dict[Hashable, dict[str, int]] = {}
    for channel, ids in rankings.items():
        seen = set()
        for pos, i in enumerate(ids, start=1):
            if i in seen:
                continue
            seen.add(i)
            ranks.setdefault(i, {})[channel] = pos
    order = {i: n for n, i in enumerate(ranks)}
    out = [Fused(i, sum(1.0 / (k + r) for r in rs.values()), rs) for i, rs in ranks.items()]
    out.sort(key=lambda f: (-f.score, min(f.ranks.values()), order[f.id]))
    return out
