"""The entity pages in a real browser (Debian's Chromium via Playwright), from file://."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from browserkit import BROWSER  # noqa: E402
from test_browser import Watch  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

pytestmark = BROWSER


def test_entity_page_opens_a_hops_chip(tabs, sample_site) -> None:
    page, _ = tabs.open("about:blank")
    w = Watch(page)
    page.goto((sample_site / "graph" / "index.html").as_uri())
    page.locator('a.node[href="sungrow.html"]').click()  # the graph's node opens its page
    assert page.url.endswith("/graph/sungrow.html")
    chip = page.locator('li.edge-anchored button.chip[data-claim="s3-8"]')
    chip.click()
    dialog = page.locator("dialog#ev-s3-8")
    assert dialog.evaluate("d => d.open") is True
    page.wait_for_function(
        "() => { const i = document.querySelector('#ev-s3-8 img');"
        " return i && i.complete && i.naturalWidth > 0; }", timeout=5000)
    assert "page 36" in dialog.inner_text()
    page.keyboard.press("Escape")
    assert dialog.evaluate("d => d.open") is False
    assert chip.evaluate("el => el === document.activeElement") is True
    # the edge's far end is a link to its own page, which lists the edge coming in
    page.locator('#out-title ~ ul a.entity[href="sunwoda.html"]').first.click()
    assert page.url.endswith("/graph/sunwoda.html")
    assert page.locator('li.edge-anchored button.chip[data-claim="s3-8"]').count() == 1
    w.check()


def test_graph_page_edge_opens_its_fact(tabs, sample_site) -> None:
    page, _ = tabs.open("about:blank")
    w = Watch(page)
    page.goto((sample_site / "graph" / "index.html").as_uri())
    page.locator('a.edge-anchored[data-claim="s3-10"] text').click()  # its label
    assert page.locator("dialog#ev-s3-10").evaluate("d => d.open") is True
    page.keyboard.press("Escape")
    w.check()
