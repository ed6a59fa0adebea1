"""The site written by build_site() from a hand-made Verification."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import sitekit  # noqa: E402

from reportgen.site.write import build_site  # noqa: E402
from reportgen.errors import BuildError  # noqa: E402


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    v = sitekit.make_verification(tmp)
    out = tmp / "site"
    stats = build_site(v, out, None, 1)
    return out, stats, v


def html(site, name="S1.html") -> str:
    return (site[0] / name).read_text(encoding="utf-8")


def test_files(site):
    out, stats, _ = site
    for f in ("index.html", "S1.html", "S1.standalone.html", "anchors/f1.png", "anchors/f2.png",
              "anchors/f3.png", "anchors/f3~p4.png", "pdfs/d1.pdf", "evidence.jsonl",
              "reportgen-bundle.zip", "assets/site.css", "assets/site.js"):
        assert (out / f).is_file(), f
    assert stats.crops == 4 and stats.crops_rendered == 4 and stats.reports == 1


@pytest.mark.parametrize("page", ["index.html", "S1.html", "S1.standalone.html"])
def test_payloads_render_as_text(site, page):
    h = html(site, page)
    assert "<script>alert(1)</script>" not in h
    assert '" onerror="x' not in h
    assert "onerror=" not in re.sub(r"&#34; onerror=&#34;", "", h)
    if page != "index.html":
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in h


def test_every_claim_has_a_chip_of_its_kind(site):
    h = html(site)
    for cid, kind in (("f1", "fact"), ("f2", "fact"), ("f3", "fact"), ("c1", "calc"),
                      ("i1", "inference")):
        assert re.search(rf'<button type="button" class="chip chip-{kind}" data-claim="{cid}"', h)
        assert f'<dialog class="evidence ev-{kind}" id="ev-{cid}" aria-labelledby="ev-{cid}-title">' in h
        assert h.count(f'id="ev-{cid}"') == 1


def test_markdown_citations_become_chips(site):
    h = html(site)
    summary = h.split('<section class="summary"', 1)[1].split("</section>", 1)[0]
    assert 'data-claim="f1"' in summary and 'data-claim="c1"' in summary
    assert "[@" not in summary


def test_fact_dialog_contents(site):
    h = html(site)
    _, _, v = site
    d = h.split('id="ev-f1"', 1)[1].split("</dialog>", 1)[0]
    sha = v.sha256["d1"]
    assert '<img src="anchors/f1.png"' in d and 'alt="Page 1 of Sample annual report' in d
    assert f'<code title="{sha}">{sha[:12]}</code>' in d
    assert "The top five suppliers held 14.59% of purchases." in d
    assert "2025-01-01T00:00:00Z" in d and ">exact<" in d
    assert 'href="pdfs/d1.pdf#page=1"' in d
    d3 = h.split('id="ev-f3"', 1)[1].split("</dialog>", 1)[0]
    assert 'src="anchors/f3.png"' in d3 and 'src="anchors/f3~p4.png"' in d3
    assert "page 3 to 4" in d3


def test_calc_and_inference_dialogs(site):
    h = html(site)
    c = h.split('id="ev-c1"', 1)[1].split("</dialog>", 1)[0]
    assert "<code>f1.share * 2</code>" in c and "29.18" in c and "0.005" in c
    assert 'data-claim="f1"' in c
    i = h.split('id="ev-i1"', 1)[1].split("</dialog>", 1)[0]
    assert "0.7" in i and "Wrong if the table omits suppliers." in i
    assert 'data-claim="c1"' in i and 'data-claim="f1"' in i


def test_graph_gap_never_looks_anchored(site):
    h = html(site)
    svg = h.split("<svg", 1)[1].split("</svg>", 1)[0]
    anchored = re.findall(r'<a class="edge edge-anchored"[^>]*>.*?</a>', svg, re.S)
    gaps = re.findall(r'<g class="edge edge-gap">.*?</g>', svg, re.S)
    assert len(anchored) == 1 and len(gaps) == 1
    assert 'data-claim="f1"' in anchored[0] and "stroke-dasharray" not in anchored[0]
    assert "stroke-dasharray" in gaps[0] and "data-claim" not in gaps[0]
    assert "The table names no company." in gaps[0]  # the reason, in <title>
    assert 'marker-end="url(#arrow-gap)"' in gaps[0]
    assert re.search(r"stroke=\"(#[0-9a-f]+)\"", anchored[0]).group(1) != \
        re.search(r"stroke=\"(#[0-9a-f]+)\"", gaps[0]).group(1)
    assert '<span class="gap-count has-gaps">1 gap</span>' in h
    assert '<li class="edge-gap">' in h and "The table names no company." in h


def test_each_entity_is_one_node():
    from reportgen.render.graph import entity_layout

    nodes = [("sungrow", "阳光电源", ""), ("b", "B", "")]
    edges = [("e1", "sungrow", "b", "r", ("f",), None), ("e2", "b", "sungrow", "r2", (), "why")]
    g = entity_layout(nodes, edges)
    assert sorted(n.name for n in g.nodes) == ["B", "阳光电源"] and g.gaps == 1  # source and target
    assert entity_layout(nodes, edges) == entity_layout(nodes[::-1], edges[::-1])


def test_no_request_to_another_host(site):
    out = site[0]
    for f in list(out.glob("*.html")) + [out / "assets/site.css", out / "assets/site.js"]:
        t = f.read_text(encoding="utf-8").replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", t), f
        assert not re.search(r"url\(\s*[\"']?(https?:)?//", t), f
        assert "@import" not in t and "@font-face" not in t


def test_print_stylesheet(site):
    css = (site[0] / "assets/site.css").read_text()
    assert "@media print" in css
    assert '<link rel="stylesheet" href="assets/site.css">' in html(site)


def test_index_lists_reports_and_inputs(site):
    h = html(site, "index.html")
    _, _, v = site
    assert 'href="S1.html"' in h and v.sha256["d1"] in h and "Sample annual report" in h
    assert '<a href="pdfs/d1.pdf">report.pdf</a>' in h  # published by id, shown by name
    row = h.split('href="S1.html"', 1)[1].split("</tr>", 1)[0]
    assert re.findall(r'<td class="num[^"]*">(\d+)</td>', row) == ["3", "3", "1", "1", "2", "1"]


def test_standalone_is_self_contained(site):
    h = html(site, "S1.standalone.html")
    assert 'src="anchors/' not in h and h.count('src="data:image/png;base64,') == 4
    assert "<link" not in h and "<script src" not in h
    assert "@media print" in h and "showModal" in h


def test_evidence_jsonl(site):
    out, _, v = site
    recs = [json.loads(line) for line in (out / "evidence.jsonl").read_text().splitlines()]
    assert [r["id"] for r in recs if r.get("type") != "edge"] == ["c1", "f1", "f2", "f3", "i1"]
    f1 = next(r for r in recs if r["id"] == "f1")
    for k in ("id", "report", "kind", "statement", "confidence", "note", "basis", "doc", "page",
              "pageEnd", "quote", "bbox", "anchorMethod", "sha256", "verified_at", "crop"):
        assert k in f1, k
    assert f1["crop"] == "anchors/f1.png" and f1["sha256"] == v.sha256["d1"]
    f3 = next(r for r in recs if r["id"] == "f3")
    assert f3["pageEnd"] == 4 and f3["crops"] == ["anchors/f3.png", "anchors/f3~p4.png"]
    c1 = next(r for r in recs if r["id"] == "c1")
    assert (c1["formula"], c1["result"], c1["computed"], c1["tolerance"]) == \
        ("f1.share * 2", 29.18, 29.18, 0.005)


def test_two_builds_are_byte_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    v = sitekit.make_verification(tmp_path)
    build_site(v, tmp_path / "a", None, 1, cache_dir=tmp_path / "ca")
    build_site(v, tmp_path / "b", None, 2, cache_dir=tmp_path / "cb")  # other cache, 2 workers
    a, b = sitekit.snapshot(tmp_path / "a"), sitekit.snapshot(tmp_path / "b")
    assert sorted(a) == sorted(b)
    assert [k for k in a if a[k] != b[k]] == []


def test_rebuild_renders_no_crop(tmp_path):
    v = sitekit.make_verification(tmp_path)
    s1 = build_site(v, tmp_path / "a", None, 1)
    s2 = build_site(v, tmp_path / "b", None, 1)
    assert (s1.crops_rendered, s2.crops_rendered, s2.crops_cached) == (4, 0, 4)


def test_template_override(tmp_path):
    v = sitekit.make_verification(tmp_path, payload=False)
    tdir = tmp_path / "tpl"
    tdir.mkdir()
    (tdir / "index.html").write_text("custom {{ reports|length }} {{ '<b>' }}")
    build_site(v, tmp_path / "s", tdir, 1)
    assert (tmp_path / "s/index.html").read_text() == "custom 1 &lt;b&gt;"
    assert "Sample report" in (tmp_path / "s/S1.html").read_text()  # others stay default


def test_markdown_has_no_raw_html_or_images():
    from reportgen.render.markdown import cited_ids, make_renderer

    md = make_renderer(lambda cid: f"<b>{cid}</b>")
    out = md('<img src=x onerror=y> ![a](http://h/x.png) [@a-1; @b.2] [@c]')
    assert "<img" not in out and "&lt;img" in out
    assert "<b>a-1</b><b>b.2</b>" in out and "<b>c</b>" in out
    assert cited_ids("x [@a; @b] [@c] [not] [@ d] [@e, @f]") == ["a", "b", "c", "e", "f"]
    assert md("[@e, @f]").count("<b>") == 2


def test_refuses_unverified(tmp_path):
    import dataclasses
    from reportgen.model import FactResult

    v = sitekit.make_verification(tmp_path)
    bad = dict(v.results)
    bad["f1"] = FactResult("f1", "miss", None, None, "not found")
    with pytest.raises(BuildError):
        build_site(dataclasses.replace(v, results=bad), tmp_path / "x")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("name,body,where,what", [
    ("report.html", b"{% extends 'base.html' %}{% block body %}\n\n{{ report.nope }}"
     b"{% endblock %}", "report.html:3", "UndefinedError"),
    ("base.html", b"\xff\xfe{{ x }}", "base.html:1", "not UTF-8 text"),
    ("assets/site.css", b"\xffbody {}", "assets/site.css:1", "not UTF-8 text"),
])
def test_broken_user_template_names_its_own_file_and_line(tmp_path, name, body, where, what):
    v = sitekit.make_verification(tmp_path, payload=False)
    tdir = tmp_path / "tpl"
    (tdir / name).parent.mkdir(parents=True, exist_ok=True)
    (tdir / name).write_bytes(body)
    with pytest.raises(BuildError) as ei:
        build_site(v, tmp_path / "s", tdir, 1)
    msg = str(ei.value)
    assert msg.split(": ")[0].endswith(f"tpl/{where}"), msg
    assert what in msg
