"""The preview's web server: the built site as files, plus a server-sent event stream that
tells open pages to reload or shows the problems over the last good site.

The standard library's threaded HTTP server: one thread per connection suits a preview
with a handful of tabs, a held-open event stream is a plain blocking loop, and nothing new
is installed or imported at start-up. The site on disk is never altered: the small live
script is added to each HTML page as it is sent, so the folder stays the byte-identical
output of `reportgen build`. Binds 127.0.0.1 only.
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from reportgen.serve.live import Preview

PREFIX = "/__reportgen/"
EVENTS = PREFIX + "events"
SCRIPT = PREFIX + "live.js"
STATUS = PREFIX + "status"

# The page side: reload on a good build, an overlay listing every problem on a bad one.
# Text goes in through textContent only: messages quote claim files and PDFs.
LIVE_JS = r"""(function () {
  "use strict";
  var served = Number(document.currentScript && document.currentScript.dataset.generation || 0);
  var box = null;
  function hide() { if (box) { box.remove(); box = null; } }
  function show(state) {
    hide();
    box = document.createElement("div");
    box.id = "reportgen-overlay";
    box.setAttribute("role", "alert");
    box.style.cssText = "position:fixed;inset:auto 0 0 0;max-height:60vh;overflow:auto;" +
      "z-index:2147483647;background:#3b0a0a;color:#fff;font:14px/1.45 system-ui,sans-serif;" +
      "padding:12px 16px;border-top:4px solid #ff6b6b;box-shadow:0 -4px 16px #0006";
    var h = document.createElement("strong");
    h.textContent = "Not rebuilt: " + state.problems.length + " problem" +
      (state.problems.length === 1 ? "" : "s") + " (the page shows the last good build)";
    box.appendChild(h);
    var ul = document.createElement("ul");
    ul.style.cssText = "margin:8px 0 0;padding-left:18px";
    state.problems.forEach(function (p) {
      var li = document.createElement("li");
      var code = document.createElement("code");
      code.style.cssText = "color:#ffd6d6";
      code.textContent = p.where;
      li.appendChild(code);
      li.appendChild(document.createTextNode((p.where ? ": " : "") + p.message));
      ul.appendChild(li);
    });
    box.appendChild(ul);
    document.body.appendChild(box);
  }
  var es = new EventSource("/__reportgen/events");
  es.onmessage = function (ev) {
    var state = JSON.parse(ev.data);
    if (state.ok) {
      if (state.generation !== served) { es.close(); location.reload(); } else { hide(); }
    } else {
      show(state);
    }
  };
})();
"""


class Handler(SimpleHTTPRequestHandler):
    """Files of the site, the live script, the event stream; nothing else."""

    preview: Preview  # set on the subclass made by make_server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # library code never prints; the CLI reports rebuilds

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        path = self.path.split("?", 1)[0]
        if path == EVENTS:
            return self._events()
        if path == SCRIPT:
            return self._send(LIVE_JS.encode(), "text/javascript; charset=utf-8")
        if path == STATUS:
            return self._send(json.dumps(self.preview.state.as_dict(), ensure_ascii=False)
                              .encode(), "application/json")
        local = Path(self.translate_path(path))
        if local.is_dir():
            local = local / "index.html"
        if local.suffix == ".html" and local.is_file():
            return self._html(local)
        return super().do_GET()

    def _send(self, body: bytes, ctype: str) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _html(self, local: Path) -> None:
        try:
            body = local.read_bytes()
        except OSError:
            return self.send_error(HTTPStatus.NOT_FOUND)
        gen = self.preview.state.generation
        tag = f'<script src="{SCRIPT}" data-generation="{gen}"></script>'.encode()
        i = body.rfind(b"</body>")
        body = body[:i] + tag + body[i:] if i >= 0 else body + tag
        self._send(body, "text/html; charset=utf-8")

    def _events(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        stop: threading.Event = self.server.stop  # type: ignore[attr-defined]
        state = self.preview.state
        try:
            self._event(state)  # where things stand now: an overlay if the last build failed
            while not stop.is_set():
                nxt = self.preview.wait(state.generation, timeout=1.0)
                if nxt.generation == state.generation:
                    self.wfile.write(b": ping\n\n")  # notices a closed tab
                    self.wfile.flush()
                    continue
                state = nxt
                self._event(state)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass

    def _event(self, state) -> None:
        data = json.dumps(state.as_dict(), ensure_ascii=False)
        self.wfile.write(f"data: {data}\n\n".encode())
        self.wfile.flush()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr: tuple[str, int], handler: type[Handler]) -> None:
        self.stop = threading.Event()
        super().__init__(addr, handler)

    def shutdown(self) -> None:
        self.stop.set()
        super().shutdown()


def make_server(preview: Preview, port: int = 8000) -> Server:
    """A server for `preview.out` on 127.0.0.1:port (0 picks a free port)."""
    out = str(preview.out)

    class Bound(Handler):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, directory=out, **kwargs)

    Bound.preview = preview
    return Server(("127.0.0.1", port), Bound)
