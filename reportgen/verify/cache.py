"""The verdict cache: a fact's anchor result kept under (PDF SHA-256, page, quote, anchor
code version), so a rebuild after a one-claim edit re-checks that claim only, and a query
after a build opens no PDF at all.

A verdict depends on nothing else: the bytes of the PDF (named by their hash, taken
without parsing), the page, the quote, and the code that reads text and matches quotes
(its source files and MuPDF's version make up `anchor_version()`). The verdicts of one
document's bytes under one code version live in one file (a pack) under
`.reportgen/cache/verdicts/` beside the ledger folder (where the evidence index lives
too): a cold build of 1,000 facts writes one file per document, not one per fact (a new
file costs more than its bytes on many file systems), and a warm one reads one file per
document. Packs are written atomically and read-only, so processes of `--jobs N` (which
take whole documents) and concurrent runs share them without a lock; two runs that add to
one pack at once keep the last writer's entries, which only costs time. An entry is used
only when its pack is a small regular file, its recorded key equals the key asked for and
its checksum matches its payload; anything else (truncated, foreign, edited, a symlink or
a FIFO in its place) is ignored and the fact is checked again. Names and checksums are
HMACs under the user's key (`reportgen.cachekey`), so a workspace handed over with a cache
of its own cannot turn a miss into a hit. Writing is best effort: an
unwritable cache only costs time. Stdlib only: a run served entirely from the cache never
imports PyMuPDF.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from reportgen.cachekey import keyed
from reportgen.errors import DocumentError
from reportgen.model import Anchor, Document, Fact, FactResult, Ledger
from reportgen.pdf.files import read_json, write_atomic
from reportgen.pdf.source import IN_MEMORY_MAX, PdfBytes, read_pdf

FORMAT = 3  # 1: one file per fact; 2: unkeyed names and checksums
ENV = "REPORTGEN_VERDICT_CACHE"  # a folder to use instead, or "off"
MAX_PACK = 64 << 20  # no pack is larger; a bigger file is not ours
MAX_KEPT = 20_000  # a pack past this many entries keeps only the run's own
MAX_HASHED = 1 << 30  # a larger PDF is left to the reader (read once, there, not twice)
# The modules whose code decides a fact's verdict and message (text layer, reading orders,
# the anchor rule, miss hints, the document reader and the fact check itself).
ANCHOR_CODE = ("pdf/anchors.py", "pdf/hints.py", "pdf/text.py", "pdf/textlayer.py",
               "pdf/orders.py", "pdf/documents.py", "pdf/source.py", "verify/fact.py",
               "verify/cache.py")


@lru_cache(maxsize=1)
def anchor_version() -> str:
    """A digest of the anchor code's source and of MuPDF's version: any change to how a
    quote is found or a miss explained makes every entry a stranger."""
    from importlib import metadata

    pkg = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(f"verdicts-{FORMAT}\0".encode())
    for rel in ANCHOR_CODE:
        h.update(rel.encode() + b"\0" + (pkg / rel).read_bytes() + b"\0")
    try:
        h.update(metadata.version("pymupdf").encode())
    except metadata.PackageNotFoundError:
        h.update(b"no-pymupdf")
    return h.hexdigest()


def default_folder(ledger: Ledger) -> Path | None:
    """`.reportgen/cache/verdicts` beside the ledger folder, or $REPORTGEN_VERDICT_CACHE
    (`off` turns the cache off)."""
    env = os.environ.get(ENV)
    if env is not None:
        return None if env.strip().lower() in ("", "0", "off", "no") else Path(env)
    return Path(ledger.root).resolve().parent / ".reportgen" / "cache" / "verdicts"


def file_sha256(path: Path) -> str | None:
    """The SHA-256 of a PDF, read without parsing it; None for anything the cache leaves
    to the reader (which then says what is wrong): not a regular file, no `%PDF-` in its
    first KB, larger than MAX_HASHED, unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with open(fd, "rb") as f:
        try:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_HASHED:
                return None
            head = f.read(1024)
            if b"%PDF-" not in head:
                return None
            h = hashlib.sha256(head)
            while block := f.read(1 << 20):
                h.update(block)
        except OSError:
            return None
    return h.hexdigest()


def read_for_lookup(path: Path) -> tuple[str | None, PdfBytes | None]:
    """(SHA-256, the bytes it hashes) of a PDF for the cache lookup: read the way the
    reader reads it (`pdf.source.read_pdf`), so a document with facts left to check is
    opened from these very bytes, not read again. A file too large to keep in memory is
    hashed as a stream (no bytes: the reader reads it again, checking it hashes the same);
    (None, None) for anything the reader must judge (not a PDF, not a regular file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None, None
    if not stat.S_ISREG(st.st_mode) or st.st_size > IN_MEMORY_MAX:
        return file_sha256(path), None
    try:
        source = read_pdf(path)
    except DocumentError:
        return None, None
    return source.sha256, source


def _key(sha: str, fact: Fact) -> dict[str, Any]:
    return {"sha256": sha, "page": fact.page, "quote": fact.quote, "code": anchor_version()}


def _digest(obj: Any) -> str:
    """A name or checksum of a JSON value that only this user can compute
    (`reportgen.cachekey`): a workspace cannot bring packs or entries of its own."""
    return keyed("verdicts", json.dumps(obj, ensure_ascii=False, sort_keys=True))


def _encode(r: FactResult) -> dict[str, Any]:
    a = r.anchor
    return {"status": r.status, "sha256": r.sha256, "message": r.message,
            "anchor": None if a is None else {
                "page": a.page, "page_end": a.page_end, "bbox": list(a.bbox),
                "method": a.method, "rects": [[p, list(b)] for p, b in a.rects]}}


def _num(x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(x)
    return x


def _box(b: Any) -> tuple[float, float, float, float]:
    if not isinstance(b, list) or len(b) != 4:
        raise ValueError(b)
    return (_num(b[0]), _num(b[1]), _num(b[2]), _num(b[3]))


def _page(p: Any) -> int:
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(p)
    return p


def _decode(fid: str, d: Any) -> FactResult:
    """A FactResult from a stored payload; ValueError for any field of the wrong shape."""
    if not isinstance(d, dict) or d.get("status") not in ("hit", "miss") \
            or not isinstance(d.get("message"), str) \
            or not (d.get("sha256") is None or isinstance(d.get("sha256"), str)):
        raise ValueError("not a verdict")
    a = d.get("anchor")
    anchor = None
    if a is not None:
        if not isinstance(a, dict) or not isinstance(a.get("method"), str) \
                or not isinstance(a.get("rects"), list):
            raise ValueError("not an anchor")
        rects = []
        for r in a["rects"]:
            if not isinstance(r, list) or len(r) != 2:
                raise ValueError(r)
            rects.append((_page(r[0]), _box(r[1])))
        anchor = Anchor(_page(a.get("page")), _page(a.get("page_end")), _box(a.get("bbox")),
                        a["method"], tuple(rects))
    if (anchor is None) != (d["status"] == "miss"):
        raise ValueError("a hit needs an anchor, a miss has none")
    return FactResult(fid, d["status"], anchor, d["sha256"], d["message"])


def _listing(folder: Path) -> Iterator[str]:
    """The names in `folder`, none when it is absent or unreadable."""
    try:
        with os.scandir(folder) as it:
            yield from (e.name for e in it)
    except OSError:
        return


def _read_pack(path: Path) -> dict[str, Any]:
    """The entries of a pack by their key's digest; none for anything not a pack of ours."""
    pack = read_json(path, MAX_PACK)
    entries = pack.get("entries") if isinstance(pack, dict) else None
    return entries if isinstance(entries, dict) else {}


class VerdictCache:
    """Fact verdicts on disk, one pack per document's bytes; `folder=None` holds nothing."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        # An empty cache (a first run) finds nothing: `split` then leaves each file to the
        # reader, which hashes it as it reads it, instead of reading it twice.
        self.empty = folder is None or not any(_listing(folder))
        self._packs: dict[str, dict[str, Any]] = {}  # sha -> the entries read or written
        self._used: dict[str, set[str]] = {}  # sha -> the entries this run found

    @classmethod
    def for_ledger(cls, ledger: Ledger) -> VerdictCache:
        return cls(default_folder(ledger))

    def _path(self, sha: str) -> Path:
        assert self.folder is not None
        name = _digest({"sha256": sha, "code": anchor_version()})
        return self.folder / name[:2] / f"{name}.json"

    def _pack(self, sha: str) -> dict[str, Any]:
        if sha not in self._packs:
            self._packs[sha] = {} if self.empty else _read_pack(self._path(sha))
        return self._packs[sha]

    def _forget(self, sha: str) -> None:
        self._packs.pop(sha, None)
        self._used.pop(sha, None)

    def get(self, sha: str, fact: Fact) -> FactResult | None:
        """The stored verdict for this quote on these bytes, or None (absent or not trusted)."""
        if self.folder is None:
            return None
        key = _key(sha, fact)
        name = _digest(key)
        rec = self._pack(sha).get(name)
        try:
            check = rec.get("check") if isinstance(rec, dict) else None
            if not isinstance(check, str) or rec.get("key") != key:
                return None
            if not hmac.compare_digest(check.encode("utf-8", "surrogatepass"),
                                       _digest([key, rec["verdict"]]).encode()):
                return None
            found = _decode(fact.id, rec["verdict"])
        except (ValueError, KeyError, TypeError):
            return None
        self._used.setdefault(sha, set()).add(name)
        return found

    def put(self, sha: str, verdicts: Sequence[tuple[Fact, FactResult]]) -> None:
        """Keep one document's new verdicts beside those its pack holds, in one write (best
        effort: a cache that cannot be written is skipped)."""
        if self.folder is None:
            return
        new: dict[str, Any] = {}
        for fact, result in verdicts:
            if result.sha256 != sha:
                continue
            key = _key(sha, fact)
            verdict = _encode(result)
            new[_digest(key)] = {"key": key, "verdict": verdict,
                                 "check": _digest([key, verdict])}
        old = self._pack(sha) if new else {}
        if len(old) + len(new) > MAX_KEPT:  # keep what this run found, drop the rest
            old = {k: old[k] for k in self._used.get(sha, ()) if k in old}
        entries = {**old, **new}
        self._forget(sha)  # one document's pack in memory at a time
        if not new:
            return
        data = json.dumps({"format": FORMAT, "entries": entries}, ensure_ascii=False,
                          sort_keys=True).encode("utf-8")
        path = self._path(sha)
        try:
            write_atomic(path.parent, [data], lambda: path, ".json")
        except OSError:
            pass

    def split(self, document: Document | None, facts: Sequence[Fact]
              ) -> tuple[str | None, dict[str, FactResult], list[Fact], PdfBytes | None]:
        """(the file's SHA-256 or None, the verdicts found, the facts still to check, the
        bytes that were hashed: the caller opens them, or closes them).

        Nothing is found for an undeclared document, a file that is not a regular file,
        or one whose pin does not match (the reader then says what is wrong)."""
        if self.empty or document is None or not facts:
            return None, {}, list(facts), None
        sha, source = read_for_lookup(document.path)
        if sha is None or (document.sha256 is not None and document.sha256.lower() != sha):
            if source is not None:
                source.close()
            return None, {}, list(facts), None
        found: dict[str, FactResult] = {}
        todo: list[Fact] = []
        for f in facts:
            r = self.get(sha, f)
            if r is None:
                todo.append(f)
            else:
                found[f.id] = r
        if not todo:  # nothing to add: `put` will not need the pack
            self._forget(sha)
        return sha, found, todo, source
