"""Read YAML and JSONL into plain values that remember their line, so every error can say where."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import yaml

from reportgen.errors import LedgerError


class LocDict(dict):
    """A mapping that knows its own line and the line of each key (1-based)."""

    line: int
    key_lines: dict[str, int]
    raw: dict[str, str]  # scalar values as written, e.g. "2.870" keeps its last place


class LocList(list):
    """A sequence that knows its own line and each item's line."""

    line: int
    item_lines: list[int]


class _Constructor(yaml.constructor.SafeConstructor):
    pass


# libyaml composes about ten times faster than the pure-Python parser and keeps the marks.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


# A claim file is four levels deep (the file, claims:, a claim, its values); far more is a
# typo, and the bound keeps building (recursive) and printing the values safe.
MAX_DEPTH = 32


class _Builder:
    """Composed YAML nodes to LocDict, LocList and plain values, refusing on the way what
    would blow up: an alias of a list or mapping (a 1 KB billion-laughs file expands to
    gigabytes, a self-alias never ends), a merge key, nesting past MAX_DEPTH."""

    def __init__(self, file: str, text: str) -> None:
        self.file, self.text, self.ctor = file, text, _Constructor()
        self.seen: set[int] = set()  # the lists and mappings built so far

    def build(self, node: yaml.Node, depth: int = 1) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)  # an alias of a plain value costs one value: allowed
        if id(node) in self.seen:
            raise _alias_error(self.text, self.file)
        self.seen.add(id(node))
        if depth > MAX_DEPTH:
            raise LedgerError(f"lists and mappings nest more than {MAX_DEPTH} levels deep here; "
                              "a claim file needs four (report file, claims, a claim, its "
                              "values): check the brackets and the indentation", self.file,
                              _line(node))
        if isinstance(node, yaml.SequenceNode):
            seq = LocList(self.build(n, depth + 1) for n in node.value)
            seq.line, seq.item_lines = _line(node), [_line(n) for n in node.value]
            return seq
        file = self.file
        out = LocDict()
        out.line, out.key_lines, out.raw = _line(node), {}, {}
        for knode, vnode in node.value:
            if knode.tag == "tag:yaml.org,2002:merge":
                raise LedgerError("YAML merge keys (<<) are not supported; write the fields out",
                                  file, _line(knode))
            key = self.build(knode, depth + 1)
            if isinstance(key, (dict, list)):
                raise LedgerError("a mapping key must be plain text", file, _line(knode))
            key = _key_text(key)
            if key in out:
                raise LedgerError(
                    f"duplicate key {key!r} (first on line {out.key_lines[key]}); keep one",
                    file, _line(knode))
            out[key] = self.build(vnode, depth + 1)
            out.key_lines[key] = _line(knode)
            if isinstance(vnode, yaml.ScalarNode):
                out.raw[key] = vnode.value
        return out

    def scalar(self, node: yaml.ScalarNode) -> Any:
        try:
            value = self.ctor.construct_object(node)
        except (ValueError, OverflowError) as e:  # 2025-13-45, an integer of 5,000 digits
            shown = node.value if len(node.value) <= 40 else node.value[:37] + "..."
            why = str(e).split(";")[0]  # Python's own advice after ';' is not for the analyst
            raise LedgerError(f"cannot read the value {shown!r} ({why}); quote it to keep it as "
                              "text, or write a valid date or number", self.file,
                              _line(node)) from None
        if isinstance(value, (dt.date, dt.datetime)):
            return value.isoformat()
        return value


def _alias_error(text: str, file: str) -> LedgerError:
    """The first alias of a list or mapping, at its own line (a node only knows its anchor's)."""
    anchored: dict[str, str] = {}
    for ev in yaml.parse(text, Loader=_LOADER):
        if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)) and ev.anchor:
            anchored[ev.anchor] = "mapping" if isinstance(ev, yaml.MappingStartEvent) else "list"
        elif isinstance(ev, yaml.ScalarEvent) and ev.anchor:
            anchored.pop(ev.anchor, None)
        elif isinstance(ev, yaml.AliasEvent) and ev.anchor in anchored:
            return LedgerError(
                f"YAML alias *{ev.anchor} repeats a {anchored[ev.anchor]}; claim files refuse "
                "aliases of lists and mappings (a few lines of them can expand to billions of "
                "values): write it out", file, ev.start_mark.line + 1)
    return LedgerError("a YAML alias repeats a list or mapping; write it out", file, 1)


def _key_text(key: Any) -> str:
    if key is None:
        return "null"
    if isinstance(key, bool):
        return str(key).lower()
    return str(key)


def read_text(path: Path) -> str:
    """A claim file as text; undecodable bytes or an unreadable file become a LedgerError."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise LedgerError(f"not UTF-8 text ({e.reason} at byte {e.start}); save the file as UTF-8",
                          str(path), 1) from None
    except OSError as e:
        raise LedgerError(f"cannot read the file: {e.strerror}", str(path)) from None


def load_yaml(path: Path) -> Any:
    """Parse one YAML file; a syntax error becomes a LedgerError at its line."""
    file = str(path)
    text = read_text(path)
    try:
        docs = list(yaml.compose_all(text, Loader=_LOADER))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        tab = _tab_near(text, mark.line if mark else 0)
        if tab is not None:
            raise LedgerError(f"YAML syntax error: a tab at column {tab[1]}; YAML indents with "
                              "spaces only: replace the tab with spaces", file, tab[0]) from None
        what = " ".join(x for x in (e.context, e.problem) if x) or "invalid YAML"
        raise LedgerError(f"YAML syntax error: {what}; check indentation and quoting",
                          file, (mark.line + 1) if mark else 1) from None
    except yaml.YAMLError as e:
        raise LedgerError(f"YAML error: {e}", file, 1) from None
    if len(docs) > 1:
        raise LedgerError("more than one YAML document (---) in a report file; keep one", file, 1)
    if not docs or docs[0] is None:
        return None
    try:
        return _Builder(file, text).build(docs[0])
    except yaml.constructor.ConstructorError as e:
        mark = e.problem_mark or e.context_mark
        raise LedgerError(f"YAML error: {e.problem}", file, (mark.line + 1) if mark else 1) from None


def _tab_near(text: str, line: int) -> tuple[int, int] | None:
    """(line, column), 1-based, of a tab in the indentation of the line where the parser
    stopped or the line before it: the cause of the syntax error, which the parser's own
    words ("found character that cannot start any token") do not name."""
    lines = text.splitlines()
    for n in (line, line - 1):
        if 0 <= n < len(lines):
            indent = lines[n][:len(lines[n]) - len(lines[n].lstrip(" \t"))]
            if "\t" in indent:
                return n + 1, indent.index("\t") + 1
    return None


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """JSON objects, refusing a key given twice (json.loads would keep the last silently)."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


class _Written(float):
    """A JSON number that keeps its text, so 2.870 keeps its last place and 0.30000000000000001
    is not read as 0.3."""

    text: str

    @classmethod
    def of(cls, text: str) -> float:
        f = cls(text)
        f.text = text
        return f


def _plain(v: Any) -> Any:
    return float(v) if isinstance(v, _Written) else v


def _located(obj: dict[str, Any], line: int) -> LocDict:
    """A JSON object as a LocDict on its line, its numbers' texts in raw."""
    d = LocDict((k, _plain(v)) for k, v in obj.items())
    d.line, d.key_lines = line, {k: line for k in obj}
    d.raw = {k: getattr(v, "text", None) or json.dumps(v) for k, v in obj.items()
             if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return d


def load_jsonl(path: Path) -> list[tuple[int, Any]]:
    """Parse a JSONL file into (line, object) pairs; blank lines are skipped."""
    file = str(path)
    out: list[tuple[int, Any]] = []
    problems: list[LedgerError] = []
    text = read_text(path).removeprefix("\ufeff")  # a byte-order mark some editors write
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, object_pairs_hook=_unique_keys, parse_float=_Written.of)
        except json.JSONDecodeError as e:
            problems.append(LedgerError(
                f"invalid JSON at column {e.colno}: {e.msg}; each line must be one JSON object",
                file, n))
            continue
        except _DuplicateKey as e:
            problems.append(LedgerError(f"duplicate key {e.args[0]!r}; keep one", file, n))
            continue
        except (ValueError, RecursionError) as e:  # 5,000-digit integers, nesting too deep
            why = "nested too deep" if isinstance(e, RecursionError) else str(e).split(";")[0]
            problems.append(LedgerError(
                f"invalid JSON ({why}); each line must be one JSON object of ordinary size",
                file, n))
            continue
        if isinstance(obj, dict):
            obj = _located(obj, n)
            for k, v in obj.items():
                if isinstance(v, list):
                    seq = LocList(_plain(x) for x in v)
                    seq.line, seq.item_lines = n, [n] * len(v)
                    obj[k] = seq
                elif isinstance(v, dict):  # values: {amount: 6928853013.03}
                    obj[k] = _located(v, n)
        out.append((n, obj))
    if problems:
        from reportgen.errors import LedgerErrors
        raise LedgerErrors(problems)
    return out
