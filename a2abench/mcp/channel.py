"""What a benchmark driver holds for `--tool-channel mcp`: an endpoint and its sessions.

In `run`, `start()` serves a fresh endpoint on `--mcp-host`/`--mcp-port` inside the run's
own event loop (so tool calls reach the episodes without crossing threads); in serve-green
the green agent `attach()`es its own `/mcp` endpoint first and `start()` does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from a2abench.errors import ConfigError
from a2abench.mcp.session import McpLimits, ToolRegistry, ToolSession

if TYPE_CHECKING:
    from a2abench.mcp.options import ToolChannelOptions

PATH = "/mcp"


class Endpoint(Protocol):
    """What a channel needs of the endpoint serving its sessions: their registry."""

    registry: ToolRegistry


class McpChannel:
    """The MCP side of one run (see the module docstring); inert with `--tool-channel a2a`."""

    def __init__(self, options: ToolChannelOptions, limits: McpLimits | None = None) -> None:
        self.options = options
        self.enabled = options.tool_channel == "mcp"
        self.limits = limits or McpLimits()
        self.endpoint: Endpoint | None = None
        self.url = ""
        self._server: Any = None
        self._serving: asyncio.Task[None] | None = None

    def attach(self, endpoint: Endpoint, url: str) -> None:
        """Use an endpoint someone else serves (serve-green's) at public `url`."""
        self.endpoint, self.url = endpoint, url

    async def start(self) -> None:
        """Serve an endpoint of our own, unless one is attached or the channel is a2a."""
        if not self.enabled or self.endpoint is not None:
            return
        import uvicorn
        from starlette.applications import Starlette
        from starlette.routing import Route

        from a2abench.mcp.server import McpEndpoint
        from a2abench.net.embedded import EmbeddedServer, listen

        endpoint = McpEndpoint()

        @contextlib.asynccontextmanager
        async def lifespan(_app: Starlette) -> Any:
            async with endpoint.running():
                yield

        app = Starlette(routes=[Route(PATH, endpoint)], lifespan=lifespan)
        sock = listen(self.options.mcp_host, self.options.mcp_port, backlog=512,
                      what="serve the MCP endpoint",
                      hint="Choose another --mcp-port or --mcp-host.")
        port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", log_config=None, access_log=False,
                                lifespan="on", timeout_graceful_shutdown=2)
        self._server = EmbeddedServer(config)
        self._serving = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._serving.done():
                self._serving.result()  # re-raise why it could not start
                raise ConfigError("the MCP endpoint stopped while starting")
            await asyncio.sleep(0.01)
        host = self.options.mcp_host
        shown = f"[{host}]" if ":" in host else host
        self.endpoint = endpoint
        self.url = (self.options.mcp_public_url or f"http://{shown}:{port}{PATH}").rstrip("/")

    @contextlib.contextmanager
    def session(self, label: str) -> Iterator[ToolSession]:
        """A task-trial's session: its token lives exactly as long as the block."""
        if self.endpoint is None:
            raise RuntimeError("McpChannel.start() was not awaited")
        session = self.endpoint.registry.open(self.limits, label)
        try:
            yield session
        finally:
            session.close()

    def describe(self) -> dict[str, Any]:
        """For the run record: which channel ran (the URL holds no secret)."""
        return {"tool_channel": self.options.tool_channel,
                **({"mcp_url": self.url} if self.enabled else {})}

    async def aclose(self) -> None:
        if self._server is not None and self._serving is not None:
            self._server.stop()
            await self._serving
            self._server = self._serving = None
