"""Cross references: basis, cycles, formulas, anchors, citations, values in quotes."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any

from reportgen import calcs
from pathlib import Path

from reportgen.errors import did_you_mean, display_path
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
    invalid: set[str]  # claims with an error of their own: reported, left unchecked
    doc_trouble: bool  # a `documents:` map or documents.yaml had an error (reported)
    root: Path  # the (first) ledger folder, where documents.yaml belongs

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
        undeclared: list[Fact] = []  # facts citing a document while none is declared at all
        for cid, claim in self.claims.items():
            raw, file = self.claim_raw[cid]
            line = claim.loc.line
            before = len(col.problems)
            if isinstance(claim, Fact):
                if claim.doc not in self.documents:
                    self.invalid.add(cid)  # nothing to check it against
                    if not self.documents:
                        if not self.doc_trouble:  # else that error is the one to fix
                            undeclared.append(claim)
                    elif not any(p.message.startswith(f"document {claim.doc!r}")
                                 for p in col.problems):
                        known = ", ".join(sorted(self.documents))
                        col.add(f"fact {cid}: unknown document {claim.doc!r}; declare it under "
                                f"documents: (known: {known})"
                                + did_you_mean(claim.doc, self.documents),
                                file, line_of(raw, "doc", line))
                if not claim.quote.strip():
                    col.add(f"fact {cid}: quote is empty", file, line_of(raw, "quote", line))
                self.check_values(claim, raw, file)
            else:
                for i, b in enumerate(claim.basis):
                    if self.unknown(b):
                        col.add(f"{claim.kind} {cid}: basis {b!r} {self.not_in_ledger()}"
                                + did_you_mean(b, self.claims),
                                file, item_line(raw.get("basis"), i, line_of(raw, "basis", line)))
            if isinstance(claim, Calc):
                self.check_formula(claim, raw, file)
            if len(col.problems) > before:
                self.invalid.add(cid)
        if undeclared:
            self.no_documents(undeclared)
        self.check_cycles()
        for draft in self.reports:
            self.check_report_refs(draft)

    def no_documents(self, facts: list[Fact]) -> None:
        """One line when no document is declared at all (documents.yaml missing), not one
        "unknown document" per fact."""
        path = self.root / "documents.yaml"
        docs = sorted({f.doc for f in facts})
        shown = ", ".join(docs[:5]) + (f" and {len(docs) - 5} more" if len(docs) > 5 else "")
        what = "declares no documents" if path.exists() else "not found"
        self.col.add(f"{what}, and no report file declares `documents:`, so the {len(facts)} "
                     f"facts cite unknown documents ({shown}); declare each under documents: in "
                     f"{display_path(path)}, e.g. {docs[0]}: {{file: path/to/the.pdf, "
                     "title: its title}", str(path), None)

    def check_values(self, fact: Fact, raw: LocDict, file: str) -> None:
        """Every value is a number of the quote, and values stand in the quote's order, so
        two figures of one table row cannot be swapped without an error."""
        # exact: 6928853019.9 is not the quote's 6,928,853,013.03 (a relative slack
        # of 1e-9 let it pass); 2.870 is the quote's 2.87
        numbers = decimals_in(fact.quote)
        vline = line_of(raw, "values", fact.loc.line)
        at = -1  # position in the quote of the previous value
        prev = ""
        for (name, value), written in zip(fact.values, fact.value_texts):
            d = calcs.exact(value, written)
            line = line_of(raw.get("values"), name, vline)
            if d not in numbers:
                held = ", ".join(_plain(n) for n in numbers) or "none"
                self.col.add(f"fact {fact.id}: value {name}={written} does not appear as a "
                             f"number in the quote (its numbers: {held}); every value a calc "
                             "uses must be quoted", file, line)
                continue
            later = [i for i, n in enumerate(numbers) if n == d and i > at]
            if not later:
                first = numbers.index(d)
                self.col.add(
                    f"fact {fact.id}: values are out of quote order: {name}={written} stands "
                    f"{_nth(first)} in the quote but is listed after {prev}, which stands "
                    f"{_nth(at)}; list values in the order their numbers stand in the quote: "
                    + _in_order(fact, numbers), file, line)
                return
            at, prev = later[0], f"{name}={written}"

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
                             f"{rid}'s values (known: {', '.join(dict(ref.values)) or 'none'})"
                             + did_you_mean(name, dict(ref.values)), file, line)
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
        self.invalid.update(cycle)
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
                                 f"{a!r} {self.not_in_ledger()}" + did_you_mean(a, self.claims),
                                 file, edge.loc.line)
                elif not isinstance(target, Fact):
                    self.col.add(f"edge {edge.source} -{edge.relation}-> {edge.target}: anchor "
                                 f"{a!r} is a {target.kind}; anchors must be facts", file,
                                 edge.loc.line)
        for cid in self.cited(draft["summary"]):
            if self.unknown(cid):
                self.col.add(f"summary cites [@{cid}], which is not a claim of the ledger"
                             + did_you_mean(cid, self.claims), file, draft["summary_line"])
        listed: dict[str, str] = {}  # claim id -> title of the section that lists it
        for sec, (sline, bline, cline) in zip(draft["sections"], draft["section_lines"]):
            for cid in self.cited(sec.body):
                if self.unknown(cid):
                    self.col.add(f"section {sec.title!r} cites [@{cid}], which is not a claim "
                                 "of the ledger" + did_you_mean(cid, self.claims), file, bline)
            for cid in sec.claims:
                if cid in listed:  # its row would appear twice, with one HTML id
                    self.col.add(f"section {sec.title!r} lists {cid!r} again (already listed "
                                 f"in section {listed[cid]!r}); list each claim once", file,
                                 cline)
                listed.setdefault(cid, sec.title)
                if self.unknown(cid):
                    self.col.add(f"section {sec.title!r} lists {cid!r}, which is not a claim of "
                                 "the ledger" + did_you_mean(cid, self.claims), file, cline)

    @staticmethod
    def cited(text: str) -> list[str]:
        return [m for group in CITE_RE.findall(text) for m in CITE_ID_RE.findall(group)]


def _plain(d: Decimal) -> str:
    """A quote's number as a value is typed (no thousands separators, no exponent)."""
    return f"{d:f}"


def _nth(i: int) -> str:
    """A 0-based position as a reader counts it: 1st, 2nd, 3rd, 4th, 11th, 21st."""
    n = i + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _in_order(fact: Fact, numbers: list[Decimal]) -> str:
    """The fact's values rewritten in quote order, as the analyst would type the map."""
    placed = []
    used: set[int] = set()
    for (name, value), written in zip(fact.values, fact.value_texts):
        d = calcs.exact(value, written)
        i = next((k for k, n in enumerate(numbers) if n == d and k not in used), len(numbers))
        used.add(i)
        placed.append((i, f"{name}: {written}"))
    return "{" + ", ".join(t for _, t in sorted(placed, key=lambda p: p[0])) + "}"
