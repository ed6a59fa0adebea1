"""What the site adds around the report pages (reportgen.render.extras) and its files:
the formula with its numbers, values, p.N-M chips, the search index, claims.csv, the
pages by document and the changes page."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from reportgen.render.extras import (changes, claims_csv, number_text, read_evidence,
                                     search_json)

sys.path.insert(0, str(Path(__file__).parent))
import sitekit  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def sample(tmp_path_factory, sample_site):
    """A copy of the sample ledger, with the site published from it once per run
    (conftest.sample_site), and its verification."""
    from reportgen.verify.run import verify

    root = tmp_path_factory.mktemp("extras")
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "samples" / "pdfs", root / "samples" / "pdfs")
    shutil.copytree(sample_site, root / "site")
    v = verify([root / "claims"])
    assert v.ok
    return root, v


def test_formula_with_its_numbers(sample):
    from reportgen.render.extras import substituted

    _, v = sample
    calc = v.ledger.claims["s2-11"]
    assert substituted(v.ledger, calc, v.results["s2-11"].computed) == \
        "14.59 / (2.55 + 2.54) = 2.866"
    assert substituted(v.ledger, calc, None) == "14.59 / (2.55 + 2.54)"


def test_number_text():
    assert number_text(2.86640471512770) == "2.866"
    assert number_text(60802741256.48) == "60,802,741,256.48"
    assert number_text(1500.0) == "1,500"
    assert number_text(None) == ""


def test_cross_page_chip_reads_p_n_m(tmp_path):
    from reportgen.site.publish import publish

    out = tmp_path / "site"
    publish(sitekit.make_verification(tmp_path), out)
    h = (out / "S1.html").read_text(encoding="utf-8")
    assert '<span class="chip-page">p.3-4</span>' in h  # f3 runs from p.3 onto p.4
    assert '<span class="chip-page">p.1</span>' in h


def test_claims_csv(sample):
    root, v = sample
    rows = list(csv.DictReader(io.StringIO((root / "site" / "claims.csv")
                                           .read_text(encoding="utf-8"))))
    assert len(rows) == len(v.ledger.claims)
    s24 = next(r for r in rows if r["id"] == "s2-4")
    assert s24["quote"] == "供应商一 6,928,853,013.03 14.59%" and s24["page"] == "36"
    assert s24["values"] == "amount = 6928853013.03, share = 14.59"
    s211 = next(r for r in rows if r["id"] == "s2-11")
    assert s211["basis"] == "s2-4 s2-5 s2-6" and s211["result"] == "2.87"


def test_csv_cells_never_start_a_spreadsheet_formula():
    got = claims_csv([{"id": "x", "statement": "=HYPERLINK(\"http://evil\")",
                       "note": "@SUM(A1)", "quote": "+1", "confidence": -0.5}])
    row = next(csv.DictReader(io.StringIO(got)))
    assert row["statement"].startswith("'=") and row["note"].startswith("'@")
    assert row["quote"] == "'+1" and row["confidence"] == "-0.5"  # numbers stay numbers


def test_document_pages_list_claims_by_page(sample):
    root, _ = sample
    h = (root / "site" / "documents" / "300274.html").read_text(encoding="utf-8")
    assert h.index('id="page-28"') < h.index('id="page-35"') < h.index('id="page-36"')
    assert 'href="../S2.html#claim-s2-4"' in h and 'href="../assets/site.css"' in h
    idx = (root / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="documents/300274.html"' in idx


def test_changes_since_the_previous_build(sample, tmp_path):
    from reportgen.site.build import build

    root, _ = sample
    first = (root / "site" / "changes" / "index.html").read_text(encoding="utf-8")
    assert "No claim was added, removed or changed" in first
    work = tmp_path / "w"
    shutil.copytree(root / "claims", work / "claims")
    shutil.copytree(root / "samples", work / "samples")
    shutil.copytree(root / "site", work / "site")
    s2 = work / "claims" / "S2.yaml"
    text = s2.read_text(encoding="utf-8")
    s2.write_text(text.replace("confidence: 0.98", "confidence: 0.9", 1), encoding="utf-8")
    assert build([work / "claims"], work / "site").ok
    h = (work / "site" / "changes" / "index.html").read_text(encoding="utf-8")
    assert "changed=1" in h and "../S2.html#claim-s2-4" in h and "confidence" in h
    assert "changes/index.html" not in str(
        __import__("zipfile").ZipFile(work / "site" / "reportgen-bundle.zip").namelist())


def test_changes_added_removed_changed():
    old = [{"id": "a", "report": "R", "statement": "x"}, {"id": "b", "report": "R",
                                                          "statement": "y"}]
    new = [{"id": "a", "report": "R", "statement": "x2"}, {"id": "c", "report": "R",
                                                           "statement": "z"}]
    d = changes(old, new)
    assert [c["id"] for c in d["added"]] == ["c"]
    assert [c["id"] for c in d["removed"]] == ["b"]
    assert d["changed"] == [{"id": "a", "report": "R", "fields": ["statement"],
                             "before": {"statement": "x"}, "after": {"statement": "x2"}}]
    assert changes(None, new) == {"added": [], "removed": [], "changed": []}
    assert read_evidence("not json\n") is None
    assert read_evidence('{"id": "a", "report": "R"}\n') == [{"id": "a", "report": "R"}]


@given(st.lists(st.dictionaries(st.text(max_size=5), st.text(), max_size=4), max_size=4))
def test_search_index_round_trips_and_holds_no_markup(entries):
    text = search_json(entries)
    assert json.loads(text) == entries
    for ch in "<>&='`":
        assert ch not in text
