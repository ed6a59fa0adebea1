"""The site's communities pages on the sample: members, edges with chips, gaps apart, a
summary whose every sentence has chips with their dialogs, linked from the graph pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(sample_site):
    """The sample as published once per run (conftest.sample_site): read only."""
    return sample_site


def _sections(html: str) -> list[str]:
    return re.findall(r'<section class="community".*?</section>', html, re.S)


def test_a_communities_page_per_level_with_cited_summaries(site):
    html = (site / "graph" / "communities-0.html").read_text(encoding="utf-8")
    sections = _sections(html)
    assert len(sections) == 4
    for sec in sections:
        summary = re.search(r'<ul class="summary">(.*?)</ul>', sec, re.S)
        if summary is None:
            assert "No anchored edge inside" in sec
            continue
        for li in re.findall(r"<li>(.*?)</li>", summary.group(1), re.S):
            chips = re.findall(r'data-claim="([^"]+)"', li)
            assert chips, li
    dialogs = set(re.findall(r'id="ev-([^"]+)"', html))
    assert set(re.findall(r'data-claim="([^"]+)"', html)) <= dialogs
    assert "s3-5" in dialogs


def test_gaps_are_listed_apart_from_anchored_edges(site):
    html = (site / "graph" / "communities-0.html").read_text(encoding="utf-8")
    for sec in _sections(html):
        inside, _, gaps = sec.partition("<h3>Gaps</h3>")
        assert 'class="edge-gap"' not in inside
        assert 'class="edge-anchored"' not in gaps


def test_graph_and_entity_pages_link_to_the_communities(site):
    graph = (site / "graph" / "index.html").read_text(encoding="utf-8")
    assert 'href="communities-0.html"' in graph
    comms = (site / "graph" / "communities-0.html").read_text(encoding="utf-8")
    entity = (site / "graph" / "sungrow.html").read_text(encoding="utf-8")
    assert 'href="communities-0.html#in-sungrow"' in entity
    assert 'id="in-sungrow"' in comms
    ids = re.findall(r'\sid="([^"]+)"', comms)
    assert len(ids) == len(set(ids))  # a gap listed under two communities has no id twice


def test_the_communities_page_is_in_the_bundle(site):
    import zipfile

    with zipfile.ZipFile(site / "reportgen-bundle.zip") as z:
        assert "reportgen-bundle/graph/communities-0.html" in z.namelist()


def test_the_site_reads_the_same_communities_as_the_command(site):
    """The site builds its communities from the bound entities (no networkx); the command
    from entity_graph: both must give the same communities, edges and fingerprints."""
    from reportgen.communities.run import communities_of
    from reportgen.verify.run import verify

    v = verify([ROOT / "claims"])
    want = [(c.id, c.fingerprint, c.leaf) for lv in communities_of(v).levels for c in lv]
    html = (site / "graph" / "communities-0.html").read_text(encoding="utf-8")
    got = re.findall(r'<section class="community" id="([^"]+)"', html)
    assert got == [cid for cid, _, _ in want if cid in got] and len(got) == len(want)
    for cid, fp, _ in want:
        assert f"Fingerprint <code>{fp[:12]}</code>" in html.split(f'id="{cid}"')[1]
