"""The site's entity graph: graph/index.html, one page per entity, links from reports,
edge records in evidence.jsonl (graph.md sections 1-2, the site's part)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from reportgen.site.publish import publish
from reportgen.verify.run import verify

ROOT = Path(__file__).resolve().parents[1]


def build(claims: Path, out: Path) -> Path:
    v = verify([claims])
    assert v.ok
    publish(v, out)
    return out


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    mp = pytest.MonkeyPatch()
    mp.setenv("SOURCE_DATE_EPOCH", "1700000000")
    try:
        yield build(ROOT / "claims", tmp_path_factory.mktemp("graph-site") / "site")
    finally:
        mp.undo()


def read(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


def test_graph_page_draws_each_entity_once(sample: Path) -> None:
    h = read(sample, "graph/index.html")
    svg = h.split("<svg", 1)[1].split("</svg>", 1)[0]
    nodes = re.findall(r'<a class="node" href="([^"]+)">.*?<text[^>]*>([^<]*)</text>', svg)
    assert len(nodes) == 19 and len({n for _, n in nodes}) == 19
    assert ("sungrow.html", "阳光电源") in nodes
    anchored = re.findall(r'<a class="edge edge-anchored"[^>]*>.*?</a>', svg, re.S)
    gaps = re.findall(r'<g class="edge edge-gap">.*?</g>', svg, re.S)
    assert len(anchored) == 15 and len(gaps) == 13
    assert all("stroke-dasharray" not in a and "data-claim" in a for a in anchored)
    assert all("stroke-dasharray" in g and "data-claim" not in g for g in gaps)
    assert any("The report names neither the owner nor the buyer" in g for g in gaps)
    for cid in set(re.findall(r'data-claim="([^"]+)"', svg)):  # every edge opens its fact
        assert f'<dialog class="evidence ev-fact" id="ev-{cid}"' in h


def test_entity_page(sample: Path) -> None:
    h = read(sample, "graph/sungrow.html")
    assert "<h1>阳光电源 <span class=\"badge\">Company</span></h1>" in h
    assert "Sungrow, Sungrow Power Supply, 阳光电源股份有限公司, 300274" in h
    assert '<a href="../S2.html">S2</a>' in h and '<a href="../S3.html">S3</a>' in h
    out = h.split('id="out-title"', 1)[1].split("</section>", 1)[0]
    assert 'Edges out <span class="muted">(9)</span>' in h
    assert '<a class="entity" href="sunwoda.html">欣旺达</a>' in out
    assert 'data-claim="s3-8"' in out and 'id="ev-s3-8"' in h
    assert "share 2.60" in out  # a qualifier as its fact writes it, not as a float
    assert 'href="../pdfs/300274.pdf#page=36"' in h and 'src="../anchors/s3-8.png"' in h
    assert '<link rel="stylesheet" href="../assets/site.css">' in h
    h = read(sample, "graph/sunwoda.html")
    ins = h.split('id="in-title"', 1)[1].split("</section>", 1)[0]
    assert 'Edges in <span class="muted">(2)</span>' in h and "gap-label" in ins


def test_report_pages_link_entity_names(sample: Path) -> None:
    h = read(sample, "S3.html")
    assert '<a class="entity" href="graph/sungrow.html">阳光电源</a>' in h
    assert '<a class="node" href="graph/sungrow.html">' in h
    assert h.count('<a class="node" href="graph/sungrow.html">') == 1  # one node
    assert 'href="graph/index.html"' in read(sample, "index.html")
    lone = read(sample, "S3.standalone.html")
    assert 'href="graph/' not in lone  # a standalone page links nowhere it cannot reach


def test_edge_records_in_evidence_jsonl(sample: Path) -> None:
    recs = [json.loads(x) for x in read(sample, "evidence.jsonl").splitlines()]
    edges = [r for r in recs if r.get("type") == "edge"]
    assert len(edges) == 28 and len(recs) == 36 + 28  # a record per claim, then per edge
    assert all(r.get("type") == "edge" for r in recs[36:])
    r = next(e for e in edges if e["to"] == "sunwoda" and e["relation"] == "buys_from")
    assert r == {"type": "edge", "id": r["id"], "report": "S3", "from": "sungrow",
                 "relation": "buys_from", "to": "sunwoda", "qualifiers": {"share": 2.55},
                 "anchors": ["s3-8"], "valid_from": "2025-01-01", "valid_to": "2025-12-31"}
    gap = next(e for e in edges if e["relation"] == "owns_project")
    assert "anchors" not in gap and gap["gap"].startswith("The report names neither")
    assert [(e["report"], e["id"]) for e in edges] == sorted((e["report"], e["id"]) for e in edges)


def test_graph_pages_are_in_the_bundle_and_offline(sample: Path) -> None:
    import zipfile

    names = zipfile.ZipFile(sample / "reportgen-bundle.zip").namelist()
    assert "reportgen-bundle/graph/index.html" in names
    assert "reportgen-bundle/graph/sungrow.html" in names
    for f in (sample / "graph").glob("*.html"):
        t = f.read_text(encoding="utf-8").replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", t), f


def test_graph_pages_are_byte_identical_across_builds(sample: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    again = build(ROOT / "claims", tmp_path / "site")
    for f in sorted((sample / "graph").iterdir()):
        assert (again / "graph" / f.name).read_bytes() == f.read_bytes(), f.name


def test_entity_names_are_escaped(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(ROOT / "samples" / "pdfs", ws / "pdfs")
    claims = ws / "claims"
    claims.mkdir()
    (claims / "documents.yaml").write_text('documents:\n  "300274": {file: ../pdfs/300274.pdf}\n',
                                           encoding="utf-8")
    (claims / "R.yaml").write_text(
        "report: {id: R, title: T}\n"
        "claims:\n"
        "  - {id: f8, kind: fact, statement: S., doc: \"300274\", page: 36,\n"
        "     quote: \"4 欣旺达 1,210,902,177.36 2.55%\"}\n"
        "edges:\n"
        "  - {from: \"<script>alert(1)</script>\", relation: buys_from, to: 欣旺达, anchors: [f8]}\n"
        "  - {from: '\" onerror=\"x', relation: buys_from, to: 欣旺达, gap: \"<b>why</b>\"}\n",
        encoding="utf-8")
    (claims / "entities.yaml").write_text(
        "entities:\n"
        "  evil: {name: \"<script>alert(1)</script>\", aliases: ['\" onerror=\"x'], "
        "docs: [\"300274\"]}\n"
        "  sunwoda: {name: 欣旺达}\n", encoding="utf-8")
    out = build(claims, tmp_path / "site")
    for f in sorted((out / "graph").glob("*.html")) + [out / "R.html"]:
        t = f.read_text(encoding="utf-8")
        assert "<script>alert(1)</script>" not in t and '" onerror="x' not in t, f
        assert "<b>why</b>" not in t
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in read(out, "graph/evil.html")


def test_editing_entities_yaml_rebuilds_the_graph_pages(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The vocabulary files are inputs of the no-op check like any claim file."""
    from click.testing import CliRunner

    from reportgen.cli import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    ws = tmp_path / "ws"
    shutil.copytree(ROOT / "claims", ws / "claims")
    shutil.copytree(ROOT / "samples" / "pdfs", ws / "samples" / "pdfs")
    out = tmp_path / "site"
    args = ["build", str(ws / "claims"), "--out", str(out)]
    assert CliRunner().invoke(main, args).exit_code == 0
    ent = ws / "claims" / "entities.yaml"
    ent.write_text(ent.read_text(encoding="utf-8").replace("[Sunwoda,", "[Sunwoda Electronic,"),
                   encoding="utf-8")
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert "Sunwoda Electronic" in read(out, "graph/sunwoda.html")
