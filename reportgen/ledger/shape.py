"""Shape checks shared by the loader and the cross-reference pass: one message style."""

from __future__ import annotations

from typing import Any

from reportgen.errors import LedgerError, did_you_mean
from reportgen.ledger import fields as F
from reportgen.ledger.source import LocDict


class Collector:
    """Accumulates problems; each check adds a line and moves on."""

    def __init__(self) -> None:
        self.problems: list[LedgerError] = []

    def add(self, message: str, file: str, line: int | None) -> None:
        self.problems.append(LedgerError(message, file, line))


def line_of(obj: Any, key: str | None, default: int) -> int:
    """The line of `key` in a mapping (or of the value itself); JSONL values know only theirs."""
    if key is not None and isinstance(obj, LocDict) and hasattr(obj, "key_lines"):
        return obj.key_lines.get(key, getattr(obj, "line", default))
    return getattr(obj, "line", default)


def item_line(seq: Any, i: int, default: int) -> int:
    """The line of a list item, so a bad basis entry points at its own line."""
    lines = getattr(seq, "item_lines", None)
    return lines[i] if lines and i < len(lines) else default


def check_fields(obj: Any, table: dict[str, tuple[str, bool]], what: str, file: str,
                 line: int, col: Collector, extra_ok: tuple[str, ...] = ()) -> bool:
    """Shape checks shared by every object; True when the required fields are usable."""
    if not isinstance(obj, dict):
        col.add(f"{what} must be a mapping of field: value", file, line)
        return False
    ok = True
    bad_optional: list[str] = []
    for key in obj:
        if key not in table and key not in extra_ok:
            names = sorted(set(table) | set(extra_ok))
            col.add(f"unknown field {key!r} in {what}; known fields: " + ", ".join(names)
                    + did_you_mean(key, names), file, line_of(obj, key, line))
    for key, (kind, required) in table.items():
        if key not in obj or obj[key] is None:
            if required:
                col.add(f"{what} is missing required field {key!r} ({F.WHAT[kind]})", file,
                        line_of(obj, None, line))
                ok = False
            continue
        problem = F.check(obj[key], kind)
        if problem:
            hint = F.read_as_number(obj[key], kind, getattr(obj, "raw", {}).get(key))
            col.add(f"{key} must be {problem}; " + (hint or f"got {show(obj[key])}"),
                    file, line_of(obj, key, line))
            if required:
                ok = False
            else:
                bad_optional.append(key)
    for key in bad_optional:  # reported above; dropped so building the claim cannot trip on it
        del obj[key]
    return ok


def show(v: Any) -> str:
    """A value as the analyst typed it, cut short so one message stays one line."""
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."
