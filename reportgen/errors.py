"""Typed errors that carry their location, so the CLI can print `file:line: message`."""

from __future__ import annotations

import os
from collections.abc import Iterable


def display_path(path: str | os.PathLike[str]) -> str:
    """Paths in messages are relative to the working directory when they lie below it."""
    p = os.fspath(path)
    if len(p) > 200:  # a name too long for the system: enough of it to recognise
        return f"{p[:100]}... ({len(p)} characters)"
    try:
        rel = os.path.relpath(p)
    except ValueError:
        return p
    return p if rel.startswith("..") else rel


def did_you_mean(name: object, known: Iterable[str]) -> str:
    """'; did you mean 'f1'?' naming the known name closest to a typo (the same name in
    another case, else difflib's ratio), or '' when none is close: the fix in the message."""
    import difflib

    text, names = str(name), sorted(set(known))
    same = [k for k in names if k.casefold() == text.casefold()]
    got = same or difflib.get_close_matches(text, names, n=1, cutoff=0.6)
    return f"; did you mean {got[0]!r}?" if got else ""


class ReportgenError(Exception):
    """Base of every error reportgen raises on purpose; its str() is the user's message."""

    def __init__(self, message: str, file: str | os.PathLike[str] | None = None,
                 line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = os.fspath(file) if file is not None else None
        self.line = line

    def __str__(self) -> str:
        if self.file is None:
            return self.message
        where = display_path(self.file)
        if self.line:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}"

    def __reduce__(self):  # type: ignore[override]
        """Pickle with file and line (a worker process hands its errors back whole)."""
        return (type(self), (self.message, self.file, self.line))


class LedgerError(ReportgenError):
    """A problem in a claim file: syntax, a missing field, an unknown id, a cycle."""


class DocumentError(ReportgenError):
    """A PDF that cannot serve as evidence: missing, corrupt, encrypted, pinned differently."""


class LedgerErrors(ReportgenError):
    """Every problem found in one pass, so an analyst fixes five typos in one run."""

    def __init__(self, problems: Iterable[ReportgenError]) -> None:
        self.problems = sorted(problems, key=_sort_key)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __reduce__(self):  # type: ignore[override]
        return (type(self), (self.problems,))


class BuildError(ReportgenError):
    """The site could not be written (lock held, output folder unusable)."""


def _sort_key(e: ReportgenError) -> tuple[str, int, str]:
    return (e.file or "", e.line or 0, e.message)
