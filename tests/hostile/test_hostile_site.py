"""Hostile tests of the site writer and publishing: crop inlining, the swap, the helper
process, --out checks, and the attack classes that held (XSS, kill -9 during a build)."""

from __future__ import annotations

import base64
import dataclasses
import html.parser
import io
import os
import zipfile
from pathlib import Path

import pytest

import sitekit
from reportgen.build import build_site
from reportgen.model import Edge, Entity, Section, Verification

# ---- a site with hostile text in every field the ledger lets a user write ----------------

TEXT_FIELDS = ("report_title", "summary", "section_title", "section_body", "statement",
               "note", "quote", "doc_title", "edge_from", "edge_to", "relation", "gap",
               "entity", "doc_file")


def hostile_verification(tmp: Path, text: str, fields: tuple[str, ...] = TEXT_FIELDS
                         ) -> Verification:
    """sitekit's Verification with `text` written into each of `fields` (the hand-made
    Verification skips the validator, so ids stay valid and every free-text field is hit)."""
    v = sitekit.make_verification(tmp, payload=False)

    def put(field: str, value: str) -> str:
        return f"{value} {text}" if field in fields else value

    led = v.ledger
    rep = led.reports[0]
    claims = {cid: dataclasses.replace(
        c, statement=put("statement", c.statement), note=put("note", c.note or "n"),
        **({"quote": put("quote", c.quote)} if c.kind == "fact" else {}))
        for cid, c in led.claims.items()}
    docs = dict(led.documents)
    d = docs["d1"]
    path = d.path
    if "doc_file" in fields and "/" not in text and "\0" not in text:
        path = d.path.with_name(f"report {text}.pdf")
        if not path.exists():
            path.write_bytes(d.path.read_bytes())
    docs["d1"] = dataclasses.replace(d, title=put("doc_title", d.title), path=path)
    sections = tuple(Section(put("section_title", s.title), put("section_body", s.body),
                             s.claims) for s in rep.sections)
    edges = (Edge("S1", put("edge_from", "Sungrow"), put("relation", "buys_from"),
                  put("edge_to", "Supplier A"), ("f1",), None, "2025-01-01", None, rep.loc),
             Edge("S1", put("edge_from", "Sungrow"), put("relation", "buys_cells_from"),
                  put("edge_to", "Supplier B"), (), put("gap", "The table names none."),
                  None, None, rep.loc))
    entities = (Entity(put("entity", "Sungrow"), "company", (put("entity", "Sungrow Power"),),
                       rep.loc),)
    rep = dataclasses.replace(rep, title=put("report_title", rep.title),
                              summary=put("summary", rep.summary), sections=sections,
                              edges=edges, entities=entities)
    led = dataclasses.replace(led, reports=(rep,), documents=docs, claims=claims)
    return dataclasses.replace(v, ledger=led)


def bundle_bytes(site: Path) -> list[bytes]:
    """Every entry of the site's bundle, uncompressed."""
    with zipfile.ZipFile(site / "reportgen-bundle.zip") as zf:
        return [zf.read(n) for n in zf.namelist()]


def html_pages(site: Path) -> list[Path]:
    return sorted(site.glob("*.html"))


# ---- 01: a crop marker in claim text never reads a file -----------------------------------

CANARY = b"CANARY-7f3a9c-not-for-the-site"


@pytest.fixture(scope="module")
def crop_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("crops")


@pytest.mark.parametrize("field", ["report_title", "statement", "note", "summary",
                                   "section_body", "section_title", "doc_title", "quote"])
def test_hardening_01_crop_marker_in_a_title_inlines_no_file(tmp_path, crop_cache, field):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(CANARY)
    marks = "".join(f"\ue000crop:{p}\ue001" for p in (
        str(secret), "../secret.txt", "anchors/../../secret.txt", "anchors/f1.png",
        "/proc/self/environ"))
    v = hostile_verification(tmp_path, marks, (field,))
    out = tmp_path / "site"
    build_site(v, out, None, 1, cache_dir=crop_cache)
    page = (out / "S1.standalone.html").read_bytes()
    b64 = base64.b64encode(CANARY)[:-4]
    for blob in [page] + bundle_bytes(out):
        assert CANARY not in blob and b64 not in blob
    # exactly the four crops of S1 (f1, f2, f3 and f3's second page), nothing from the text
    assert page.count(b"data:image/png;base64,") == 4
    assert "\ue000crop:anchors/f1.png\ue001".encode() in page  # the text stays text


@pytest.mark.parametrize("src, allowed", [
    ("anchors/secret.png", {"anchors/f1.png"}),  # not a crop of this build
    ("/tmp/x.png", {"/tmp/x.png"}),  # absolute, even when listed
    ("anchors/../secret.txt", {"anchors/../secret.txt"}),
    ("anchors/sub/../../secret.txt", {"anchors/sub/../../secret.txt"}),
    ("anchors/link.png", {"anchors/link.png"}),  # a symlink out of anchors/
    ("anchors/dir", {"anchors/dir"}),  # not a regular file
])
def test_hardening_01_filler_reads_only_this_builds_crops_under_anchors(tmp_path, src, allowed):
    from reportgen.build import read_anchor
    from reportgen.errors import BuildError

    (tmp_path / "secret.txt").write_bytes(CANARY)
    (tmp_path / "anchors").mkdir()
    (tmp_path / "anchors" / "f1.png").write_bytes(b"png")
    (tmp_path / "anchors" / "dir").mkdir()
    (tmp_path / "anchors" / "link.png").symlink_to(tmp_path / "secret.txt")
    assert read_anchor(tmp_path, "anchors/f1.png", {"anchors/f1.png"}) == b"png"
    with pytest.raises(BuildError, match="refusing to inline"):
        read_anchor(tmp_path, src, allowed)


def test_hardening_01_anchors_folder_that_is_a_symlink_is_refused(tmp_path):
    from reportgen.build import read_anchor
    from reportgen.errors import BuildError

    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "f1.png").write_bytes(CANARY)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "anchors").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(BuildError, match="symlink"):
        read_anchor(tmp_path / "site", "anchors/f1.png", {"anchors/f1.png"})
