"""The site in a real browser (Debian's Chromium via Playwright), from file://."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from browserkit import BROWSER

sys.path.insert(0, str(Path(__file__).parent))
import sitekit  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

pytestmark = BROWSER


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    from reportgen.site.publish import publish

    tmp = tmp_path_factory.mktemp("fixture")
    out = tmp / "site"
    publish(sitekit.make_verification(tmp), out)
    return out


class Watch:
    def __init__(self, page, allow_data: bool = False):
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.allow_data = allow_data
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def check(self):
        ok = ("file://", "data:") if self.allow_data else ("file://",)
        foreign = [u for u in self.requests if not u.startswith(ok)]
        assert foreign == [], f"requests to other hosts: {foreign}"
        assert self.errors == [], f"console errors: {self.errors}"


def exercise_chip(page, cid: str, page_no: int):
    chip = page.locator(f'tr#claim-{cid} button.chip[data-claim="{cid}"]')
    chip.click()
    dialog = page.locator(f"dialog#ev-{cid}")
    assert dialog.evaluate("d => d.open") is True
    page.wait_for_function(
        "id => { const i = document.querySelector('#ev-' + CSS.escape(id) + ' img');"
        " return i && i.complete && i.naturalWidth > 0; }", arg=cid, timeout=5000)
    assert f"page {page_no}" in dialog.inner_text()
    assert dialog.get_attribute("aria-labelledby") == f"ev-{cid}-title"
    page.keyboard.press("Escape")
    assert dialog.evaluate("d => d.open") is False
    assert chip.evaluate("el => el === document.activeElement") is True
    # the keyboard alone: Enter on the focused chip opens it again, Escape closes
    page.keyboard.press("Enter")
    assert dialog.evaluate("d => d.open") is True
    page.keyboard.press("Escape")
    assert chip.evaluate("el => el === document.activeElement") is True
    page.keyboard.press(" ")
    assert dialog.evaluate("d => d.open") is True
    page.keyboard.press("Escape")


def tab_reaches_every_chip(page):
    """Tab from the top (up to twice the chips and 50 presses) focuses every chip outside
    the dialogs; the page marks each chip that takes the focus."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur();"
                  " document.addEventListener('focusin', e => {"
                  " if (e.target.classList && e.target.classList.contains('chip'))"
                  " e.target.dataset.tabSeen = '1'; }); }")
    chips = page.evaluate(
        "() => [...document.querySelectorAll('button.chip')].filter(c => !c.closest('dialog')).length")
    unseen = ("() => [...document.querySelectorAll('button.chip')].filter(c => !c.closest('dialog')"
              " && !c.dataset.tabSeen).map(c => c.dataset.claim)")
    for i in range(chips * 2 + 50):
        page.keyboard.press("Tab")
        if i % 10 == 9 and page.evaluate(unseen) == []:
            break
    missed = page.evaluate(unseen)
    assert missed == [], f"Tab never reaches {missed}"


def test_sample_s2_page(tabs, sample_site):
    """The sample as published (conftest.sample_site)."""
    page, _ = tabs.open("about:blank")
    w = Watch(page)
    page.goto((sample_site / "S2.html").as_uri())
    exercise_chip(page, "s2-4", 36)
    tab_reaches_every_chip(page)
    w.check()


def test_fixture_report_page(tabs, fixture_site):
    page, _ = tabs.open("about:blank")
    w = Watch(page)
    page.goto((fixture_site / "S1.html").as_uri())
    exercise_chip(page, "f1", 1)
    exercise_chip(page, "f3", 3)
    # a chip inside a dialog replaces it; closing returns focus to the first chip
    chip = page.locator('tr#claim-i1 button.chip')
    chip.click()
    page.locator('dialog#ev-i1 button.chip[data-claim="c1"]').click()
    assert page.evaluate("() => [...document.querySelectorAll('dialog[open]')].map(d => d.id)") == ["ev-c1"]
    page.keyboard.press("Escape")
    assert chip.evaluate("el => el === document.activeElement") is True
    # an anchored graph edge opens its fact
    page.locator("a.edge-anchored").first.click()
    assert page.locator("dialog#ev-f1").evaluate("d => d.open") is True
    page.keyboard.press("Escape")
    tab_reaches_every_chip(page)
    w.check()


def test_fixture_standalone_page(tabs, fixture_site, tmp_path):
    # alone in a folder, as when opened from an email attachment
    lone = tmp_path / "S1.standalone.html"
    shutil.copyfile(fixture_site / "S1.standalone.html", lone)
    page, _ = tabs.open("about:blank")
    w = Watch(page, allow_data=True)
    page.goto(lone.as_uri())
    exercise_chip(page, "f2", 2)
    w.check()


def test_fixture_print_shows_crops(browser, fixture_site):
    page = browser.new_page()
    w = Watch(page)
    page.goto((fixture_site / "S1.html").as_uri())
    page.emulate_media(media="print")
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    page.wait_for_function("() => [...document.querySelectorAll('.ev-crop img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)", timeout=5000)
    visible = page.evaluate("() => [...document.querySelectorAll('.ev-crop img')]"
                            ".filter(i => i.getBoundingClientRect().height > 0).length")
    assert visible == 4
    pdf = page.pdf()
    assert pdf[:4] == b"%PDF"
    w.check()
    page.close()
