"""What every browser test shares: Debian's Chromium, the flags it runs with on this closed
network, and the marks that skip the tests where it is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed"),
]


class Tabs:
    """Pages kept open for a module's tests, one per set of `new_page` options, each test
    loading its URL afresh in one: navigating an open page costs Chromium about a third of
    what opening a new one does. No page of the site keeps state in the browser (no
    storage, no cookies), so a fresh load is a fresh page."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.pages: dict[str, tuple[object, list[str]]] = {}

    def open(self, url: str, **kw):
        """The page loaded from `url` (with `kw` as `browser.new_page` takes them), and the
        list of the URLs it requests from now on."""
        key = repr(sorted(kw.items()))
        if key not in self.pages:
            page = self.browser.new_page(**kw)
            seen: list[str] = []
            page.on("request", lambda r: seen.append(r.url))
            self.pages[key] = (page, seen)
        page, seen = self.pages[key]
        if "viewport" in kw:  # a test may have resized it
            page.set_viewport_size(kw["viewport"])
        if page.url.split("#")[0] == url.split("#")[0]:
            page.goto("about:blank")  # not a same-document jump: a new load
        seen.clear()
        page.goto(url)
        return page, seen

    def close(self) -> None:
        for page, _ in self.pages.values():
            page.close()
