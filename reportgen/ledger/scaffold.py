"""A new ledger workspace from a handful of PDFs (`reportgen init`): documents.yaml with ids,
titles and pins, an example report whose one fact verifies, the JSON Schema for editors, and
a .gitignore.

Everything is checked before anything is written: every PDF must open (the PDF layer's own
errors), lie inside the workspace (unless allowed), and no file init writes may exist.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from reportgen.errors import LedgerError, LedgerErrors, ReportgenError
from reportgen.ledger.fields import schema_text
from reportgen.ledger.load import workspace_of

REPORT_ID = "example"
FACT_ID = "example-1"
RESERVED = (REPORT_ID, FACT_ID)  # ids are one namespace: documents may not take these
SCHEMA = Path(".schema") / "report.json"  # relative to the claims folder (hidden: not read)
GITIGNORE = "# reportgen: the built site, and the build's cache and evidence index\nsite/\n.reportgen/\n"
QUOTE_MIN = 6  # non-space characters an example quote needs to mean something
QUOTE_MAX = 100  # characters; a longer line is cut at a space
PAGES_TRIED = 5  # pages of each PDF looked at for an example quote

# Characters YAML does not allow raw in a stream (PyYAML's reader), written as escapes.
# NEL and the Unicode line and paragraph separators are line breaks to YAML: escaped too.
_NOT_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd"
                            "\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class PlannedDocument:
    """One PDF as documents.yaml will declare it."""

    id: str
    path: Path  # as given (absolute), symlinks kept
    file: str  # relative to the claims folder, with forward slashes
    title: str
    sha256: str


@dataclass(frozen=True)
class Example:
    """The example fact: a line of a PDF's text layer that the anchor rule matches exactly."""

    doc: str
    page: int
    quote: str


@dataclass(frozen=True)
class Workspace:
    """What init wrote, for the CLI to report."""

    root: Path
    claims: Path
    documents: tuple[PlannedDocument, ...]
    example: Example | None  # None when no PDF has a usable text line on its first pages
    written: tuple[Path, ...]  # in the order written
    outside: bool  # some PDF lies outside the workspace (verify needs --allow-outside)


def document_id(name: str, taken: Iterable[str] = ()) -> str:
    """A valid ledger id from a file name, unlike any of `taken` even in case (document ids
    name the published PDFs, and two names differing in case are one file on macOS)."""
    stem = name[:-4] if name.lower().endswith(".pdf") else name
    stem = unicodedata.normalize("NFKD", stem)
    stem = "".join(c for c in stem if not unicodedata.combining(c))
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem)
    stem = re.sub(r"([-._])[-._]+", r"\1", stem).strip("-._")[:64].rstrip("-._") or "doc"
    folded = {t.casefold() for t in taken}
    cid, n = stem, 1
    while cid.casefold() in folded:
        n += 1
        cid = f"{stem}-{n}"
    return cid


def yaml_quote(s: str) -> str:
    """A YAML double-quoted scalar that reads back as `s` (JSON's syntax is YAML's, plus
    escapes for the characters YAML refuses raw)."""
    text = json.dumps(s, ensure_ascii=False)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def clean_title(s: str | None) -> str:
    """A title on one line: control characters gone, whitespace collapsed, trimmed."""
    if not s:
        return ""
    s = "".join(" " if unicodedata.category(c).startswith(("C", "Z")) else c for c in s)
    return " ".join(s.split())[:200].strip()


def planned_files(root: Path) -> list[Path]:
    """The files init writes under `root`, none of which may exist."""
    claims = root / "claims"
    return [claims / "documents.yaml", claims / f"{REPORT_ID}.yaml", claims / SCHEMA,
            root / ".gitignore"]


def init_workspace(root: Path, pdfs: Sequence[Path], allow_outside: bool = False) -> Workspace:
    """Write a new ledger over `pdfs` into `root`; raises LedgerErrors listing every problem
    (an existing file, a PDF that cannot serve as evidence or lies outside) before writing."""
    from reportgen.pdf.documents import open_pdf

    root = Path(os.path.abspath(root))
    claims = root / "claims"
    workspace = workspace_of(claims)
    problems: list[ReportgenError] = []
    if not pdfs:
        problems.append(LedgerError("no PDF given; name the PDFs the ledger will quote"))
    if root.exists() and not root.is_dir():
        problems.append(LedgerError("is not a folder; name a folder (it is created if it "
                                    "does not exist)", root))
    for f in planned_files(root):
        if os.path.lexists(f):
            problems.append(LedgerError("already exists; init never overwrites a file: move "
                                        "it away, or init another folder", f))
    if os.path.lexists(claims) and not claims.is_dir():
        problems.append(LedgerError("is not a folder; init writes the ledger into claims/: "
                                    "move this file away, or init another folder", claims))
    elif claims.is_dir():
        for f in sorted(claims.iterdir()):
            if f.suffix in (".yaml", ".yml", ".jsonl") and f not in planned_files(root):
                problems.append(LedgerError("a claim file is already here; init starts a new "
                                            "ledger: init another folder", f))
    docs: list[PlannedDocument] = []
    example: Example | None = None
    taken: list[str] = list(RESERVED)
    seen: set[Path] = set()
    outside = False
    for given in pdfs:
        path = Path(os.path.abspath(given))
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError) as e:  # a symlink loop
            problems.append(LedgerError(f"cannot follow this path ({e}); name the PDF itself",
                                        given))
            continue
        if resolved in seen:  # the same file named twice: declared once
            continue
        seen.add(resolved)
        if not resolved.is_relative_to(workspace):
            if not allow_outside:
                problems.append(LedgerError(
                    f"resolves to {resolved}, outside the ledger's workspace {workspace}; "
                    "move the PDF inside it or pass --allow-outside", given))
                continue
            outside = True
        try:
            doc, sha = open_pdf(path)
        except ReportgenError as e:
            problems.append(e)
            continue
        try:
            did = document_id(path.name, taken)
            taken.append(did)
            title = (clean_title(doc.metadata.get("title") if doc.metadata else None)
                     or _first_line(doc) or path.stem)
            if example is None:
                found = _example_quote(doc)
                if found is not None:
                    example = Example(did, found[0], found[1])
        finally:
            doc.close()
        docs.append(PlannedDocument(did, path, Path(os.path.relpath(path, claims)).as_posix(),
                                    title, sha))
    if problems:
        raise LedgerErrors(problems)
    written: list[Path] = []
    contents = [(claims / "documents.yaml", documents_yaml(docs)),
                (claims / f"{REPORT_ID}.yaml", example_yaml(example, docs)),
                (claims / SCHEMA, schema_text()),
                (root / ".gitignore", GITIGNORE)]
    for path, text in contents:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(path, "x", encoding="utf-8") as f:  # never over a file made meanwhile
                f.write(text)
        except FileExistsError:
            raise LedgerErrors([LedgerError("already exists; init never overwrites a file: "
                                            "move it away, or init another folder", path)]
                               ) from None
        written.append(path)
    return Workspace(root, claims, tuple(docs), example, tuple(written), outside)


def _lines(doc, page: int) -> list[str]:
    """The page's text lines in content-stream order, running heads, feet and folios left out."""
    from reportgen.pdf.textlayer import extract_page

    pt = extract_page(doc[page - 1])
    return [ln.text for ln in pt.lines if not ln.band and not ln.folio and ln.text.strip()]


def _first_line(doc) -> str:
    """The first line of text on page 1, as a title for a PDF whose metadata has none."""
    try:
        lines = _lines(doc, 1)
    except Exception:  # noqa: BLE001 - a page MuPDF cannot read: no title from it
        return ""
    return clean_title(lines[0]) if lines else ""


def _example_quote(doc) -> tuple[int, str] | None:
    """(page, quote): the first line on the first pages that makes a meaningful quote and
    that the anchor rule finds exactly on its page."""
    from reportgen.pdf.anchors import match_quote
    from reportgen.pdf.textlayer import extract_page

    for page in range(1, min(doc.page_count, PAGES_TRIED) + 1):
        try:
            pt = extract_page(doc[page - 1])
        except Exception:  # noqa: BLE001 - an unreadable page: try the next
            continue
        for ln in pt.lines:
            if ln.band or ln.folio:
                continue
            quote = " ".join(ln.text.split())
            if len(quote) > QUOTE_MAX:
                cut = quote.rfind(" ", 0, QUOTE_MAX)
                quote = quote[:cut if cut >= QUOTE_MAX // 2 else QUOTE_MAX]
            if (len(quote.replace(" ", "")) < QUOTE_MIN or sum(c.isalpha() for c in quote) < 3
                    or _NOT_PRINTABLE.search(quote) or "\ufffd" in quote):
                continue
            a = match_quote(quote, pt)
            if a is not None and a.method == "exact":
                return page, quote
    return None


def documents_yaml(docs: Sequence[PlannedDocument]) -> str:
    """documents.yaml: each PDF with its id, title, path and SHA-256 pin."""
    out = [f"# yaml-language-server: $schema={SCHEMA.as_posix()}",
           "# The PDFs this ledger quotes. `file` is relative to this folder; `sha256` pins the",
           "# exact file: if a PDF changes, verify fails until you restore it or update the pin.",
           "documents:"]
    for d in docs:
        out += [f"  {yaml_quote(d.id)}:",
                f"    file: {yaml_quote(d.file)}",
                f"    title: {yaml_quote(d.title)}",
                f"    sha256: {yaml_quote(d.sha256)}"]
    return "\n".join(out) + "\n"


def example_yaml(example: Example | None, docs: Sequence[PlannedDocument]) -> str:
    """The example report: one fact that verifies, and comments on how to write claims."""
    doc = example.doc if example is not None else (docs[0].id if docs else "DOC")
    head = [
        f"# yaml-language-server: $schema={SCHEMA.as_posix()}",
        "# An example report, written by `reportgen init`. Make it your first report, or copy it:",
        "# each report file holds one `report:` and its claims. `reportgen verify` checks every",
        "# claim; `reportgen build` writes the site. The full format: `reportgen schema`.",
        "#",
        "# A fact quotes a PDF's text layer character for character (whitespace is ignored) on",
        "# the page number a PDF viewer shows, not the folio printed on the page:",
        "#",
        "#   - id: example-2   # unique in the whole ledger",
        "#     kind: fact",
        "#     statement: Revenue was 1,234.5 million yuan.",
        f"#     doc: {yaml_quote(doc)}   # an id from documents.yaml",
        "#     page: 3",
        "#     quote: \"Revenue from storage systems was 1,234.5 million yuan.\"",
        "#     values: {revenue: 1234.5}   # optional: numbers of the quote, in quote order",
        "#",
        "# A calc recomputes a formula over facts' values (`formula`, `result`, `basis`); an",
        "# inference states a judgement on its `basis` with a `confidence` and a `note` on what",
        "# would make it wrong. `reportgen index` then `reportgen find \"words\" --stub` prints",
        "# facts ready to paste.",
        "report:",
        f"  id: {REPORT_ID}",
        "  title: Example report",
        "  summary: |",
    ]
    if example is None:
        return "\n".join(head + [
            "    Replace this summary with what the report finds; cite its claims by id.",
            "# No PDF had a line of text on its first pages to quote (scans without a text",
            "# layer?): OCR them, or write the first fact from the pattern above.",
            "claims: []",
        ]) + "\n"
    return "\n".join(head + [
        f"    Replace this summary; cite claims in it as [@{FACT_ID}].",
        "claims:",
        f"  - id: {FACT_ID}",
        "    kind: fact",
        "    statement: Replace this with the one sentence that the quote supports.",
        f"    doc: {yaml_quote(example.doc)}",
        f"    page: {example.page}",
        f"    quote: {yaml_quote(example.quote)}",
    ]) + "\n"
