"""The no-op rebuild: a fingerprint of every input and of the output folder, so `build`
with nothing changed repeats the last verdict lines instead of verifying and writing.

Stdlib only (no PyMuPDF, YAML or Jinja2 import), since the check runs on every build.
Anything that could change the site's bytes or the verdicts is in the fingerprint:
reportgen's version and source files, the libraries that shape the output, the ledger
folders' listings and claim files' bytes, every document's SHA-256 and where its declared
path leads, the templates (built-in and override), --allow-outside, SOURCE_DATE_EPOCH,
the working folder (messages show paths relative to it) and the output's manifest (path,
size, mtime_ns of every file). Only a successful build records one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from reportgen import __version__
from reportgen.cachekey import sealed, unsealed
from reportgen.pdf.files import read_json, sha256_file, write_atomic

FORMAT = 2  # 1: no mac
MAX_RECORD = 64 << 20  # a larger record is not ours (it lists the site's files)
CLAIM_SUFFIXES = (".yaml", ".yml", ".jsonl")
# Libraries whose version can change the site's bytes (pages, crops, YAML reading).
LIBRARIES = ("pymupdf", "jinja2", "markupsafe", "markdown_it", "yaml", "click")


def record_path(out: Path) -> Path:
    """`.reportgen/<out name>.fingerprint.json` beside the output, with its lock."""
    from reportgen.site.swap import state_dir

    return state_dir(out) / f"{Path(os.path.abspath(out)).name}.fingerprint.json"


def _stat_digest(files: Iterable[Path], root: Path) -> str:
    """Hash of (relative path, size, mtime_ns) of files: notices any edit, reads nothing."""
    h = hashlib.sha256()
    for p in sorted(files):
        st = p.stat()
        h.update(f"{p.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def file_id(path: Path | str, sha: str | None = None) -> list[Any]:
    """[size, mtime_ns, SHA-256]: a touch counts as a change too (the safe side)."""
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, sha or sha256_file(Path(path))]


def _tree_digest(root: Path) -> str:
    """Hash of every file's relative path, mtime and bytes under root (templates)."""
    h = hashlib.sha256()
    if not root.is_dir():
        return ""
    for p in sorted(q for q in root.rglob("*") if q.is_file()):
        h.update(f"{p.relative_to(root)}\0{p.stat().st_mtime_ns}\0".encode()
                 + p.read_bytes() + b"\0")
    return h.hexdigest()


def environment() -> dict[str, Any]:
    """Versions of reportgen, its code and Python, and the libraries' installed files."""
    import importlib.util

    pkg = Path(__file__).resolve().parent.parent  # the whole reportgen package
    libs = {}
    for name in LIBRARIES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin and os.path.exists(origin):
            st = os.stat(origin)
            libs[name] = f"{origin}:{st.st_size}:{st.st_mtime_ns}"
        else:
            libs[name] = None
    return {"format": FORMAT, "reportgen": __version__, "python": sys.version,
            "code": _stat_digest(pkg.rglob("*.py"), pkg), "libraries": libs}


def options(paths: Sequence[Path], templates: Path | None, allow_outside: bool) -> dict[str, Any]:
    """The command's own inputs: arguments, working folder, flags, SOURCE_DATE_EPOCH."""
    from reportgen.render.paths import default_templates

    return {"cwd": os.getcwd(), "paths": [os.path.abspath(p) for p in paths],
            "allow_outside": allow_outside,
            "source_date_epoch": os.environ.get("SOURCE_DATE_EPOCH"),
            "templates": _tree_digest(default_templates()),
            "override": [os.path.abspath(templates), _tree_digest(templates)] if templates
            else None}


def ledger_files(paths: Sequence[Path]) -> dict[str, Any]:
    """Each ledger folder's listing and the bytes of every claim-like file in it (a superset
    of what the loader reads, so adding, removing or editing a claim file is noticed)."""
    folders: dict[str, Any] = {}
    for p in paths:
        folder = p if p.is_dir() else p.parent
        key = os.path.abspath(folder)
        if key in folders or not folder.is_dir():
            folders.setdefault(key, None)
            continue
        names = sorted(os.listdir(folder))
        folders[key] = {"names": names, "claims": {
            n: file_id(folder / n) for n in names
            if n.endswith(CLAIM_SUFFIXES) and (folder / n).is_file()}}
    return folders


def manifest(out: Path) -> list[list[Any]]:
    """[relative path, size, mtime_ns] of every file under the output folder, sorted."""
    rows = []
    root = os.path.abspath(out)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for n in filenames:
            full = os.path.join(dirpath, n)
            st = os.lstat(full)
            rows.append([os.path.relpath(full, root), st.st_size, st.st_mtime_ns])
    rows.sort()
    return rows


def documents(docs: dict[str, tuple[str, str | None, str]]) -> dict[str, Any]:
    """doc id -> [resolved path, declared path, [size, mtime_ns, SHA-256 as verified]]."""
    return {k: [path, declared, file_id(path, sha)]
            for k, (path, declared, sha) in sorted(docs.items())}


def _documents_unchanged(recorded: dict[str, Any]) -> bool:
    """Same path, same stat and same bytes (hashed: the stat alone could be restored)."""
    for resolved, declared, (size, mtime_ns, sha) in recorded.values():
        if declared is not None and os.path.realpath(declared) != resolved:
            return False  # a symlink on the way now leads elsewhere
        st = os.stat(resolved)
        if (st.st_size, st.st_mtime_ns) != (size, mtime_ns):
            return False
    return all(sha256_file(Path(resolved)) == sha
               for resolved, _, (_, _, sha) in recorded.values())


def read(out: Path) -> dict[str, Any] | None:
    """The recorded fingerprint, or None when there is none or it cannot be read."""
    rec = read_json(record_path(out), MAX_RECORD)
    # only a record this user's build wrote: a workspace may carry a record and a site of
    # its own, which would otherwise be passed as verified without a single check
    rec = unsealed("fingerprint", rec)
    return rec if rec is not None and rec.get("format") == FORMAT else None


def unchanged(out: Path, paths: Sequence[Path], templates: Path | None,
              allow_outside: bool) -> str | None:
    """The recorded stdout when nothing changed since the last successful build, else None.

    Cheap checks come first, so a changed input costs little before the full build."""
    rec = read(out)
    if rec is None:
        return None
    try:
        if (rec.get("options") != options(paths, templates, allow_outside)
                or rec.get("environment") != environment()
                or rec.get("manifest") != manifest(out)
                or rec.get("ledger") != ledger_files(paths)
                or not _documents_unchanged(rec.get("documents") or {})):
            return None
    except (OSError, TypeError, ValueError):  # a file gone, or a record of another shape
        return None
    stdout = rec.get("stdout")
    return stdout if isinstance(stdout, str) else None


def forget(out: Path) -> None:
    """Drop the record (a build is about to replace the site or has failed)."""
    try:
        os.unlink(record_path(out))
    except FileNotFoundError:
        pass


def write(out: Path, before: dict[str, Any], docs: dict[str, tuple[str, str | None, str]],
          stdout: str) -> None:
    """Record a successful build: inputs as read before it started, the documents' hashes
    as verified, and the output folder as it now stands. Written atomically."""
    rec = sealed("fingerprint", dict(before, documents=documents(docs), manifest=manifest(out),
                                     stdout=stdout))
    path = record_path(out)
    data = json.dumps(rec, ensure_ascii=False, sort_keys=True).encode("utf-8")
    write_atomic(path.parent, [data], lambda: path, ".json")


def snapshot(paths: Sequence[Path], templates: Path | None, allow_outside: bool
             ) -> dict[str, Any]:
    """The inputs known before verifying (taken first, so an edit during the build is
    noticed by the next one)."""
    return {"format": FORMAT, "options": options(paths, templates, allow_outside),
            "environment": environment(), "ledger": ledger_files(paths)}
