"""The tools as plain functions over one ledger, fixed when the service starts: each is a
thin adapter over the library call the CLI makes (`find` -> index.finder.search, the
anchor rule -> verify.run.verify_ledger, a claim -> verify.records' record as published
in evidence.jsonl, a build -> site.build.build), with the arguments checked against the
tool table and the output capped."""

from __future__ import annotations

import difflib
import functools
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reportgen.agent.errors import (INDEX_NOT_READY, INVALID_ARGUMENT, NOT_FOUND,
                                    UPSTREAM_ERROR, ToolError, from_library)
from reportgen.errors import LedgerErrors
from reportgen.agent.jobs import BuildJobs, Snapshot
from reportgen.agent.output import cap
from reportgen.agent.tools import tool
from reportgen.model import Document, Ledger
from reportgen.site.build import BuildResult

DEFAULT_MAX_OUTPUT = 16_000  # characters of one tool result


def default_site(paths: Sequence[Path]) -> Path:
    """`site/` beside the ledger folder, where `reportgen build` run from there writes it."""
    first = Path(paths[0])
    folder = first.parent if first.is_file() else first
    return folder.resolve().parent / "site"


class Service:
    """The tools over the ledger at `paths`, building into `out`."""

    def __init__(self, paths: Sequence[Path], out: Path | None = None, *,
                 db: Path | None = None, allow_outside: bool = False,
                 max_output: int = DEFAULT_MAX_OUTPUT,
                 builder: Callable[[Sequence[Path], Path], BuildResult] | None = None) -> None:
        from reportgen.index.store import default_db
        from reportgen.site.build import build

        self.paths = [Path(os.path.abspath(p)) for p in paths]
        self.out = Path(os.path.abspath(out)) if out is not None else default_site(self.paths)
        self.db = Path(os.path.abspath(db)) if db is not None else default_db(self.paths)
        self.allow_outside = allow_outside
        self.max_output = max_output
        run = builder or functools.partial(build, allow_outside=allow_outside)
        self._summaries = threading.Lock()
        self.jobs = BuildJobs(builder=lambda: run(self.paths, self.out),
                              ledger_of=self._ledger_of, describe=_describe)

    # -- dispatch -----------------------------------------------------------------------

    def call(self, name: str, args: Mapping[str, Any] | None) -> dict[str, Any]:
        """Run one tool: the result, or ToolError with its code (a bug is INTERNAL_ERROR)."""
        t = tool(name)
        if t is None:
            raise ToolError(NOT_FOUND, f"no tool named {name!r}")
        checked = t.check(args)
        try:
            if "from" in checked:  # a Python keyword: the parameter is `starts`
                checked["starts"] = checked.pop("from")
            return getattr(self, name)(**checked)
        except Exception as e:  # noqa: BLE001 - every failure reaches the agent with a code
            raise from_library(e) from e

    def close(self) -> None:
        self.jobs.close()

    # -- the tools ----------------------------------------------------------------------

    def find_evidence(self, query: str, doc: str | None, k: int) -> dict[str, Any]:
        """`reportgen find --json`: one record per result."""
        from reportgen.index.finder import search

        hits = search(self.db, query, doc=doc, k=k, hint=self._hint())
        return cap({"query": query, "results": [h.record() for h in hits]}, self.max_output,
                   "results")

    def verify_quote(self, doc: str, page: int, quote: str) -> dict[str, Any]:
        """The verifier's verdict for a one-fact ledger over that document: the same rule,
        hints and record fields as `reportgen verify --json`."""
        from reportgen.errors import DocumentError
        from reportgen.model import Fact, Loc
        from reportgen.verify.records import claim_record, verdict_record
        from reportgen.verify.run import verify_ledger

        docs = self._documents()
        if doc not in docs:
            raise ToolError(NOT_FOUND, f"unknown document {doc!r}; the ledger's documents are: "
                            f"{', '.join(sorted(docs)) or 'none'}")
        fact = Fact("quote", "", "", None, None, Loc("verify_quote", 0), doc, page, quote)
        ledger = Ledger(self.paths[0], self.paths[0], (), {doc: docs[doc]}, {"quote": fact})
        try:
            v = verify_ledger(ledger)
            problems = list(v.problems)
        except LedgerErrors as e:
            problems = list(e.problems)
        if problems:  # a page the document does not have, or a PDF that cannot be read
            code = (UPSTREAM_ERROR if any(isinstance(p, DocumentError) for p in problems)
                    else INVALID_ARGUMENT)
            raise ToolError(code, "; ".join(p.message for p in problems))
        rec = verdict_record(claim_record(v, "quote"))
        out = {k: rec[k] for k in ("status", "doc", "page", "pageEnd", "bbox",
                                   "anchorMethod", "message")}
        out["quote"] = quote
        return cap(out, self.max_output)

    def get_claim(self, id: str) -> dict[str, Any]:  # noqa: A002 - the spec's name
        """The claim's evidence.jsonl record in the last successful build, with its verdict."""
        snap = self._snapshot()
        rec = snap.records.get(id)
        if rec is None:
            near = difflib.get_close_matches(id, list(snap.records), n=3)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise ToolError(NOT_FOUND, f"no claim {id!r} in the last successful build "
                            f"({snap.job}){hint}")
        return cap({"claim": rec, "build": snap.job}, self.max_output)

    def list_reports(self) -> dict[str, Any]:
        """The reports of the last successful build with their counts."""
        snap = self._snapshot()
        return cap({"reports": list(snap.reports), "build": snap.job, "site": str(snap.site)},
                   self.max_output, "reports")

    def query_graph(self, question: str, starts: list[str] | None, hops: int, fanout: int,
                    relations: list[str] | None, as_of: str | None,
                    limit: int) -> dict[str, Any]:
        """`reportgen query --json` over the ledger of the last successful build."""
        from reportgen.graph.query import Options, query_ledger

        snap = self._snapshot()
        opts = Options(hops=hops, fanout=fanout, relations=tuple(relations or ()),
                       as_of=as_of, limit=limit)
        try:
            ans = query_ledger(snap.ledger, question, opts, tuple(starts or ()))
        except LedgerErrors as e:  # an unknown `from` id
            raise ToolError(NOT_FOUND, "; ".join(p.message for p in e.problems)) from e
        return cap({"answer": ans.json, "build": snap.job}, self.max_output,
                   ("answer", "paths"))

    def query_graph_global(self, question: str, level: int, budget: int) -> dict[str, Any]:
        """`reportgen query --global --json`: the model answers when the server has a key,
        the lexical channels and extractive summaries otherwise."""
        from reportgen.communities.answer import ask_global
        from reportgen.communities.run import llm_cache_folder
        from reportgen.llm.client import has_key

        model = None
        if has_key():
            from reportgen.llm.client import Model

            root = self.paths[0] if self.paths[0].is_dir() else self.paths[0].parent
            model = Model.from_env(llm_cache_folder(root))
        with self._summaries:  # the kept summaries are files: one writer at a time
            ans, _ = ask_global(self.paths, question, level=level, budget=budget, model=model,
                                allow_outside=self.allow_outside)
        return cap(ans.as_dict(), self.max_output, "answer")

    def submit_build_job(self) -> dict[str, Any]:
        return self._job_record(self.jobs.submit())

    def get_build_job(self, job_id: str) -> dict[str, Any]:
        job = self.jobs.get(job_id)
        if job is None:
            raise ToolError(NOT_FOUND, f"no build job {job_id!r}; submit_build_job gives one")
        return self._job_record(job)

    # -- helpers ------------------------------------------------------------------------

    def _job_record(self, job) -> dict[str, Any]:
        snap = self.jobs.current
        return cap(job.record(snap.job if snap else None), self.max_output, "lines")

    def _snapshot(self) -> Snapshot:
        snap = self.jobs.current
        if snap is not None:
            return snap
        job = self.jobs.latest()
        if job is None:
            why = "no build has been made yet; call submit_build_job"
        elif job.state in ("queued", "running"):
            why = f"the first build ({job.id}) is {job.state}; ask get_build_job and try again"
        else:
            why = (f"no build has succeeded yet ({job.id} failed: {job.message}); fix the "
                   "ledger and call submit_build_job")
        raise ToolError(INDEX_NOT_READY, why)

    def _documents(self) -> Mapping[str, Document]:
        """The ledger's documents: the last successful build's, else the ledger read now."""
        snap = self.jobs.current
        if snap is not None:
            return snap.documents
        from reportgen.ledger import load_ledger

        return load_ledger(self.paths, allow_outside=self.allow_outside,
                           cross_check=False).documents

    def _ledger_of(self, result: BuildResult) -> Ledger:
        if result.verification is not None:
            return result.verification.ledger
        from reportgen.ledger import load_ledger  # up to date: the files are the ones built

        return load_ledger(self.paths, allow_outside=self.allow_outside)

    def _hint(self) -> str:
        from reportgen.errors import display_path

        return " ".join(display_path(p) for p in self.paths)


def _describe(e: BaseException) -> str:
    """The message of a build that raised: the library's own (file:line lines), or a bug."""
    from reportgen.errors import ReportgenError

    if isinstance(e, ReportgenError):
        return str(e)
    return f"internal error: {type(e).__name__}: {e}; this is a bug, please report it"
