"""serve-green's `/mcp`: the session registry from the start, the SDK's endpoint on first use.

Importing the MCP SDK (`server.py`) costs ~1.4 s of CPU, most of serve-green's start, and
most assessments never call a tool over MCP. So the endpoint is built when the first request
reaches `/mcp` (the import in a worker thread, so the event loop keeps serving), and its
session managers then run in a task of their own until the server stops (`running()`).
Task-trials open their sessions in the registry before that; the endpoint adopts it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from starlette.types import Receive, Scope, Send

from a2abench.mcp.session import ToolRegistry

if TYPE_CHECKING:
    from a2abench.mcp.server import McpEndpoint


class LazyEndpoint:
    """An ASGI app in front of an `McpEndpoint` built on the first request (see above)."""

    def __init__(self, registry: ToolRegistry | None = None) -> None:
        self.registry = registry if registry is not None else ToolRegistry()
        self._endpoint: asyncio.Future[McpEndpoint] | None = None
        self._serving: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The server's lifespan: on exit, the endpoint's session managers (if it was built)
        stop, as `McpEndpoint.running()` stops them."""
        try:
            yield
        finally:
            self._stop.set()
            if self._serving is not None:
                await self._serving

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if self._stop.is_set():  # the server is stopping: no endpoint to start now
            await send({"type": "http.response.start", "status": 503,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"the server is stopping"})
            return
        if self._endpoint is None:
            self._endpoint = asyncio.get_running_loop().create_future()
            self._serving = asyncio.create_task(self._serve(self._endpoint))
        endpoint = await asyncio.shield(self._endpoint)
        await endpoint(scope, receive, send)

    async def _serve(self, built: asyncio.Future[McpEndpoint]) -> None:
        """Build the endpoint and run its session managers until the server stops; a failure
        to build reaches every request waiting for it."""
        try:
            endpoint = (await asyncio.to_thread(_endpoint_class))(self.registry)
            async with endpoint.running():
                built.set_result(endpoint)
                await self._stop.wait()
        except BaseException as exc:
            if built.done():
                raise
            if isinstance(exc, asyncio.CancelledError):
                built.cancel()
                raise
            built.set_exception(exc)  # each waiting request fails with it


def _endpoint_class() -> type[McpEndpoint]:
    from a2abench.mcp.server import McpEndpoint

    return McpEndpoint
