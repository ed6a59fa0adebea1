"""Replay recorded Messages API responses (tests/fixtures/llm/*.json) to the real
`anthropic.Anthropic` client through an httpx transport; every request is kept."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2 as httpx  # the HTTP library this anthropic SDK is built on (2.x)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "llm"


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


class Replay:
    """Answers each request with the next recorded response, in order."""

    def __init__(self, *names: str | dict) -> None:
        self.queue = [fixture(n) if isinstance(n, str) else n for n in names]
        self.requests: list[httpx.Request] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if not self.queue:
            return httpx.Response(500, json={"type": "error", "error": {
                "type": "api_error", "message": "the test recorded no more responses"}})
        f = self.queue.pop(0)
        return httpx.Response(f["status"], headers=f["headers"], json=f["body"])

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self.handle))

    def bodies(self) -> list[dict]:
        return [json.loads(r.content) for r in self.requests]


def tool_response(tool: str, tool_input: dict, input_tokens: int = 500,
                  output_tokens: int = 100) -> dict:
    """A 200 response of the recorded shape carrying one tool call (for inputs that depend
    on ids a test generates)."""
    base = fixture("summary_ok")
    body = dict(base["body"], content=[dict(base["body"]["content"][0], name=tool,
                                            input=tool_input)])
    body["usage"] = dict(body["usage"], input_tokens=input_tokens, output_tokens=output_tokens)
    return {"status": 200, "headers": base["headers"], "body": body}


def make_model(replay: Replay, cache_folder: Path | None = None, **kw):
    from reportgen.llm.cache import ResponseCache
    from reportgen.llm.client import Model

    waits: list[float] = []
    kw.setdefault("sleep", waits.append)
    m = Model("sk-ant-test", "claude-sonnet-5-5", http_client=replay.client(),
              cache=ResponseCache(cache_folder) if cache_folder else None, **kw)
    m.waits = waits  # type: ignore[attr-defined]
    return m
