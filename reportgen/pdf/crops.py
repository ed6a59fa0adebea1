"""Crops: the matched region of a page rendered at scale 2 with each matched line highlighted.

Only the clip is rendered (never the whole page), padded 20 pt above and below and 10 pt
at the sides (40 px / 20 px at scale 2) and clipped at the page edge. Boxes are in the
coordinates of the page as displayed (after /Rotate); PyMuPDF 1.28's `get_pixmap(clip=)`
takes displayed coordinates too (tests/test_crops.py::test_rotated_page proves it), so
the clip needs no derotation.

The highlight is a multiply-style translucent fill done in MuPDF itself: the line's
pixels are copied into a small pixmap, tinted (white -> highlight colour, black stays
black) and copied back, so no Pillow round trip is needed and the bytes are
deterministic for a given PyMuPDF version.

A crop is never larger than MAX_CROP_PIXELS (40 megapixels, about 120 MB of RGB while it is
drawn) nor wider or taller than MAX_CROP_SIDE: a larger region (a quote spread over a
14,400 pt page took 11,568 x 27,663 px and 2.9 GB) is drawn at the smaller scale
`crop_scale(box)` gives, which the evidence record states as `cropScale`.

Crops are cached under a key of (PDF SHA-256, page, box, rects, renderer version), so a
rebuild with nothing changed renders nothing. The key is an HMAC under the user's key
(`reportgen.cachekey`): a crop a workspace brings in its `.reportgen/` is never found.
The SHA-256 is the one of the bytes the facts were checked against: crops are drawn from
a file whose bytes hash to it (`documents.open_verified`: the copy kept while checking,
see site/write.py's KeepChecked), never from whatever the path holds by then.
"""

from __future__ import annotations

import math
import os
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reportgen.cachekey import keyed
from reportgen.errors import DocumentError
from reportgen.model import Anchor, BBox, union
from reportgen.pdf.files import write_atomic

SCALE = 2.0
PAD_X = 10.0  # points at each side (20 px at scale 2)
PAD_Y = 20.0  # points above and below (40 px at scale 2)
HIGHLIGHT = 0xFFE066  # sRGB of the highlighter; black text stays black
MAX_CROP_PIXELS = 40_000_000  # past this a crop is drawn at a smaller scale
MAX_CROP_SIDE = 16_384  # px; browsers refuse to decode much larger images
# crops-3: capped size, and drawn only from verified bytes (an older cache may hold crops
# drawn from a file replaced after it was checked).
RENDERER_VERSION = "crops-3"  # bump when the pixels or the encoding change


@dataclass(frozen=True)
class CropJob:
    """One PNG to make: a fact's matched region on one page."""

    name: str  # file name inside anchors/, e.g. "s2-4.png" or "s2-4-p37.png"
    pdf: str  # absolute path of the PDF
    sha256: str  # the PDF's actual SHA-256 (part of the cache key)
    page: int  # 1-based page index
    box: BBox  # union of the match on this page, displayed coordinates
    rects: tuple[BBox, ...]  # one per matched line on this page
    source: str = ""  # the file to draw from when not `pdf` (the copy kept while checking)

    def key(self) -> str:
        import pymupdf  # the version is part of the key: another MuPDF may rasterise differently

        r = ";".join(_fmt_box(b) for b in self.rects)
        raw = "|".join((RENDERER_VERSION, pymupdf.VersionBind, self.sha256, str(self.page),
                        _fmt_box(self.box), r, f"{SCALE}:{PAD_X}:{PAD_Y}:{HIGHLIGHT:06x}",
                        f"{MAX_CROP_PIXELS}:{MAX_CROP_SIDE}"))
        return keyed("crop", raw)  # a crop a workspace brings is never found


def _fmt_box(b: Sequence[float]) -> str:
    return ",".join(f"{float(x):.3f}" for x in b)


def crop_names(fact_id: str, anchor: Anchor) -> dict[int, str]:
    """anchors/<id>.png for the first page, anchors/<id>~p<N>.png for each continuation
    (`~` is outside the id alphabet, so no claim id can collide with it)."""
    pages = sorted(_page_rects(anchor))
    return {p: (f"{fact_id}.png" if i == 0 else f"{fact_id}~p{p}.png") for i, p in enumerate(pages)}


def _page_rects(anchor: Anchor) -> dict[int, list[BBox]]:
    out: dict[int, list[BBox]] = {}
    for pno, box in anchor.rects:
        out.setdefault(pno, []).append(tuple(box))  # type: ignore[arg-type]
    if not out:  # an anchor without per-line rects: highlight its box
        out[anchor.page] = [anchor.bbox]
    return out


def crop_jobs(fact_id: str, pdf: Path | str, sha256: str, anchor: Anchor,
              source: Path | str | None = None) -> list[CropJob]:
    """One job per page the quote touches, first page first; drawn from `source` (a copy
    of the checked bytes) when given, else from `pdf`."""
    rects = _page_rects(anchor)
    names = crop_names(fact_id, anchor)
    src = os.fspath(source) if source is not None else ""
    jobs = []
    for pno in sorted(rects):
        rs = tuple(rects[pno])
        jobs.append(CropJob(names[pno], os.fspath(pdf), sha256, pno, union(rs), rs, src))
    return jobs


def crop_clip(box: BBox, page_rect: BBox) -> BBox:
    """The region to render: the box padded (10 pt sides, 20 pt above and below), clipped
    at the page edge. Pure, so geometry is testable without a PDF."""
    px0, py0, px1, py1 = page_rect
    return (max(px0, box[0] - PAD_X), max(py0, box[1] - PAD_Y),
            min(px1, box[2] + PAD_X), min(py1, box[3] + PAD_Y))


def crop_scale(box: BBox) -> float:
    """Pixels per point for the crop of `box`: SCALE, or less (floored to 1/1000) so the
    padded box fits MAX_CROP_PIXELS and MAX_CROP_SIDE. Pure, from the box alone, so the
    evidence record can state it without the PDF; the clip at the page edge is never
    larger than the padded box, so the crop never exceeds the caps."""
    w = max(box[2] - box[0], 0.0) + 2 * PAD_X
    h = max(box[3] - box[1], 0.0) + 2 * PAD_Y
    s = min(SCALE, math.sqrt(MAX_CROP_PIXELS / (w * h)), (MAX_CROP_SIDE - 2) / max(w, h))
    return SCALE if s >= SCALE else math.floor(s * 1000) / 1000


def crop_scales(anchor: Anchor) -> dict[int, float]:
    """page -> scale of that page's crop, for the crops drawn below SCALE only."""
    out = {}
    for pno, rects in _page_rects(anchor).items():
        s = crop_scale(union(rects))
        if s < SCALE:
            out[pno] = s
    return out


def render_crop(page, box: BBox, rects: Sequence[BBox], display_list=None) -> bytes:
    """PNG bytes of the padded clip around `box` on a PyMuPDF page, lines highlighted,
    at crop_scale(box) pixels per point. `display_list` (the page's, from
    page.get_displaylist()) spares a page with several crops reading its content again:
    Page.get_pixmap makes one per call and draws from it, so the pixels are the same."""
    import pymupdf

    pr = page.rect
    clip = pymupdf.Rect(crop_clip(box, (pr.x0, pr.y0, pr.x1, pr.y1)))
    s = crop_scale(box)
    mat = pymupdf.Matrix(s, s)
    dl = display_list if display_list is not None else page.get_displaylist()
    pix = dl.get_pixmap(matrix=mat, colorspace=pymupdf.csRGB, alpha=False, clip=clip)
    if pix.colorspace.n != 3:
        pix = pymupdf.Pixmap(pymupdf.csRGB, pix)
    full = pix.irect
    for r in rects:
        ir = (pymupdf.Rect(r) * mat).irect & full
        if ir.is_empty:
            continue
        sub = pymupdf.Pixmap(pymupdf.csRGB, ir, False)
        sub.copy(pix, ir)
        sub.tint_with(0x000000, HIGHLIGHT)
        pix.copy(sub, ir)
    return encode_png(pix)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(pix) -> bytes:
    """An RGB pixmap as PNG: IHDR, one IDAT (zlib level 3, filter 0), IEND.

    Written here because MuPDF's encoder (`pix.tobytes("png")`) deflates at level 6 and
    Pillow's is slower still: level 3 is 2.3x faster for the same size on crops of text
    (bench/site_bench.py). No time or text chunks, so the bytes depend only on the pixels."""
    w, h, stride = pix.width, pix.height, pix.stride
    if pix.n != 3 or pix.alpha:
        raise ValueError("encode_png takes RGB pixmaps without alpha")
    mv = memoryview(pix.samples_mv) if hasattr(pix, "samples_mv") else memoryview(pix.samples)
    z = zlib.compressobj(3)
    parts = []
    for top in range(0, h, _ROWS):  # a band at a time: no second copy of a large pixmap
        # b"\x00".join over ["", row, row, ...]: each row after its filter byte, with no
        # row copied but once (the slices are views)
        rows = b"\x00".join([b"", *(mv[i * stride:i * stride + w * 3]
                                    for i in range(top, min(h, top + _ROWS)))])
        parts.append(z.compress(rows))
    parts.append(z.flush())
    return (b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", b"".join(parts)) + _chunk(b"IEND", b""))


_ROWS = 256  # rows compressed at a time by encode_png


# ---- cache and workers ----------------------------------------------------------------


def _write_atomic(path: Path, data: bytes) -> None:
    write_atomic(path.parent, (data,), lambda: path, ".png")


def _render_group(args: tuple[str, list[tuple[CropJob, str]]]) -> int:
    """Render jobs (sorted by pdf, page) into the cache; each PDF opened once, and only
    when its bytes still hash to the job's SHA-256 (DocumentError otherwise); each page's
    content read once however many crops it has. -> count."""
    from reportgen.pdf.documents import open_verified

    cache, items = args
    n = 0
    doc = None
    doc_key = None
    page_key = dl = None
    try:
        for job, key in items:
            if (job.pdf, job.sha256) != doc_key:
                if doc is not None:
                    doc.close()
                    doc = None
                doc = open_verified(Path(job.source or job.pdf), job.sha256)
                doc_key = (job.pdf, job.sha256)
            if (doc_key, job.page) != page_key:
                dl = None
                page_key = (doc_key, job.page)
            png, dl = _render_job(doc, job, dl)
            _write_atomic(Path(cache) / f"{key}.png", png)
            n += 1
    finally:
        dl = None
        if doc is not None:
            doc.close()
    return n


def _render_job(doc, job: CropJob, dl=None):
    """render_crop for a job -> (PNG, the page's display list for the next crop of that
    page); MuPDF's failures become a DocumentError naming the page."""
    try:
        page = doc[job.page - 1]
        if dl is None:
            dl = page.get_displaylist()
        return render_crop(page, job.box, job.rects, dl), dl
    except Exception as e:
        from reportgen.pdf.documents import is_limit, mupdf_message

        why = ("the page is beyond what MuPDF will draw: quote the fact from an ordinary "
               "copy of the document") if is_limit(e) else \
            "the file is damaged: download or export it again"
        raise DocumentError(f"p.{job.page} cannot be drawn for the crop {job.name} "
                            f"({mupdf_message(e)}); {why}", job.pdf) from e


def by_document(items: list, workers: int = 1) -> list[list]:
    """(job, key) items (sorted by pdf, page) as tasks for whichever worker is free: one
    per PDF (so a PDF is opened once), a PDF with many crops cut into runs of pages (so a
    ledger of one PDF still keeps every worker busy), the largest first, so the workers
    finish together (equal shares made in advance did not)."""
    size = max(INLINE_BELOW, -(-len(items) // (4 * max(1, workers))))
    groups: dict[str, list] = {}
    for item in items:
        groups.setdefault(item[0].pdf, []).append(item)
    tasks = [g[i:i + size] for g in groups.values() for i in range(0, len(g), size)]
    return sorted(tasks, key=lambda t: (-len(t), t[0][0].pdf, t[0][0].page))


@dataclass(frozen=True)
class CropStats:
    rendered: int
    cached: int


class PendingCrops:
    """Crops being rendered in worker processes while the caller writes the HTML."""

    def __init__(self, paths: dict[str, Path], n_jobs: int, futures=(), executor=None,
                 rendered: int = 0) -> None:
        self.paths, self._n, self._futures, self._ex, self._rendered = \
            paths, n_jobs, list(futures), executor, rendered

    def result(self) -> tuple[dict[str, Path], CropStats]:
        try:
            self._rendered += sum(f.result() for f in self._futures)
        finally:
            if self._ex is not None:
                self._ex.shutdown()
                self._ex = None
            self._futures = []
        return self.paths, CropStats(rendered=self._rendered, cached=self._n - self._rendered)


INLINE_BELOW = 8  # fewer crops than this render in-process: a worker costs more than it saves


def start_crops(jobs: Sequence[CropJob], cache_dir: Path, workers: int = 1,
                inline: bool = False) -> PendingCrops:
    """Start making every job's PNG in the cache; only missing crops are rendered, in
    `workers` processes (in this process when `inline`, or when there are only a few)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    todo: dict[str, CropJob] = {}
    for job in jobs:
        key = job.key()
        p = cache_dir / f"{key}.png"
        paths[job.name] = p
        if key not in todo and not p.exists():
            todo[key] = job
    items = sorted(((j, k) for k, j in todo.items()), key=lambda t: (t[0].pdf, t[0].page, t[0].name))
    if not items:
        return PendingCrops(paths, len(jobs))
    if workers == 1 and (inline or len(items) < INLINE_BELOW):
        return PendingCrops(paths, len(jobs),
                            rendered=_render_group((os.fspath(cache_dir), items)))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    tasks = by_document(items, workers)
    n = max(1, min(workers, len(tasks)))
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    ex = ProcessPoolExecutor(max_workers=n, mp_context=ctx)
    try:
        futures = [ex.submit(_render_group, (os.fspath(cache_dir), g))
                   for g in tasks]
    except BaseException:
        ex.shutdown(cancel_futures=True)
        raise
    return PendingCrops(paths, len(jobs), futures, ex)


def ensure_crops(jobs: Sequence[CropJob], cache_dir: Path, workers: int = 1
                 ) -> tuple[dict[str, Path], CropStats]:
    """Make sure every job's PNG is in the cache; -> {job.name: cached file}, stats."""
    return start_crops(jobs, cache_dir, workers).result()
