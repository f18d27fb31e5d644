"""The tool-channel flags every benchmark with tools shares, declared once (docs/mcp.md)."""

from typing import Literal

from pydantic import BaseModel

from a2abench.options import option

ToolChannel = Literal["a2a", "mcp"]


class ToolChannelOptions(BaseModel):
    """`--tool-channel` and where `run` serves the MCP endpoint (serve-green serves it on its
    own port under /mcp and ignores the three `--mcp-*` flags, which only its operator sets)."""

    tool_channel: ToolChannel = option(
        "a2a", "Where the agent finds its tools: a2a (schemas in the first message, calls in "
               "its replies) | mcp (an MCP server session per task-trial; docs/mcp.md).")
    mcp_host: str = option("127.0.0.1", "Interface the MCP endpoint listens on "
                                        "(--tool-channel mcp).")
    mcp_port: int = option(0, "Port of the MCP endpoint (0: any free port).", ge=0, le=65535)
    mcp_public_url: str | None = option(
        None, "The MCP endpoint's URL as the agent reaches it (another machine, a proxy) "
              "[default: http://HOST:PORT/mcp].")
