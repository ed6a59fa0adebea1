"""Build jobs in the background, and the snapshot of the last successful build that every
query reads: a new build replaces the snapshot only once it has succeeded, so a query
running while a build writes answers from the build before it."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportgen.model import Document, Ledger
from reportgen.site.build import BuildResult

# A published site holds only claims that pass, so each kind has one verdict there.
PASSED = {"fact": "hit", "calc": "ok", "inference": "valid"}


@dataclass(frozen=True)
class Snapshot:
    """What the last successful build published, read once into memory."""

    job: str  # the job that built it
    site: Path
    records: Mapping[str, dict[str, Any]]  # claim id -> evidence.jsonl record with status
    reports: tuple[dict[str, Any], ...]
    documents: Mapping[str, Document]
    lines: tuple[str, ...]  # the verdict lines
    ledger: Ledger  # what it was built from (graph queries walk its edges)


def load_snapshot(job: str, result: BuildResult, ledger: Ledger) -> Snapshot:
    """The site `result` published: its evidence.jsonl and the ledger it was built from."""
    records: dict[str, dict[str, Any]] = {}
    with open(result.out / "evidence.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "edge":  # the graph's records: query_graph reads the ledger
                continue
            rec["status"] = PASSED[rec["kind"]]
            records[rec["id"]] = rec
    reports = []
    for rep in ledger.reports:
        kinds = [records[c]["kind"] for c in rep.claims if c in records]
        reports.append({"id": rep.id, "title": rep.title, "facts": kinds.count("fact"),
                        "hits": kinds.count("fact"), "misses": 0,
                        "calcs": kinds.count("calc"), "inferences": kinds.count("inference"),
                        "edges": sum(e.gap is None for e in rep.edges),
                        "gaps": sum(e.gap is not None for e in rep.edges)})
    return Snapshot(job, result.out, records, tuple(reports), dict(ledger.documents),
                    result.lines, ledger)


@dataclass
class Job:
    """One build: queued, running, succeeded or failed."""

    id: str
    state: str = "queued"
    lines: tuple[str, ...] = ()
    written: bool = False
    up_to_date: bool = False
    message: str = ""

    def record(self, serving: str | None) -> dict[str, Any]:
        """The job as get_build_job returns it; `serving` is the build queries read now."""
        return {"job_id": self.id, "state": self.state, "lines": list(self.lines),
                "written": self.written, "up_to_date": self.up_to_date,
                "message": self.message, "serving": serving}


# build the site; returns what build() returns, raises what it raises
Builder = Callable[[], BuildResult]
# the ledger a successful build used (its result's, or read again when it was up to date)
LedgerOf = Callable[[BuildResult], Ledger]


@dataclass
class BuildJobs:
    """One build at a time on one worker thread (the template helper the build forks
    lives as long as its thread); a job submitted while another is queued is that job."""

    builder: Builder
    ledger_of: LedgerOf
    describe: Callable[[BaseException], str]  # the message of a build that raised
    jobs: dict[str, Job] = field(default_factory=dict)
    current: Snapshot | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _pool: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(
        max_workers=1, thread_name_prefix="reportgen-build"))

    def submit(self) -> Job:
        """A new job, or the one already waiting to start."""
        with self._lock:
            for job in self.jobs.values():
                if job.state == "queued":
                    return job
            job = Job(f"job-{len(self.jobs) + 1}")
            self.jobs[job.id] = job
        self._pool.submit(self._run, job)
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self.jobs.get(job_id)

    def latest(self) -> Job | None:
        with self._lock:
            return next(reversed(self.jobs.values()), None)

    def _run(self, job: Job) -> None:
        with self._lock:
            job.state = "running"
        try:
            result = self.builder()
            snap = load_snapshot(job.id, result, self.ledger_of(result)) if result.ok else None
        except BaseException as e:  # noqa: BLE001 - a job reports, the server goes on
            with self._lock:
                job.state, job.message = "failed", self.describe(e)
            if not isinstance(e, Exception):
                raise
            return
        with self._lock:
            job.lines, job.written, job.up_to_date = result.lines, result.written, result.up_to_date
            if snap is None:
                job.state = "failed"
                v = result.verification
                problems = "\n".join(str(p) for p in v.problems) if v is not None else ""
                job.message = (problems or "a fact misses or a calc mismatches (see lines)") \
                    + "\nthe site was not replaced; fix the ledger and submit a build again"
            else:
                self.current = snap  # the swap queries see: one assignment
                job.state = "succeeded"

    def close(self) -> None:
        """Let a running build finish (its swap is atomic anyway); drop queued ones."""
        self._pool.shutdown(wait=True, cancel_futures=True)
