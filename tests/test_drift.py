"""`reportgen drift`: a sample PDF regenerated with a page inserted before page 30 and one
figure restated gives holds before it, moved after it, changed for the restated figure;
`--write` keeps every comment, updates pages and the pin, never a quote, and verifies."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pymupdf
import pytest
from click.testing import CliRunner

from reportgen.cli import main

REPO = Path(__file__).resolve().parent.parent


def regenerate(src: Path, dst: Path, restate: bool = True) -> Path:
    """300274.pdf with a page inserted before page 30 and, on old p.36, 4.50% restated 4.60%."""
    doc = pymupdf.open(src)
    if restate:
        page = doc[35]
        row = page.search_for("4,010,035,531.92")[0]
        r = next(h for h in page.search_for("4.50%") if abs(h.y0 - row.y0) < 3)
        page.add_redact_annot(r, fill=(1, 1, 1))
        page.apply_redactions(images=0)
        page.insert_text((r.x0, r.y1 - 2), "4.60%", fontsize=r.height * 0.8, fontname="helv")
    p = doc.new_page(pno=29, width=doc[0].rect.width, height=doc[0].rect.height)
    p.insert_text((72, 100), "Inserted page: a correction notice.", fontsize=11)
    doc.save(dst, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return dst


@pytest.fixture(scope="module")
def editions(tmp_path_factory) -> dict[bool, Path]:
    """The regenerated 300274.pdf, restated (True) and only moved (False): made once,
    copied into each test's ledger."""
    tmp = tmp_path_factory.mktemp("editions")
    src = REPO / "samples" / "pdfs" / "300274.pdf"
    return {restate: regenerate(src, tmp / f"{restate}.pdf", restate)
            for restate in (True, False)}


def new_edition(editions: dict[bool, Path], ledger: Path, restate: bool = True) -> Path:
    dst = ledger / "samples" / "300274-v2.pdf"
    shutil.copyfile(editions[restate], dst)
    return dst


@pytest.fixture()
def ledger(tmp_path):
    shutil.copytree(REPO / "claims", tmp_path / "claims")
    shutil.copytree(REPO / "samples" / "pdfs", tmp_path / "samples" / "pdfs")
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def lines_of(output: str) -> dict[str, str]:
    return {ln.split(" ", 1)[0]: ln for ln in output.splitlines() if ln}


def test_holds_moved_changed_and_what_rests_on_them(ledger, editions):
    new = new_edition(editions, ledger)
    r = run("drift", "300274", str(new), str(ledger / "claims"))
    assert r.exit_code == 1, r.output  # a claim changed
    got = lines_of(r.output)
    assert got["s2-1"] == "s2-1 holds p.28"
    assert got["s3-11"] == "s3-11 holds p.28"
    assert got["s2-2"] == "s2-2 moved p.35 -> p.36"
    assert got["s2-4"] == "s2-4 moved p.36 -> p.37"
    assert re.match(r"s2-10 changed p\.36: closest text on p\.37 \(similarity 0\.\d\d\): "
                    r"\"[^\"]*Algihaz Contracting 4,010,035,531\.92.*\" — first difference at "
                    r"char \d+: ", got["s2-10"]), got["s2-10"]
    assert got["s2-11"] == "s2-11 calc ok"  # recomputed from the moved facts
    assert got["s3-12"].startswith("s3-12 inference invalid: its basis failed: s3-10")
    assert got["DRIFT"] == ("DRIFT 300274: facts=17 holds=2 moved=13 changed=2 above=5 "
                            "failing=1")
    # nothing written without --write
    assert (ledger / "claims/S2.yaml").read_bytes() == (REPO / "claims/S2.yaml").read_bytes()


def comments(path: Path) -> list[str]:
    return [ln for ln in path.read_text(encoding="utf-8").splitlines()
            if ln.lstrip().startswith("#") or " # " in ln]


def test_write_keeps_comments_updates_pages_and_pin_and_verifies(ledger, editions):
    new = new_edition(editions, ledger)
    files = ["S1.yaml", "S2.yaml", "S3.yaml", "documents.yaml"]
    before = {f: (ledger / "claims" / f).read_text(encoding="utf-8") for f in files}
    r = run("drift", "300274", str(new), str(ledger / "claims"), "--write")
    assert r.exit_code == 1
    after = {f: (ledger / "claims" / f).read_text(encoding="utf-8") for f in files}
    for f in files:
        assert comments(ledger / "claims" / f) == [
            ln for ln in before[f].splitlines() if ln.lstrip().startswith("#") or " # " in ln]
    assert after["S1.yaml"] == before["S1.yaml"]
    # only page lines changed in the reports, quotes never
    for f in ("S2.yaml", "S3.yaml"):
        old, now = before[f].splitlines(), after[f].splitlines()
        assert len(old) == len(now)
        diff = [(a, b) for a, b in zip(old, now) if a != b]
        assert diff and all(a.strip().startswith("page:") and b.strip().startswith("page:")
                            for a, b in diff), diff
    import hashlib

    digest = hashlib.sha256(new.read_bytes()).hexdigest()
    assert f"sha256: {digest}" in after["documents.yaml"]
    assert "file: ../samples/300274-v2.pdf" in after["documents.yaml"]
    assert after["documents.yaml"].count("\n") == before["documents.yaml"].count("\n")
    v = run("verify", str(ledger / "claims"))
    misses = sorted(ln.split()[1] for ln in v.output.splitlines() if ln.startswith("MISS"))
    assert misses == ["s2-10", "s3-10"]  # the restated figure, for the analyst to settle


def test_a_moved_only_edition_writes_a_ledger_that_verifies(ledger, editions):
    new = new_edition(editions, ledger, restate=False)
    r = run("drift", "300274", str(new), str(ledger / "claims"), "--write")
    assert r.exit_code == 0, r.output
    assert " changed p." not in r.output and "changed=0" in r.output
    v = run("verify", str(ledger / "claims"))
    assert v.exit_code == 0, v.output
    assert "TOTAL: facts=29 hits=29 misses=0" in v.output


def test_bad_input_is_a_message(ledger, tmp_path):
    r = run("drift", "nope", str(ledger / "samples/pdfs/300274.pdf"), str(ledger / "claims"))
    assert r.exit_code == 1 and "no document 'nope'" in r.output
    junk = tmp_path / "junk.pdf"
    junk.write_text("<html>not a pdf</html>")
    r = run("drift", "300274", str(junk), str(ledger / "claims"))
    assert r.exit_code == 1 and "not a PDF" in r.output and "Traceback" not in r.output
    r = run("drift", "300274")
    assert r.exit_code == 2
