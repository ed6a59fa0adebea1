"""Write a verified ledger as a static site, and swap it into place atomically.

`build_site()` writes every file of the site into a folder; `publish()` wraps it with a
lock, a temporary folder beside the output and an atomic swap (reportgen.swap), so a
failed or killed build leaves the previous site byte-identical and two builds never write
one folder at once.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reportgen.errors import BuildError
from reportgen.model import Calc, CalcResult, Fact, FactResult, Verification

if TYPE_CHECKING:
    from reportgen.render.inline import SlottedPage

from reportgen.swap import STATE_DIR, state_dir  # noqa: F401 (re-exported)


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


def _r(x: float) -> float:
    return round(float(x), 1)  # as `verify --json` prints it


def evidence_records(v: Verification, crops: dict[str, list[tuple[int, str]]]) -> Iterator[dict]:
    """One record per claim, sorted by report then id (the spec's fields)."""
    from reportgen.pdf.crops import SCALE, crop_scales

    claims = sorted(v.ledger.claims.values(), key=lambda c: (c.report, c.id))
    for c in claims:
        r = v.results.get(c.id)
        rec: dict = {"id": c.id, "report": c.report, "kind": c.kind, "statement": c.statement,
                     "confidence": c.confidence, "note": c.note,
                     "basis": list(getattr(c, "basis", ()))}
        if isinstance(c, Fact):
            a = r.anchor if isinstance(r, FactResult) else None
            sha = (r.sha256 if isinstance(r, FactResult) else None) or v.sha256.get(c.doc)
            cs = [src for _, src in crops.get(c.id, [])]
            rec.update({"doc": c.doc, "page": a.page if a else c.page,
                        "pageEnd": a.page_end if a else c.page, "quote": c.quote,
                        "bbox": [_r(x) for x in a.bbox] if a else None,
                        "anchorMethod": a.method if a else None, "sha256": sha,
                        "verified_at": v.verified_at, "crop": cs[0] if cs else None,
                        "crops": cs})
            scales = crop_scales(a) if a and cs else {}
            if scales:  # a crop too large at scale 2: pixels per point, one per crop
                rec["cropScale"] = [scales.get(p, SCALE) for p, _ in crops[c.id]]
            if c.values:
                rec["values"] = dict(c.values)
        elif isinstance(c, Calc):
            rec.update({"formula": c.formula, "result": c.result,
                        "computed": r.computed if isinstance(r, CalcResult) else None,
                        "tolerance": r.tolerance if isinstance(r, CalcResult) else c.tolerance})
        yield rec


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
    from reportgen.render.site import Renderer, SiteData

    key = str(out)
    r = _RENDERERS.get(key)
    if r is None:
        r = _RENDERERS[key] = Renderer(SiteData(v, pdf_names, crops), templates,
                                       bytecode_cache=bytecode)
    return r


def write_pages(v: Verification, out: Path, templates: Path | None, pdf_names: dict[str, str],
                crops: dict[str, list[tuple[int, str]]], bytecode: Path | None) -> list[str]:
    """Assets, evidence.jsonl, index.html and one page per report (no crop needed)."""
    from reportgen.render.site import asset_text

    rend = _renderer(v, out, templates, pdf_names, crops, bytecode)
    (out / "assets").mkdir(exist_ok=True)
    for asset in ("assets/site.css", "assets/site.js"):
        _write(out / asset, asset_text(rend.env, asset))
    with writing(out / "evidence.jsonl"), \
            open(out / "evidence.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for rec in evidence_records(v, crops):
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    pages = ["index.html"]
    _write(out / "index.html", rend.index_page())
    for rep in v.ledger.reports:
        _write(out / f"{rep.id}.html", rend.report_page(rep))
        pages.append(f"{rep.id}.html")
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
    nofollow = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        dfd = os.open(out / "anchors", nofollow | getattr(os, "O_DIRECTORY", 0))
        try:
            fd = os.open(name, nofollow, dir_fd=dfd)
        finally:
            os.close(dfd)
    except OSError as e:
        if e.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        raise BuildError(f"refusing to inline {src!r}: a symlink on its way could lead out "
                         "of the site's anchors folder") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
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


def die_with_parent(parent: int) -> None:
    """In a forked helper: end this process when `parent` ends, however it ends (kill -9
    too). A pool worker holds both ends of its task pipe, so it would wait for a task
    forever. Linux: PR_SET_PDEATHSIG; elsewhere a thread that watches the parent's pid."""
    import signal

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        ok = False
    if not ok:
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, name="die-with-parent", daemon=True).start()
    if os.getppid() != parent:  # the parent went before the signal was armed
        os._exit(1)


def _warm_helper(parent: int, templates: str | None, bytecode: str | None) -> None:
    from reportgen.render.site import warm_up

    die_with_parent(parent)
    try:
        warm_up(Path(templates) if templates else None, Path(bytecode) if bytecode else None)
    except Exception:  # only a head start: the same problem is reported by the build itself
        pass


def start_helper(out: Path, templates: Path | None = None):
    """A process that imports Jinja2 and markdown-it and compiles the templates while the
    caller verifies the ledger; build_site() then renders the HTML in it while the caller
    renders crops. None where fork is unavailable (build_site then works alone)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    bytecode = default_cache_dir(Path(out)).parent / "jinja"
    ex = ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("fork"),
        initializer=_warm_helper,
        initargs=(os.getpid(), os.fspath(templates) if templates else None,
                  os.fspath(bytecode)))
    ex.submit(int)  # the pool forks on the first submit: start warming up now
    return ex


class EarlyCrops:
    """An after_doc hook for verify(): right after a document's facts are checked, in the
    process that checked them, keeps the bytes it was checked against (pdf_store, which the
    site's pdfs/ link to) and renders its crops into the cache from the PDF still open
    there. Nothing after the check reads the document's path again, so a file replaced
    during the build is never published nor drawn. With --jobs N checking and rendering
    share the N processes. The count of crops rendered lives in shared memory, so forked
    workers add to it."""

    def __init__(self, cache_dir: Path) -> None:
        import multiprocessing

        self.cache_dir = cache_dir
        self._count = multiprocessing.get_context("fork").Value("q", 0)

    def __call__(self, ledger, doc_id: str, docs, results: dict[str, FactResult]) -> None:
        from reportgen.pdf.crops import crop_jobs, render_open

        path = ledger.documents[doc_id].path
        jobs = [j for cid, r in results.items() if r.anchor is not None
                for j in crop_jobs(cid, path, r.sha256 or "", r.anchor)]
        try:
            docs.save_copy(doc_id, pdf_store(self.cache_dir))
            n = render_open(docs.pdf(doc_id), jobs, self.cache_dir) if jobs else 0
        except OSError:  # an unwritable cache: the build re-reads the file, checking its hash
            return
        with self._count.get_lock():
            self._count.value += n

    @property
    def rendered(self) -> int:
        return int(self._count.value)


def build_site(v: Verification, out: Path, templates: Path | None = None, jobs: int = 1,
               cache_dir: Path | None = None, helper=None, prerendered: int = 0) -> BuildStats:
    """Write the whole site into `out` (created if needed). Refuses an unverified ledger.

    `helper` (from start_helper) renders the HTML while this process renders the crops;
    without it the crops go to worker processes while this one writes the HTML.
    `prerendered` crops were made during verification (EarlyCrops) and count as rendered."""
    from reportgen.bundle import write_bundle
    from reportgen.pdf.crops import crop_jobs, start_crops
    from reportgen.pdf.documents import copy_verified

    if not v.ok:
        raise BuildError("refusing to build: the ledger has misses, mismatches or invalid claims")
    out.mkdir(parents=True, exist_ok=True)
    cache = cache_dir if cache_dir is not None else default_cache_dir(out)
    bytecode = cache.parent / "jinja"

    # crops: one job per page a quote touches, rendered only when not cached
    cjobs = []
    crops: dict[str, list[tuple[int, str]]] = {}
    for cid, c in v.ledger.claims.items():
        r = v.results.get(cid)
        if not (isinstance(c, Fact) and isinstance(r, FactResult) and r.anchor is not None):
            continue
        doc = v.ledger.documents[c.doc]
        sha = r.sha256 or v.sha256.get(c.doc) or ""
        js = crop_jobs(cid, doc.path, sha, r.anchor)
        cjobs.extend(js)
        crops[cid] = [(j.page, f"anchors/{j.name}") for j in js]
    pdf_names = site_pdf_names(v)
    args = (v, out, templates, pdf_names, crops, bytecode)

    # the PDFs: the bytes the facts were checked against (saved by EarlyCrops), or the file
    # read again and refused unless it hashes the same
    (out / "pdfs").mkdir(exist_ok=True)
    for did, name in sorted(pdf_names.items()):
        d = v.ledger.documents[did]
        src = copy_verified(d.path, v.sha256.get(did), pdf_store(cache), d.sha256)
        link_or_copy(src, out / "pdfs" / name)

    fut = sfut = None
    if helper is not None:
        try:
            fut = helper.submit(write_pages, *args)
            sfut = helper.submit(render_standalone, *args)
        except Exception:  # a broken helper: do it all here
            fut = sfut = None
    if fut is not None and sfut is not None:
        pending = start_crops(cjobs, cache, workers=jobs, inline=jobs == 1)
    else:  # crops in worker processes while this one writes the pages
        pending = start_crops(cjobs, cache, workers=jobs)
        pages = write_pages(*args)
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
                      crops_rendered=cstats.rendered + prerendered,
                      crops_cached=cstats.cached - prerendered,
                      pdfs=len(pdf_names), bundle_entries=n_entries)


# ---- publishing: lock, temporary folder, swap ---------------------------------------


def _is_site(p: Path) -> bool:
    return (p / "index.html").is_file() and (p / "evidence.jsonl").is_file()


def check_out(out: Path) -> None:
    """Refuse an --out that a build must not replace, before anything is created for it:
    a filesystem root, a file, or a folder with files that is not a reportgen site."""
    full = Path(os.path.abspath(out))
    if full.parent == full:
        raise BuildError(f"refusing --out {out}: the site folder is replaced as a whole, "
                         "so it cannot be a filesystem root; choose a new folder", file=out)
    if full.exists() and not full.is_dir():
        raise BuildError(f"--out {out} is a file, not a folder", file=out)
    if full.is_dir() and any(full.iterdir()) and not _is_site(full):
        raise BuildError(f"refusing to replace {out}: it is not a reportgen site "
                         "(no index.html and evidence.jsonl); choose another --out", file=out)


def publish(v: Verification, out: Path, templates: Path | None = None, jobs: int = 1,
            cache_dir: Path | None = None, helper=None,
            on_swapped: Callable[[Path], None] | None = None,
            prerendered: int = 0) -> BuildStats:
    """build_site() into this output's temporary folder beside it, then swap it into place
    in one step (see reportgen.swap). A swap a killed build left half done is undone first.

    The lock (`.reportgen/<name>.lock` beside `out`, held with flock) keeps a second build
    of the same output from running at once; it fails at once with BuildError.
    `on_swapped(out)` runs after the swap, still under the lock (the no-op fingerprint is
    recorded there, so it can never describe another build's output)."""
    out = Path(os.path.realpath(out) if os.path.islink(out) else os.path.abspath(out))
    try:
        return _publish(v, out, templates, jobs, cache_dir, helper, on_swapped, prerendered)
    except OSError as e:  # an unwritable or vanished folder: the previous site is untouched
        hint = _WRITE_HINTS.get(e.errno or 0, "choose an --out in a folder you can write to")
        raise BuildError(f"cannot write {_written(e, out)} ({e.strerror or e}); the site was "
                         f"not written: {hint}", file=out) from None


_WRITE_HINTS = {
    errno.EFBIG: "raise the file size limit (ulimit -f) or write to a filesystem that takes "
                 "files this large",
    errno.ENOSPC: "free some space or choose an --out on another filesystem",
    errno.EDQUOT: "free some space or choose an --out on another filesystem",
}


def _written(e: OSError, out: Path) -> str:
    """The output file an OSError is about, as it would stand in the site (not the
    temporary folder it was being built in, nor the source of a copy that failed to write)."""
    from reportgen.errors import display_path
    from reportgen.swap import work_dir

    where = e.filename
    if e.filename2 is not None and e.errno in _WRITE_HINTS:
        where = e.filename2  # shutil's copies give (source, destination)
    if where is None:
        return display_path(out)
    try:
        rel = Path(os.fsdecode(where)).relative_to(work_dir(out) / "new")
    except ValueError:
        return display_path(os.fsdecode(where))
    return display_path(out / rel)


def _publish(v: Verification, out: Path, templates: Path | None, jobs: int,
             cache_dir: Path | None, helper, on_swapped: Callable[[Path], None] | None,
             prerendered: int) -> BuildStats:
    from reportgen import fingerprint
    from reportgen.swap import locked, recover_locked, swap, work_dir

    check_out(out)
    with locked(out):
        recover_locked(out)  # a swap a killed build left half done; its leftovers
        check_out(out)  # what recovery put back is checked too
        wd = work_dir(out)
        new = wd / "new"
        wd.mkdir(parents=True)
        try:
            stats = build_site(v, new, templates, jobs,
                               cache_dir if cache_dir is not None else default_cache_dir(out),
                               helper=helper, prerendered=prerendered)
            fingerprint.forget(out)  # from here on the recorded output is gone
            swap(new, out)
            if on_swapped is not None:
                on_swapped(out)
        finally:
            shutil.rmtree(wd, ignore_errors=True)
        return stats
