"""What the site adds around the report pages: a calc's formula with its numbers, a fact's
values, the search index embedded in the pages, the claims by document, the claims as CSV,
and what changed since the previous build. Pure functions of the claim records (the same
`reportgen.verify.records` every other output uses), so each is testable without a PDF.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from reportgen.model import Calc, Fact, Ledger


def number_text(x: float | None) -> str:
    """A computed value as a reader checks it: four significant digits, or cents when large."""
    if x is None:
        return ""
    if abs(x) >= 1000:
        return f"{x:,.2f}".rstrip("0").rstrip(".")
    return f"{x:.4g}"


def substituted(ledger: Ledger, calc: Calc, computed: float | None) -> str:
    """The formula with each reference replaced by its number as written, and the value it
    computes: `14.59 / (2.55 + 2.54) = 2.866`. Empty when the formula cannot be read."""
    from reportgen import calcs

    try:
        refs = calcs.parse(calc.formula, ledger.claims).refs
    except calcs.FormulaError:
        return ""
    text, out, at = calc.formula, [], 0
    for cid, name in refs:
        ref = f"{cid}.{name}"
        i = text.find(ref, at)
        if i < 0:
            return ""
        c = ledger.claims.get(cid)
        if isinstance(c, Fact):
            num = dict(zip((k for k, _ in c.values), c.value_texts)).get(name)
        elif isinstance(c, Calc):
            num = c.result_text
        else:
            num = None
        if num is None:
            return ""
        out += [text[at:i], num]
        at = i + len(ref)
    out.append(text[at:])
    shown = "".join(out)
    return f"{shown} = {number_text(computed)}" if computed is not None else shown


def values_text(fact: Fact) -> str:
    """`amount = 6928853013.03, share = 14.59`: a fact's values as written."""
    return ", ".join(f"{k} = {t}" for (k, _), t in zip(fact.values, fact.value_texts))


def fold(text: str) -> str:
    """Search form: NFKC (full-width digits and letters become plain), case folded."""
    return unicodedata.normalize("NFKC", text or "").casefold()


def search_entries(ledger: Ledger, records: Iterable[Mapping[str, Any]],
                   report_href: Mapping[str, str]) -> list[dict[str, str]]:
    """One entry per claim (statement, quote, note) and per entity or edge end, each with
    the page it opens and the folded text the page's script matches against."""
    out: list[dict[str, str]] = []
    for r in records:
        parts = [r["id"], r["statement"], r.get("quote") or "", r.get("note") or "",
                 r.get("doc") or ""]
        out.append({"k": "claim", "id": r["id"], "r": r["report"], "t": r["statement"],
                    "q": r.get("quote") or "", "h": f"{report_href[r['report']]}#claim-{r['id']}",
                    "s": fold(" \u2022 ".join(parts))})
    seen: set[tuple[str, str]] = set()
    for rep in ledger.reports:
        names: dict[str, list[str]] = {}
        for e in rep.entities:
            names.setdefault(e.name, []).extend(e.aliases)
        for e in rep.edges:
            names.setdefault(e.source, [])
            names.setdefault(e.target, [])
        for name in sorted(names):
            if (rep.id, name) in seen:
                continue
            seen.add((rep.id, name))
            aliases = sorted(set(names[name]))
            out.append({"k": "entity", "id": name, "r": rep.id, "t": name,
                        "q": ", ".join(aliases),
                        "h": f"{report_href[rep.id]}#relations-title",
                        "s": fold(" \u2022 ".join([name, *aliases]))})
    return out


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_JSON_ESCAPE = re.compile(r'\\.|[<>&=\'`]')


def _escape_string(m: re.Match[str]) -> str:
    return _JSON_ESCAPE.sub(lambda e: '\\u0022' if e.group(0) == '\\"' else e.group(0)
                            if len(e.group(0)) == 2 else f"\\u{ord(e.group(0)):04x}",
                            m.group(0)[1:-1]).join('""')


def search_json(entries: Sequence[Mapping[str, str]]) -> str:
    """The index as JSON safe inside <script type="application/json">: within its strings
    `< > & = ' \u0060` and quotes are \\u escapes, so nothing a claim says can end the element,
    start markup or read as an attribute to a careless scanner."""
    text = json.dumps(list(entries), ensure_ascii=False, separators=(",", ":"))
    return _JSON_STRING.sub(_escape_string, text)


CSV_FIELDS = ("id", "report", "kind", "statement", "doc", "page", "pageEnd", "quote",
              "values", "formula", "result", "computed", "tolerance", "basis", "confidence",
              "note", "sha256", "anchorMethod", "verified_at")


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, dict):
        return ", ".join(f"{k} = {x}" for k, x in v.items())
    if isinstance(v, list):
        return " ".join(str(x) for x in v)
    text = str(v)
    # a spreadsheet runs a cell that starts like a formula: keep it text
    if isinstance(v, str) and text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        text = "'" + text
    return text


def claims_csv(records: Iterable[Mapping[str, Any]]) -> str:
    """claims.csv: one row per claim, the fields of evidence.jsonl a spreadsheet can show."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(CSV_FIELDS)
    for r in records:
        w.writerow([_cell(r.get(k)) for k in CSV_FIELDS])
    return buf.getvalue()


def by_document(records: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """doc id -> its facts sorted by page then id, with the calcs and inferences resting
    directly on each listed after the facts."""
    recs = list(records)
    out: dict[str, list[dict[str, Any]]] = {}
    for r in recs:
        if r["kind"] == "fact" and r.get("doc"):
            out.setdefault(r["doc"], []).append(dict(r))
    for doc, facts in out.items():
        facts.sort(key=lambda r: (r["page"] or 0, r["id"]))
    return dict(sorted(out.items()))


_COMPARED = ("statement", "kind", "doc", "page", "pageEnd", "quote", "sha256", "result",
             "computed", "formula", "basis", "confidence")


def changes(previous: Iterable[Mapping[str, Any]] | None,
            current: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """What changed since the previous build's evidence.jsonl: claims added, removed, and
    changed (each with the fields that differ). Without a previous build, nothing."""
    current = list(current)
    if previous is None:
        previous = current
    old = {r["id"]: r for r in previous if isinstance(r, dict) and isinstance(r.get("id"), str)}
    new = {r["id"]: r for r in current}
    changed = []
    for cid in sorted(set(old) & set(new)):
        fields = [k for k in _COMPARED if old[cid].get(k) != new[cid].get(k)]
        if fields:
            changed.append({"id": cid, "report": new[cid]["report"], "fields": fields,
                            "before": {k: old[cid].get(k) for k in fields},
                            "after": {k: new[cid].get(k) for k in fields}})
    return {"added": [new[c] for c in sorted(set(new) - set(old))],
            "removed": [old[c] for c in sorted(set(old) - set(new))],
            "changed": changed}


def read_evidence(text: str) -> list[dict[str, Any]] | None:
    """The records of a previous evidence.jsonl; None when it is not one (then the changes
    page says there is nothing to compare with)."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            return None
        if isinstance(rec, dict) and rec.get("type") == "edge":
            continue  # the claims are compared; an edge's change shows in its anchors
        if not isinstance(rec, dict) or not isinstance(rec.get("id"), str) \
                or not isinstance(rec.get("report"), str):
            return None
        out.append(rec)
    return out
