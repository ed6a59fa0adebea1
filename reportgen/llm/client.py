"""The one owner of the `anthropic` client: every structured call goes through
`Model.call`, a tool call forced with `tool_choice`, answered from the response cache when
it can be, retried with backoff on 429 and 5xx, its calls and tokens counted.

The SDK's own retries are turned off (`max_retries=0`) and done here instead, so that the
wait is injectable (`sleep`, `backoff`): tests replay a 429 without waiting, and the
count of retries is ours to report.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen.llm.cache import ResponseCache, cache_key
from reportgen.llm.errors import MalformedToolCall, MissingKey, ModelError
from reportgen.llm.prompts import Prompt

if TYPE_CHECKING:
    import httpx2 as httpx

DEFAULT_MODEL = "claude-sonnet-5-5"  # a current Sonnet (the SDK lists 4-5 as deprecated)
KEY_VAR, MODEL_VAR = "ANTHROPIC_API_KEY", "REPORTGEN_MODEL"


@dataclass
class Usage:
    """What a run cost: requests sent (retries and re-asks included), answers taken from
    the cache, retries after 429/5xx, malformed tool calls, and tokens in and out."""

    calls: int = 0
    cached: int = 0
    retries: int = 0
    malformed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def line(self) -> str:
        return (f"model: {self.calls} calls ({self.cached} from cache, {self.retries} "
                f"retries, {self.malformed} malformed), {self.input_tokens} tokens in, "
                f"{self.output_tokens} tokens out")

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def default_backoff(attempt: int, retry_after: float | None = None) -> float:
    """Seconds before retry `attempt` (0-based): the server's retry-after when it gave one,
    else 1, 2, 4 ... s capped at 30, with up to a quarter taken off at random."""
    if retry_after is not None and 0 <= retry_after <= 60:
        return retry_after
    return min(30.0, 2.0 ** attempt) * (1 - 0.25 * random.random())


def model_name() -> str:
    return os.environ.get(MODEL_VAR) or DEFAULT_MODEL


def has_key() -> bool:
    return bool(os.environ.get(KEY_VAR))


class Model:
    """A configured model: the client, the cache and the usage of this run."""

    def __init__(self, api_key: str, model: str = DEFAULT_MODEL, *,
                 cache: ResponseCache | None = None,
                 http_client: httpx.Client | None = None, max_retries: int = 4,
                 malformed_retries: int = 1, max_tokens: int = 2048,
                 sleep: Callable[[float], None] = time.sleep,
                 backoff: Callable[[int, float | None], float] = default_backoff,
                 timeout: float = 120.0) -> None:
        import anthropic

        self.model = model
        self.cache = cache
        self.max_retries = max_retries
        self.malformed_retries = malformed_retries
        self.max_tokens = max_tokens
        self.sleep = sleep
        self.backoff = backoff
        self.usage = Usage()
        self._anthropic = anthropic
        self.client = anthropic.Anthropic(api_key=api_key, http_client=http_client,
                                          max_retries=0, timeout=timeout)

    @classmethod
    def from_env(cls, cache_folder: Path | None = None, **kw: Any) -> Model:
        """The model the environment names; MissingKey without ANTHROPIC_API_KEY."""
        key = os.environ.get(KEY_VAR)
        if not key:
            raise MissingKey(f"{KEY_VAR} is not set: this command calls the model; set the "
                             f"key (and {MODEL_VAR} to pick a model, default {DEFAULT_MODEL}), "
                             "or leave out the option that asks for the model")
        cache = ResponseCache(cache_folder) if cache_folder is not None else None
        return cls(key, model_name(), cache=cache, **kw)

    def key(self, prompt: Prompt, payload: Any) -> str:
        return cache_key(self.model, prompt.id, prompt.sha256, payload)

    def call(self, prompt: Prompt, payload: Any) -> dict[str, Any]:
        """The tool input the model gives for `payload` (cached, retried, checked against
        the tool's schema; a malformed call is asked again `malformed_retries` times)."""
        key = self.key(prompt, payload)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.usage.cached += 1
                return hit["input"]
        problems: list[str] = []
        for _ in range(self.malformed_retries + 1):
            msg = self._create(prompt, payload)
            got = next((b.input for b in msg.content
                        if b.type == "tool_use" and b.name == prompt.tool["name"]), None)
            problems = (["no call of the tool"] if got is None else prompt.check(got))
            if not problems:
                if self.cache is not None:
                    self.cache.put(key, {"model": self.model, "prompt": prompt.id,
                                         "input": got, "usage": {
                                             "input_tokens": msg.usage.input_tokens,
                                             "output_tokens": msg.usage.output_tokens}})
                return got
            self.usage.malformed += 1
        raise MalformedToolCall(f"the model's {prompt.tool['name']} call does not fit the "
                                f"tool ({'; '.join(problems[:3])}), also when asked again")

    def _create(self, prompt: Prompt, payload: Any) -> Any:
        """One Messages API request, retried on 429, 5xx and lost connections."""
        a = self._anthropic
        content = json.dumps(payload, ensure_ascii=False, sort_keys=True, indent=1)
        for attempt in range(self.max_retries + 1):
            self.usage.calls += 1
            try:
                msg = self.client.messages.create(
                    model=self.model, max_tokens=self.max_tokens, system=prompt.system,
                    tools=[prompt.tool],
                    tool_choice={"type": "tool", "name": prompt.tool["name"]},
                    messages=[{"role": "user", "content": content}])
            except a.APIStatusError as e:
                if e.status_code != 429 and e.status_code < 500:
                    raise ModelError(_refusal(e)) from None
                if attempt == self.max_retries:
                    raise ModelError(f"the model API answered {e.status_code} "
                                     f"{self.max_retries + 1} times; try again later") from None
                self.usage.retries += 1
                self.sleep(self.backoff(attempt, _retry_after(e.response)))
                continue
            except a.APIConnectionError as e:
                if attempt == self.max_retries:
                    raise ModelError(f"cannot reach the model API: {e}") from None
                self.usage.retries += 1
                self.sleep(self.backoff(attempt, None))
                continue
            self.usage.input_tokens += msg.usage.input_tokens
            self.usage.output_tokens += msg.usage.output_tokens
            return msg
        raise AssertionError("unreachable")


def _retry_after(response: Any) -> float | None:
    """The server's retry-after (seconds), when it sent one."""
    try:
        v = response.headers.get("retry-after")
        return float(v) if v is not None else None
    except (AttributeError, ValueError):
        return None


def _refusal(e: Any) -> str:
    """A 4xx as a sentence with the fix."""
    if e.status_code == 401:
        return "the model API refused the key (401): check ANTHROPIC_API_KEY"
    if e.status_code == 404:
        return f"the model API does not know this model (404): check {MODEL_VAR}"
    return f"the model API refused the request ({e.status_code}): {e.message}"
