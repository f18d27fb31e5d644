"""Tools over MCP (`--tool-channel mcp`, docs/mcp.md): each task-trial's tools served as an
MCP server session that the agent under test calls natively.

- `session`: the per-task-trial tool session (token, turn, limits, counters) and the
  registry of live sessions; no MCP SDK import.
- `options`: the `--tool-channel` / `--mcp-*` flags benchmarks share (`ToolChannelOptions`).
- `server`: the Streamable HTTP endpoint on the official `mcp` SDK (imported only here).
- `channel`: what a driver holds: the endpoint it uses (its own on loopback in `run`, the
  green agent's `/mcp` in serve-green) and the sessions it opens.
"""

from a2abench.mcp.session import (
    CallRejected,
    McpLimits,
    ToolBackend,
    ToolRegistry,
    ToolResult,
    ToolSession,
    ToolSpec,
)

__all__ = ["CallRejected", "McpLimits", "ToolBackend", "ToolRegistry", "ToolResult",
           "ToolSession", "ToolSpec"]
