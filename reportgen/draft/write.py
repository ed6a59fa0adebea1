"""The kept records as a report file of the ledger, every record marked `draft: true`,
with the line span of each record (the final check maps a ledger error back to it)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from reportgen.draft.checks import Record


def q(s: Any) -> str:
    """A YAML scalar: strings double-quoted as init and stubs quote them (a line separator
    in a model's quote must read back as itself), numbers and booleans as JSON writes them."""
    if isinstance(s, str):
        from reportgen.ledger.scaffold import yaml_quote

        return yaml_quote(s)
    return json.dumps(s)


def flow(values: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {q(v)}" for k, v in values.items()) + "}"


def fact_id(doc: str, r: Record) -> str:
    return f"draft-{doc}-{'r' if r.kind == 'relation' else 'f'}{r.n}"


def report_text(doc: str, title: str, pages: str, records: Sequence[Record]
                ) -> tuple[str, dict[int, Record]]:
    """(file text, line -> the record written on it)."""
    lines = [f"# Drafted by `reportgen draft {doc}` from pages {pages}. Every record passed",
             "# the vocabulary check, the anchor rule and the values check; none is reviewed.",
             "# Review each one, then remove its `draft: true` line.",
             "report:",
             f"  id: {q('draft-' + doc)}",
             f"  title: {q('Draft: ' + title)}"]
    owner: dict[int, Record] = {}

    def put(r: Record, text: list[str]) -> None:
        for t in text:
            lines.append(t)
            owner[len(lines)] = r

    ents = [r for r in records if r.kind == "entity" and r.kept]
    if ents:
        lines.append("entities:")
        for r in ents:
            d = r.data
            aliases = ", ".join(q(a) for a in d.get("aliases") or ())
            put(r, [f"  - {{name: {q(d['name'])}, type: {q(d['type'])}, aliases: [{aliases}], "
                    "draft: true}"])
    quoted = [r for r in records if r.kind != "entity" and r.kept]
    if quoted:
        lines.append("claims:")
    for r in quoted:
        d = r.data
        statement = d["statement"] if r.kind == "fact" else \
            f"{d['from']} {d['relation']} {d['to']}."
        text = [f"  - id: {fact_id(doc, r)}", "    kind: fact", f"    statement: {q(statement)}",
                f"    doc: {q(doc)}", f"    page: {d['page']}", f"    quote: {q(d['quote'])}"]
        if d.get("values"):
            text.append(f"    values: {flow(d['values'])}")
        text.append("    draft: true")
        put(r, text)
    rels = [r for r in quoted if r.kind == "relation"]
    if rels:
        lines.append("edges:")
    for r in rels:
        d = r.data
        put(r, [f"  - {{from: {q(d['from'])}, relation: {q(d['relation'])}, to: {q(d['to'])}, "
                f"anchors: [{fact_id(doc, r)}], draft: true}}"])
    return "\n".join(lines) + "\n", owner
