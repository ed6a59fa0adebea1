"""`drift --write`: switch the document to its new file in the claim files themselves.

A ruamel.yaml round trip (comments, key order, quoting and indentation kept): the moved
facts get their new page, the document's `file:` names the new PDF and its `sha256` pin
becomes the new file's hash. Quotes are never rewritten: a changed fact keeps its page and
quote for the analyst to settle. JSON Lines claim files get the same edit line by line.
Each file is replaced atomically.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from reportgen.drift.check import Drift
from reportgen.errors import LedgerError
from reportgen.model import Ledger


def _yaml(text: str):
    """A round-trip YAML set to the file's own indentation: the first of the usual layouts
    whose unmodified round trip gives the file back byte for byte, else ruamel's guess."""
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    _, ind, bsi = load_yaml_guess_indent(text)
    ind, bsi = ind or 2, bsi or 0
    layouts = [(2, 4, 2), (2, 2, 0), (4, 4, 2), (4, 6, 4), (4, 4, 0), (ind, ind, bsi),
               (ind, ind + bsi, bsi)]
    for mapping, sequence, offset in layouts:
        y = YAML(typ="rt")
        y.preserve_quotes = True
        y.width = 1 << 16  # never re-wrap a long statement
        y.indent(mapping=mapping, sequence=sequence, offset=offset)
        buf = io.StringIO()
        try:
            y.dump(y.load(text), buf)
        except Exception:  # noqa: BLE001 - another layout may do; the last one is used anyway
            continue
        if buf.getvalue() == text:
            return y
    return y


def _same_style(old: Any, new: str) -> Any:
    """`new` quoted as `old` was ("..." stays "...")."""
    return type(old)(new) if isinstance(old, str) and type(old) is not str else new


def _replace(path: Path, text: str) -> None:
    """The claim file rewritten whole or not at all, its permissions kept."""
    from reportgen.pdf.files import write_atomic

    write_atomic(path.parent, [text.encode("utf-8")], lambda: path, path.suffix,
                 mode=os.stat(path).st_mode & 0o7777)


def _edit_yaml(path: Path, pages: dict[str, int], doc: tuple[str, str, str] | None) -> bool:
    text = path.read_text(encoding="utf-8")
    y = _yaml(text)
    data = y.load(text)
    changed = False
    for item in (data.get("claims") or []) if hasattr(data, "get") else []:
        cid = str(item.get("id")) if hasattr(item, "get") else None
        if cid in pages and item.get("page") != pages[cid]:
            item["page"] = pages[cid]
            changed = True
    if doc is not None and hasattr(data, "get"):
        doc_id, file, sha = doc
        docs = data.get("documents") or {}
        key = next((k for k in docs if str(k) == doc_id), None)
        if key is not None:
            entry = docs[key]
            entry["file"] = _same_style(entry.get("file"), file)
            entry["sha256"] = _same_style(entry.get("sha256"), sha)
            changed = True
    if changed:
        buf = io.StringIO()
        y.dump(data, buf)
        _replace(path, buf.getvalue())
    return changed


def _edit_jsonl(path: Path, pages: dict[str, int]) -> bool:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    changed = False
    for i, line in enumerate(lines):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and str(rec.get("id")) in pages:
            rec["page"] = pages[str(rec["id"])]
            end = "\n" if line.endswith("\n") else ""
            lines[i] = json.dumps(rec, ensure_ascii=False) + end
            changed = True
    if changed:
        _replace(path, "".join(lines))
    return changed


def write_drift(ledger: Ledger, d: Drift) -> list[Path]:
    """Apply a drift to the claim files; -> the files rewritten."""
    document = ledger.documents[d.doc]
    decl = Path(document.loc.file)
    file = os.path.relpath(d.new_path, decl.resolve().parent)
    by_file: dict[Path, dict[str, int]] = {}
    for f in d.facts:
        if f.status == "moved" and f.new_page is not None:
            by_file.setdefault(Path(f.loc.file), {})[f.id] = f.new_page
    by_file.setdefault(decl, {})
    written = []
    for path, pages in sorted(by_file.items()):
        doc = (d.doc, Path(file).as_posix(), d.new_sha256) if path == decl else None
        if path.suffix == ".jsonl":
            if doc is not None:
                raise LedgerError(f"document {d.doc} is declared in a JSON Lines file; "
                                  "switch its `file` and `sha256` by hand", path)
            done = _edit_jsonl(path, pages)
        else:
            done = _edit_yaml(path, pages, doc)
        if done:
            written.append(path)
    return written
