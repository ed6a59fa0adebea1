"""Crop geometry, rendering and the crop cache."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pymupdf
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import sitekit  # noqa: E402

from reportgen.model import Anchor  # noqa: E402
from reportgen.pdf import crops  # noqa: E402


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_clip_pads_20pt_vertically_10pt_sideways():
    assert crops.crop_clip((100, 200, 300, 212), (0, 0, 595, 842)) == (90, 180, 310, 232)


def test_clip_stops_at_the_page_edge():
    assert crops.crop_clip((3, 5, 590, 840), (0, 0, 595, 842)) == (0, 0, 595, 842)
    assert crops.crop_clip((100, 830, 200, 841), (0, 0, 595, 842)) == (90, 810, 210, 842)


def test_crop_pixels_are_the_padded_box_at_scale_2(tmp_path):
    pdf = sitekit.make_pdf(tmp_path / "a.pdf")
    box = sitekit.line_rect(pdf, 1, sitekit.LINES_P1[2])
    with pymupdf.open(pdf) as doc:
        data = crops.render_crop(doc[0], box, [box])
    w, h = png_size(data)
    x0, y0, x1, y1 = crops.crop_clip(box, (0, 0, 595, 842))
    assert abs(w - 2 * (x1 - x0)) <= 2 and abs(h - 2 * (y1 - y0)) <= 2
    assert abs(h - (2 * (box[3] - box[1]) + 80)) <= 2  # 40 px above and below
    assert abs(w - (2 * (box[2] - box[0]) + 40)) <= 2  # 20 px at each side


def _pixels(data: bytes) -> pymupdf.Pixmap:
    return pymupdf.Pixmap(data)


def test_matched_line_is_highlighted_and_padding_is_not(tmp_path):
    pdf = sitekit.make_pdf(tmp_path / "a.pdf")
    box = sitekit.line_rect(pdf, 1, sitekit.LINES_P1[2])
    with pymupdf.open(pdf) as doc:
        pix = _pixels(crops.render_crop(doc[0], box, [box]))
    hl = tuple((crops.HIGHLIGHT >> s) & 255 for s in (16, 8, 0))
    # inside the line, left edge (before the first glyph is painted): the highlight colour
    assert pix.pixel(21, 40 + 2) == hl
    # the padding above the line stays white
    assert pix.pixel(5, 5) == (255, 255, 255)


def test_page_edge_clipping_renders_only_inside_the_page(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page(width=200, height=100)
    page.insert_text((2, 10), "edge text", fontsize=9)
    box = tuple(page.search_for("edge text")[0])
    data = crops.render_crop(page, box, [box])
    w, h = png_size(data)
    x0, y0, x1, y1 = crops.crop_clip(box, (0, 0, 200, 100))
    assert x0 == 0 and y0 == 0
    assert (w, h) == (round(2 * x1), round(2 * y1)) or abs(w - 2 * x1) <= 1


def test_rotated_page_crop_uses_displayed_coordinates(tmp_path):
    """On a /Rotate 90 page a horizontal line of the content stream displays vertically:
    the crop of its displayed box is tall and holds ink (not a blank strip)."""
    pdf = sitekit.make_pdf(tmp_path / "a.pdf")
    box = sitekit.line_rect(pdf, 2, "capacity was 42 GWh.")
    assert box[3] - box[1] > box[2] - box[0]  # displayed: taller than wide
    with pymupdf.open(pdf) as doc:
        page = doc[1]
        assert page.rotation == 90
        pix = _pixels(crops.render_crop(page, box, [box]))
    assert pix.height > pix.width
    dark = sum(1 for y in range(0, pix.height, 2) for x in range(0, pix.width, 2)
               if sum(pix.pixel(x, y)) < 200)
    assert dark > 20, "the crop shows no text: the clip went to the wrong place"


def test_two_page_quote_gets_one_crop_per_page(tmp_path):
    pdf = sitekit.make_pdf(tmp_path / "a.pdf")
    ra = sitekit.line_rect(pdf, 3, sitekit.LINES_P3[1])
    rb = sitekit.line_rect(pdf, 4, sitekit.LINES_P4[0])
    a = Anchor(3, 4, ra, "exact", ((3, ra), (4, rb)))
    jobs = crops.crop_jobs("x-1", pdf, "abc", a)
    assert [(j.name, j.page) for j in jobs] == [("x-1.png", 3), ("x-1~p4.png", 4)]
    assert jobs[0].box == ra and jobs[1].box == rb


def test_box_is_union_of_lines_each_line_highlighted(tmp_path):
    r1, r2 = (72.0, 100.0, 300.0, 112.0), (72.0, 118.0, 200.0, 130.0)
    a = Anchor(1, 1, crops.union([r1, r2]), "exact", ((1, r1), (1, r2)))
    (job,) = crops.crop_jobs("y", tmp_path / "a.pdf", "abc", a)
    assert job.box == (72.0, 100.0, 300.0, 130.0) and job.rects == (r1, r2)


def test_anchor_without_rects_uses_its_bbox(tmp_path):
    a = Anchor(2, 2, (1.0, 2.0, 3.0, 4.0), "exact")
    (job,) = crops.crop_jobs("z", tmp_path / "a.pdf", "abc", a)
    assert job.page == 2 and job.rects == ((1.0, 2.0, 3.0, 4.0),)


def test_png_bytes_are_deterministic(tmp_path):
    pdf = sitekit.make_pdf(tmp_path / "a.pdf")
    box = sitekit.line_rect(pdf, 1, sitekit.LINES_P1[1])
    with pymupdf.open(pdf) as d1, pymupdf.open(pdf) as d2:
        assert crops.render_crop(d1[0], box, [box]) == crops.render_crop(d2[0], box, [box])



def test_crops_of_one_page_share_its_display_list(tmp_path):
    pdf = sitekit.make_pdf(tmp_path / "a.pdf")
    boxes = [sitekit.line_rect(pdf, 1, line) for line in sitekit.LINES_P1[:2]]
    with pymupdf.open(pdf) as doc:
        page = doc[0]
        dl = page.get_displaylist()
        shared = [crops.render_crop(page, b, [b], dl) for b in boxes]
        assert shared == [crops.render_crop(page, b, [b]) for b in boxes]
        assert shared[0] != shared[1]


def test_crops_drawn_from_the_kept_copy_not_the_path(tmp_path):
    pdf = sitekit.make_pdf(tmp_path / "a.pdf")
    keep = tmp_path / "kept.pdf"
    keep.write_bytes(pdf.read_bytes())
    sha = sitekit.sha256(pdf)
    r = sitekit.line_rect(pdf, 1, sitekit.LINES_P1[0])
    jobs = crops.crop_jobs("k", pdf, sha, Anchor(1, 1, r, "exact", ((1, r),)), keep)
    pdf.write_bytes(b"%PDF-1.4 replaced while the build ran")
    cached, stats = crops.ensure_crops(jobs, tmp_path / "cache")
    assert stats.rendered == 1 and cached["k.png"].read_bytes().startswith(b"\x89PNG")

def _jobs(tmp_path):
    pdf = sitekit.make_pdf(tmp_path / "a.pdf")
    sha = sitekit.sha256(pdf)
    out = []
    for i, line in enumerate(sitekit.LINES_P1):
        r = sitekit.line_rect(pdf, 1, line)
        out += crops.crop_jobs(f"c{i}", pdf, sha, Anchor(1, 1, r, "exact", ((1, r),)))
    return out


def test_cache_second_run_renders_nothing(tmp_path):
    jobs = _jobs(tmp_path)
    cache = tmp_path / "cache"
    paths, s1 = crops.ensure_crops(jobs, cache)
    assert (s1.rendered, s1.cached) == (3, 0)
    first = {n: p.read_bytes() for n, p in paths.items()}
    paths2, s2 = crops.ensure_crops(jobs, cache)
    assert (s2.rendered, s2.cached) == (0, 3)
    assert {n: p.read_bytes() for n, p in paths2.items()} == first


def test_cache_key_changes_with_pdf_hash_and_box(tmp_path):
    (j,) = _jobs(tmp_path)[:1]
    import dataclasses
    assert j.key() != dataclasses.replace(j, sha256="0" * 64).key()
    assert j.key() != dataclasses.replace(j, box=(0, 0, 1, 1)).key()
    assert j.key() != dataclasses.replace(j, page=2).key()
    assert j.key() == dataclasses.replace(j, name="other.png").key()


def test_workers_give_the_same_bytes(tmp_path):
    jobs = _jobs(tmp_path)
    p1, s1 = crops.ensure_crops(jobs, tmp_path / "c1", workers=1)
    p2, s2 = crops.ensure_crops(jobs, tmp_path / "c2", workers=2)
    assert s2.rendered == 3
    assert {n: p.read_bytes() for n, p in p1.items()} == {n: p.read_bytes() for n, p in p2.items()}


def test_crops_are_grouped_by_document_largest_first(tmp_path):
    def item(pdf: str, page: int) -> tuple:
        return (crops.CropJob(f"{pdf}{page}.png", pdf, "0" * 64, page, (0, 0, 1, 1), ()), "k")

    items = [item("a", 1), item("b", 1), item("b", 2), item("c", 1), item("c", 5)]
    groups = crops.by_document(items)
    assert [[j.name for j, _ in g] for g in groups] == [["b1.png", "b2.png"],
                                                        ["c1.png", "c5.png"], ["a1.png"]]
    many = [item("d", p) for p in range(1, 21)]
    runs = crops.by_document(many, workers=2)  # one PDF still feeds two workers
    assert [[j.page for j, _ in g] for g in runs] == [list(range(1, 9)), list(range(9, 17)),
                                                      list(range(17, 21))]


def test_png_encoder_round_trips(tmp_path):
    pdf = sitekit.make_pdf(tmp_path / "a.pdf")
    box = sitekit.line_rect(pdf, 1, sitekit.LINES_P1[0])
    with pymupdf.open(pdf) as doc:
        page = doc[0]
        pix = page.get_pixmap(matrix=pymupdf.Matrix(2, 2), clip=pymupdf.Rect(box), alpha=False)
        back = pymupdf.Pixmap(crops.encode_png(pix))
    assert (back.width, back.height, back.n) == (pix.width, pix.height, 3)
    assert back.samples == pix.samples
