"""One table of fields drives both the loader's checks and the JSON Schema, so they cannot drift."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import Any

ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*$"
SHA_RE = re.compile(r"[0-9a-fA-F]{64}\Z")
VALUE_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
KINDS = ("fact", "calc", "inference")

# field -> (type, required). Types are checked by `check` and described by `_schema_of`.
REPORT = {"id": ("id", True), "title": ("string", True), "summary": ("string", False)}
DOCUMENT = {"file": ("string", True), "title": ("string", False), "sha256": ("sha256", False)}
SECTION = {"title": ("string", True), "body": ("string", False), "claims": ("ids", False)}
ENTITY = {"name": ("string", True), "type": ("string", False), "aliases": ("strings", False),
          "draft": ("draft", False)}
EDGE = {"from": ("string", True), "relation": ("string", True), "to": ("string", True),
        "anchors": ("ids1", False), "gap": ("string", False),
        "valid_from": ("date", False), "valid_to": ("date", False), "draft": ("draft", False)}
CLAIM = {"id": ("id", True), "kind": ("kind", True), "statement": ("string", True),
         "confidence": ("unit", False), "note": ("string", False), "draft": ("draft", False)}
BY_KIND = {
    "fact": {"doc": ("id", True), "page": ("page", True), "quote": ("string", True),
             "values": ("values", False)},
    "calc": {"basis": ("ids1", True), "formula": ("string", True), "result": ("number", True),
             "tolerance": ("nonneg", False)},
    "inference": {"basis": ("ids1", True), "confidence": ("below1", True), "note": ("string", True)},
}
TOP = {"report": "report", "documents": "documents", "sections": "sections", "claims": "claims",
       "edges": "edges", "entities": "entities"}

WHAT = {
    "id": "an id matching [A-Za-z0-9][A-Za-z0-9._-]*",
    "string": "non-empty text",
    "sha256": "64 hexadecimal characters (the file's SHA-256)",
    "ids": "a list of ids, e.g. [s2-4, s2-5]",
    "ids1": "a non-empty list of ids, e.g. [s2-4, s2-5]",
    "strings": "a list of names",
    "date": "a whole ISO date YYYY-MM-DD, such as 2025-01-01",
    "kind": "one of fact, calc, inference",
    "unit": "a number from 0 to 1",
    "below1": "a number from 0 to below 1",
    "page": "a page number from 1 (the page index a PDF viewer shows)",
    "number": "a number",
    "nonneg": "a number of 0 or more",
    "values": "a map of name to number, e.g. {amount: 6928853013.03, share: 14.59}",
    "draft": "true or false (true: drafted by `reportgen draft`, not yet reviewed)",
}


def is_number(v: Any) -> bool:
    """A finite int or float; an integer too large for a float (10**400) is not one."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def is_date(v: Any) -> bool:
    """A whole calendar date as YYYY-MM-DD: not 2025-02-30, not '2025-01-01<script>'."""
    if not isinstance(v, str) or DATE_RE.match(v) is None:
        return False
    try:
        dt.date.fromisoformat(v)
    except ValueError:
        return False
    return True


def as_id(v: Any) -> str | None:
    """Ids may be typed unquoted (300274 is read as a number); take their text."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        v = str(v)
    return v if isinstance(v, str) and ID_RE.match(v) else None


def check(value: Any, kind: str) -> str | None:
    """None when `value` fits the field type, else what was expected."""
    ok: bool
    if kind == "id":
        ok = as_id(value) is not None
    elif kind == "string":
        ok = isinstance(value, str) and value.strip() != ""
    elif kind == "sha256":
        ok = isinstance(value, str) and SHA_RE.match(value) is not None
    elif kind in ("ids", "ids1"):
        ok = isinstance(value, list) and all(as_id(x) is not None for x in value) and (
            kind == "ids" or len(value) > 0)
    elif kind == "strings":
        ok = isinstance(value, list) and all(isinstance(x, str) and x.strip() for x in value)
    elif kind == "date":
        ok = is_date(value)
    elif kind == "kind":
        ok = value in KINDS
    elif kind == "unit":
        ok = is_number(value) and 0 <= value <= 1
    elif kind == "below1":
        ok = is_number(value) and 0 <= value < 1
    elif kind == "page":
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
    elif kind == "number":
        ok = is_number(value)
    elif kind == "nonneg":
        ok = is_number(value) and value >= 0
    elif kind == "values":
        ok = isinstance(value, dict) and len(value) > 0 and all(
            isinstance(k, str) and VALUE_NAME_RE.match(k) and is_number(v)
            for k, v in value.items())
    elif kind == "draft":
        ok = isinstance(value, bool)
    else:  # pragma: no cover - a table typo
        raise ValueError(kind)
    return None if ok else WHAT[kind]


def read_as_number(value: Any, kind: str, written: str | None) -> str:
    """For text YAML read as a number (`sha256: 0xa910...` is a hexadecimal integer to
    YAML): what was written and how to keep it as text; '' otherwise."""
    if kind != "sha256" or not is_number(value) or not written:
        return ""
    digits = written[2:] if written[:2] in ("0x", "0X") else written
    if SHA_RE.match(digits) and digits != written:
        return (f"YAML read {written[:12]}... as a hexadecimal number: write the 64 "
                f"characters without 0x, in quotes: sha256: \"{digits.lower()}\"")
    shown = written if len(written) <= 12 else written[:12] + "..."
    return f"YAML read {shown} as a number: quote it: sha256: \"{written}\""


def _schema_of(kind: str) -> dict[str, Any]:
    idref = {"type": ["string", "integer"], "pattern": ID_PATTERN}
    return {
        "id": idref,
        "string": {"type": "string", "pattern": r"\S"},
        "sha256": {"type": "string", "pattern": "^[0-9a-fA-F]{64}$"},
        "ids": {"type": "array", "items": idref},
        "ids1": {"type": "array", "items": idref, "minItems": 1},
        "strings": {"type": "array", "items": {"type": "string", "pattern": r"\S"}},
        "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "format": "date"},
        "kind": {"enum": list(KINDS)},
        "unit": {"type": "number", "minimum": 0, "maximum": 1},
        "below1": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
        "page": {"type": "integer", "minimum": 1},
        "number": {"type": "number"},
        "nonneg": {"type": "number", "minimum": 0},
        "values": {"type": "object", "minProperties": 1,
                   "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                   "additionalProperties": {"type": "number"}},
        "draft": {"type": "boolean"},
    }[kind] | {"description": WHAT[kind]}


def _object(fields: dict[str, tuple[str, bool]], extra: dict | None = None) -> dict[str, Any]:
    props = {k: _schema_of(t) for k, (t, _) in fields.items()}
    props.update(extra or {})
    return {"type": "object", "additionalProperties": False, "properties": props,
            "required": [k for k, (_, req) in fields.items() if req]}


def report_schema() -> dict[str, Any]:
    """The JSON Schema of a report file (and of documents.yaml)."""
    claim_variants = []
    for kind, fields in BY_KIND.items():
        merged = dict(CLAIM) | fields
        obj = _object(merged)
        obj["properties"]["kind"] = {"const": kind}
        claim_variants.append({"if": {"properties": {"kind": {"const": kind}},
                                      "required": ["kind"]}, "then": obj})
    claim = {"type": "object", "required": list(k for k, (_, r) in CLAIM.items() if r),
             "properties": {"kind": _schema_of("kind")}, "allOf": claim_variants}
    edge = _object(EDGE)
    edge["oneOf"] = [{"required": ["anchors"], "not": {"required": ["gap"]}},
                     {"required": ["gap"], "not": {"required": ["anchors"]}}]
    documents = {"type": "object",
                 "propertyNames": {"pattern": ID_PATTERN},
                 "additionalProperties": _object(DOCUMENT)}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "reportgen-report.schema.json",
        "title": "reportgen report file",
        "description": "A report of the claim ledger, or documents.yaml (documents only).",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "report": _object(REPORT),
            "documents": documents,
            "sections": {"type": "array", "items": _object(SECTION)},
            "claims": {"type": "array", "items": claim},
            "edges": {"type": "array", "items": edge},
            "entities": {"type": "array", "items": _object(ENTITY)},
        },
        "anyOf": [{"required": ["report"]},
                  {"required": ["documents"],
                   "not": {"anyOf": [{"required": [k]} for k in
                                     ("sections", "claims", "edges", "entities")]}}],
    }


def schema_text() -> str:
    return json.dumps(report_schema(), indent=2, ensure_ascii=False) + "\n"
