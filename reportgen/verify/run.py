"""verify(): load the ledger, open each PDF once, and give every claim its verdict."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from reportgen import calcs
from reportgen.errors import LedgerErrors, ReportgenError
from reportgen.model import (Calc, CalcResult, Fact, Inference, InferenceResult,
                             Ledger, Result, Verification)

if TYPE_CHECKING:
    from reportgen.verify.facts import AfterDoc


def verified_at() -> str:
    """The build time, or SOURCE_DATE_EPOCH when set, so two builds give the same bytes."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None:
        try:
            when = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc)
        except (ValueError, OverflowError, OSError):
            raise ReportgenError(f"SOURCE_DATE_EPOCH={epoch!r} is not a whole number of "
                                 "seconds since 1970") from None
    else:
        when = dt.datetime.now(dt.timezone.utc)
    return when.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def verify(paths: Sequence[Path], allow_outside: bool = False, jobs: int = 1,
           after_doc: AfterDoc | None = None,
           on_ledger: Callable[[Ledger], None] | None = None) -> Verification:
    """Gather every verdict in memory, with the ledger's errors (`Verification.problems`):
    a claim with an error is reported and left out, every other claim is checked. Raises
    LedgerErrors only when nothing can be checked (no such path, no report read).
    `on_ledger` sees the ledger as soon as it is read, before any fact is checked (the
    build starts work that depends on it on its other core)."""
    from reportgen.ledger.load import read_ledger

    stamp = verified_at()
    ledger, problems = read_ledger(paths, allow_outside=allow_outside)
    if on_ledger is not None:
        on_ledger(ledger)
    from reportgen.graph.bind import graph_problems
    problems = [*problems, *graph_problems(ledger)]  # schema, entities, edges (graph.md 1-2)
    return verify_ledger(ledger, stamp, jobs=jobs, after_doc=after_doc, problems=problems)


def verify_ledger(ledger: Ledger, stamp: str | None = None, jobs: int = 1,
                  after_doc: AfterDoc | None = None,
                  problems: Sequence[ReportgenError] = ()) -> Verification:
    """Check facts against their PDFs (in `jobs` processes), then calcs and inferences.

    `problems` are the ledger's errors found while loading; a fact whose page or PDF is
    wrong adds its own, and has no verdict. A calc or inference resting on a claim left
    without a verdict is not computed but says why.
    `after_doc` runs after each document's facts, in the process that checked them (see
    reportgen.verify.facts.AfterDoc)."""
    from reportgen.verify.facts import check_facts

    facts = check_facts(ledger, jobs, after_doc)
    results: dict[str, Result] = dict(facts.results)
    sha = dict(sorted(facts.sha256.items()))
    exact: dict[str, Decimal] = {}  # calc id -> its computed result, in full
    for cid, claim in _basis_order(ledger):
        unchecked = [b for b in claim.basis if b not in results]  # errors of their own
        if isinstance(claim, Calc):
            results[cid] = (_not_computed(claim, unchecked) if unchecked
                            else _check_calc(claim, ledger, exact))
        elif isinstance(claim, Inference):
            bad = [b + (" (a ledger error)" if b in unchecked else "") for b in claim.basis
                   if b in unchecked or results[b].status in ("miss", "mismatch", "invalid")]
            results[cid] = InferenceResult(cid, "invalid", f"its basis failed: {', '.join(bad)}") \
                if bad else InferenceResult(cid, "valid")
    ordered = {cid: results[cid] for cid in ledger.claims if cid in results}
    every = LedgerErrors([*problems, *facts.problems]).problems if problems or facts.problems \
        else []
    return Verification(ledger, ordered, stamp or verified_at(), sha, tuple(every))


def _not_computed(claim: Calc, unchecked: list[str]) -> CalcResult:
    """A calc over a claim that has a ledger error: reported, never computed from it."""
    what = " and ".join([", ".join(unchecked[:-1]), unchecked[-1]] if len(unchecked) > 1
                        else unchecked)
    return CalcResult(claim.id, "mismatch", None, claim.result, float(
        calcs.exact(claim.tolerance, claim.tolerance_text) if claim.tolerance is not None
        else calcs.half_last_place(claim.result_text)),
        f"not computed: {what} in its basis "
        + ("has a ledger error; fix that first" if len(unchecked) == 1
           else "have ledger errors; fix those first"))


def _basis_order(ledger: Ledger) -> list[tuple[str, Calc | Inference]]:
    """Calcs and inferences after the claims they rest on (the basis graph has no cycles);
    depth-first with an explicit stack, so a long chain in reverse order just works."""
    out: list[tuple[str, Calc | Inference]] = []
    done: set[str] = set()
    for root in ledger.claims:
        if root in done:
            continue
        done.add(root)
        stack = [(root, iter(ledger.claims[root].basis))]
        while stack:
            cid, basis = stack[-1]
            for b in basis:
                if b in ledger.claims and b not in done:
                    done.add(b)
                    stack.append((b, iter(ledger.claims[b].basis)))
                    break
            else:
                stack.pop()
                claim = ledger.claims[cid]
                if isinstance(claim, (Calc, Inference)):
                    out.append((cid, claim))
    return out


def _check_calc(claim: Calc, ledger: Ledger, exact: dict[str, Decimal]) -> CalcResult:
    """Compute in decimal from the values as written; ok when within the stated tolerance
    (default half a unit in the result's last place as written), exactly."""
    stated = calcs.exact(claim.result, claim.result_text)
    tol = (calcs.exact(claim.tolerance, claim.tolerance_text) if claim.tolerance is not None
           else calcs.half_last_place(claim.result_text))
    values: dict[tuple[str, str], Decimal] = {}
    for cid in claim.basis:
        ref = ledger.claims[cid]
        if isinstance(ref, Fact):
            values.update({(cid, k): calcs.exact(v, t)
                           for (k, v), t in zip(ref.values, ref.value_texts)})
        elif isinstance(ref, Calc):
            num = exact.get(cid, calcs.exact(ref.result, ref.result_text))
            values[(cid, "result")] = values[(cid, "value")] = num
    try:
        computed = calcs.evaluate_exact(calcs.parse(claim.formula, ledger.claims), values)
    except calcs.FormulaError as e:
        return CalcResult(claim.id, "mismatch", None, claim.result, float(tol), str(e))
    exact[claim.id] = computed
    if calcs.within(computed, stated, tol):
        return CalcResult(claim.id, "ok", float(computed), claim.result, float(tol))
    return CalcResult(claim.id, "mismatch", float(computed), claim.result, float(tol),
                      f"formula {claim.formula} computes {calcs.fmt(float(computed))}, stated "
                      f"{claim.result_text}, tolerance {calcs.fmt(float(tol))} (off by "
                      f"{calcs.fmt(float(abs(computed - stated)))})"
                      + calcs.scale_slip(computed, stated, tol))
