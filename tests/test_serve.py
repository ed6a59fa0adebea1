"""The live preview without a browser: the server, the event stream, the overlay data,
the watcher, and the CLI's usage errors."""

from __future__ import annotations

import http.client
import json
import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.serve.http import make_server
from reportgen.serve.live import Preview, watch

REPO = Path(__file__).resolve().parent.parent
QUOTE = '"供应商一 6,928,853,013.03 14.59%"'


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A copy of the sample, previewed, served and watched."""
    root = tmp_path_factory.mktemp("serve")
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "samples" / "pdfs", root / "samples" / "pdfs")
    preview = Preview([root / "claims"], root / "site")
    preview.warm()
    assert preview.rebuild().ok
    server = make_server(preview, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(preview, stop), daemon=True)
    watcher.start()
    yield preview, server.server_address[1], root
    stop.set()
    server.shutdown()
    server.server_close()
    watcher.join(5)


def get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, dict(r.getheaders()), body


def first_event(port: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/__reportgen/events")
    r = conn.getresponse()
    assert r.getheader("Content-Type") == "text/event-stream"
    while True:
        line = r.fp.readline()
        if line.startswith(b"data: "):
            conn.close()
            return json.loads(line[6:])


def test_pages_get_the_live_script_and_the_site_stays_as_built(live):
    preview, port, root = live
    status, headers, body = get(port, "/S2.html")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'<script src="/__reportgen/live.js"' in body
    assert b"/__reportgen/" not in (root / "site" / "S2.html").read_bytes()
    assert get(port, "/")[2].count(b"/__reportgen/live.js") == 1
    status, headers, js = get(port, "/__reportgen/live.js")
    assert status == 200 and b"EventSource" in js and b"textContent" in js
    assert get(port, "/anchors/../../claims/S2.yaml")[0] == 404  # nothing outside the site


def test_a_broken_quote_lists_its_file_and_line_over_the_last_good_site(live):
    preview, port, root = live
    s2 = root / "claims" / "S2.yaml"
    text = s2.read_text(encoding="utf-8")
    good = (root / "site" / "S2.html").read_bytes()
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "id: s2-4" in ln)
    gen = preview.state.generation
    try:
        s2.write_text(text.replace(QUOTE, '"供应商九 6,928,853,013.03 14.59%"'), encoding="utf-8")
        state = preview.wait(gen, timeout=30)
        assert not state.ok
        event = first_event(port)
        assert event["ok"] is False
        wheres = [p["where"] for p in event["problems"]]
        assert any(w.endswith(f"S2.yaml:{line}") for w in wheres), wheres
        assert any("MISS s2-4" in p["message"] for p in event["problems"])
        assert (root / "site" / "S2.html").read_bytes() == good
        # a ledger error: the overlay lists it too
        gen = preview.state.generation
        s2.write_text(text.replace("kind: fact", "kind: fakt", 1), encoding="utf-8")
        state = preview.wait(gen, timeout=30)
        assert not state.ok and any(p.line for p in state.problems)
    finally:
        gen = preview.state.generation
        s2.write_text(text, encoding="utf-8")
        assert preview.wait(gen, timeout=30).ok
    assert first_event(port)["ok"] is True


def test_problems_name_their_place(tmp_path):
    from reportgen.errors import LedgerError, LedgerErrors
    from reportgen.serve.live import error_problems

    e = LedgerErrors([LedgerError("two", "b.yaml", 9), LedgerError("one", "a.yaml", 3)])
    assert [(p.where, p.message) for p in error_problems(e)] == [("a.yaml:3", "one"),
                                                                ("b.yaml:9", "two")]


def test_serve_refuses_a_port_in_use(tmp_path, live):
    _, port, root = live
    r = CliRunner().invoke(main, ["serve", str(root / "claims"), "--port", str(port),
                                  "--out", str(tmp_path / "site")])
    assert r.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in r.output


def test_serve_usage():
    r = CliRunner().invoke(main, ["serve", "--port", "70000"])
    assert r.exit_code == 2


def test_serve_command_serves_and_stops_on_sigterm(tmp_path):
    """The command end to end: builds, prints where it serves, serves, ends cleanly."""
    import os
    import re
    import signal
    import subprocess
    import sys

    shutil.copytree(REPO / "claims", tmp_path / "claims")
    shutil.copytree(REPO / "samples" / "pdfs", tmp_path / "samples" / "pdfs")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.Popen([sys.executable, "-m", "reportgen", "serve", "claims", "--port", "0"],
                         cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    try:
        lines = [p.stderr.readline(), p.stderr.readline()]
        assert lines[0].startswith("rebuilt in ") and "TOTAL: facts=29 hits=29" in lines[0]
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", lines[1])
        assert m, lines
        status, _, body = get(int(m.group(1)), "/S1.html")
        assert status == 200 and b"/__reportgen/live.js" in body
        assert (tmp_path / "site" / "S1.html").is_file()
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(30)
    assert p.returncode == 0


def test_an_unwritable_site_is_a_problem_not_a_dead_preview(tmp_path):
    """A build that cannot write its site is listed as a problem; the preview goes on."""
    shutil.copytree(REPO / "claims", tmp_path / "claims")
    shutil.copytree(REPO / "samples" / "pdfs", tmp_path / "samples" / "pdfs")
    (tmp_path / "site").write_text("a file where the site folder should be")
    preview = Preview([tmp_path / "claims"], tmp_path / "site")
    state = preview.rebuild()
    assert not state.ok and state.problems
    assert "site" in state.problems[0].where or "site" in state.problems[0].message
