"""The tool table: each tool's description, its arguments as JSON Schema (what the client
is shown) and the check of a call's arguments against the same schema (what the server
enforces), so the bounds an agent reads are the bounds it gets.

Every bad argument, whatever is wrong with it (type, range, length, an unknown name), is
an INVALID_ARGUMENT error that names the argument and the allowed range.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reportgen.agent.errors import INVALID_ARGUMENT, ToolError

MAX_QUERY = 2000  # characters of a query, question or quote
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"  # ledger.md section 1
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
RELATION_PATTERN = r"^[a-z][a-z0-9_]*$"

_TEXT = {"type": "string", "minLength": 1, "maxLength": MAX_QUERY}
_ID = {"type": "string", "minLength": 1, "maxLength": 128, "pattern": ID_PATTERN}


@dataclass(frozen=True)
class Tool:
    """One tool: its name, what it is for, its arguments and which it requires."""

    name: str
    description: str
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    read_only: bool = True

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema shown to clients in `tools/list`."""
        return {"type": "object", "properties": {k: dict(v) for k, v in self.params.items()},
                "required": list(self.required), "additionalProperties": False}

    def check(self, args: Mapping[str, Any] | None) -> dict[str, Any]:
        """The arguments with defaults filled in; ToolError(INVALID_ARGUMENT) on any breach."""
        args = dict(args or {})
        unknown = sorted(set(args) - set(self.params))
        if unknown:
            raise ToolError(INVALID_ARGUMENT, f"{self.name} takes no argument "
                            f"{', '.join(map(repr, unknown))}; its arguments are: "
                            f"{', '.join(self.params) or 'none'}")
        out: dict[str, Any] = {}
        for name, schema in self.params.items():
            if name not in args or args[name] is None:
                if name in self.required:
                    raise ToolError(INVALID_ARGUMENT, f"{self.name}: `{name}` is required")
                out[name] = schema.get("default")
                continue
            out[name] = check_value(f"{self.name}: `{name}`", args[name], schema)
        return out


def check_value(what: str, value: Any, schema: Mapping[str, Any]) -> Any:
    """One argument against its schema (the subset of JSON Schema the table uses)."""
    kind = schema["type"]
    if kind == "string":
        if not isinstance(value, str):
            raise ToolError(INVALID_ARGUMENT, f"{what} must be a string, not {_json_type(value)}")
        if not value.strip():
            raise ToolError(INVALID_ARGUMENT, f"{what} is empty")
        if len(value) > schema.get("maxLength", len(value)):
            raise ToolError(INVALID_ARGUMENT, f"{what} has {len(value):,} characters; at most "
                            f"{schema['maxLength']:,} are allowed")
        pattern = schema.get("pattern")
        if pattern and not re.match(pattern, value):
            raise ToolError(INVALID_ARGUMENT, f"{what} {value[:80]!r} does not match {pattern}")
        return value
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise ToolError(INVALID_ARGUMENT,
                                f"{what} must be a whole number, not {_json_type(value)}")
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ToolError(INVALID_ARGUMENT, f"{what} is {value}; it must be from {lo} to {hi}")
        return value
    if kind == "array":
        if not isinstance(value, list):
            raise ToolError(INVALID_ARGUMENT, f"{what} must be a list, not {_json_type(value)}")
        if len(value) > schema.get("maxItems", len(value)):
            raise ToolError(INVALID_ARGUMENT, f"{what} has {len(value)} items; at most "
                            f"{schema['maxItems']} are allowed")
        return [check_value(f"{what}[{i}]", v, schema["items"]) for i, v in enumerate(value)]
    raise AssertionError(kind)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _int(lo: int, hi: int, default: int | None, doc: str) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "integer", "minimum": lo, "maximum": hi, "description": doc}
    if default is not None:
        out["default"] = default
    return out


TOOLS: tuple[Tool, ...] = (
    Tool("find_evidence",
         "Search the PDFs of the ledger (the evidence index) for a query; each result gives "
         "the document, page, box, the sentence or table row that matches best (quotable "
         "as a fact's quote) and each search channel's rank.",
         {"query": {**_TEXT, "description": "words, a figure or a name; Chinese and English"},
          "doc": {**_ID, "description": "search only this document id"},
          "k": _int(1, 50, 5, "how many results")},
         required=("query",)),
    Tool("verify_quote",
         "Check a quote against a page of a ledger document by the anchor rule (exact, then "
         "the normalised methods; never fuzzy): a hit gives pageEnd, the box and the "
         "anchorMethod; a miss says why and where the quote does occur.",
         {"doc": {**_ID, "description": "a document id of the ledger"},
          "page": _int(1, 100_000, None, "the 1-based page index a PDF viewer shows"),
          "quote": {**_TEXT, "description": "the text as it stands in the PDF"}},
         required=("doc", "page", "quote")),
    Tool("get_claim",
         "One claim of the last successful build with its verdict, as in evidence.jsonl "
         "(a fact's doc, page, pageEnd, quote, bbox, anchorMethod, sha256; a calc's "
         "formula and computed value; basis, confidence, note).",
         {"id": {**_ID, "description": "a claim id, e.g. s2-4"}}, required=("id",)),
    Tool("list_reports",
         "The reports of the last successful build with their titles and counts (facts, "
         "hits, calcs, inferences, edges, gaps)."),
    Tool("submit_build_job",
         "Verify the ledger and rebuild the site in the background; returns a job id. "
         "Queries keep answering from the last successful build until the new one is in "
         "place.", read_only=False),
    Tool("get_build_job",
         "The state of a build job (queued, running, succeeded, failed) with its verdict "
         "lines and, when it failed, why.",
         {"job_id": {"type": "string", "minLength": 1, "maxLength": 32,
                     "pattern": r"^job-[0-9]+$", "description": "as submit_build_job gave it"}},
         required=("job_id",)),
    Tool("query_graph",
         "Answer a question from the entity graph of the last successful build: the paths "
         "between the entities it names (or one entity's neighbourhood), every hop with "
         "its evidence (doc, page, quote, bbox, verified now) or its gap reason. Unbound "
         "or ambiguous names come back with candidates; pass their ids in `from`.",
         {"question": {**_TEXT, "description": "names companies or projects, e.g. "
                                               "'Who supplies Sungrow?'"},
          "from": {"type": "array", "maxItems": 5, "items": _ID,
                   "description": "entity ids to start from, picked by hand"},
          "hops": _int(1, 6, 2, "hop budget"),
          "fanout": _int(1, 100, 20, "edges expanded at each entity (what is cut is counted)"),
          "relations": {"type": "array", "maxItems": 20,
                        "items": {"type": "string", "minLength": 1, "maxLength": 64,
                                  "pattern": RELATION_PATTERN},
                        "description": "follow only these relations"},
          "as_of": {"type": "string", "minLength": 10, "maxLength": 10,
                    "pattern": DATE_PATTERN,
                    "description": "YYYY-MM-DD: edges whose valid_to is earlier are flagged "
                                   "expired"},
          "limit": _int(1, 200, 50, "paths at most (what is cut is counted)")},
         required=("question",)),
    Tool("query_graph_global",
         "Answer a broad question from the summaries of the graph's communities at a "
         "level: every sentence cites facts that hit. Uses the model when the server has "
         "ANTHROPIC_API_KEY, the lexical channels and extractive summaries otherwise.",
         {"question": {**_TEXT, "description": "a question about the whole ledger"},
          "level": _int(0, 5, 0, "the community level (0: the coarsest)"),
          "budget": _int(500, 32_000, 8000, "input tokens for the model calls")},
         required=("question",)),
)


def tool(name: str) -> Tool | None:
    """The tool of that name, or None."""
    return next((t for t in TOOLS if t.name == name), None)
