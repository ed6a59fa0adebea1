"""Evidence packing: choose ranked blocks of evidence under a token budget and a count limit.

Two policies for an item that does not fit the tokens left:

- `stop`: stop there; it and everything ranked below it are left out (the context keeps
  a strict prefix of the ranking, so nothing lower ranked displaces something higher);
- `skip`: leave it out and keep filling with the items below that still fit.

Every left-out item carries its reason. Token counts are estimated (`estimate_tokens`:
one token per CJK character, one per four other characters, rounded up) unless a
`count` function is given, e.g. a real tokenizer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

T = TypeVar("T")
Policy = Literal["stop", "skip"]

_CJK_RE = re.compile(r"[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    cjk = len(_CJK_RE.findall(text))
    other = len(text) - cjk
    return cjk + math.ceil(other / 4)


@dataclass(frozen=True)
class LeftOut(Generic[T]):
    item: T
    tokens: int
    reason: str


@dataclass(frozen=True)
class Packed(Generic[T]):
    chosen: tuple[T, ...]
    left_out: tuple[LeftOut[T], ...]
    tokens: int  # tokens used by the chosen items
    budget: int


def _text_of(item) -> str:
    if isinstance(item, str):
        return item
    ev = getattr(item, "evidence", None)
    if ev is not None and getattr(item, "text", None) is not None:
        return item.text  # a search Hit: pack the chunk text
    return getattr(item, "text")


def pack(items: Sequence[T], budget: int, max_blocks: int | None = None,
         policy: Policy = "stop", count: Callable[[str], int] = estimate_tokens,
         text: Callable[[T], str] = _text_of) -> Packed[T]:
    """Choose `items` (best first) while they fit `budget` tokens and `max_blocks` items."""
    if policy not in ("stop", "skip"):
        raise ValueError(f"policy must be 'stop' or 'skip', not {policy!r}")
    if budget < 0 or (max_blocks is not None and max_blocks < 0):
        raise ValueError("budget and max_blocks must not be negative")
    chosen: list[T] = []
    left: list[LeftOut[T]] = []
    used = 0
    stopped_at: int | None = None
    for rank, item in enumerate(items, start=1):
        n = count(text(item))
        if stopped_at is not None:
            left.append(LeftOut(item, n, f"after the stop at rank {stopped_at}"))
            continue
        if max_blocks is not None and len(chosen) >= max_blocks:
            left.append(LeftOut(item, n, f"block limit of {max_blocks} reached"))
            continue
        if used + n > budget:
            left.append(LeftOut(item, n, f"needs {n} tokens, {budget - used} of {budget} left"))
            if policy == "stop":
                stopped_at = rank
            continue
        chosen.append(item)
        used += n
    return Packed(tuple(chosen), tuple(left), used, budget)
