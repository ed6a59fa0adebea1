"""Turn claim files into a Ledger, collecting every problem with its file and line before stopping."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reportgen.errors import LedgerError, LedgerErrors, did_you_mean
from reportgen.ledger import fields as F
from reportgen.ledger.shape import check_fields, Collector, item_line, line_of, show
from reportgen.ledger.source import LocDict, load_jsonl, load_yaml
from reportgen.ledger.validate import CrossChecks
from reportgen.model import (Calc, Claim, Document, Edge, Entity, Fact, Inference, Ledger, Loc,
                             Report, Section)


def workspace_of(folder: Path) -> Path:
    """The root of the git repository holding the ledger, else the ledger folder's parent."""
    folder = folder.resolve()
    for p in (folder, *folder.parents):
        if (p / ".git").exists():
            return p
    return folder.parent


class _Loader(CrossChecks):
    def __init__(self, allow_outside: bool) -> None:
        self.allow_outside = allow_outside
        self.col = Collector()
        self.ids: dict[str, tuple[str, str, int]] = {}  # id -> (what, file, line)
        self.documents: dict[str, Document] = {}
        self.reports: list[dict[str, Any]] = []  # mutable report drafts
        self.report_by_id: dict[str, dict[str, Any]] = {}
        self.page_names: dict[str, str] = {"index.html": "the site's index page"}
        self.claims: dict[str, Claim] = {}
        self.claim_raw: dict[str, tuple[LocDict, str]] = {}
        self.rejected: set[str] = set()  # claim ids whose own errors are already reported
        self.invalid: set[str] = set()  # claims built but with an error of their own: unchecked
        self.doc_trouble = False  # a `documents:` map or documents.yaml had an error
        self.bad_values: set[str] = set()  # facts whose `values` was reported and dropped
        self.sources: list[Path] = []
        self.claim_folds: dict[str, str] = {}  # casefolded claim id -> the id as written

    # ---- ids -----------------------------------------------------------------------
    def claim_id(self, raw: Any, what: str, file: str, line: int) -> str | None:
        cid = F.as_id(raw)
        if cid is None:
            return None
        if cid in self.ids:
            w, f, ln = self.ids[cid]
            self.col.add(f"duplicate id {cid!r}: already used by a {w} at {_where(f, ln)}; "
                         "ids are unique across the ledger", file, line)
            return None
        if what == "claim":  # a claim names its crop file, anchors/<id>.png
            twin = self.claim_folds.get(cid.casefold())
            if twin is not None:
                self.col.add(f"claim id {cid!r} differs only in case from {twin!r} at "
                             f"{_where(*self.ids[twin][1:])}; their crops anchors/<id>.png would "
                             "be one file on macOS and Windows: choose another id", file, line)
                return None
            self.claim_folds[cid.casefold()] = cid
        self.ids[cid] = (what, file, line)
        return cid

    def check_page_names(self, rid: str, file: str, line: int) -> None:
        """A report writes <id>.html and <id>.standalone.html; neither may be a file the site
        already writes, compared without case (macOS and Windows folders ignore it)."""
        for name in (f"{rid}.html", f"{rid}.standalone.html"):
            other = self.page_names.get(name.casefold())
            if other is not None:
                self.col.add(f"report id {rid!r} would write {name}, which the site already "
                             f"writes for {other}; choose another report id", file, line)
                return
        for name in (f"{rid}.html", f"{rid}.standalone.html"):
            self.page_names[name.casefold()] = f"report {rid!r} ({_where(file, line)})"

    # ---- files ---------------------------------------------------------------------
    def load_file(self, path: Path, workspace: Path) -> None:
        self.sources.append(path)
        file = str(path)
        try:
            if path.suffix.lower() == ".jsonl":
                self.load_jsonl(path, workspace)
                return
            data = load_yaml(path)
        except LedgerErrors as e:
            self.col.problems.extend(p for p in e.problems if isinstance(p, LedgerError))
            return
        except LedgerError as e:
            self.col.problems.append(e)
            return
        if data is None:
            self.col.add("the file is empty; a report file needs a `report:` block", file, 1)
            return
        if not isinstance(data, dict):
            self.col.add("a report file must be a mapping with `report:`, `claims:` ...", file,
                         getattr(data, "line", 1))
            return
        for key in data:
            if key not in F.TOP:
                self.col.add(f"unknown top-level key {key!r}; known keys: "
                             + ", ".join(F.TOP) + did_you_mean(key, F.TOP), file,
                             line_of(data, key, 1))
        if "documents" in data:
            self.load_documents(data["documents"], file, line_of(data, "documents", 1), workspace)
        if "report" not in data:
            others = [k for k in ("sections", "claims", "edges", "entities") if k in data]
            if others or "documents" not in data:
                self.col.add("missing `report:` block (id, title); only documents.yaml may "
                             "hold documents alone", file, 1)
            return
        self.load_report(data, file)

    def load_documents(self, docs: Any, file: str, line: int, workspace: Path) -> None:
        before = len(self.col.problems)
        try:
            self._load_documents(docs, file, line, workspace)
        finally:
            self.doc_trouble = self.doc_trouble or len(self.col.problems) > before

    def _load_documents(self, docs: Any, file: str, line: int, workspace: Path) -> None:
        if not isinstance(docs, dict):
            self.col.add("documents must be a mapping of document id to {file, title, sha256}",
                         file, line)
            return
        base = Path(file).parent
        for key, spec in docs.items():
            kline = line_of(docs, key, line)
            if F.as_id(key) is None:
                self.col.add(f"document id {key!r} must match [A-Za-z0-9][A-Za-z0-9._-]*",
                             file, kline)
                continue
            if not check_fields(spec, F.DOCUMENT, f"document {key!r}", file, kline, self.col):
                continue
            did = self.claim_id(key, "document", file, kline)
            if did is None:
                continue
            fline = line_of(spec, "file", kline)
            target = Path(os.path.expanduser(spec["file"]))
            raw = target if target.is_absolute() else base / target
            try:
                resolved = raw.resolve()
            except (OSError, RuntimeError, ValueError) as e:  # a symlink loop, a NUL byte
                why = "a symlink loop" if isinstance(e, RuntimeError) else str(e)
                self.col.add(f"document {did!r}: cannot follow {spec['file']!r} ({why}); point "
                             "`file:` at the PDF itself", file, fline)
                continue
            if not self.allow_outside and not resolved.is_relative_to(workspace):
                self.col.add(f"document {did!r} path {spec['file']!r} resolves to {resolved}, "
                             f"outside the ledger's workspace {workspace}; move the PDF inside "
                             "it or pass --allow-outside", file, fline)
                continue
            try:
                found, is_file = resolved.exists(), resolved.is_file()
            except OSError as e:  # a name too long for the file system
                self.col.add(f"document {did!r}: cannot open {show(spec['file'])} ({e.strerror});"
                             " point `file:` at the PDF itself", file, fline)
                continue
            if not found:
                self.col.add(f"document {did!r}: file not found: {spec['file']!r} (resolved to "
                             f"{resolved}); paths are relative to this file", file, fline)
                continue
            if not is_file:
                self.col.add(f"document {did!r}: {spec['file']!r} is not a file", file, fline)
                continue
            sha = spec.get("sha256")
            declared = raw if raw.is_absolute() else Path.cwd() / raw  # symlinks kept
            self.documents[did] = Document(did, resolved, str(spec.get("title") or did),
                                           sha.lower() if isinstance(sha, str) else None,
                                           Loc(file, kline), declared)

    def load_report(self, data: LocDict, file: str) -> None:
        rep = data["report"]
        rline = line_of(data, "report", 1)
        if not check_fields(rep, F.REPORT, "report", file, rline, self.col):
            return
        rid = self.claim_id(rep["id"], "report", file, line_of(rep, "id", rline))
        if rid is None:
            return
        self.check_page_names(rid, file, line_of(rep, "id", rline))
        draft: dict[str, Any] = {
            "id": rid, "title": str(rep["title"]), "summary": str(rep.get("summary") or ""),
            "summary_line": line_of(rep, "summary", rline), "loc": Loc(file, rline),
            "claims": [], "edges": [], "sections": [], "entities": [], "file": file,
            "section_lines": [],
        }
        self.reports.append(draft)
        self.report_by_id[rid] = draft
        for key, fn in (("claims", self.load_claim), ("edges", self.load_edge),
                        ("sections", self.load_section), ("entities", self.load_entity)):
            items = data.get(key)
            if items is None:
                continue
            if not isinstance(items, list):
                self.col.add(f"{key} must be a list (each item starts with '- ')", file,
                             line_of(data, key, 1))
                continue
            for i, item in enumerate(items):
                fn(item, draft, file, item_line(items, i, line_of(data, key, 1)))

    def load_jsonl(self, path: Path, workspace: Path) -> None:
        file = str(path)
        pending: list[tuple[int, Any]] = []
        for n, obj in load_jsonl(path):
            pending.append((n, obj))
        self._jsonl.append((file, pending))

    _jsonl: list[tuple[str, list[tuple[int, Any]]]]

    def resolve_jsonl(self) -> None:
        """JSONL records name their report, which may come from any file; place them after YAML."""
        for file, records in self._jsonl:
            for n, obj in records:
                if not isinstance(obj, dict):
                    self.col.add("each line must be a JSON object", file, n)
                    continue
                rid = F.as_id(obj.get("report"))
                if rid is None or rid not in self.report_by_id:
                    known = ", ".join(self.report_by_id) or "none"
                    hint = ("; pass the ledger folder so its report files are read too"
                            if self.partial and rid is not None else "")
                    self.col.add(f"'report' must name a report of the ledger (known: {known}); "
                                 f"got {show(obj.get('report'))}{hint}", file, n)
                    continue
                draft = self.report_by_id[rid]
                rec = LocDict((k, v) for k, v in obj.items() if k not in ("report", "type"))
                rec.line, rec.key_lines, rec.raw = n, {k: n for k in rec}, getattr(obj, "raw", {})
                if obj.get("type") == "edge":
                    self.load_edge(rec, draft, file, n)
                elif "type" in obj:
                    self.col.add(f"unknown type {obj['type']!r}; use \"edge\" for an edge, or "
                                 "no type for a claim", file, n)
                else:
                    self.load_claim(rec, draft, file, n)

    # ---- items ---------------------------------------------------------------------
    def load_claim(self, c: Any, draft: dict[str, Any], file: str, line: int) -> None:
        if not isinstance(c, dict):
            self.col.add("a claim must be a mapping with id, kind, statement ...", file, line)
            return
        kind = c.get("kind")
        table = dict(F.CLAIM) | F.BY_KIND.get(kind, {})
        if kind not in F.KINDS:
            table = dict(F.CLAIM)
            extra = tuple(k for t in F.BY_KIND.values() for k in t)
        else:
            extra = ()
        cid_raw = c.get("id")
        before = len(self.col.problems)
        what = f"claim {cid_raw!r}" if F.as_id(cid_raw) else "claim"
        had_values = c.get("values") is not None
        if not check_fields(c, table, what, file, line, self.col, extra_ok=extra):
            if F.as_id(cid_raw):
                rid = self.claim_id(cid_raw, "claim", file, line_of(c, "id", line))
                if rid:
                    self.rejected.add(rid)
            return
        cid = self.claim_id(c["id"], "claim", file, line_of(c, "id", line))
        if cid is None:
            return
        common = dict(id=cid, report=draft["id"], statement=str(c["statement"]).strip(),
                      confidence=float(c["confidence"]) if c.get("confidence") is not None
                      else None, note=str(c["note"]).strip() if c.get("note") else None,
                      loc=Loc(file, line), draft=c.get("draft") is True)
        if had_values and "values" not in c:
            self.bad_values.add(cid)
        claim: Claim
        if kind == "fact":
            given = c.get("values") or {}
            written = getattr(given, "raw", {})
            claim = Fact(**common, doc=F.as_id(c["doc"]) or "", page=int(c["page"]),
                         quote=str(c["quote"]),
                         values=tuple((str(k), float(v)) for k, v in given.items()),
                         value_texts=tuple(str(written.get(k, v)) for k, v in given.items()),
                         page_line=line_of(c, "page", line))
        elif kind == "calc":
            written = getattr(c, "raw", {})
            tol = c.get("tolerance")
            claim = Calc(**common, basis=tuple(F.as_id(b) or "" for b in c["basis"]),
                         formula=str(c["formula"]), result=float(c["result"]),
                         result_text=str(written.get("result", repr(c["result"]))),
                         tolerance=float(tol) if tol is not None else None,
                         tolerance_text=str(written.get("tolerance", tol))
                         if tol is not None else None)
        else:
            claim = Inference(**common, basis=tuple(F.as_id(b) or "" for b in c["basis"]))
        self.claims[cid] = claim
        self.claim_raw[cid] = (c, file)
        draft["claims"].append(cid)
        if len(self.col.problems) > before:  # an optional field was wrong: reported, unchecked
            self.invalid.add(cid)

    def load_edge(self, e: Any, draft: dict[str, Any], file: str, line: int) -> None:
        if not check_fields(e, F.EDGE, "edge", file, line, self.col):
            return
        anchors, gap = e.get("anchors"), e.get("gap")
        if not anchors and not gap:
            self.col.add(f"edge {e['from']} -{e['relation']}-> {e['to']} has neither anchors "
                         "nor a gap; add `anchors: [fact ids]` or `gap: why it cannot be proved`",
                         file, line)
            return
        if anchors and gap:
            self.col.add(f"edge {e['from']} -{e['relation']}-> {e['to']} has both anchors and a "
                         "gap; an anchored edge is proved, so keep one", file, line)
            return
        start, end = e.get("valid_from"), e.get("valid_to")
        if start is not None and end is not None and end < start:  # whole ISO dates by now
            self.col.add(f"edge {e['from']} -{e['relation']}-> {e['to']}: valid_to {end} is "
                         f"before valid_from {start}; swap them or correct the dates", file,
                         line_of(e, "valid_to", line))
            return
        draft["edges"].append(Edge(
            draft["id"], str(e["from"]).strip(), str(e["relation"]).strip(), str(e["to"]).strip(),
            tuple(F.as_id(a) or "" for a in anchors or ()),
            str(gap).strip() if gap else None, e.get("valid_from"), e.get("valid_to"),
            Loc(file, line), draft=e.get("draft") is True))

    def load_section(self, s: Any, draft: dict[str, Any], file: str, line: int) -> None:
        if not check_fields(s, F.SECTION, "section", file, line, self.col):
            return
        draft["sections"].append(Section(str(s["title"]), str(s.get("body") or ""),
                                         tuple(F.as_id(x) or "" for x in s.get("claims") or ())))
        draft["section_lines"].append((line, line_of(s, "body", line), line_of(s, "claims", line)))

    def load_entity(self, s: Any, draft: dict[str, Any], file: str, line: int) -> None:
        if not check_fields(s, F.ENTITY, "entity", file, line, self.col):
            return
        draft["entities"].append(Entity(str(s["name"]).strip(), s.get("type"),
                                        tuple(str(a).strip() for a in s.get("aliases") or ()),
                                        Loc(file, line)))

    def ledger(self, root: Path, workspace: Path) -> Ledger:
        """The ledger of the claims without an error of their own (the others are reported
        and left unchecked; a claim resting on one of them is reported by the verifier)."""
        reports = tuple(Report(d["id"], d["title"], d["summary"], tuple(d["sections"]),
                               tuple(c for c in d["claims"] if c not in self.invalid),
                               tuple(d["edges"]), tuple(d["entities"]),
                               d["loc"]) for d in self.reports)
        order = [cid for r in reports for cid in r.claims]
        return Ledger(root, workspace, reports, dict(self.documents),
                      {cid: self.claims[cid] for cid in order}, tuple(self.sources))


def _where(file: str, line: int) -> str:
    from reportgen.errors import display_path
    return f"{display_path(file)}:{line}"


# schema.yaml and entities.yaml are the graph's vocabulary, read by reportgen.graph.vocab
GRAPH_FILES = ("schema.yaml", "schema.yml", "entities.yaml", "entities.yml")

# What a ledger folder's claim files end with; files of other data formats are refused
# (a report saved as J1.json would otherwise be left out without a word).
READ_SUFFIXES = (".yaml", ".yml", ".jsonl")
DATA_SUFFIXES = (".json", ".json5", ".ndjson", ".csv", ".tsv", ".toml", ".xml")


def skipped(path: Path) -> bool:
    """Hidden files and editor backups and locks (.S1.yaml.swp, S1.yaml~, #S1.yaml#,
    S1.yaml.bak, .#S1.yaml): never claim files."""
    name = path.name
    return name.startswith((".", "#")) or name.endswith(("~", ".bak", ".orig", ".swp"))


def unread_files(folder: Path) -> list[Path]:
    """Files of the folder in a data format reportgen does not read, sorted."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in DATA_SUFFIXES
                  and not skipped(p) and (p.is_file() or p.is_symlink()))


def unread_message(path: Path) -> str:
    """Why a data file in the ledger folder is an error, and the two ways out."""
    fmt = path.suffix.lower()
    how = ("write it as .jsonl, one claim per line, each with a \"report\" field"
           if fmt in (".json", ".json5", ".ndjson") else "convert it to one of those")
    return (f"reportgen does not read {fmt} files, so this one would be left out; claim files "
            f"are .yaml or .yml (report files) and .jsonl (one claim or edge per line): {how}, "
            "or move it out of the ledger folder")


def ledger_files(path: Path) -> tuple[Path, list[Path]]:
    """The ledger folder and its claim files in sorted path order (a report file brings its
    folder's documents.yaml)."""
    if path.is_dir():
        # a broken symlink is kept, so it is reported rather than silently skipped
        files = sorted(p for p in path.iterdir() if (p.is_file() or p.is_symlink())
                       and p.suffix.lower() in READ_SUFFIXES and not skipped(p)
                       and p.name not in GRAPH_FILES)
        return path, files
    files = [path]
    for name in ("documents.yaml", "documents.yml"):
        d = path.parent / name
        if d.exists() and d.resolve() != path.resolve():
            files.insert(0, d)
            break
    return path.parent, files


def read_ledger(paths: Sequence[Path], allow_outside: bool = False,
                cross_check: bool = True, require_reports: bool = True,
                ) -> tuple[Ledger, list[LedgerError]]:
    """Read every claim file named by `paths`: the ledger of the claims without an error of
    their own, and every problem found (sorted by file and line), so one run reports them
    all while the valid claims are still checked. Raises LedgerErrors only when nothing
    can be checked: no such path, or problems and not one report read.
    `cross_check=False` skips the checks between claims (the evidence index needs only
    the documents, and a report file read alone may cite another report's claims);
    `require_reports=False` accepts a ledger of documents.yaml alone (the index)."""
    loader = _Loader(allow_outside)
    loader._jsonl = []
    roots: list[tuple[Path, Path]] = []
    seen: set[Path] = set()
    for p in paths:
        if not p.exists():
            raise LedgerErrors([LedgerError(
                "no such ledger folder or report file; pass a folder of claim files "
                "(default claims/) or a .yaml report", str(p))])
        if not (p.is_dir() or p.suffix in (".yaml", ".yml", ".jsonl")):
            raise LedgerErrors([LedgerError(
                "not a ledger folder or a .yaml/.jsonl claim file", str(p))])
        root, files = ledger_files(p)
        if p.is_dir():
            for f in unread_files(p):
                loader.col.add(unread_message(f), str(f), None)
        loader.partial = loader.partial or not p.is_dir()
        workspace = workspace_of(root)
        roots.append((root, workspace))
        for f in files:
            real = Path(os.path.realpath(f))  # never raises, not even on a symlink loop
            if real in seen:
                continue
            seen.add(real)
            before = len(loader.col.problems)
            loader.load_file(f, workspace)
            if f.stem == "documents" and len(loader.col.problems) > before:
                loader.doc_trouble = True
    loader.resolve_jsonl()
    if require_reports and not loader.reports and not loader.col.problems:
        loader.col.add("no report files found (a report file has a `report:` block)",
                       str(roots[0][0]) if roots else "claims", None)
    if cross_check:
        loader.root = roots[0][0] if roots else Path("claims")
        loader.cross_check()
    if loader.col.problems and not loader.reports:
        raise LedgerErrors(loader.col.problems)
    root, workspace = roots[0]
    return loader.ledger(root.resolve(), workspace), LedgerErrors(loader.col.problems).problems


def load_ledger(paths: Sequence[Path], allow_outside: bool = False,
                cross_check: bool = True, require_reports: bool = True) -> Ledger:
    """read_ledger for callers that need a whole ledger: raises LedgerErrors listing every
    problem, if any."""
    ledger, problems = read_ledger(paths, allow_outside, cross_check, require_reports)
    if problems:
        raise LedgerErrors(problems)
    return ledger
