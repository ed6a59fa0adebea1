"""The live preview's state: rebuild with the one build call, keep the last good site, and
tell waiting pages what happened (a reload, or the problems to show over the page).

Rebuilding is incremental where it costs: the verdict cache (reportgen.verify.cache)
re-checks only the quotes that changed, the crop cache renders only new crops, and the
template helper forks from a process that already compiled the templates.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportgen.errors import LedgerErrors, ReportgenError, display_path
from reportgen.model import Fact, Verification

CLAIM_SUFFIXES = (".yaml", ".yml", ".jsonl")


@dataclass(frozen=True)
class Problem:
    """One thing to fix, with the place to fix it."""

    file: str | None
    line: int | None
    message: str

    @property
    def where(self) -> str:
        if self.file is None:
            return ""
        return f"{display_path(self.file)}:{self.line}" if self.line else display_path(self.file)

    def as_dict(self) -> dict[str, Any]:
        return {"where": self.where, "message": self.message}


def error_problems(e: ReportgenError) -> list[Problem]:
    """Every problem a typed error carries (LedgerErrors holds many)."""
    if isinstance(e, LedgerErrors):
        return [q for p in e.problems for q in error_problems(p)]
    return [Problem(e.file, e.line, e.message)]


def verdict_problems(v: Verification) -> list[Problem]:
    """Each ledger error, miss, mismatch or invalid inference, at the place it is written
    (a ledger error no longer stops the run: it comes with the other verdicts)."""
    out = [q for p in v.problems for q in error_problems(p)]
    for cid, r in v.results.items():
        if r.status in ("hit", "ok", "valid"):
            continue
        c = v.ledger.claims[cid]
        head = {"miss": "MISS", "mismatch": "MISMATCH", "invalid": "INVALID"}[r.status]
        where = f" {c.doc} p.{c.page}" if isinstance(c, Fact) else ""
        out.append(Problem(c.loc.file, c.loc.line, f"{head} {cid}{where}: {r.message}"))
    return out


@dataclass
class State:
    """What the last rebuild found; `generation` grows with every rebuild."""

    generation: int = 0
    ok: bool = False
    problems: list[Problem] = field(default_factory=list)
    lines: tuple[str, ...] = ()
    seconds: float = 0.0
    changed: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"generation": self.generation, "ok": self.ok,
                "problems": [p.as_dict() for p in self.problems], "lines": list(self.lines),
                "seconds": round(self.seconds, 4)}


class Preview:
    """Build, remember the outcome, wake whoever waits for the next one."""

    def __init__(self, paths: Sequence[Path], out: Path, templates: Path | None = None,
                 allow_outside: bool = False) -> None:
        from reportgen.site.build import site_folder

        self.paths = [Path(p) for p in paths]
        self.out = site_folder(out)
        self.templates = templates
        self.allow_outside = allow_outside
        self.state = State()
        self.documents: dict[str, Path] = {}  # doc id -> resolved path, from the last load
        self._cond = threading.Condition()
        self._build_lock = threading.Lock()

    def warm(self) -> None:
        """Compile the templates and render the pages once here (into a throwaway folder),
        so every build's forked template helper starts with all of it done: a first render
        in a fresh process costs four times a later one."""
        import tempfile

        from reportgen.render.pages import warm_up
        from reportgen.site.write import (default_cache_dir, render_standalone,
                                          site_pdf_names, write_pages)
        from reportgen.verify.run import verify

        bytecode = default_cache_dir(self.out).parent / "jinja"
        try:
            warm_up(self.templates, bytecode)
            v = verify(self.paths, allow_outside=self.allow_outside)
            with tempfile.TemporaryDirectory() as tmp:
                args = (v, Path(tmp), self.templates, site_pdf_names(v), {}, bytecode)
                write_pages(*args)
                render_standalone(*args)
        except Exception:  # noqa: BLE001 - only a head start; the build reports the problem
            pass

    def rebuild(self, changed: Iterable[str] = ()) -> State:
        """One build; on any problem the previous site stays and the problems are listed."""
        from reportgen.site.build import build

        with self._build_lock:
            t0 = time.perf_counter()
            try:
                r = build(self.paths, self.out, templates=self.templates,
                          allow_outside=self.allow_outside)
            except ReportgenError as e:
                ok, problems, lines = False, error_problems(e), ()
            except OSError as e:  # a folder the build could not write: say which, go on
                ok, lines = False, ()
                problems = [Problem(os.fsdecode(e.filename) if e.filename is not None else None,
                                    None, e.strerror or str(e))]
            else:
                ok, lines = r.ok, r.lines
                problems = [] if r.ok or r.verification is None else \
                    verdict_problems(r.verification)
                if r.verification is not None:
                    self.documents = {d: Path(doc.path) for d, doc in
                                      r.verification.ledger.documents.items()}
            with self._cond:
                self.state = State(self.state.generation + 1, ok, problems, tuple(lines),
                                   time.perf_counter() - t0, tuple(sorted(changed)))
                self._cond.notify_all()
            return self.state

    def wait(self, after: int, timeout: float) -> State:
        """The state once its generation passes `after` (or the current one on timeout)."""
        with self._cond:
            self._cond.wait_for(lambda: self.state.generation > after, timeout)
            return self.state

    # ---- what to watch ----------------------------------------------------------------

    def ledger_folders(self) -> list[Path]:
        return sorted({(p if p.is_dir() else p.parent).resolve() for p in self.paths})

    def template_folders(self) -> list[Path]:
        from reportgen.render.paths import default_templates

        out = [Path(default_templates()).resolve()]
        if self.templates is not None:
            out.append(Path(self.templates).resolve())
        return out

    def watched(self) -> list[Path]:
        """Folders to watch: the ledger's, its documents', the templates'."""
        folders = set(self.ledger_folders()) | set(self.template_folders())
        folders |= {p.parent for p in self.documents.values()}
        # a folder inside another watched one is covered by the recursive watch
        return sorted(f for f in folders if f.is_dir()
                      and not any(g != f and g in f.parents for g in folders))

    def relevant(self, path: str) -> bool:
        """A claim file, a document or a template; never the site or the state folder."""
        p = Path(os.path.abspath(path))
        if p == self.out or self.out in p.parents or ".reportgen" in p.parts:
            return False
        if any(t == p or t in p.parents for t in self.template_folders()):
            return True
        if p in set(self.documents.values()) or p.suffix.lower() == ".pdf":
            return True
        return p.suffix.lower() in CLAIM_SUFFIXES and any(
            f == p.parent for f in self.ledger_folders())


def watch(preview: Preview, stop: threading.Event, step_ms: int = 10) -> None:
    """Rebuild on every relevant change until `stop` is set (watchfiles: inotify where the
    system has it). The watch restarts when the set of documents moves to other folders."""
    import watchfiles

    while not stop.is_set():
        folders = preview.watched()
        for changes in watchfiles.watch(*folders, stop_event=stop, step=step_ms,
                                        debounce=1600, rust_timeout=500,
                                        yield_on_timeout=True, raise_interrupt=False):
            paths = {p for _, p in changes if preview.relevant(p)}
            if paths:
                preview.rebuild(paths)
                if preview.watched() != folders:
                    break
            if stop.is_set():
                return
