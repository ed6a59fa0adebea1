"""The MCP server driven by the `mcp` SDK's own client: every tool, the JSON shapes, error
codes and a truncated output through the SDK's in-memory session with the server
`reportgen mcp` makes (the first build, a real one, included); then `reportgen mcp` as a
subprocess over stdio and over Streamable HTTP on 127.0.0.1, proving each transport and
that the command starts a build (over the site the first session built: a no-op). One test
drives a whole session and checks its answers with the `check_*` functions below, each
reported by name when it fails."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcpkit import ROOT, indexed_sample_workspace, server_env

from reportgen.cli import main

TOOLS = {"find_evidence", "verify_quote", "get_claim", "list_reports", "submit_build_job",
         "get_build_job", "query_graph", "query_graph_global"}
CODES = {"INVALID_ARGUMENT", "NOT_FOUND", "INDEX_NOT_READY", "UPSTREAM_ERROR",
         "INTERNAL_ERROR"}
QUOTE = "供应商一 6,928,853,013.03 14.59%"


@pytest.fixture(scope="module")
def ws(tmp_path_factory, run_once) -> Path:
    return indexed_sample_workspace(tmp_path_factory.mktemp("mcp"), run_once)


async def wait_job(client, job_id: str) -> dict:
    """Poll get_build_job until the job ends."""
    for _ in range(600):
        r = await client.call_tool("get_build_job", {"job_id": job_id})
        if r.structured_content["state"] in ("succeeded", "failed"):
            return r.structured_content
        await anyio.sleep(0.1)
    raise AssertionError(f"{job_id} did not end")


def result(r) -> dict[str, Any]:
    """A tool result: its structured content, checked to be the same JSON as its text."""
    assert json.loads(r.content[0].text) == r.structured_content
    return {"is_error": r.is_error, **r.structured_content}


CALLS = {
    "find": ("find_evidence", {"query": "前五名供应商", "k": 1}),
    "find_doc": ("find_evidence", {"query": "Algihaz", "doc": "300274", "k": 1}),
    "find_many": ("find_evidence", {"query": "储能", "k": 30}),
    "hit": ("verify_quote", {"doc": "300274", "page": 36, "quote": QUOTE}),
    "miss": ("verify_quote", {"doc": "300274", "page": 35, "quote": QUOTE}),
    "claim": ("get_claim", {"id": "s2-4"}),
    "reports": ("list_reports", {}),
    "two_hops": ("query_graph", {
        "question": "How are HyperStrong and Sieyuan Electric connected?",
        "relations": ["strategic_cooperation"]}),
    "unbound": ("query_graph", {"question": "Who supplies Zorblax Industries?"}),
    "from": ("query_graph", {"question": "suppliers", "from": ["sungrow"],
                             "hops": 1, "relations": ["buys_from"]}),
    "from_bad": ("query_graph", {"question": "x", "from": ["nobody"]}),
    "bad_relation": ("query_graph", {"question": "x", "relations": ["Buys From"]}),
    "bad_date": ("query_graph", {"question": "x", "as_of": "2025-13"}),
    "global": ("query_graph_global", {"question": "Which companies cooperate "
                                                  "strategically with CATL?"}),
    "global_level": ("query_graph_global", {"question": "x", "level": 9}),
    "submit": ("submit_build_job", {}),
    "bad_k": ("find_evidence", {"query": "储能", "k": "five"}),
    "k_range": ("find_evidence", {"query": "储能", "k": 500}),
    "long": ("find_evidence", {"query": "储" * 2001}),
    "unknown_arg": ("get_claim", {"id": "s2-4", "path": "/etc/passwd"}),
    "no_query": ("find_evidence", {}),
    "punct": ("find_evidence", {"query": "，。"}),
    "no_claim": ("get_claim", {"id": "s2-44"}),
    "no_doc": ("verify_quote", {"doc": "nope", "page": 1, "quote": "x"}),
    "no_page": ("verify_quote", {"doc": "300274", "page": 9999, "quote": "x"}),
    "find_no_doc": ("find_evidence", {"query": "储能", "doc": "nope"}),
    "no_job": ("get_build_job", {"job_id": "job-99"}),
    "no_tool": ("rm_rf", {}),
}


async def session(c) -> dict[str, Any]:
    """Every tool through client `c`, as a server of `reportgen mcp claims --out site
    --max-output 4000` answers it."""
    got: dict[str, Any] = {}
    got["tools"] = (await c.list_tools()).tools
    got["job-1"] = await wait_job(c, "job-1")
    for key, (name, args) in CALLS.items():
        got[key] = result(await c.call_tool(name, args))
    got["job-2"] = await wait_job(c, got["submit"]["job_id"])
    return got


@pytest.fixture(scope="module")
def inproc(ws: Path) -> dict[str, Any]:
    """The server `reportgen mcp claims --out site --max-output 4000` makes, run in this
    process and reached through the SDK's in-memory client session."""
    from mcp import Client

    from reportgen.agent.server import make_server
    from reportgen.agent.service import Service

    async def run() -> dict[str, Any]:
        service = Service([ws / "claims"], ws / "site", max_output=4000)
        try:
            service.jobs.submit()  # as the command does: the first build starts with it
            async with Client(make_server(service)) as c:
                return await session(c)
        finally:
            service.close()

    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("ANTHROPIC_API_KEY", raising=False)  # the server has no key
        mp.setenv("SOURCE_DATE_EPOCH", server_env()["SOURCE_DATE_EPOCH"])
        return {**anyio.run(run), "ws": ws}


async def stdio_session(ws: Path) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    env = {k: v for k, v in server_env().items() if k != "ANTHROPIC_API_KEY"}
    params = StdioServerParameters(
        command=sys.executable, cwd=str(ws), env=env,
        args=["-m", "reportgen", "mcp", "claims", "--out", "site", "--max-output", "4000"])
    got: dict[str, Any] = {}
    async with Client(params) as c:
        got["tools"] = {t.name for t in (await c.list_tools()).tools}
        got["job-1"] = await wait_job(c, "job-1")
        for key in ("find", "claim", "miss", "no_tool"):
            name, args = CALLS[key]
            got[key] = result(await c.call_tool(name, args))
    return got


@pytest.fixture(scope="module")
def stdio(inproc, ws: Path) -> dict[str, Any]:
    """`reportgen mcp` over stdio, on the workspace (and site) the in-process session
    built."""
    return anyio.run(stdio_session, ws)


def check_lists_the_tools_with_bounded_schemas(got) -> None:
    tools = {t.name: t for t in got["tools"]}
    assert set(tools) == TOOLS
    for t in tools.values():
        assert t.description and t.input_schema["type"] == "object"
        assert t.input_schema["additionalProperties"] is False
        assert not any("path" in k or "file" in k for k in t.input_schema["properties"])
    find = tools["find_evidence"].input_schema
    assert find["properties"]["query"]["maxLength"] == 2000
    assert find["properties"]["k"]["maximum"] == 50 and find["required"] == ["query"]
    assert tools["list_reports"].annotations.read_only_hint is True
    assert tools["submit_build_job"].annotations.read_only_hint is False


def check_first_build_starts_with_the_server(got) -> None:
    job = got["job-1"]
    assert job["state"] == "succeeded" and job["written"] is True
    assert job["lines"][-1] == "TOTAL: facts=29 hits=29 misses=0"
    assert job["serving"] == "job-1"


def check_find_evidence_gives_doc_page_bbox_text_channels(got) -> None:
    r = got["find"]
    assert not r["is_error"] and r["truncated"] is False and r["omitted"] == 0
    (hit,) = r["results"]
    assert hit["doc"] == "300274" and hit["page"] == 36
    assert "前五名供应商" in hit["text"] and len(hit["bbox"]) == 4
    assert set(hit["channels"]) == {"ngram", "unigram"}
    assert got["find_doc"]["results"][0]["doc"] == "300274"


def check_a_long_output_is_cut_and_says_so(got) -> None:
    r = got["find_many"]
    assert not r["is_error"] and r["truncated"] is True
    assert r["omitted"] > 0 and len(r["results"]) + r["omitted"] == 30
    assert len(json.dumps({k: v for k, v in r.items() if k != "is_error"},
                          ensure_ascii=False)) <= 4000


def check_verify_quote_is_the_anchor_rule(got) -> None:
    hit = got["hit"]
    assert hit["status"] == "hit" and hit["pageEnd"] == 36
    assert hit["anchorMethod"] == "exact" and len(hit["bbox"]) == 4
    miss = got["miss"]
    assert miss["status"] == "miss" and miss["bbox"] is None
    assert "it occurs on p.36" in miss["message"]


def check_get_claim_is_the_evidence_record(got) -> None:
    ws = got["ws"]
    r = got["claim"]
    assert r["build"] == "job-1" and r["truncated"] is False
    published = next(json.loads(line) for line in
                     (ws / "site" / "evidence.jsonl").read_text(encoding="utf-8").splitlines()
                     if json.loads(line)["id"] == "s2-4")
    claim = dict(r["claim"])
    assert claim.pop("status") == "hit"
    assert claim == published


def check_list_reports_counts(got) -> None:
    reps = {r["id"]: r for r in got["reports"]["reports"]}
    assert [reps[k]["facts"] for k in ("S1", "S2", "S3")] == [8, 10, 11]
    assert reps["S2"]["title"] == "Storage cost profile"
    assert reps["S3"]["edges"] + reps["S3"]["gaps"] > 0


def check_a_second_build_of_an_unchanged_ledger_is_a_no_op(got) -> None:
    assert got["submit"]["job_id"] == "job-2"
    assert got["submit"]["state"] in ("queued", "running", "succeeded")
    job = got["job-2"]
    assert job["state"] == "succeeded" and job["up_to_date"] is True
    assert job["serving"] == "job-2"


def check_query_graph_walks_two_hops_with_evidence(got) -> None:
    r = got["two_hops"]
    assert not r["is_error"] and r["build"] == "job-1" and r["truncated"] is False
    ans = r["answer"]
    assert ans["status"] == "ok"
    assert {b["name"] for b in ans["bindings"]} == {"海博思创", "思源电气"}
    (path,) = ans["paths"]
    assert path["nodes"] == ["hyperstrong", "catl", "sieyuan"]
    first, second = path["hops"]
    assert first["direction"] == "reverse" and second["direction"] == "forward"
    ev = first["evidence"][0]
    assert ev["status"] == "hit" and ev["doc"] == "300750" and ev["page"] == 22
    assert "海博思创" in ev["quote"] and len(ev["bbox"]) == 4
    assert ans["truncated"] == {"fanout": 0, "paths": 0}  # the query's own counts


def check_query_graph_unbound_and_from(got) -> None:
    assert got["unbound"]["answer"]["status"] == "unbound"
    ans = got["from"]["answer"]
    assert ans["status"] == "ok" and len(ans["paths"]) == 5
    assert all(p["hops"][0]["relation"] == "buys_from" for p in ans["paths"])


def check_query_graph_global_cites_facts_that_hit(got) -> None:
    r = got["global"]
    assert not r["is_error"] and r["mode"] == "extractive"  # the test server has no key
    assert r["answer"] and all(s["citations"] for s in r["answer"])
    assert r["communities"]


ERRORS = [
    ("from_bad", "NOT_FOUND", "not an entity id"),
    ("bad_relation", "INVALID_ARGUMENT", "`relations`[0]"),
    ("bad_date", "INVALID_ARGUMENT", "`as_of`"),
    ("global_level", "INVALID_ARGUMENT", "from 0 to 5"),
    ("bad_k", "INVALID_ARGUMENT", "`k` must be a whole number"),
    ("k_range", "INVALID_ARGUMENT", "from 1 to 50"),
    ("long", "INVALID_ARGUMENT", "at most 2,000"),
    ("unknown_arg", "INVALID_ARGUMENT", "takes no argument 'path'"),
    ("no_query", "INVALID_ARGUMENT", "`query` is required"),
    ("punct", "INVALID_ARGUMENT", "nothing to search for"),
    ("no_claim", "NOT_FOUND", "did you mean s2-4"),
    ("no_doc", "NOT_FOUND", "the ledger's documents are"),
    ("no_page", "INVALID_ARGUMENT", "out of range"),
    ("find_no_doc", "NOT_FOUND", "unknown document 'nope'"),
    ("no_job", "NOT_FOUND", "no build job 'job-99'"),
    ("no_tool", "NOT_FOUND", "no tool named 'rm_rf'"),
]


def check_errors_carry_a_stable_code(got) -> None:
    for key, code, words in ERRORS:
        r = got[key]
        assert r["is_error"] is True, key
        assert set(r) == {"is_error", "error"} and r["error"]["code"] in CODES, key
        assert r["error"]["code"] == code and words in r["error"]["message"], (key, r)


def run_checks(got: dict[str, Any], checks) -> None:
    """Every check against one session's answers; all failures reported together."""
    failed = []
    for check in checks:
        try:
            check(got)
        except AssertionError as e:
            failed.append(f"{check.__name__}: {e}")
    assert not failed, "\n".join(failed)


def test_in_memory_session(inproc) -> None:
    run_checks(inproc, [f for n, f in sorted(globals().items())
                        if n.startswith("check_") and not n.startswith(("check_http",
                                                                        "check_stdio"))])


def check_stdio_serves_the_tools_and_starts_a_build(stdio) -> None:
    assert stdio["tools"] == TOOLS
    job = stdio["job-1"]
    assert job["state"] == "succeeded" and job["serving"] == "job-1"
    assert job["lines"][-1] == "TOTAL: facts=29 hits=29 misses=0"


def check_stdio_answers_as_in_memory(stdio, inproc) -> None:
    for key in ("find", "claim", "miss", "no_tool"):
        assert stdio[key] == inproc[key], key


def test_stdio_session(stdio, inproc) -> None:
    failed = []
    for check in (lambda: check_stdio_serves_the_tools_and_starts_a_build(stdio),
                  lambda: check_stdio_answers_as_in_memory(stdio, inproc)):
        try:
            check()
        except AssertionError as e:
            failed.append(str(e))
    assert not failed, "\n".join(failed)


# ---- Streamable HTTP --------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def http_session(url: str) -> dict[str, Any]:
    from mcp import Client

    got: dict[str, Any] = {}
    for _ in range(300):  # until the server listens
        try:
            async with Client(url) as c:
                got["tools"] = {t.name for t in (await c.list_tools()).tools}
                got["job-1"] = await wait_job(c, "job-1")
                got["reports"] = result(await c.call_tool("list_reports", {}))
                got["hit"] = result(await c.call_tool("verify_quote", {
                    "doc": "300274", "page": 36, "quote": QUOTE}))
                got["find"] = result(await c.call_tool("find_evidence", {"query": "储能"}))
            return got
        except Exception:  # noqa: BLE001 - not listening yet
            if got:
                raise
            await anyio.sleep(0.1)
    raise AssertionError("the server never answered")


@pytest.fixture(scope="module")
def http(stdio, ws: Path):
    """`reportgen mcp --http` on the workspace (and site) the sessions before built, without
    an index."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "reportgen", "mcp", "claims", "--out", "site",
         "--db", "no-index.sqlite", "--http", f"127.0.0.1:{port}"],
        cwd=ws, env=server_env(), stderr=subprocess.PIPE, text=True)
    try:
        got = anyio.run(http_session, f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.terminate()
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    got["stderr"] = err
    return got


def check_http_serves_the_same_tools_on_loopback(http) -> None:
    assert http["tools"] == TOOLS
    assert "serving claims at http://127.0.0.1:" in http["stderr"]
    assert http["job-1"]["state"] == "succeeded"
    assert [r["facts"] for r in http["reports"]["reports"]] == [8, 10, 11]
    assert http["hit"]["status"] == "hit"


def check_http_without_an_index_is_not_ready(http) -> None:
    err = http["find"]["error"]
    assert err["code"] == "INDEX_NOT_READY" and "reportgen index" in err["message"]


def test_http_session(http) -> None:
    run_checks(http, [check_http_serves_the_same_tools_on_loopback,
                      check_http_without_an_index_is_not_ready])


# ---- the command line -------------------------------------------------------------------


@pytest.mark.parametrize("args, code, words", [
    (["mcp", "nowhere"], 1, "no such ledger folder"),
    (["mcp", "claims", "--http", "0.0.0.0:8765"], 2, "--allow-remote"),
    (["mcp", "claims", "--http", "8765"], 2, "HOST:PORT"),
    (["mcp", "claims", "--http", "::1:8765"], 2, "brackets"),
])
def test_cli_refuses_before_serving(monkeypatch, args, code, words) -> None:
    monkeypatch.chdir(ROOT)  # each is refused before anything is started or written
    r = CliRunner().invoke(main, args)
    assert r.exit_code == code and words in r.output, r.output


def test_help_names_the_tools() -> None:
    r = CliRunner().invoke(main, ["mcp", "--help"])
    assert r.exit_code == 0 and "find_evidence" in r.output and "--http" in r.output
