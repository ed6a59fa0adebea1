"""The site's communities pages: graph/communities-<level>.html, one per level of the
hierarchy, each community with its members, its anchored edges (with chips), its gaps
apart, and its extractive summary with chips (every sentence cites facts that hit)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markupsafe import Markup

FOLDER = "graph"


def community_file(level: int) -> str:
    return f"communities-{level}.html"


def community_pages(rend: Any, render: Callable[..., str]) -> dict[str, str]:
    """graph/communities-<level>.html for every level (`rend` is the site's Renderer)."""
    from reportgen.communities.detect import detect_edges, edge_infos, facts_of
    from reportgen.communities.store import MemoryStore
    from reportgen.communities.summary import summarize

    v = rend.sd.v
    facts = facts_of(v)
    # the site's bound entities (rend.entities), read with the attributes entity_graph
    # gives its edges, so the build does not load networkx (0.3 s) for this page;
    # tests/test_communities_site.py checks both ways give the same communities
    bound = rend.entities.model
    raw = [(b.id, b.source, b.target, {
        "relation": b.edge.relation, "report": b.edge.report, "anchors": b.edge.anchors,
        "gap": b.edge.gap, "qualifiers": dict(b.qualifiers), "valid_from": b.edge.valid_from,
        "valid_to": b.edge.valid_to}) for b in bound.edges]
    comms = detect_edges({eid: n.name for eid, n in bound.entities.items()},
                         edge_infos(raw, facts), facts)
    run = summarize(comms, MemoryStore())
    files = rend.entities.files
    names = comms.names
    level_of = {c.id: k for k, lv in enumerate(comms.levels) for c in lv}

    def node(eid: str) -> dict[str, str]:
        return {"id": eid, "name": names.get(eid, eid)}

    def edge(e) -> dict[str, Any]:
        return {"id": e.id, "source": node(e.source), "target": node(e.target),
                "relation": e.relation, "report": e.report, "anchors": e.anchors,
                "gap": e.gap, "qualifiers": dict(e.qualifiers), "valid_from": e.valid_from,
                "valid_to": e.valid_to}

    def link(cid: str | None) -> dict[str, str] | None:
        if cid is None:
            return None
        return {"id": cid, "href": f"{community_file(level_of[cid])}#{cid}"}

    def views(cids: set[str]) -> list[dict[str, Any]]:
        out = []
        for cid in sorted(cids):
            view = rend.views.get(cid)
            if view is not None:
                view = dict(view)
                if view.get("pdf_href"):
                    view["pdf_href"] = "../" + view["pdf_href"]
                out.append(view)
        return out

    common = dict(rend.common, standalone=False, css=None, js=None, root="../",
                  img=lambda src: "../" + src)
    pages = {}
    levels = list(range(len(comms.levels)))
    for k, level in enumerate(comms.levels):
        items, cited = [], set()
        for c in level:
            summary = [{"text": s["text"], "chips": Markup(" ").join(rend.chip(x)
                                                                     for x in s["citations"])}
                       for s in run.summaries.get(c.id, [])]
            cited.update(x for s in run.summaries.get(c.id, []) for x in s["citations"])
            cited.update(a for e in c.edges for a in e.anchors)
            items.append({
                "id": c.id, "members": [dict(node(m), href=files.get(m, "")) for m in
                                        sorted(c.members, key=lambda m: (names.get(m, m), m))],
                "edges": [edge(e) for e in c.edges], "gaps": [edge(e) for e in c.gaps],
                "summary": summary, "parent": link(c.parent),
                "children": [link(x) for x in c.children], "leaf": c.leaf,
                "fingerprint": c.fingerprint})
        pages[f"{FOLDER}/{community_file(k)}"] = render(
            rend.env, "communities.html", **common, level=k, levels=levels,
            level_file=community_file, communities=items, files=files,
            dialogs=views(cited))
    return pages
