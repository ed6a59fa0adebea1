"""Build jobs behind the MCP tools: a query made while a build runs answers from the last
successful build, even once the new site is on disk, until the new build is swapped in;
a failed build leaves the previous one in service. In process, through the SDK's client,
with a builder that holds the real build at the moment that matters."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import anyio
from mcpkit import sample_workspace

from reportgen.agent.service import Service
from reportgen.site.build import build

OLD = "The first supplier row is the unnamed 供应商一"
NEW = "The first row of the supplier table is the unnamed 供应商一"


async def call(c, name: str, args: dict | None = None) -> dict:
    r = await c.call_tool(name, args or {})
    return r.structured_content


async def wait_job(c, job_id: str) -> dict:
    for _ in range(600):
        job = await call(c, "get_build_job", {"job_id": job_id})
        if job["state"] in ("succeeded", "failed"):
            return job
        await anyio.sleep(0.05)
    raise AssertionError(job_id)


def published(site: Path, cid: str) -> dict:
    for line in (site / "evidence.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["id"] == cid:
            return rec
    raise KeyError(cid)


def test_queries_read_the_last_successful_build_until_the_new_one_is_in(tmp_path: Path) -> None:
    # mcp takes a second of CPU to import: here, not at collection, so that only the
    # worker that runs this test pays for it
    from mcp import Client

    from reportgen.agent.server import make_server

    ws = sample_workspace(tmp_path, index=False)
    built, release = threading.Event(), threading.Event()
    runs = []

    def held_build(paths, out):
        """The real build; the second one is held after it wrote the site, before the
        server takes it up."""
        r = build(paths, out)
        runs.append(r)
        if len(runs) == 2:
            built.set()
            assert release.wait(120)
        return r

    service = Service([ws / "claims"], ws / "site", builder=held_build)
    s2 = ws / "claims" / "S2.yaml"

    async def session() -> None:
        async with Client(make_server(service)) as c:
            not_yet = await c.call_tool("get_claim", {"id": "s2-4"})
            assert not_yet.structured_content["error"]["code"] == "INDEX_NOT_READY"
            job1 = await call(c, "submit_build_job")
            assert (await wait_job(c, job1["job_id"]))["state"] == "succeeded"
            assert OLD in (await call(c, "get_claim", {"id": "s2-4"}))["claim"]["statement"]

            s2.write_text(s2.read_text(encoding="utf-8").replace(OLD, NEW), encoding="utf-8")
            job2 = await call(c, "submit_build_job")
            assert await anyio.to_thread.run_sync(built.wait, 120)
            # the new site is on disk, the build is not over: queries answer from job-1
            assert NEW in published(ws / "site", "s2-4")["statement"]
            during = await call(c, "get_claim", {"id": "s2-4"})
            assert during["build"] == "job-1" and OLD in during["claim"]["statement"]
            state = await call(c, "get_build_job", {"job_id": job2["job_id"]})
            assert state["state"] == "running" and state["serving"] == "job-1"
            release.set()
            assert (await wait_job(c, job2["job_id"]))["state"] == "succeeded"
            after = await call(c, "get_claim", {"id": "s2-4"})
            assert after["build"] == "job-2" and NEW in after["claim"]["statement"]

            # a build that fails verification leaves job-2 in service
            text = s2.read_text(encoding="utf-8")
            s2.write_text(text.replace('page: 36\n    quote: "供应商一',
                                       'page: 35\n    quote: "供应商一'), encoding="utf-8")
            job3 = await wait_job(c, (await call(c, "submit_build_job"))["job_id"])
            assert job3["state"] == "failed" and job3["serving"] == "job-2"
            assert any(line.startswith("MISS s2-4") for line in job3["lines"])
            assert (await call(c, "get_claim", {"id": "s2-4"}))["build"] == "job-2"

            # an invalid ledger fails the job with the ledger's own messages
            s2.write_text("report: [\n", encoding="utf-8")
            job4 = await wait_job(c, (await call(c, "submit_build_job"))["job_id"])
            assert job4["state"] == "failed" and "S2.yaml" in job4["message"]
            assert (await call(c, "list_reports"))["build"] == "job-2"

    try:
        anyio.run(session)
    finally:
        release.set()
        service.close()
