"""The text view of a query's answer: a citation chain a reviewer reads in seconds."""

from __future__ import annotations

from typing import Any

from reportgen.graph.query import Answer

QUOTE_MAX = 40


def short_quote(q: str) -> str:
    """The quote, or its head and tail around ' ... ' when it is long."""
    q = " ".join(q.split())
    return q if len(q) <= QUOTE_MAX else f"{q[:22]} ... {q[-12:]}"


def _arrow(hop: dict[str, Any], names: dict[str, str]) -> str:
    a, b = names.get(hop["from"], hop["from"]), names.get(hop["to"], hop["to"])
    if hop["direction"] == "forward":
        return f"{a} -{hop['relation']}-> {b}"
    return f"{b} <-{hop['relation']}- {a}"


def answer_lines(ans: Answer) -> list[str]:
    """The lines `reportgen query` prints (without --json)."""
    j, names = ans.json, ans.names
    lines: list[str] = []
    if j["status"] != "ok":
        for c in j["candidates"]:
            if c["entity"] is None:
                lines.append(f"{j['status']}: {c['mention']!r} names no entity of the ledger")
            else:
                lines.append(f"{j['status']}: {c['mention']!r} could be {c['name']} "
                             f"({c['entity']}), score {c['score']:.2f}")
        if not j["candidates"]:
            lines.append("unbound: the question names no entity of the ledger")
        lines.append("no traversal started: name the entity as declared, or pick it with "
                     "--from ID")
        return lines
    for c in j["candidates"]:
        lines.append(f"note: {c['mention']!r} was not bound (candidate {c['name'] or 'none'})")
    if not j["paths"]:
        who = ", ".join(b["name"] for b in j["bindings"])
        lines.append(f"{who}: no path within the hop budget")
    for p in j["paths"]:
        n = len(p["hops"])
        first, last = p["nodes"][0], p["nodes"][-1]
        lines.append(f"{names.get(first, first)} -> {names.get(last, last)} "
                     f"({n} hop{'s' if n != 1 else ''})")
        for i, hop in enumerate(p["hops"], 1):
            head = f"  [{i}] {_arrow(hop, names)}"
            if hop["expired"]:
                head += " (expired)"
            if hop["gap"] is not None:
                lines.append(f"{head}  gap: {hop['gap']}")
            for k, ev in enumerate(hop["evidence"]):
                pages = f"p.{ev['page']}" if ev["pageEnd"] in (None, ev["page"]) \
                    else f"p.{ev['page']}-{ev['pageEnd']}"
                pre = head if k == 0 and hop["gap"] is None else " " * len(head)
                lines.append(f"{pre}  {ev['doc']} {pages}  \"{short_quote(ev['quote'])}\"  "
                             f"{ev['claim']}")
    t = j["truncated"]
    if t["fanout"] or t["paths"]:
        lines.append(f"cut: {t['fanout']} edges by --fanout, {t['paths']} paths by --limit")
    return lines
