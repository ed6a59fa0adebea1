"""One record per claim with its verdict: every output takes its fields from `claim_record`.

`verify --json`, the verdict lines, `evidence.jsonl` and the site's pages are views of the
same record, so an anchor, a hash or a page is worked out once and cannot differ between
them. Stdlib only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from reportgen.model import Calc, CalcResult, Fact, FactResult, Ledger, Verification
from reportgen.pdf.crops import SCALE, crop_scales

# fact id -> [(page, site path of its crop)], first page first (see site/plan.py)
Crops = Mapping[str, Sequence[tuple[int, str]]]


def _box(b: Sequence[float]) -> list[float]:
    return [round(float(x), 1) for x in b]  # a tenth of a point: what a reader can check


def claim_record(v: Verification, cid: str, crops: Crops | None = None) -> dict[str, Any]:
    """Everything known about one claim and its verdict, in the spec's field names."""
    c = v.ledger.claims[cid]
    r = v.results.get(cid)
    rec: dict[str, Any] = {"id": c.id, "report": c.report, "kind": c.kind,
                           "statement": c.statement, "confidence": c.confidence,
                           "note": c.note, "basis": list(c.basis),
                           "status": r.status if r is not None else None,
                           "message": r.message if r is not None else ""}
    if c.draft:  # drafted by a model and not reviewed yet: evidence.jsonl and the pages say so
        rec["draft"] = True
    if isinstance(c, Fact):
        a = r.anchor if isinstance(r, FactResult) else None
        sha = (r.sha256 if isinstance(r, FactResult) else None) or v.sha256.get(c.doc)
        cs = [src for _, src in (crops or {}).get(cid, ())]
        rec.update({"doc": c.doc, "page": a.page if a else c.page,
                    "pageEnd": a.page_end if a else None, "quote": c.quote,
                    "bbox": _box(a.bbox) if a else None,
                    "anchorMethod": a.method if a else None, "sha256": sha,
                    "verified_at": v.verified_at, "crop": cs[0] if cs else None,
                    "crops": cs})
        scales = crop_scales(a) if a and cs else {}
        if scales:  # a crop too large at scale 2: pixels per point, one per crop
            rec["cropScale"] = [scales.get(p, SCALE) for p, _ in (crops or {})[cid]]
        if c.values:
            rec["values"] = dict(c.values)
    elif isinstance(c, Calc):
        rec.update({"formula": c.formula, "result": c.result,
                    "computed": r.computed if isinstance(r, CalcResult) else None,
                    "tolerance": r.tolerance if isinstance(r, CalcResult) else c.tolerance})
    return rec


# ---- views --------------------------------------------------------------------------

_VERDICT_FACT = ("doc", "page", "pageEnd", "bbox", "anchorMethod")


def verdict_record(rec: Mapping[str, Any]) -> dict[str, Any]:
    """The `verify --json` object of a claim record (ledger.md section 6)."""
    out = {k: rec[k] for k in ("id", "report", "kind", "status")}
    if rec["kind"] == "fact":
        out.update((k, rec[k]) for k in _VERDICT_FACT)
    elif rec["kind"] == "calc":
        computed = rec["computed"]
        out.update(computed=round(computed, 4) if computed is not None else None,
                   result=rec["result"])
    out["message"] = rec["message"]
    return out


def verdict_records(v: Verification) -> Iterator[dict[str, Any]]:
    """The `verify --json` objects: one per claim in ledger order, then the total."""
    for cid in v.results:
        yield verdict_record(claim_record(v, cid))
    facts = [r for r in v.results.values() if isinstance(r, FactResult)]
    cs = [r for r in v.results.values() if isinstance(r, CalcResult)]
    yield {"total": {"facts": len(facts), "hits": sum(r.status == "hit" for r in facts),
                     "misses": sum(r.status == "miss" for r in facts), "calcs": len(cs),
                     "mismatches": sum(r.status == "mismatch" for r in cs)}}


_EVIDENCE_DROP = ("status", "message")


def evidence_records(v: Verification, crops: Crops) -> Iterator[dict[str, Any]]:
    """`evidence.jsonl`: one record per claim, sorted by report then id (a built site holds
    only verified claims, so the verdict fields are left out)."""
    for c in sorted(v.ledger.claims.values(), key=lambda c: (c.report, c.id)):
        rec = claim_record(v, c.id, crops)
        for k in _EVIDENCE_DROP:
            del rec[k]
        yield rec


def edge_records(ledger: Ledger) -> Iterator[dict[str, Any]]:
    """`evidence.jsonl`'s edge records, after the claims: one per edge, sorted by report then
    edge id, its ends as entity ids (graph.md section 2)."""
    from reportgen.graph.bind import bind_ledger

    model = bind_ledger(ledger)
    for b in sorted(model.edges, key=lambda b: (b.edge.report, b.id)):
        e = b.edge
        rec: dict[str, Any] = {"type": "edge", "id": b.id, "report": e.report, "from": b.source,
                               "relation": e.relation, "to": b.target,
                               "qualifiers": dict(b.qualifiers)}
        rec.update({"anchors": list(e.anchors)} if e.gap is None else {"gap": e.gap})
        rec.update({k: getattr(e, k) for k in ("valid_from", "valid_to") if getattr(e, k)})
        if e.draft:
            rec["draft"] = True
        yield rec


def verdict_lines(v: Verification) -> list[str]:
    """MISS/MISMATCH/INVALID lines, then one line per report and the TOTAL line."""
    lines = []
    for cid, r in v.results.items():
        claim = v.ledger.claims[cid]
        if r.status == "miss":
            lines.append(f"MISS {cid} {claim.doc} p.{claim.page}: {r.message}")  # type: ignore[union-attr]
        elif r.status == "mismatch":
            lines.append(f"MISMATCH {cid}: {r.message}")
        elif r.status == "invalid":
            lines.append(f"INVALID {cid}: {r.message}")
    counts = v.counts()
    for c in counts:
        lines.append(f"{c.report}: facts={c.facts} hits={c.hits} misses={c.misses}")
    lines.append("TOTAL: facts={} hits={} misses={}".format(
        sum(c.facts for c in counts), sum(c.hits for c in counts), sum(c.misses for c in counts)))
    return lines
