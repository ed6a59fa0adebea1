"""The live preview in a real browser: an edit reloads the page with the new text, a broken
quote shows an overlay naming its file and line, and the fix takes the overlay away."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from browserkit import BROWSER

from reportgen.serve.http import make_server
from reportgen.serve.live import Preview, watch

REPO = Path(__file__).resolve().parent.parent
QUOTE = '"供应商一 6,928,853,013.03 14.59%"'

pytestmark = BROWSER


@pytest.fixture()
def served(tmp_path):
    shutil.copytree(REPO / "claims", tmp_path / "claims")
    shutil.copytree(REPO / "samples" / "pdfs", tmp_path / "samples" / "pdfs")
    preview = Preview([tmp_path / "claims"], tmp_path / "site")
    assert preview.rebuild().ok
    server = make_server(preview, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(preview, stop), daemon=True)
    watcher.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    stop.set()
    server.shutdown()
    server.server_close()
    watcher.join(5)


def test_edit_reload_overlay_fix(served, browser):
    url, root = served
    s2 = root / "claims" / "S2.yaml"
    text = s2.read_text(encoding="utf-8")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "id: s2-4" in ln)
    page = browser.new_page()
    try:
        hosts: list[str] = []
        page.on("request", lambda r: hosts.append(r.url))
        page.goto(f"{url}/S2.html")
        page.wait_for_function("window.EventSource !== undefined")
        page.wait_for_timeout(300)  # the event stream is open
        # 1. a new statement: the page reloads with it
        s2.write_text(text.replace("title: Storage cost profile",
                                   "title: Storage cost profile, edited live"),
                      encoding="utf-8")
        page.wait_for_function(
            "document.body.innerText.includes('Storage cost profile, edited live')",
            timeout=30000)
        # 2. a broken quote: the overlay names the file and line, over the last good page
        page.wait_for_timeout(300)
        s2.write_text(text.replace(QUOTE, '"供应商九 6,928,853,013.03 14.59%"'),
                      encoding="utf-8")
        overlay = page.locator("#reportgen-overlay")
        overlay.wait_for(timeout=30000)
        shown = overlay.inner_text()
        assert f"S2.yaml:{line}" in shown and "MISS s2-4" in shown
        assert "Storage cost profile, edited live" in page.inner_text("body")
        # 3. fixed: the page reloads and the overlay goes
        s2.write_text(text, encoding="utf-8")
        page.wait_for_function(
            "!document.getElementById('reportgen-overlay') && "
            "!document.body.innerText.includes('edited live')", timeout=30000)
        assert all(h.startswith(url) for h in hosts), hosts
    finally:
        page.close()
