"""The site's entity pages: the whole entity graph (graph/index.html) and one page per
entity (graph/<entity>.html), from the ledger's bound edges (reportgen.graph.bind)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from markupsafe import Markup

from reportgen.graph.bind import bind_ledger
from reportgen.graph.names import norm, squash
from reportgen.model import Ledger
from reportgen.render.graph import entity_layout

FOLDER = "graph"
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")


def entity_files(ids: list[str]) -> dict[str, str]:
    """entity id -> file name in graph/: the id when it is a plain ASCII name, else a hash of
    it; ids differing only in case get `~2`, `~3` (one file on macOS and Windows)."""
    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    for eid in sorted(ids):
        base = eid if _SAFE.match(eid) and eid != "index" else \
            "e-" + hashlib.sha256(eid.encode("utf-8")).hexdigest()[:12]
        n = seen[base.casefold()] = seen.get(base.casefold(), 0) + 1
        out[eid] = f"{base}.html" if n == 1 else f"{base}~{n}.html"
    return out


class EntitySite:
    """The bound entities of a ledger and the links and pages the site makes of them."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.model = bind_ledger(ledger)  # a built ledger passed these checks already
        self.files = entity_files(list(self.model.entities))

    def href(self, eid: str, root: str = "") -> str:
        return f"{root}{FOLDER}/{self.files[eid]}"

    def link(self, name: str, root: str = "") -> Markup:
        """A name as written in a claim file, linked to its entity's page when it binds."""
        eid = self.model.names.get(norm(name))
        if eid is None:
            return Markup("{}").format(name)
        return Markup('<a class="entity" href="{}">{}</a>').format(self.href(eid, root), name)

    # ---- views -------------------------------------------------------------------------
    def edge_view(self, b) -> dict[str, Any]:
        e, ents = b.edge, self.model.entities
        return {"id": b.id, "source": ents[b.source], "target": ents[b.target],
                "source_href": self.files[b.source], "target_href": self.files[b.target],
                "relation": e.relation, "report": e.report, "anchors": e.anchors, "gap": e.gap,
                "qualifiers": dict(b.written), "valid_from": e.valid_from,
                "valid_to": e.valid_to}

    def cited_by(self, eid: str) -> list[str]:
        """Reports whose edges touch the entity or whose claims name it."""
        node = self.model.entities[eid]
        names = [squash(n) for n in node.names() if squash(n)]
        out = []
        for rep in self.ledger.reports:
            hit = any(b.edge.report == rep.id and eid in (b.source, b.target)
                      for b in self.model.edges)
            if not hit:
                for cid in rep.claims:
                    c = self.ledger.claims[cid]
                    text = squash(c.statement + " " + getattr(c, "quote", ""))
                    if any(n in text for n in names):
                        hit = True
                        break
            if hit:
                out.append(rep.id)
        return out

    def graph(self, report: str | None = None, root: str | None = ""):
        """The layout of one report's edges (or all, with None), each entity once; its nodes
        link to the entity pages under `root` (None: no links, for a standalone page)."""
        edges = [b for b in self.model.edges if report is None or b.edge.report == report]
        if report is not None and not edges:
            return None
        ents = self.model.entities
        used = {i for b in edges for i in (b.source, b.target)} if report is not None else ents
        prefix = "" if root is None else f"{root}{FOLDER}/" if report is not None else ""
        nodes = [(i, ents[i].name, "" if root is None else prefix + self.files[i])
                 for i in ents if i in used]
        return entity_layout(nodes, [(b.id, b.source, b.target, b.edge.relation, b.edge.anchors,
                                      b.edge.gap) for b in edges])

    def pages(self, rend, render: Callable[..., str]) -> dict[str, str]:
        """graph/index.html and graph/<entity>.html, rendered with `rend`'s chips and views."""
        def views(cids: set[str]) -> list[dict[str, Any]]:
            out = []
            for cid in sorted(cids):
                v = rend.views.get(cid)
                if v is not None:
                    v = dict(v)
                    if v.get("pdf_href"):
                        v["pdf_href"] = "../" + v["pdf_href"]
                    out.append(v)
            return out

        common = dict(rend.common, standalone=False, css=None, js=None, root="../",
                      img=lambda src: "../" + src)
        edges = [self.edge_view(b) for b in self.model.edges]
        ents = self.model.entities
        graph = self.graph()
        order = sorted(edges, key=lambda e: (e["source"].name, e["relation"], e["target"].name,
                                             e["id"]))
        out = {f"{FOLDER}/index.html": render(
            rend.env, "graph.html", **common, graph=graph, edges=order,
            entities=sorted(ents.values(), key=lambda n: (n.name, n.id)), files=self.files,
            dialogs=views({a for e in edges for a in e["anchors"]}))}
        for eid, node in ents.items():
            outs = [e for e in order if e["source"].id == eid]
            ins = [e for e in order if e["target"].id == eid and e["source"].id != eid]
            out[f"{FOLDER}/{self.files[eid]}"] = render(
                rend.env, "entity.html", **common, entity=node, out_edges=outs, in_edges=ins,
                reports=self.cited_by(eid), files=self.files,
                dialogs=views({a for e in outs + ins for a in e["anchors"]}))
        return out
