"""The MCP server over a Service, on the `mcp` SDK's low-level Server (the tool table's
own JSON Schemas are shown and enforced, so a bad argument is an INVALID_ARGUMENT result
rather than a transport error): stdio, or Streamable HTTP on a loopback address.

The only module of reportgen that imports `mcp`. Tool calls run in worker threads (the
library blocks on SQLite and PyMuPDF), so one slow call never holds up another.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from reportgen import __version__
from reportgen.agent.errors import INTERNAL_ERROR, ToolError
from reportgen.agent.service import Service
from reportgen.agent.tools import TOOLS

INSTRUCTIONS = (
    "Evidence tools over one claim ledger: every answer names the document, the page and "
    "the box it rests on. Search with find_evidence, check a quote with verify_quote "
    "before citing it, read verified claims with get_claim and list_reports, walk the "
    "entity graph with query_graph (paths between named companies, every hop with its "
    "page and quote) and ask broad questions with query_graph_global. Errors carry "
    "a code: INVALID_ARGUMENT, NOT_FOUND, INDEX_NOT_READY, UPSTREAM_ERROR, INTERNAL_ERROR.")


def _result(payload: dict[str, Any], is_error: bool = False) -> types.CallToolResult:
    """Structured content, and the same JSON as text for clients that read only text."""
    text = json.dumps(payload, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=payload, is_error=is_error)


def make_server(service: Service) -> Server:
    """A low-level MCP server whose tools are the service's."""
    listed = [types.Tool(name=t.name, description=t.description,
                         input_schema=t.input_schema(),
                         annotations=types.ToolAnnotations(read_only_hint=t.read_only,
                                                           open_world_hint=False))
              for t in TOOLS]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            payload = await anyio.to_thread.run_sync(service.call, params.name,
                                                     params.arguments)
        except ToolError as e:
            return _result(e.payload(), is_error=True)
        except Exception as e:  # noqa: BLE001 - a bug still answers with a code
            return _result(ToolError(INTERNAL_ERROR, f"internal error: {type(e).__name__}: "
                                     f"{e}; this is a bug").payload(), is_error=True)
        return _result(payload)

    return Server("reportgen", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(service: Service) -> None:
    """Serve one client on standard input and output until it closes them."""
    from mcp.server.stdio import stdio_server

    server = make_server(service)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def is_loopback(host: str) -> bool:
    """True for localhost and any loopback address (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def serve_http(service: Service, host: str, port: int) -> None:
    """Serve Streamable HTTP at http://host:port/mcp (uvicorn, as the SDK runs it); on a
    loopback host, requests naming another Host or Origin are refused (DNS rebinding)."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    bare = host.strip("[]")
    security = None
    if is_loopback(bare):
        named = f"[{bare}]" if ":" in bare else bare
        hosts = sorted({"127.0.0.1", "localhost", "[::1]", named})
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=[f"{h}:*" for h in hosts],
            allowed_origins=[f"http://{h}:*" for h in hosts])
    app = make_server(service).streamable_http_app(transport_security=security, host=bare)
    config = uvicorn.Config(app, host=bare, port=port, log_level="warning",
                            lifespan="on")
    await uvicorn.Server(config).serve()
