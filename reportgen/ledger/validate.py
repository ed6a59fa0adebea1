"""Cross references: basis, cycles, formulas, anchors, citations, values in quotes."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any

from reportgen import calcs
from reportgen.ledger.shape import Collector, item_line, line_of
from reportgen.ledger.source import LocDict
from reportgen.model import Calc, Claim, Document, Fact, Inference

CITE_RE = re.compile(r"\[(@[^\[\]]*)\]")
CITE_ID_RE = re.compile(r"@([A-Za-z0-9][A-Za-z0-9._-]*)")
NUMBER_RE = re.compile(r"(?<![0-9.,])[-+−]?[0-9][0-9,]*(?:\.[0-9]+)?")


def decimals_in(text: str) -> list[Decimal]:
    """Numbers as a reader sees them, exactly as printed: thousands separators and a
    trailing % ignored."""
    text = unicodedata.normalize("NFKC", text)
    out = []
    for m in NUMBER_RE.finditer(text):
        s = m.group(0).replace(",", "").replace("−", "-")
        try:
            out.append(Decimal(s))
        except InvalidOperation:  # pragma: no cover - NUMBER_RE admits only numbers
            continue
    return out


def numbers_in(text: str) -> list[float]:
    """decimals_in as floats."""
    return [float(d) for d in decimals_in(text)]


class CrossChecks:
    """Checks that need the whole ledger; mixed into the loader once every file is read."""

    col: Collector
    claims: dict[str, Claim]
    claim_raw: dict[str, tuple[LocDict, str]]
    documents: dict[str, Document]
    reports: list[dict[str, Any]]
    bad_values: set[str]  # facts whose malformed `values` is already reported
    rejected: set[str]  # claims dropped for a shape error, already reported at their line
    partial: bool = False  # a single report file was given, not its folder

    def unknown(self, cid: str) -> bool:
        """An id no claim declares; a claim rejected for its own error is not unknown."""
        return cid not in self.claims and cid not in self.rejected

    def not_in_ledger(self) -> str:
        """Where an unknown id most often comes from: a report file read without its folder."""
        if self.partial:
            return ("is not a claim of the ledger (a single report file is read with "
                    "documents.yaml only; pass the ledger folder to include the other reports)")
        return "is not a claim of the ledger"

    def cross_check(self) -> None:
        col = self.col
        for cid, claim in self.claims.items():
            raw, file = self.claim_raw[cid]
            line = claim.loc.line
            if isinstance(claim, Fact):
                if claim.doc not in self.documents:
                    if not any(p.message.startswith(f"document {claim.doc!r}")
                               for p in col.problems):
                        known = ", ".join(sorted(self.documents)) or "none"
                        col.add(f"fact {cid}: unknown document {claim.doc!r}; declare it under "
                                f"documents: (known: {known})", file, line_of(raw, "doc", line))
                if not claim.quote.strip():
                    col.add(f"fact {cid}: quote is empty", file, line_of(raw, "quote", line))
                # exact: 6928853019.9 is not the quote's 6,928,853,013.03 (a relative slack
                # of 1e-9 let it pass); 2.870 is the quote's 2.87
                found = set(decimals_in(claim.quote))
                for (name, value), written in zip(claim.values, claim.value_texts):
                    if calcs.exact(value, written) not in found:
                        col.add(f"fact {cid}: value {name}={written} does not appear as a number "
                                "in the quote; every value a calc uses must be quoted", file,
                                line_of(raw.get("values"), name, line_of(raw, "values", line)))
            else:
                for i, b in enumerate(claim.basis):
                    if self.unknown(b):
                        col.add(f"{claim.kind} {cid}: basis {b!r} {self.not_in_ledger()}",
                                file, item_line(raw.get("basis"), i, line_of(raw, "basis", line)))
            if isinstance(claim, Calc):
                self.check_formula(claim, raw, file)
        self.check_cycles()
        for draft in self.reports:
            self.check_report_refs(draft)

    def check_formula(self, claim: Calc, raw: LocDict, file: str) -> None:
        line = line_of(raw, "formula", claim.loc.line)
        try:
            # basis ids that are unknown are reported once, as basis problems, not again here
            f = calcs.parse(claim.formula, set(self.claims) | set(claim.basis))
        except calcs.FormulaError as e:
            self.col.add(f"calc {claim.id}: {e}", file, line)
            return
        if not f.refs:
            first = self.claims.get(claim.basis[0]) if claim.basis else None
            example = (f"{first.id}.{first.values[0][0]}" if isinstance(first, Fact)
                       and first.values else "s2-4.amount")
            self.col.add(f"calc {claim.id}: formula {claim.formula!r} uses no claim value, so "
                         f"nothing anchors its numbers; compute from its basis, e.g. {example}",
                         file, line)
        for rid, name in f.refs:
            ref = self.claims.get(rid)
            if rid not in claim.basis:
                self.col.add(f"calc {claim.id}: formula uses {rid}.{name} but {rid} is not in "
                             "its basis; add it to basis", file, line)
            if isinstance(ref, Fact) and rid in self.bad_values:
                pass  # its values were reported as malformed at the fact
            elif isinstance(ref, Fact) and name not in dict(ref.values):
                self.col.add(f"calc {claim.id}: {rid} has no value {name!r}; add it to "
                             f"{rid}'s values (known: {', '.join(dict(ref.values)) or 'none'})",
                             file, line)
            elif isinstance(ref, Calc) and name not in ("result", "value"):
                self.col.add(f"calc {claim.id}: a calc's number is {rid}.result", file, line)
            elif isinstance(ref, Inference):
                self.col.add(f"calc {claim.id}: {rid} is an inference and has no number", file,
                             line)

    def check_cycles(self) -> None:
        """Depth-first over basis links with an explicit stack, so a chain of 1,200 claims in
        reverse order is no deeper for Python than one claim."""
        state: dict[str, int] = {}  # 1 on the current path, 2 done
        reported: set[frozenset[str]] = set()
        for root in self.claims:
            if root in state:
                continue
            state[root] = 1
            path, pending = [root], [iter(self.claims[root].basis)]
            while pending:
                for b in pending[-1]:
                    if b not in self.claims:
                        continue
                    if state.get(b) == 1:
                        self.report_cycle(path[path.index(b):] + [b], reported)
                    elif b not in state:
                        state[b] = 1
                        path.append(b)
                        pending.append(iter(self.claims[b].basis))
                        break
                else:
                    state[path.pop()] = 2
                    pending.pop()

    def report_cycle(self, cycle: list[str], reported: set[frozenset[str]]) -> None:
        key = frozenset(cycle)
        if key not in reported:
            reported.add(key)
            c = self.claims[cycle[0]]
            self.col.add("basis cycle: " + " -> ".join(cycle) + "; a claim cannot rest on itself",
                         c.loc.file, c.loc.line)

    def check_report_refs(self, draft: dict[str, Any]) -> None:
        file = draft["file"]
        for edge in draft["edges"]:
            for a in edge.anchors:
                target = self.claims.get(a)
                if target is None and not self.unknown(a):
                    continue
                if target is None:
                    self.col.add(f"edge {edge.source} -{edge.relation}-> {edge.target}: anchor "
                                 f"{a!r} {self.not_in_ledger()}", file, edge.loc.line)
                elif not isinstance(target, Fact):
                    self.col.add(f"edge {edge.source} -{edge.relation}-> {edge.target}: anchor "
                                 f"{a!r} is a {target.kind}; anchors must be facts", file,
                                 edge.loc.line)
        for cid in self.cited(draft["summary"]):
            if self.unknown(cid):
                self.col.add(f"summary cites [@{cid}], which is not a claim of the ledger",
                             file, draft["summary_line"])
        listed: dict[str, str] = {}  # claim id -> title of the section that lists it
        for sec, (sline, bline, cline) in zip(draft["sections"], draft["section_lines"]):
            for cid in self.cited(sec.body):
                if self.unknown(cid):
                    self.col.add(f"section {sec.title!r} cites [@{cid}], which is not a claim "
                                 "of the ledger", file, bline)
            for cid in sec.claims:
                if cid in listed:  # its row would appear twice, with one HTML id
                    self.col.add(f"section {sec.title!r} lists {cid!r} again (already listed "
                                 f"in section {listed[cid]!r}); list each claim once", file,
                                 cline)
                listed.setdefault(cid, sec.title)
                if self.unknown(cid):
                    self.col.add(f"section {sec.title!r} lists {cid!r}, which is not a claim of "
                                 "the ledger", file, cline)

    @staticmethod
    def cited(text: str) -> list[str]:
        return [m for group in CITE_RE.findall(text) for m in CITE_ID_RE.findall(group)]
