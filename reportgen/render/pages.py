"""The site's HTML: a Jinja2 environment (autoescape on for every template) and the views
the templates read. Pure apart from reading templates: build.py decides what to write."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote as urlquote

from jinja2 import (ChoiceLoader, Environment, FileSystemBytecodeCache, FileSystemLoader,
                    StrictUndefined, TemplateError, TemplateSyntaxError)
from markupsafe import Markup

from reportgen.cachekey import keyed
from reportgen.errors import BuildError
from reportgen.model import Report, Verification
from reportgen.verify.records import claim_record
from reportgen.render.entities import EntitySite
from reportgen.render.markdown import cited_ids, make_renderer
from reportgen.render.inline import CropSlots, SlottedPage, fill_crops
from reportgen.render.paths import default_templates
from reportgen.render.extras import (by_document, search_entries, search_json, substituted,
                                     values_text)

KIND_LABEL = {"fact": "Fact", "calc": "Calc", "inference": "Inference"}
# a glyph per kind, so kinds differ by shape as well as colour (aria-hidden in the chip)
KIND_ICON = {"fact": "\u00b6", "calc": "=", "inference": "\u2234"}


_ENVS: dict[str | None, Environment] = {}


def get_env(templates: Path | None = None, bytecode_cache: Path | None = None) -> Environment:
    """One environment per templates folder in a process, so templates compile once however
    many sites it builds (a helper process compiles them while the ledger is being verified:
    see build.py); the first call's `bytecode_cache` is the one it keeps."""
    key = str(templates) if templates else None
    env = _ENVS.get(key)
    if env is None:
        env = _ENVS[key] = make_env(templates, bytecode_cache)
    return env


PAGES = ("index.html", "report.html", "document.html", "changes.html", "graph.html",
         "entity.html", "communities.html")


def warm_up(templates: Path | None = None, bytecode_cache: Path | None = None) -> None:
    """Import Markdown and the page modules and compile every page template, ahead of the
    data (the template helper does this while the build verifies)."""
    import reportgen.render.communities  # noqa: F401 - the graph and communities pages
    import reportgen.render.extras  # noqa: F401 - claims.csv, the changes page
    from reportgen.communities import detect, store, summary  # noqa: F401

    env = get_env(templates, bytecode_cache)
    try:  # the pages and the partials they import at render time
        names = env.list_templates(filter_func=lambda n: n.endswith(".html"))
    except TypeError:  # a loader that cannot list
        names = list(PAGES)
    for name in names:
        try:
            env.get_template(name)
        except TemplateError:
            pass  # reported with its place when the page is rendered
    make_renderer(lambda cid: cid)


def render(env: Environment, name: str, **ctx: Any) -> str:
    """Render a template; a broken (user) template becomes a BuildError naming its place."""
    try:
        return env.get_template(name).render(**ctx)
    except TemplateError as e:
        where = getattr(e, "filename", None)
        line = getattr(e, "lineno", None)
        if where is None:  # a runtime error: the innermost template frame knows its place
            where, line = _template_frame(e) or (getattr(e, "name", None) or name, None)
        raise BuildError(f"template {name}: {type(e).__name__}: {e.message or e}",
                         file=where, line=line) from None


def _template_frame(e: BaseException) -> tuple[str, int] | None:
    """The file and line of the innermost template frame (Jinja rewrites its tracebacks so
    a template's frames carry its own file name and line)."""
    found = None
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code.co_filename
        if not code.endswith(".py") and not code.startswith("<"):
            found = (code, tb.tb_lineno)
        tb = tb.tb_next
    return found


class _Utf8Loader(FileSystemLoader):
    """A template that is not UTF-8 is a syntax error at its own file, not a crash."""

    def get_source(self, environment: Environment, template: str) -> Any:
        try:
            return super().get_source(environment, template)
        except UnicodeDecodeError as e:
            path = next((str(Path(p, template)) for p in self.searchpath
                         if Path(p, template).is_file()), template)
            raise TemplateSyntaxError(f"not UTF-8 text ({e.reason} at byte {e.start}); save "
                                      "the template as UTF-8", 1, template, path) from None


class _KeyedBytecodeCache(FileSystemBytecodeCache):
    """Jinja's file cache of compiled templates, under names only this user can compute
    (`reportgen.cachekey`): the cache lives beside the output, in the workspace, and a
    file a workspace brings there would be run as template code."""

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return keyed("jinja", name, filename or "")


def make_env(templates: Path | None = None, bytecode_cache: Path | None = None) -> Environment:
    """User templates (if any) override the defaults one file at a time. Compiled templates
    are cached (keyed by Jinja on the source's checksum) when `bytecode_cache` is given."""
    loaders = []
    if templates is not None:
        loaders.append(_Utf8Loader(str(templates)))
    loaders.append(_Utf8Loader(str(default_templates())))
    bcc = None
    if bytecode_cache is not None:
        bytecode_cache.mkdir(parents=True, exist_ok=True)
        bcc = _KeyedBytecodeCache(str(bytecode_cache))
    env = Environment(loader=ChoiceLoader(loaders), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                      bytecode_cache=bcc)
    return env


def asset_text(env: Environment, name: str) -> str:
    """A static asset (CSS/JS) through the same loader, so a user can override it."""
    try:
        src, _, _ = env.loader.get_source(env, name)  # type: ignore[union-attr]
    except TemplateError as e:
        raise BuildError(f"asset {name}: {e.message or e}", file=getattr(e, "filename", None)
                         or name, line=getattr(e, "lineno", None)) from None
    return src


def short_sha(s: str | None) -> str:
    return (s or "")[:12]


def fmt_num(x: float | None) -> str:
    if x is None:
        return ""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(round(float(x), 10))


@dataclass
class SiteData:
    """Everything the pages need, computed once from a Verification."""

    v: Verification
    pdf_names: dict[str, str]  # doc id -> file name under pdfs/
    crops: dict[str, list[tuple[int, str]]]  # fact id -> [(page, "anchors/x.png")]
    claim_report: dict[str, str] = field(default_factory=dict)


def pdf_href(name: str, page: int | None = None) -> str:
    h = "pdfs/" + urlquote(name)
    return f"{h}#page={page}" if page else h


def claim_view(sd: SiteData, cid: str) -> dict[str, Any]:
    """The claim record (reportgen.verify.records) plus what a page shows of it."""
    rec = claim_record(sd.v, cid, sd.crops)
    out: dict[str, Any] = dict(rec, label=KIND_LABEL[rec["kind"]], icon=KIND_ICON[rec["kind"]])
    if rec["kind"] == "fact":
        doc = sd.v.ledger.documents[rec["doc"]]
        a = sd.v.results[cid].anchor  # type: ignore[union-attr]
        sha = rec["sha256"] or ""
        out.update({
            "doc_title": doc.title, "doc_file": doc.path.name,
            "page_end": rec["pageEnd"] or rec["page"], "method": rec["anchorMethod"] or "",
            "bbox": a.bbox if a else None, "sha256": sha, "sha_short": short_sha(sha),
            "pdf_href": pdf_href(sd.pdf_names[rec["doc"]], rec["page"]),
            "crops": sd.crops.get(cid, []),
            "values_text": values_text(sd.v.ledger.claims[cid]),  # type: ignore[arg-type]
        })
    elif rec["kind"] == "calc":
        out.update({"result": fmt_num(rec["result"]), "computed": fmt_num(rec["computed"]),
                    "tolerance": fmt_num(rec["tolerance"]),
                    "substituted": substituted(sd.v.ledger, sd.v.ledger.claims[cid],  # type: ignore[arg-type]
                                               rec["computed"])})
    return out


def chip_html(view: Mapping[str, Any]) -> Markup:
    """`<button class="chip chip-KIND" data-claim=ID>`; escaped here, used by templates and
    by the Markdown citation rule alike."""
    kind, cid = view["kind"], view["id"]
    extra = f", page {view['page']}" if kind == "fact" else ""
    page = Markup("")
    if kind == "fact":  # a quote across a page break shows p.2-3
        end = view.get("page_end") or view["page"]
        pages = view["page"] if end == view["page"] else f"{view['page']}-{end}"
        page = Markup(' <span class="chip-page">p.{}</span>').format(pages)
    return Markup(
        '<button type="button" class="chip chip-{kind}" data-claim="{cid}" '
        'aria-haspopup="dialog" aria-controls="ev-{cid}" title="{label} {cid}{extra}">'
        '<span class="chip-icon" aria-hidden="true">{icon}</span>'
        '<span class="chip-kind">{label}</span> {cid}{page}</button>'
    ).format(kind=kind, cid=cid, label=view["label"], icon=view["icon"], extra=extra, page=page)


class Renderer:
    """Renders index.html, <id>.html and <id>.standalone.html."""

    def __init__(self, sd: SiteData, templates: Path | None = None,
                 read_crop: Callable[[str], bytes] | None = None,
                 bytecode_cache: Path | None = None) -> None:
        from reportgen import __version__

        self.sd = sd
        self.env = get_env(templates, bytecode_cache)
        self.read_crop = read_crop
        self.views = {cid: claim_view(sd, cid) for cid in sd.v.ledger.claims}
        self._chips: dict[str, Markup] = {}
        # passed with every render (not env.globals: the environment is shared)
        self.common = dict(version=__version__, verified_at=sd.v.verified_at, chip=self.chip)
        self.markdown = make_renderer(lambda cid: str(self.chip(cid)))
        self.entities = EntitySite(sd.v.ledger)  # graph/ pages, and entity links in reports

    def chip(self, cid: str) -> Markup:
        got = self._chips.get(cid)
        if got is None:
            view = self.views.get(cid)
            if view is None:  # the ledger validator refuses these; never drop one silently
                return Markup('<span class="cite-unknown">[@{}]</span>').format(cid)
            got = self._chips[cid] = chip_html(view)
        return got

    def md(self, text: str) -> Markup:
        return Markup(self.markdown(text or ""))

    # ---- pages -------------------------------------------------------------------------

    def report_context(self, rep: Report, standalone: bool,
                       img: Callable[[str], str] = str) -> dict[str, Any]:
        """The template's data; `img` maps a crop's site path to the image's src."""
        v = self.sd.v
        if rep.sections:
            listed: set[str] = set()
            sections = []
            for s in rep.sections:
                sections.append({"title": s.title, "body": self.md(s.body),
                                 "claims": [self.views[c] for c in s.claims if c in self.views]})
                listed.update(s.claims)
            rest = [self.views[c] for c in rep.claims if c not in listed]
            if rest:
                sections.append({"title": "Other claims", "body": Markup(""), "claims": rest})
        else:
            sections = [{"title": "Claims", "body": Markup(""),
                         "claims": [self.views[c] for c in rep.claims]}]
        # a dialog per claim, once: in the first table row that lists it, else in the
        # appendix (claims cited from other reports, through basis or prose)
        placed: dict[str, None] = {}  # ordered set
        for s in sections:
            rows = []
            for c in s["claims"]:
                rows.append({"claim": c, "dialog": c["id"] not in placed})
                placed[c["id"]] = None
            s["rows"] = rows
        wanted: list[str] = []
        texts = [rep.summary] + [s.body for s in rep.sections]
        for t in texts:
            wanted.extend(cited_ids(t))
        for cid in list(placed) + wanted:
            wanted.extend(self.views[cid]["basis"] if cid in self.views else ())
        for e in rep.edges:
            wanted.extend(e.anchors)
        extra, seen = [], set(placed)
        i = 0
        while i < len(wanted):  # basis chains across reports, breadth first
            cid = wanted[i]
            i += 1
            if cid in seen or cid not in self.views:
                continue
            seen.add(cid)
            extra.append(self.views[cid])
            wanted.extend(self.views[cid]["basis"])
        graph = self.entities.graph(rep.id, "" if not standalone else None)
        count = next(c for c in v.counts() if c.report == rep.id)
        claims = [self.views[c] for c in rep.claims]
        return {
            "report": rep, "summary": self.md(rep.summary), "sections": sections,
            "appendix": sorted(extra, key=lambda c: c["id"]), "graph": graph,
            "edges": sorted(rep.edges, key=lambda e: (e.source, e.relation, e.target)),
            "entity_link": self.entities.link, "count": count, "n_inferences": sum(c["kind"] == "inference" for c in claims),
            "standalone": standalone, "css": self._asset("assets/site.css", standalone),
            "js": self._asset("assets/site.js", standalone), "img": img,
        }

    def _asset(self, name: str, inline: bool) -> Markup | None:
        # our own CSS/JS, inlined verbatim; `</` cannot end the element early in these files
        if not inline:
            return None
        return Markup(asset_text(self.env, name).replace("</", "<\\/"))

    def report_page(self, rep: Report, standalone: bool = False) -> str:
        """<id>.html, or with `standalone` <id>.standalone.html with its crops read through
        `read_crop` (which the renderer must then have been given)."""
        if not standalone:
            return render(self.env, "report.html", **self.common,
                          **self.report_context(rep, False))
        if self.read_crop is None:
            raise ValueError("a standalone page needs read_crop, or use standalone_slots()")
        return fill_crops(self.standalone_slots(rep), self.read_crop)

    def standalone_slots(self, rep: Report) -> SlottedPage:
        """<id>.standalone.html with a slot for each crop (build.py fills them in once the
        crops exist); only crops of this site can fill a slot, never text of the ledger."""
        allowed = [src for crops in self.sd.crops.values() for _, src in crops]
        slots = CropSlots(allowed)
        html = render(self.env, "report.html", **self.common,
                      **self.report_context(rep, True, slots))
        return slots.split(html)

    def entity_pages(self) -> dict[str, str]:
        """graph/index.html (the whole entity graph), graph/<entity>.html and
        graph/communities-<level>.html."""
        from reportgen.render.communities import community_pages

        return {**self.entities.pages(self, render), **community_pages(self, render)}

    def index_page(self) -> str:
        v = self.sd.v
        counts = {c.report: c for c in v.counts()}
        reports = []
        for rep in v.ledger.reports:
            kinds = [v.ledger.claims[c].kind for c in rep.claims]
            reports.append({
                "report": rep, "count": counts[rep.id],
                "inferences": sum(k == "inference" for k in kinds),
                "edges": len(rep.edges), "gaps": sum(e.gap is not None for e in rep.edges),
            })
        docs = []
        for did in sorted(v.ledger.documents):
            d = v.ledger.documents[did]
            docs.append({"id": did, "title": d.title, "file": d.path.name,
                         "href": pdf_href(self.sd.pdf_names[did]),
                         "page": document_href(self.sd.pdf_names[did]),
                         "sha256": v.sha256.get(did) or d.sha256 or ""})
        hrefs = {rep.id: f"{rep.id}.html" for rep in v.ledger.reports}
        search = search_json(search_entries(v.ledger, self.views.values(), hrefs))  # escaped
        return render(self.env, "index.html", **self.common, reports=reports, documents=docs,
                      standalone=False, css=None, js=None, search=search)

    def document_pages(self) -> dict[str, str]:
        """documents/<name>.html: the claims citing each document, by page."""
        v = self.sd.v
        facts = by_document(self.views.values())
        out = {}
        for did in sorted(v.ledger.documents):
            d = v.ledger.documents[did]
            pages: dict[int, list[dict[str, Any]]] = {}
            for f in facts.get(did, []):
                pages.setdefault(f["page"], []).append(f)
            doc = {"id": did, "title": d.title, "file": d.path.name,
                   "href": "../" + pdf_href(self.sd.pdf_names[did]),
                   "sha256": v.sha256.get(did) or d.sha256 or ""}
            out[document_href(self.sd.pdf_names[did])] = render(
                self.env, "document.html", **self.common, root="../", doc=doc,
                pages=sorted(pages.items()), standalone=False, css=None, js=None)
        return out

    def changes_page(self, diff: dict[str, Any]) -> str:
        """changes/index.html: claims added, removed and changed since the previous build."""
        return render(self.env, "changes.html", **self.common, root="../", diff=diff,
                      standalone=False, css=None, js=None)


def document_href(pdf_name: str) -> str:
    """The site path of a document's page: documents/<the PDF's site name>.html."""
    return "documents/" + urlquote(pdf_name.removesuffix(".pdf")) + ".html"
