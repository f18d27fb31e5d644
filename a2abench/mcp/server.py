"""The MCP endpoint: Streamable HTTP on the official `mcp` SDK, one tool session per token.

`McpEndpoint` is an ASGI app (mount it anywhere: `run` serves it alone on loopback,
serve-green under `/mcp`) plus a lifespan (`async with endpoint.running():`) that runs the
SDK's session manager. Every HTTP request must carry `Authorization: Bearer <token>` of a
live task-trial: anything else is refused with 401 before the SDK sees it, and each MCP
session is bound to the token that opened it (a request naming another token's session is
answered 404, as the SDK answers an unknown session), so one task-trial's token never
reaches another's session. (The SDK can bind sessions itself from an authenticated user in
the ASGI scope, but that costs about a millisecond per request on its SSE path.) Tool
handlers look the token up again on every call: a task-trial that ended between two calls
answers with an MCP error.

The endpoint speaks the initialize-handshake protocol revisions (2025-11-25 and earlier),
which every MCP client speaks; a request announcing a later revision is answered with
"unsupported protocol version" listing ours, and SDK clients fall back to the handshake.
That keeps `notifications/tools/list_changed` (banking's unlocked tools) on the one path
that delivers it: the call's own response stream, which is SSE for the sessions that
announce changes and plain JSON for the others (cheaper; clients accept both).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import Receive, Scope, Send

from a2abench._version import __version__
from a2abench.mcp.session import CallRejected, ToolRegistry, ToolSession

logger = logging.getLogger("a2abench.mcp")
# JSON-RPC codes of the refusals (the MCP spec's own where it has one).
INVALID_PARAMS = -32602
REJECTED = -32000  # a call refused by a limit or outside the turn: nothing changed
UNSUPPORTED_VERSION = -32022
MAX_BODY_BYTES = 4_000_000  # far above any argument limit; the SDK's own default
_PROTOCOL_HEADER = b"mcp-protocol-version"
_SESSION_HEADER = b"mcp-session-id"
_AUTH_HEADER = b"authorization"


def bearer(headers: Any) -> str | None:
    """The bearer token of an ASGI header list or a Starlette Headers object."""
    if isinstance(headers, list):
        raw = next((v.decode("latin-1") for k, v in headers if k.lower() == _AUTH_HEADER), None)
    else:
        raw = headers.get("authorization")
    if not raw or raw[:7].lower() != "bearer ":
        return None
    return raw[7:].strip() or None


class McpEndpoint:
    """The ASGI app serving every live task-trial's tools (see the module docstring)."""

    def __init__(self, registry: ToolRegistry | None = None, *,
                 idle_timeout_s: float = 1800.0) -> None:
        self.registry = registry if registry is not None else ToolRegistry()
        self.server: Server[Any] = Server(
            "a2abench", version=__version__,
            instructions="The tools of one a2abench task-trial; call them while you hold "
                         "the turn of its A2A conversation.",
            on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        # No DNS-rebinding check: every request carries a task-trial's random token, and
        # behind a proxy the Host header is the proxy's. Two managers: plain JSON responses
        # (a third cheaper than SSE) for sessions whose tool list never changes, SSE for
        # those that announce changes (the notification rides the call's response stream).
        self.manager, self.streaming = (StreamableHTTPSessionManager(
            app=self.server, security_settings=None, session_idle_timeout=idle_timeout_s,
            json_response=plain, max_request_body_size=MAX_BODY_BYTES)
            for plain in (True, False))

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run(), self.streaming.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = scope.get("headers", [])
        token = bearer(headers)
        session = self.registry.get(token) if token is not None else None
        if session is None:
            await _unauthorized(send, "a bearer token" if token is None
                                else "a live task-trial's token (this one is unknown or expired)")
            return
        if scope["method"] == "GET":
            # No standalone stream: what the server says (list_changed) rides the response
            # stream of the call that caused it, which also crosses buffering proxies.
            await _respond(send, 405, {"error": "this endpoint has no standalone stream; "
                                                "notifications come with the call results"},
                           [(b"allow", b"POST, DELETE")])
            return
        version = next((v.decode("latin-1") for k, v in headers if k == _PROTOCOL_HEADER), None)
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            await _unsupported_version(version, receive, send)
            return
        mcp_session = next((v.decode("latin-1") for k, v in headers if k == _SESSION_HEADER),
                           None)
        if mcp_session is None:  # opening a session: remember that it is this token's
            send = _recording(send, session.mcp_sessions)
        elif mcp_session not in session.mcp_sessions:
            await _respond(send, 404, {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32600, "message": "Session not found"}})
            return
        manager = self.streaming if session.announces else self.manager
        await manager.handle_request(scope, receive, send)

    def _session(self, ctx: ServerRequestContext[Any, Any]) -> ToolSession:
        request = ctx.request
        token = bearer(request.headers) if request is not None else None
        session = self.registry.get(token) if token else None
        if session is None:
            raise MCPError(REJECTED, "this task-trial has ended; its token is expired")
        return session

    async def _list_tools(self, ctx: ServerRequestContext[Any, Any],
                          params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        session = self._session(ctx)
        try:
            specs = session.tools()
        except CallRejected as exc:
            raise MCPError(REJECTED, exc.message) from None
        return types.ListToolsResult(tools=[
            types.Tool(name=s.name, description=s.description, input_schema=s.input_schema)
            for s in specs])

    async def _call_tool(self, ctx: ServerRequestContext[Any, Any],
                         params: types.CallToolRequestParams) -> types.CallToolResult:
        session = self._session(ctx)
        arguments = dict(params.arguments or {})
        try:
            result = await session.call(params.name, arguments)
        except CallRejected as exc:
            logger.info("MCP call %s of %s refused (%s): %s", params.name, session.label,
                        exc.reason, exc.message)
            code = INVALID_PARAMS if exc.reason in ("too_large", "unknown_tool") else REJECTED
            raise MCPError(code, exc.message, {"reason": exc.reason}) from None
        if result.tools_changed:
            # On the call's own response stream, before its result: the agent lists again.
            await ctx.session.send_notification(types.ToolListChangedNotification(),
                                                related_request_id=ctx.request_id)
        return types.CallToolResult(content=[types.TextContent(type="text", text=result.text)],
                                    is_error=result.is_error)


def _recording(send: Send, into: set[str]) -> Send:
    """`send` that adds the MCP session id the response assigns to `into`."""
    async def recording(message: Any) -> None:
        if message["type"] == "http.response.start":
            into.update(v.decode("latin-1") for k, v in message.get("headers", [])
                        if k.lower() == _SESSION_HEADER)
        await send(message)
    return recording


async def _respond(send: Send, status: int, payload: dict[str, Any],
                   headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


async def _unauthorized(send: Send, what: str) -> None:
    await _respond(send, 401, {"error": "invalid_token",
                               "error_description": f"this endpoint needs {what}"},
                   [(b"www-authenticate", b'Bearer error="invalid_token"')])


async def _unsupported_version(version: str, receive: Receive, send: Send) -> None:
    """A JSON-RPC "unsupported protocol version" error naming the handshake revisions."""
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= MAX_BODY_BYTES:
            chunks.append(chunk)
        if not message.get("more_body"):
            break
    try:
        request_id = json.loads(b"".join(chunks)).get("id")
    except (ValueError, AttributeError):
        request_id = None
    await _respond(send, 400, {"jsonrpc": "2.0", "id": request_id, "error": {
        "code": UNSUPPORTED_VERSION, "message": "Unsupported protocol version",
        "data": {"supported": list(HANDSHAKE_PROTOCOL_VERSIONS), "requested": version}}})
