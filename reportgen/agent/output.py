"""Tool outputs within a size: what does not fit is cut and said to be cut (`truncated`),
never dropped silently."""

from __future__ import annotations

import json
from typing import Any

MIN_STRING = 80  # a string is never cut shorter than this
ELLIPSIS = "…"


def size(payload: Any) -> int:
    """Characters of the payload as the client receives it (JSON, non-ASCII kept)."""
    return len(json.dumps(payload, ensure_ascii=False))


def cap(payload: dict[str, Any], limit: int, items: str | tuple[str, ...] | None = None
        ) -> dict[str, Any]:
    """`payload` with `truncated` set, fitted under `limit` characters: items dropped from
    the end of the list at `items` (a key, or a path of keys), counted in `omitted`; then
    the longest strings cut in half, in turn, down to MIN_STRING characters each."""
    out = dict(payload)
    out["truncated"] = False
    if items is not None:
        path = (items,) if isinstance(items, str) else items
        holder = out
        for key in path[:-1]:  # copy the way down: the caller's values stay as they are
            holder[key] = holder = dict(holder[key])
        whole = holder[path[-1]]
        kept = holder[path[-1]] = list(whole)
        out["omitted"] = 0
        while kept and size(out) > limit:
            kept.pop()
            out["omitted"] += 1
            out["truncated"] = True
        if not kept and out["omitted"]:  # even one item is too large: keep it, cut its strings
            kept.append(whole[0])
            out["omitted"] -= 1
    while size(out) > limit:
        path = _longest(out)
        if path is None:
            break
        holder, key = path
        text = holder[key]
        holder[key] = text[:max(MIN_STRING, len(text) // 2)] + ELLIPSIS
        out["truncated"] = True
    return out


def _longest(node: Any) -> tuple[Any, Any] | None:
    """(container, key) of the longest string longer than MIN_STRING + 1, copying the
    containers on the way so the caller's values are never changed."""
    best: tuple[int, Any, Any] | None = None
    stack = [node]
    while stack:
        cur = stack.pop()
        keys = range(len(cur)) if isinstance(cur, list) else list(cur)
        for k in keys:
            v = cur[k]
            if isinstance(v, dict):
                cur[k] = v = dict(v)
                stack.append(v)
            elif isinstance(v, list):
                cur[k] = v = list(v)
                stack.append(v)
            elif isinstance(v, str) and len(v) > MIN_STRING + 1 and (best is None
                                                                     or len(v) > best[0]):
                best = (len(v), cur, k)
    return None if best is None else (best[1], best[2])
