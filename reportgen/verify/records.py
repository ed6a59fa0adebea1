"""One record per claim with its verdict: every output takes its fields from `claim_record`.

`verify --json`, the verdict lines, `evidence.jsonl` and the site's pages are views of the
same record, so an anchor, a hash or a page is worked out once and cannot differ between
them. Stdlib only.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from reportgen.errors import display_path
from reportgen.model import Calc, CalcResult, Fact, FactResult, Ledger, Verification
from reportgen.pdf.crops import SCALE, crop_scales

_FAILED = ("miss", "mismatch", "invalid")

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
                           "message": r.message if r is not None else "",
                           # where the claim is written, relative to the workspace: the
                           # same in every build, wherever it runs from
                           "file": workspace_path(v.ledger, c.loc.file), "line": c.loc.line}
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
    out["file"], out["line"] = rec["file"], rec["line"]
    return out


def workspace_path(ledger: Ledger, file: str) -> str:
    """A claim file's path from the workspace root, in `/` form; published records never
    carry the build machine's absolute paths."""
    global _RELATIVE
    ref, memo = _RELATIVE
    if ref is None or ref() is not ledger:  # kept for one ledger as loaded (a later load
        memo = {}  # may see a symlink moved): its claims share a few files
        _RELATIVE = (weakref.ref(ledger), memo)
    got = memo.get(file)
    if got is None:
        try:
            got = Path(file).resolve().relative_to(ledger.workspace.resolve()).as_posix()
        except ValueError:
            got = Path(file).name
        memo[file] = got
    return got


# (the ledger, claim file -> its workspace path): resolving is a realpath, and a build
# asks for every claim twice (2,000 of them took 0.4 s for 1,000 facts)
_RELATIVE: tuple[weakref.ref | None, dict[str, str]] = (None, {})


def _place(v: Verification, cid: str) -> str:
    """Where a claim is written, as the CLI's error messages name it (for editors)."""
    loc = v.ledger.claims[cid].loc
    return display_path(loc.file)


def verdict_records(v: Verification) -> Iterator[dict[str, Any]]:
    """The `verify --json` objects: one per claim in ledger order, then the total."""
    for cid in v.results:
        out = verdict_record(claim_record(v, cid))
        out["file"] = _place(v, cid)  # relative to the working folder, as errors are
        yield out
    facts = [r for r in v.results.values() if isinstance(r, FactResult)]
    cs = [r for r in v.results.values() if isinstance(r, CalcResult)]
    total = {"facts": len(facts), "hits": sum(r.status == "hit" for r in facts),
             "misses": sum(r.status == "miss" for r in facts), "calcs": len(cs),
             "mismatches": sum(r.status == "mismatch" for r in cs)}
    if v.problems:
        total["errors"] = len(v.problems)
    yield {"total": total}


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
    """MISS/MISMATCH/INVALID lines, then one line per report and the TOTAL line (which
    counts the ledger errors, printed apart as `file:line: message`, when there are any).
    A MISS or MISMATCH line ends with the claim's place, `(claims/S2.yaml:66)`. The calcs
    and inferences that fail only because they rest on a claim with a ledger error share
    one NOT CHECKED line: the errors are what to fix (their `--json` records say each)."""
    lines = []
    resting = resting_on_errors(v)
    for cid, r in v.results.items():
        if r.status not in _FAILED or cid in resting:
            continue
        rec = claim_record(v, cid)
        where = f" ({_place(v, cid)}:{rec['line']})"
        if r.status == "miss":
            lines.append(f"MISS {cid} {rec['doc']} p.{rec['page']}: {r.message}{where}")
        elif r.status == "mismatch":
            lines.append(f"MISMATCH {cid}: {r.message}{where}")
        else:
            lines.append(f"INVALID {cid}: {r.message}")
    if resting:
        ids = [cid for cid in v.results if cid in resting]
        lines.append(f"NOT CHECKED {', '.join(ids)}: {'it rests' if len(ids) == 1 else 'they rest'}"
                     " on claims with ledger errors; fix those first")
    counts = v.counts()
    for c in counts:
        lines.append(f"{c.report}: facts={c.facts} hits={c.hits} misses={c.misses}")
    total = "TOTAL: facts={} hits={} misses={}".format(
        sum(c.facts for c in counts), sum(c.hits for c in counts), sum(c.misses for c in counts))
    lines.append(total + (f" errors={len(v.problems)}" if v.problems else ""))
    return lines


def resting_on_errors(v: Verification) -> set[str]:
    """Calcs and inferences whose only failing basis claims were left unchecked for a ledger
    error, or rest on such claims in turn: nothing was computed or judged for them."""
    out: set[str] = set()
    grew = True
    while grew:
        grew = False
        for cid, r in v.results.items():
            if cid in out or r.status not in ("mismatch", "invalid") or (
                    isinstance(r, CalcResult) and r.computed is not None):
                continue
            failed = [b for b in v.ledger.claims[cid].basis if b not in v.results or b in out
                      or v.results[b].status in _FAILED]
            if failed and all(b not in v.results or b in out for b in failed):
                out.add(cid)
                grew = True
    return out
