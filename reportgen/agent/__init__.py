"""The agent surface: the tools an MCP client calls, each a thin adapter over the library
call the CLI makes for the same job (find, the anchor rule, the claim record, build).

`tools` holds the tool table and the argument bounds, `service` the adapters and the
background build jobs, `server` the glue to the `mcp` SDK (the only module that imports
it). The package is not named `mcp`, which would shadow the SDK.
"""
