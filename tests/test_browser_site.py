"""The sample site in a real browser on a phone, in the dark, on paper, searched from
file:// and checked by axe-core: no horizontal scroll at 390 px, contrast in both themes,
each printed crop on its claim's page, Chinese and English queries, no serious violation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from browserkit import BROWSER

REPO = Path(__file__).resolve().parent.parent

pytestmark = BROWSER
PAGES = ["index.html", "S1.html", "S2.html", "S3.html", "documents/300274.html",
         "changes/index.html"]


@pytest.fixture(scope="module")
def site(tmp_path_factory, sample_site):
    """The sample as published once per run (conftest.sample_site), copied with its crop
    cache, then built again after an edit, so the changes page has something to list."""
    from reportgen.site.build import build

    root = tmp_path_factory.mktemp("screens")
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "samples" / "pdfs", root / "samples" / "pdfs")
    shutil.copytree(sample_site, root / "site")
    shutil.copytree(sample_site.parent / ".reportgen" / "cache", root / ".reportgen" / "cache")
    s1 = root / "claims" / "S1.yaml"
    s1.write_text(s1.read_text(encoding="utf-8").replace(
        "confidence: 0.5", "confidence: 0.55", 1), encoding="utf-8")
    assert build([root / "claims"], root / "site").ok
    assert "s1-10" in (root / "site" / "changes" / "index.html").read_text(encoding="utf-8")
    return root / "site"


def foreign(requests: list[str]) -> list[str]:
    return [u for u in requests if not u.startswith(("file://", "data:"))]


def open_page(browser, url: str, **kw):
    """A new page of its own, for a test that changes more than its document."""
    page = browser.new_page(**kw)
    page.goto(url)
    return page


AXE_PAGES = ["index.html", "S2.html", "documents/300274.html", "changes/index.html"]
# What the colour scheme can change: the 4.5:1 text contrast, and links told apart from the
# text around them by colour. Every other rule reads the document, the same in both themes.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def axe_violations(page, context: str | None = None,
                   rules: list[str] | None = None) -> list[tuple[str, str, int]]:
    """axe-core's serious and critical violations on `page` (within `context`), with every
    rule or only `rules`. axe is injected once per page load, not once per run."""
    from axe_playwright_python.sync_playwright import Axe

    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(Axe().axe_script)
    options = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    res = page.evaluate("([ctx, opts]) => axe.run(ctx || document, opts)", [context, options])
    return [(v["id"], v["impact"], len(v["nodes"])) for v in res["violations"]
            if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_each_page_at_390px_and_through_axe(tabs, site, scheme):
    """Each page at 390 px has no horizontal scroll (nor has S2 with a dialog open, its crop
    scaled down); then at 1280 px axe-core checks it and an open dialog of each kind: every
    rule in the light theme, the colour rules again in the dark one (color-contrast is the
    4.5:1 check)."""
    rules = None if scheme == "light" else COLOUR_RULES
    for name in PAGES:
        page, seen = tabs.open((site / name).as_uri(), viewport={"width": 390, "height": 844},
                               color_scheme=scheme)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, (name, width)
        if name == "S2.html":  # an open dialog too, with its crop scaled down
            page.locator("tr#claim-s2-4 button.chip").click()
            page.wait_for_function("() => { const i = document.querySelector('#ev-s2-4 img');"
                                   " return i && i.complete && i.naturalWidth > 0; }")
            box = page.locator("#ev-s2-4 img").bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
            # the crop opens full size
            href = page.locator("#ev-s2-4 a.crop-full").get_attribute("href")
            assert href.startswith("anchors/") and (site / href).is_file()
            page.keyboard.press("Escape")
        if name in AXE_PAGES:  # S1 and S3 are made by the same templates as S2
            page.set_viewport_size({"width": 1280, "height": 720})
            assert axe_violations(page, rules=rules) == [], (scheme, name)
            if name == "S2.html":
                for cid in ("s2-4", "s2-11", "s2-12"):
                    page.locator(f"tr#claim-{cid} button.chip").click()
                    assert axe_violations(page, f"#ev-{cid}", rules) == [], (scheme, name, cid)
                    page.keyboard.press("Escape")
        assert foreign(seen) == []


def test_axe_reports_a_contrast_failure(tabs, site):
    """The check above can fail: grey on white text is a color-contrast violation, found
    by the colour rules alone, inside a dialog's context too."""
    page, _ = tabs.open((site / "S2.html").as_uri(), color_scheme="dark")
    page.locator("tr#claim-s2-4 button.chip").click()
    page.evaluate("() => { for (const e of document.querySelectorAll('#ev-s2-4, #ev-s2-4 *'))"
                  " { e.style.color = '#999'; e.style.background = '#fff'; } }")
    assert "color-contrast" in {v[0] for v in axe_violations(page, "#ev-s2-4", COLOUR_RULES)}


def test_dark_theme_is_dark_and_crops_stay_white(tabs, site):
    page, _ = tabs.open((site / "S2.html").as_uri(), color_scheme="dark")
    bg = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(18, 23, 30)"
    page.locator("tr#claim-s2-4 button.chip").click()
    img_bg = page.evaluate("() => getComputedStyle(document.querySelector('#ev-s2-4 img'))"
                           ".backgroundColor")
    assert img_bg == "rgb(255, 255, 255)"


def test_dialogs_show_values_and_the_formula_with_numbers(tabs, site):
    page, _ = tabs.open((site / "S2.html").as_uri())
    page.locator("tr#claim-s2-4 button.chip").click()
    assert "amount = 6928853013.03, share = 14.59" in page.locator("#ev-s2-4").inner_text()
    page.keyboard.press("Escape")
    page.locator("tr#claim-s2-11 button.chip").click()
    assert "14.59 / (2.55 + 2.54) = 2.866" in page.locator("#ev-s2-11").inner_text()


def test_print_keeps_each_crop_on_its_claims_page(browser, site, tmp_path):
    import pymupdf

    page = open_page(browser, (site / "S2.html").as_uri())
    page.emulate_media(media="print")
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    page.wait_for_function("() => [...document.querySelectorAll('.ev-crop img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)", timeout=10000)
    rows = page.evaluate(
        "() => [...document.querySelectorAll('tr.claim.claim-fact')].map(r => r.id.slice(6))")
    pdf = tmp_path / "S2.pdf"
    pdf.write_bytes(page.pdf(format="A4"))
    # the link target prints after the link
    assert "pdfs/300274.pdf#page=36" in "".join(
        p.get_text() for p in pymupdf.open(pdf))
    doc = pymupdf.open(pdf)
    texts = ["".join(p.get_text().split()) for p in doc]
    images = [len(p.get_images()) for p in doc]
    assert len(rows) == 10
    for cid in rows:
        caption = f"Evidencefor{cid}:page"
        stmt_pages = [i for i, t in enumerate(texts) if f"{cid}p." in t or f"{cid}p" in t]
        cap_pages = [i for i, t in enumerate(texts) if caption in t]
        assert cap_pages, cid
        # the claim's own chip ("s2-4 p.36") stands on the page of its crop
        assert cap_pages[0] in stmt_pages, (cid, cap_pages, stmt_pages)
        assert images[cap_pages[0]] >= 1, cid
    page.close()


@pytest.mark.parametrize("query, expect", [("供应商一", "s2-4"), ("Algihaz", "s2-10"),
                                           ("ALGIHAZ contracting", "s2-10"),
                                           ("欣旺达", "s2-5")])
def test_search_from_file_url(tabs, site, query, expect):
    page, seen = tabs.open((site / "index.html").as_uri())
    page.keyboard.press("Tab")  # skip link
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "search-q"
    page.keyboard.type(query)
    links = page.locator("#search-results a")
    links.first.wait_for()
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert any(h.endswith(f"#claim-{expect}") for h in hrefs), hrefs
    assert "result" in page.inner_text("#search-status")
    # the first result opens its claim, by keyboard
    target = next(h for h in hrefs if h.endswith(f"#claim-{expect}"))
    page.locator(f'#search-results a[href="{target}"]').focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/{target}")
    assert page.locator(f"tr#claim-{expect}").is_visible()
    assert foreign(seen) == []


def test_search_finds_entities_and_nothing_for_nonsense(tabs, site):
    page, _ = tabs.open((site / "index.html").as_uri())
    page.fill("#search-q", "阳光电源")
    page.locator("#search-results a").first.wait_for()
    assert "Entity" in page.inner_text("#search-results")
    page.fill("#search-q", "zzzz-no-such-thing")
    assert page.inner_text("#search-status") == "0 results"
