"""schema.yaml and entities.yaml (graph.md section 1): read with their lines, checked, and
described as JSON Schemas from the same rules, so the loader and editors cannot drift."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportgen.errors import LedgerError, did_you_mean

TYPE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
RELATION_RE = re.compile(r"[a-z][a-z0-9_]*\Z")  # snake_case
QUALIFIER_RE = RELATION_RE
ENTITY_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
SCHEMA_FILES = ("schema.yaml", "schema.yml")
ENTITY_FILES = ("entities.yaml", "entities.yml")
VOCAB_FILES = SCHEMA_FILES + ENTITY_FILES

RELATION_FIELDS = ("from", "to", "qualifiers", "symmetric", "description")
ENTITY_FIELDS = ("name", "type", "aliases", "docs", "description")


@dataclass(frozen=True)
class Relation:
    name: str
    source: tuple[str, ...]  # allowed entity types of `from` (empty: any)
    target: tuple[str, ...]
    qualifiers: tuple[str, ...]
    symmetric: bool
    file: str
    line: int


@dataclass(frozen=True)
class Schema:
    """The declared vocabulary; `None` of it means any snake_case relation is accepted."""

    entity_types: dict[str, str]
    relations: dict[str, Relation]
    file: str


@dataclass(frozen=True)
class EntityDecl:
    """One entity as declared in entities.yaml or a report's `entities:` list."""

    id: str
    name: str
    type: str | None
    aliases: tuple[str, ...]
    docs: tuple[str, ...]
    file: str
    line: int
    description: str = ""


@dataclass
class Vocabulary:
    schema: Schema | None = None
    entities: list[EntityDecl] = field(default_factory=list)
    entities_file: str | None = None  # entities.yaml when it exists
    problems: list[LedgerError] = field(default_factory=list)


def _line(obj: Any, key: str | None, default: int) -> int:
    from reportgen.ledger.shape import line_of
    return line_of(obj, key, default)


def _text(v: Any) -> str | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return str(v)
    return v.strip() if isinstance(v, str) and v.strip() else None


def _names(v: Any) -> list[str] | None:
    if v is None:
        return []
    if isinstance(v, (str, int)) and not isinstance(v, bool):
        v = [v]
    if not isinstance(v, list):
        return None
    out = [_text(x) for x in v]
    return None if any(x is None for x in out) else out  # type: ignore[misc]


def _read(path: Path, problems: list[LedgerError], top: str) -> Any:
    from reportgen.ledger.source import load_yaml

    try:
        data = load_yaml(path)
    except LedgerError as e:
        problems.append(e)
        return None
    file = str(path)
    if data is None:
        return None
    if not isinstance(data, dict):
        problems.append(LedgerError(f"{path.name} must be a mapping with `{top}:`", file, 1))
        return None
    return data


def load_schema(path: Path, problems: list[LedgerError]) -> Schema | None:
    """schema.yaml; every problem goes into `problems` with its line."""
    file = str(path)
    data = _read(path, problems, "entity_types")
    if data is None:
        return None

    def add(msg: str, line: int) -> None:
        problems.append(LedgerError(msg, file, line))

    for key in data:
        if key not in ("entity_types", "relations"):
            add(f"unknown top-level key {key!r}{did_you_mean(str(key), ['entity_types', 'relations'])}"
                "; schema.yaml holds entity_types: and relations:", _line(data, key, 1))
    types: dict[str, str] = {}
    raw_types = data.get("entity_types") or {}
    if not isinstance(raw_types, dict):
        add("entity_types must be a mapping of type name to a description, e.g. "
            "`Company: a legal entity`", _line(data, "entity_types", 1))
        raw_types = {}
    for name, desc in raw_types.items():
        if not TYPE_RE.match(name):
            add(f"entity type {name!r} must be a name such as Company (letters, digits, _)",
                _line(raw_types, name, 1))
            continue
        types[name] = _text(desc) or ""
    relations: dict[str, Relation] = {}
    raw_rel = data.get("relations") or {}
    if not isinstance(raw_rel, dict):
        add("relations must be a mapping of relation name to {from, to, qualifiers}",
            _line(data, "relations", 1))
        raw_rel = {}
    for name, spec in raw_rel.items():
        line = _line(raw_rel, name, 1)
        if not RELATION_RE.match(name):
            add(f"relation {name!r} must be snake_case (a-z, 0-9, _), e.g. buys_from", line)
            continue
        spec = spec if spec is not None else {}
        if not isinstance(spec, dict):
            add(f"relation {name}: must be a mapping such as {{from: Company, to: Company}}", line)
            continue
        _unknown_fields(f"relation {name}", spec, RELATION_FIELDS, line, add)
        ends: dict[str, tuple[str, ...]] = {}
        for end in ("from", "to"):
            got = _names(spec.get(end))
            if got is None:
                add(f"relation {name}: {end} must be an entity type or a list of them",
                    _line(spec, end, line))
                got = []
            for t in got:
                if t not in types:
                    add(f"relation {name}: {end} type {t!r} is not declared in entity_types"
                        f"{did_you_mean(t, types)}", _line(spec, end, line))
            ends[end] = tuple(t for t in got if t in types)
        quals = _names(spec.get("qualifiers"))
        if quals is None or not all(QUALIFIER_RE.match(q) for q in quals):
            add(f"relation {name}: qualifiers must be a list of snake_case names, e.g. "
                "[amount, share]", _line(spec, "qualifiers", line))
            quals = []
        sym = spec.get("symmetric", False)
        if not isinstance(sym, bool):
            add(f"relation {name}: symmetric must be true or false", _line(spec, "symmetric", line))
            sym = False
        relations[name] = Relation(name, ends["from"], ends["to"], tuple(quals), sym, file, line)
    return Schema(types, relations, file)


def load_entities(path: Path, schema: Schema | None, documents: set[str],
                  problems: list[LedgerError]) -> list[EntityDecl]:
    """entities.yaml's entities in file order, each checked against the schema's types and
    the ledger's documents."""
    from reportgen.ledger.fields import as_id

    file = str(path)
    data = _read(path, problems, "entities")
    if data is None:
        return []

    def add(msg: str, line: int) -> None:
        problems.append(LedgerError(msg, file, line))

    for key in data:
        if key != "entities":
            add(f"unknown top-level key {key!r}; entities.yaml holds one `entities:` mapping",
                _line(data, key, 1))
    raw = data.get("entities") or {}
    if not isinstance(raw, dict):
        add("entities must be a mapping of entity id to {name, type, aliases, docs}",
            _line(data, "entities", 1))
        return []
    out: list[EntityDecl] = []
    for eid, spec in raw.items():
        line = _line(raw, eid, 1)
        if not ENTITY_ID_RE.match(eid):
            add(f"entity id {eid!r} must match [A-Za-z0-9][A-Za-z0-9._-]* (the name may be in "
                "any script: put it under name:)", line)
            continue
        if not isinstance(spec, dict):
            add(f"entity {eid}: must be a mapping with name, type, aliases, docs", line)
            continue
        _unknown_fields(f"entity {eid}", spec, ENTITY_FIELDS, line, add)
        name = _text(spec.get("name"))
        if name is None:
            add(f"entity {eid}: missing name (the name it is best known by)", line)
            continue
        etype = _text(spec.get("type"))
        if etype is not None and schema is not None and etype not in schema.entity_types:
            add(f"entity {eid}: type {etype!r} is not declared in schema.yaml"
                f"{did_you_mean(etype, schema.entity_types)}", _line(spec, "type", line))
        aliases = _names(spec.get("aliases"))
        if aliases is None:
            add(f"entity {eid}: aliases must be a list of names", _line(spec, "aliases", line))
            aliases = []
        docs_raw = spec.get("docs") or []
        docs: list[str] = []
        if not isinstance(docs_raw, list):
            docs_raw = [docs_raw]
        for d in docs_raw:
            did = as_id(d)
            if did is None or did not in documents:
                add(f"entity {eid}: docs names {d!r}, which is not a document of the ledger"
                    f"{did_you_mean(str(d), documents)}", _line(spec, "docs", line))
                continue
            docs.append(did)
        out.append(EntityDecl(eid, name, etype, tuple(aliases), tuple(docs), file, line,
                              _text(spec.get("description")) or ""))
    return out


def load_vocabulary(root: Path, documents: set[str]) -> Vocabulary:
    """schema.yaml and entities.yaml from the ledger folder (both optional)."""
    voc = Vocabulary()
    for name in SCHEMA_FILES:
        if (root / name).is_file():
            voc.schema = load_schema(root / name, voc.problems)
            break
    for name in ENTITY_FILES:
        if (root / name).is_file():
            voc.entities_file = str(root / name)
            voc.entities = load_entities(root / name, voc.schema, documents, voc.problems)
            break
    return voc


# ---- JSON Schemas ----------------------------------------------------------------------

def _names_schema() -> dict[str, Any]:
    return {"type": "array", "items": {"type": ["string", "integer"]}}


def vocabulary_schemas() -> dict[str, dict[str, Any]]:
    """JSON Schemas of schema.yaml and entities.yaml, for yaml-language-server."""
    one_or_many = {"oneOf": [{"type": "string", "pattern": TYPE_RE.pattern.replace("\\Z", "$")},
                             {"type": "array", "items": {"type": "string"}}]}
    relation = {"type": ["object", "null"], "additionalProperties": False, "properties": {
        "from": one_or_many, "to": one_or_many,
        "qualifiers": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}},
        "symmetric": {"type": "boolean"}, "description": {"type": "string"}}}
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "reportgen-schema.schema.json",
        "title": "reportgen schema.yaml",
        "description": "Entity types and the relations allowed between them (graph.md section 1).",
        "type": "object", "additionalProperties": False,
        "properties": {
            "entity_types": {"type": "object",
                             "propertyNames": {"pattern": "^[A-Za-z][A-Za-z0-9_]*$"},
                             "additionalProperties": {"type": ["string", "null"]}},
            "relations": {"type": "object",
                          "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
                          "additionalProperties": relation}}}
    entity = {"type": "object", "additionalProperties": False, "required": ["name"],
              "properties": {"name": {"type": ["string", "integer"]},
                             "type": {"type": "string"}, "aliases": _names_schema(),
                             "docs": _names_schema(), "description": {"type": "string"}}}
    entities = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "reportgen-entities.schema.json",
        "title": "reportgen entities.yaml",
        "description": "Entities with their names, aliases and own filings (graph.md section 1).",
        "type": "object", "additionalProperties": False,
        "properties": {"entities": {"type": "object",
                                    "propertyNames": {"pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*$"},
                                    "additionalProperties": entity}}}
    return {"schema": schema, "entities": entities}


def schema_file_text(which: str) -> str:
    """The shipped JSON Schema file of `which` (schema or entities), as committed."""
    return json.dumps(vocabulary_schemas()[which], indent=2, ensure_ascii=False) + "\n"


def _unknown_fields(what: str, spec: dict, known, line: int | None, add) -> None:
    """Each field of `spec` that is not declared, at its own line, with the closest name."""
    for key in spec:
        if key not in known:
            add(f"{what}: unknown field {key!r}{did_you_mean(str(key), known)}",
                _line(spec, key, line))
