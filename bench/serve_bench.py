"""The live preview's latency: a one-claim edit, from the file write to the reload event a
page receives, against a full cold `reportgen build` measured in the same run.

    python bench/serve_bench.py [--edits 20] [--cold 3]

Works on a copy of the sample ledger in a temporary folder; the preview is the library
(reportgen.serve), served on 127.0.0.1 and watched with watchfiles as `reportgen serve`
does; the page is an HTTP client reading the event stream.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def cold_build(root: Path, n: int) -> list[float]:
    """A fresh process, empty caches: `reportgen build claims --out cold-i`."""
    times = []
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for i in range(n):
        work = root / f"cold{i}"
        shutil.copytree(root / "ledger", work)
        env["REPORTGEN_VERDICT_CACHE"] = str(work / "verdicts")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "reportgen", "build", "claims", "--out", "site"],
                       cwd=work, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


class Listener(threading.Thread):
    """An open page: reads the event stream and timestamps every event."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.events: list[tuple[float, dict]] = []
        self.cond = threading.Condition()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port)
        conn.request("GET", "/__reportgen/events")
        resp = conn.getresponse()
        while True:
            line = resp.fp.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                t = time.perf_counter()
                with self.cond:
                    self.events.append((t, json.loads(line[6:])))
                    self.cond.notify_all()

    def wait_for(self, generation: int, timeout: float = 30) -> tuple[float, dict]:
        with self.cond:
            ok = self.cond.wait_for(lambda: self.events and
                                    self.events[-1][1]["generation"] > generation, timeout)
            if not ok:
                raise TimeoutError(f"no event after generation {generation}")
            return self.events[-1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--cold", type=int, default=3)
    args = ap.parse_args()

    from reportgen.serve.http import make_server
    from reportgen.serve.live import Preview, watch

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ledger = root / "ledger"
        shutil.copytree(REPO / "claims", ledger / "claims")
        shutil.copytree(REPO / "samples" / "pdfs", ledger / "samples" / "pdfs")
        cold = cold_build(root, args.cold)

        os.environ["REPORTGEN_VERDICT_CACHE"] = str(ledger / "verdicts")
        os.chdir(ledger)
        preview = Preview([Path("claims")], Path("site"))
        preview.warm()
        first = preview.rebuild()
        assert first.ok, first.problems
        server = make_server(preview, 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        stop = threading.Event()
        threading.Thread(target=watch, args=(preview, stop), daemon=True).start()
        page = Listener(server.server_address[1])
        page.start()
        page.wait_for(0)
        time.sleep(0.5)  # the watch is armed

        s2 = Path("claims/S2.yaml")
        text = s2.read_text(encoding="utf-8")
        needle = "title: Storage cost profile"
        assert needle in text
        lat, build_s = [], []
        for i in range(args.edits):
            gen = preview.state.generation
            body = text.replace(needle, f"{needle} (edit {i})")
            t0 = time.perf_counter()
            s2.write_text(body, encoding="utf-8")
            t1, state = page.wait_for(gen)
            assert state["ok"], state["problems"]
            lat.append(t1 - t0)
            build_s.append(state["seconds"])
            assert f"(edit {i})" in Path("site/S2.html").read_text(encoding="utf-8")
            time.sleep(0.2)
        stop.set()
        server.shutdown()

    med = statistics.median(lat)
    cold_med = statistics.median(cold)
    print(f"cold build (fresh process, empty caches), median of {len(cold)}: {cold_med:.3f} s")
    print(f"one-claim edit -> reload event, median of {len(lat)}: {med * 1000:.0f} ms "
          f"(p90 {sorted(lat)[int(0.9 * (len(lat) - 1))] * 1000:.0f} ms, min "
          f"{min(lat) * 1000:.0f} ms, max {max(lat) * 1000:.0f} ms)")
    print(f"  of which the rebuild itself: median {statistics.median(build_s) * 1000:.0f} ms")
    print(f"edit/cold = {med / cold_med:.2f}; target: under 300 ms "
          f"({'met' if med < 0.3 else 'NOT met'})")


if __name__ == "__main__":
    main()
