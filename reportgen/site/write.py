"""Write every file of a verified ledger's site into a folder (reportgen.site.publish
puts that folder in place): pages in the helper process while the crops are drawn from the
checked bytes, the PDFs, evidence.jsonl and the bundle."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reportgen.errors import BuildError
from reportgen.pdf.files import open_regular_fd
from reportgen.verify import records
from reportgen.model import Fact, FactResult, Verification

if TYPE_CHECKING:
    from reportgen.render.inline import SlottedPage

from reportgen.site.swap import state_dir


@dataclass(frozen=True)
class BuildStats:
    reports: int
    pages: int  # HTML files written
    crops: int
    crops_rendered: int
    crops_cached: int
    pdfs: int
    bundle_entries: int


def default_cache_dir(out: Path) -> Path:
    return state_dir(out) / "cache" / "crops"


def site_pdf_names(v: Verification) -> dict[str, str]:
    """doc id -> file name under pdfs/: `<doc id>.pdf`. File names are not unique (`a.pdf`
    and `a` both became a.pdf, `A.PDF` is a.pdf on macOS); ids are, and one that differs
    from another only in case gets `~2`, `~3` (`~` is outside the id alphabet)."""
    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    for did in sorted(v.ledger.documents):
        n = seen[did.casefold()] = seen.get(did.casefold(), 0) + 1
        out[did] = f"{did}.pdf" if n == 1 else f"{did}~{n}.pdf"
    return out


def pdf_store(cache_dir: Path) -> Path:
    """Where the checked bytes of each PDF are kept, as <sha256>.pdf, beside the crops."""
    return cache_dir.parent / "pdfs"


def link_or_copy(src: Path, dst: Path) -> None:
    """A hard link to a cached crop, a copy where the filesystem will not link (another
    device, no permission). Copying a thousand crops took 0.7 s here, linking 15 ms; the
    cache only ever replaces its files (never writes into them) and keeps them read-only,
    so a link cannot change under the site."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


@contextlib.contextmanager
def writing(path: Path) -> Iterator[None]:
    """Name `path` in an OSError that does not name its file (a full disk, a file size
    limit: write() and close() say only what went wrong, not where)."""
    try:
        yield
    except OSError as e:
        if e.filename is not None or e.errno is None:
            raise
        raise OSError(e.errno, e.strerror, os.fspath(path)) from None


def _write(path: Path, text: str) -> None:
    with writing(path), open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


# ---- the HTML half: runs in a helper process when the CLI started one ----------------

_RENDERERS: dict[str, object] = {}  # out -> Renderer, between write_pages and render_standalone


def _renderer(v: Verification, out: Path, templates: Path | None, pdf_names: dict[str, str],
              crops: dict[str, list[tuple[int, str]]], bytecode: Path | None):
    from reportgen.render.pages import Renderer, SiteData

    key = str(out)
    r = _RENDERERS.get(key)
    if r is None:
        r = _RENDERERS[key] = Renderer(SiteData(v, pdf_names, crops), templates,
                                       bytecode_cache=bytecode)
    return r


def write_pages(v: Verification, out: Path, templates: Path | None, pdf_names: dict[str, str],
                crops: dict[str, list[tuple[int, str]]], bytecode: Path | None,
                previous: str | None = None) -> list[str]:
    """Assets, evidence.jsonl, claims.csv, index.html, one page per report and per document
    (no crop needed), and changes/index.html against `previous` (the last evidence.jsonl),
    which is not returned: it describes the folder's history, not the inputs."""
    from reportgen.render.extras import changes, claims_csv, read_evidence
    from reportgen.render.pages import asset_text

    rend = _renderer(v, out, templates, pdf_names, crops, bytecode)
    (out / "assets").mkdir(exist_ok=True)
    for asset in ("assets/site.css", "assets/site.js"):
        _write(out / asset, asset_text(rend.env, asset))
    evidence = list(records.evidence_records(v, crops))
    with writing(out / "evidence.jsonl"), \
            open(out / "evidence.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for rec in evidence:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        for rec in records.edge_records(v.ledger):
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    with writing(out / "claims.csv"), \
            open(out / "claims.csv", "w", encoding="utf-8", newline="") as f:
        f.write(claims_csv(evidence))
    pages = ["claims.csv", "index.html"]
    _write(out / "index.html", rend.index_page())
    for rep in v.ledger.reports:
        _write(out / f"{rep.id}.html", rend.report_page(rep))
        pages.append(f"{rep.id}.html")
    (out / "documents").mkdir(exist_ok=True)
    for name, html in rend.document_pages().items():
        _write(out / name, html)
        pages.append(name)
    # What changed since the previous build in this folder (the one page that depends on
    # it; a first build reads as one that changed nothing, so that a site built over its
    # own earlier build is byte for byte the site built afresh).
    (out / "changes").mkdir(exist_ok=True)
    before = read_evidence(previous) if previous is not None else None
    _write(out / "changes" / "index.html", rend.changes_page(changes(before, evidence)))
    (out / "graph").mkdir(exist_ok=True)
    for name, text in sorted(rend.entity_pages().items()):
        _write(out / name, text)
        pages.append(name)
    return pages


def render_standalone(v: Verification, out: Path, templates: Path | None,
                      pdf_names: dict[str, str], crops: dict[str, list[tuple[int, str]]],
                      bytecode: Path | None) -> dict[str, SlottedPage]:
    """<id>.standalone.html -> its HTML with CSS and JS inlined and a slot per crop, so it
    can be rendered before the crops exist (write_standalone fills them in)."""
    rend = _renderer(v, out, templates, pdf_names, crops, bytecode)
    try:
        return {f"{rep.id}.standalone.html": rend.standalone_slots(rep)
                for rep in v.ledger.reports}
    finally:
        _RENDERERS.pop(str(out), None)


def read_anchor(out: Path, src: str, allowed: Collection[str]) -> bytes:
    """The bytes of crop `src` ("anchors/<name>"), one of `allowed` (the build's own crop
    list), read from out/anchors and nowhere else: no other folder, no '..', no symlink."""
    name = src.removeprefix("anchors/")
    if src not in allowed or name == src or name in ("", ".", "..") or "/" in name \
            or "\0" in name:
        raise BuildError(f"refusing to inline {src!r}: it is not one of this build's crops")
    try:
        dfd = os.open(out / "anchors", os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                      | getattr(os, "O_DIRECTORY", 0))
        try:
            fd = open_regular_fd(name, dir_fd=dfd)
        finally:
            os.close(dfd)
    except OSError as e:
        if e.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        raise BuildError(f"refusing to inline {src!r}: a symlink on its way could lead out "
                         "of the site's anchors folder") from None
    if fd is None:
        raise BuildError(f"refusing to inline {src!r}: it is not a regular file")
    with open(fd, "rb") as f:
        return f.read()


def write_standalone(out: Path, pages: dict[str, SlottedPage],
                     crops: dict[str, list[tuple[int, str]]]) -> list[str]:
    """Write the standalone pages with their crops (read from out/anchors) as data: URIs."""
    from reportgen.render.inline import fill_crops

    allowed = frozenset(src for cs in crops.values() for _, src in cs)
    for name, page in pages.items():
        _write(out / name, fill_crops(page, lambda src: read_anchor(out, src, allowed)))
    return list(pages)


class KeepChecked:
    """An after_doc hook for verify(): right after a document's facts are checked, in the
    process that checked them, keeps the bytes they were checked against in pdf_store,
    which the site's pdfs/ link to and its crops are drawn from. Nothing after the check
    reads the document's path again, so a file replaced during the build is never
    published nor drawn. The crops themselves wait until every verdict is in, so they are
    drawn while the template helper renders the pages (and never for a failing build)."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir

    def __call__(self, ledger, doc_id: str, docs, results: dict[str, FactResult]) -> None:
        try:
            docs.save_copy(doc_id, pdf_store(self.cache_dir))
        except OSError:  # an unwritable store: the build re-reads the file, checking its hash
            return


def previous_evidence(site: Path | None) -> str | None:
    """The evidence.jsonl of the site about to be replaced, for the changes page."""
    if site is None:
        return None
    try:
        with open(site / "evidence.jsonl", encoding="utf-8") as f:
            return f.read(64 << 20)
    except (OSError, UnicodeDecodeError):
        return None


def build_site(v: Verification, out: Path, templates: Path | None = None, jobs: int = 1,
               cache_dir: Path | None = None, helper=None,
               previous: Path | None = None) -> BuildStats:
    """Write the whole site into `out` (created if needed). Refuses an unverified ledger.

    `helper` (from start_helper) renders the HTML while this process (and with jobs > 1
    its workers) renders the crops; without it the crops go to worker processes while this
    one writes the HTML. Crops are drawn from the checked bytes kept by KeepChecked."""
    from reportgen.site.bundle import write_bundle
    from reportgen.pdf.crops import crop_jobs, start_crops
    from reportgen.pdf.documents import copy_verified

    if not v.ok:
        raise BuildError("refusing to build: the ledger has misses, mismatches or invalid claims")
    out.mkdir(parents=True, exist_ok=True)
    cache = cache_dir if cache_dir is not None else default_cache_dir(out)
    bytecode = cache.parent / "jinja"

    # the PDFs: the bytes the facts were checked against (kept by KeepChecked), or the file
    # read again and refused unless it hashes the same
    pdf_names = site_pdf_names(v)
    checked: dict[str, Path] = {}
    (out / "pdfs").mkdir(exist_ok=True)
    for did, name in sorted(pdf_names.items()):
        d = v.ledger.documents[did]
        checked[did] = copy_verified(d.path, v.sha256.get(did), pdf_store(cache), d.sha256)
        link_or_copy(checked[did], out / "pdfs" / name)

    # crops: one job per page a quote touches, drawn from the checked copy, rendered only
    # when not cached
    cjobs = []
    crops: dict[str, list[tuple[int, str]]] = {}
    for cid, c in v.ledger.claims.items():
        r = v.results.get(cid)
        if not (isinstance(c, Fact) and isinstance(r, FactResult) and r.anchor is not None):
            continue
        sha = r.sha256 or v.sha256.get(c.doc) or ""
        js = crop_jobs(cid, v.ledger.documents[c.doc].path, sha, r.anchor, checked[c.doc])
        cjobs.extend(js)
        crops[cid] = [(j.page, f"anchors/{j.name}") for j in js]
    args = (v, out, templates, pdf_names, crops, bytecode)

    fut = sfut = None
    if helper is not None:
        try:
            fut = helper.submit(write_pages, *args, previous=previous_evidence(previous))
            sfut = helper.submit(render_standalone, *args)
        except Exception:  # a broken helper: do it all here
            fut = sfut = None
    if fut is not None and sfut is not None:
        pending = start_crops(cjobs, cache, workers=jobs, inline=jobs == 1)
    else:  # crops in worker processes while this one writes the pages
        pending = start_crops(cjobs, cache, workers=jobs)
        pages = write_pages(*args, previous=previous_evidence(previous))
        standalone = render_standalone(*args)

    cached, cstats = pending.result()
    (out / "anchors").mkdir(exist_ok=True)
    for name, src in sorted(cached.items()):
        link_or_copy(src, out / "anchors" / name)
    if fut is not None and sfut is not None:
        pages = fut.result()
        standalone = sfut.result()
    pages += write_standalone(out, standalone, crops)

    files = [(p, out / p) for p in pages]
    files += [(f"anchors/{n}", out / "anchors" / n) for n in cached]
    files += [(f"pdfs/{n}", out / "pdfs" / n) for n in pdf_names.values()]
    files += [(a, out / a) for a in ("assets/site.css", "assets/site.js", "evidence.jsonl")]
    with writing(out / "reportgen-bundle.zip"):
        n_entries = write_bundle(out / "reportgen-bundle.zip", files)
    return BuildStats(reports=len(v.ledger.reports), pages=len(pages), crops=len(cjobs),
                      crops_rendered=cstats.rendered, crops_cached=cstats.cached,
                      pdfs=len(pdf_names), bundle_entries=n_entries)
