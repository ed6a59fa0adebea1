"""Prompts as versioned files (`prompts/<name>.v<N>.md`): the system text, then a `## Tool`
section holding the tool definition as JSON. A prompt's identity (name, version and a
hash of the file) is part of every cache key, so an edited prompt never reuses an answer."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

_TOOL_RE = re.compile(r"^## Tool\s*\n+```json\n(?P<json>.*?)\n```\s*$", re.S | re.M)


@dataclass(frozen=True)
class Prompt:
    name: str  # "summary"
    version: str  # "v1"
    system: str
    tool: dict[str, Any]  # {"name", "description", "input_schema"}
    sha256: str  # of the file's bytes

    @property
    def id(self) -> str:
        return f"{self.name}.{self.version}"

    def check(self, value: Any) -> list[str]:
        """The ways a tool call's input breaks the tool's schema (empty when it fits)."""
        return schema_problems(self.tool["input_schema"], value, "input")


def parse_prompt(name: str, version: str, text: str) -> Prompt:
    """A prompt file's text as a Prompt; a file without its tool section is a bug."""
    m = _TOOL_RE.search(text)
    if m is None:
        raise ValueError(f"prompt {name}.{version} has no '## Tool' section with a JSON block")
    tool = json.loads(m.group("json"))
    system = text[:m.start()].strip()
    return Prompt(name, version, system, tool, hashlib.sha256(text.encode("utf-8")).hexdigest())


def load_prompt(name: str, version: str = "v1") -> Prompt:
    """The prompt file shipped in reportgen/llm/prompts/."""
    text = resources.files("reportgen.llm").joinpath("prompts", f"{name}.{version}.md") \
        .read_text(encoding="utf-8")
    return parse_prompt(name, version, text)


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def schema_problems(schema: dict[str, Any], value: Any, where: str) -> list[str]:
    """The subset of JSON Schema the tools use (type, properties, required, items, enum,
    minimum, maximum, additionalProperties false): jsonschema is a test dependency only,
    and these few rules are all a tool's input needs."""
    t = schema.get("type")
    if t in ("integer", "number"):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) \
            and (t == "number" or float(value).is_integer())
        if not ok:
            return [f"{where} must be an {t}, got {type(value).__name__}"]
        if "minimum" in schema and value < schema["minimum"]:
            return [f"{where} must be at least {schema['minimum']}"]
        if "maximum" in schema and value > schema["maximum"]:
            return [f"{where} must be at most {schema['maximum']}"]
        return []
    if t is not None and not isinstance(value, _TYPES[t]):
        return [f"{where} must be {'an' if t[0] in 'aeiou' else 'a'} {t}, "
                f"got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where} must be one of {schema['enum']}"]
    out: list[str] = []
    if t == "object":
        props = schema.get("properties", {})
        out += [f"{where}.{k} is missing" for k in schema.get("required", ()) if k not in value]
        if schema.get("additionalProperties") is False:
            out += [f"{where}.{k} is not a field of the tool" for k in value if k not in props]
        for k, sub in props.items():
            if k in value:
                out += schema_problems(sub, value[k], f"{where}.{k}")
    elif t == "array":
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"{where} must hold at least {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += schema_problems(schema["items"], item, f"{where}[{i}]")
    return out
