"""Tools over MCP (`--tool-channel mcp`, docs/mcp.md): each task-trial's tools served as an
MCP server session that the agent under test calls natively.

- `session`: the per-task-trial tool session (token, turn, limits, counters) and the
  registry of live sessions; no MCP SDK import.
- `options`: the `--tool-channel` / `--mcp-*` flags benchmarks share (`ToolChannelOptions`).
- `server`: the Streamable HTTP endpoint on the official `mcp` SDK: both eras of the
  protocol (the handshake revisions and the stateless 2026-07-28) on one URL.
- `handlers`: the MCP methods (tools, discover, listen) on the SDK's lowlevel `Server`.
- `channel`: what a driver holds: the endpoint it uses (its own on loopback in `run`, the
  green agent's `/mcp` in serve-green) and the sessions it opens.
- `mount`: serve-green's `/mcp`, which imports the SDK and builds the endpoint on its first
  request (not at start).
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
