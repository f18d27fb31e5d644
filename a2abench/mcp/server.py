"""The MCP endpoint: Streamable HTTP on the official `mcp` SDK, one tool session per token.

`McpEndpoint` is an ASGI app (mount it anywhere: `run` serves it alone on loopback,
serve-green under `/mcp`) plus a lifespan (`async with endpoint.running():`) that runs the
SDK's session managers. Every HTTP request must carry `Authorization: Bearer <token>` of a
live task-trial: anything else is refused with 401 before the SDK sees it. The token is the
only state a call needs; handlers (handlers.py) look it up again on every request, so a
task-trial that ended between two calls answers with an MCP error.

Both eras of MCP are served on the one endpoint, chosen per request by its
`MCP-Protocol-Version` header, as the 2026-07-28 revision's backward-compatibility section
describes:

- 2026-07-28 (stateless): every POST stands alone (the SDK checks the header against the
  body's `_meta` version, `Mcp-Method` and `Mcp-Name`, answers unknown methods 404 -32601);
  list changes ride `subscriptions/listen`.
- 2024-11-05 … 2025-11-25 (no header, or one of them): the `initialize` handshake and
  `Mcp-Session-Id`. Each MCP session is bound to the token that opened it (another token
  naming it gets 404, as the SDK answers an unknown session), and a token holds at most
  `McpLimits.max_mcp_sessions` of them: opening one more ends its least recently used idle
  one, or is refused (503) while all are busy. A token's sessions end with its task-trial.
- Any other version: 400 "unsupported protocol version" (-32022) naming the served ones.

There is no standalone GET stream on either era (405). Responses are plain JSON, or SSE for
the sessions whose tool list can change (handshake revisions: the list change rides the
call's own response stream).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.types import Message, Receive, Scope, Send

from a2abench.mcp.handlers import CURRENT, SERVED_VERSIONS, ToolServer, bearer
from a2abench.mcp.session import ToolRegistry, ToolSession

logger = logging.getLogger("a2abench.mcp")
UNSUPPORTED_VERSION = -32022
HEADER_MISMATCH = -32020
_VERSION_KEY = b'"io.modelcontextprotocol/protocolVersion"'
MAX_BODY_BYTES = 4_000_000  # far above any argument limit; the SDK's own default
_PROTOCOL_HEADER = b"mcp-protocol-version"
_SESSION_HEADER = b"mcp-session-id"

__all__ = ["MAX_BODY_BYTES", "UNSUPPORTED_VERSION", "McpEndpoint", "bearer"]


class McpEndpoint:
    """The ASGI app serving every live task-trial's tools (see the module docstring)."""

    def __init__(self, registry: ToolRegistry | None = None, *,
                 idle_timeout_s: float = 1800.0) -> None:
        self.registry = registry if registry is not None else ToolRegistry()
        self.plain = ToolServer(self.registry, announces=False)
        self.announcing = ToolServer(self.registry, announces=True)
        # No DNS-rebinding check: every request carries a task-trial's random token, and
        # behind a proxy the Host header is the proxy's. Plain JSON responses (a third
        # cheaper than SSE) wherever no notification rides a response: SSE only for the
        # handshake sessions that announce list changes on the changing call's stream
        # (2026-07-28 answers listen requests with a stream in either mode).
        self.manager, self.streaming, self.announcing_json = (StreamableHTTPSessionManager(
            app=server, security_settings=None, session_idle_timeout=idle_timeout_s,
            json_response=json, max_request_body_size=MAX_BODY_BYTES)
            for server, json in ((self.plain, True), (self.announcing, False),
                                 (self.announcing, True)))
        self.registry.on_forget.append(self._ended)
        self._ending: set[asyncio.Task[None]] = set()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run(), self.streaming.run(), self.announcing_json.run():
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
            # No standalone stream: list changes ride the changing call's response stream
            # (handshake revisions) or subscriptions/listen (2026-07-28).
            await _respond(send, 405, {"error": "this endpoint has no standalone stream; "
                                                "notifications come with the call results"},
                           [(b"allow", b"POST, DELETE")])
            return
        version = _header(headers, _PROTOCOL_HEADER)
        if version is not None and version not in SERVED_VERSIONS:
            await _unsupported_version(version, receive, send)
            return
        current = CURRENT.set(session)
        try:
            if version in MODERN_PROTOCOL_VERSIONS:  # stateless: no MCP session to bind
                stateless = self.announcing_json if session.announces else self.manager
                await stateless.handle_request(scope, receive, send)
            else:
                manager = self.streaming if session.announces else self.manager
                await self._handshake(session, manager, scope, receive, send)
        finally:
            CURRENT.reset(current)

    async def _handshake(self, session: ToolSession, manager: StreamableHTTPSessionManager,
                         scope: Scope, receive: Receive, send: Send) -> None:
        """A handshake-era request: its MCP session must be the token's own."""
        if scope["method"] == "POST":
            version = _header(scope.get("headers", []), _PROTOCOL_HEADER)
            checked = await _handshake_body(receive, send, version)
            if checked is None:
                return
            receive = checked
        mcp_session = _header(scope.get("headers", []), _SESSION_HEADER)
        if mcp_session is None:
            await self._open(session, manager, scope, receive, send)
            return
        opened = session.mcp_sessions
        if mcp_session not in opened:
            await _respond(send, 404, {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32600, "message": "Session not found"}})
            return
        opened[mcp_session] += 1  # busy: never ended to make room
        opened.move_to_end(mcp_session)  # the most recently used last
        status: list[int] = []
        try:
            await manager.handle_request(scope, receive, _watching(send, status))
        finally:
            if mcp_session in opened:
                opened[mcp_session] -= 1
                ended = scope["method"] == "DELETE" and status and status[0] < 300
                if ended or status == [404]:  # the client ended it, or its idle timeout did
                    del opened[mcp_session]

    async def _open(self, session: ToolSession, manager: StreamableHTTPSessionManager,
                    scope: Scope, receive: Receive, send: Send) -> None:
        """A request that opens an MCP session (the SDK answers anything but `initialize`
        with an error): make room under the token's cap, then record the id it gets."""
        limit = session.limits.max_mcp_sessions
        opened = session.mcp_sessions
        if len(opened) + session.mcp_opening >= limit:
            idle = next((sid for sid, busy in opened.items() if busy == 0), None)
            if idle is None:
                await _respond(send, 503, {"jsonrpc": "2.0", "id": None, "error": {
                    "code": -32000, "message": f"this task-trial already has {limit} MCP "
                    "sessions, all busy; end one (DELETE) or reuse it"}})
                return
            del opened[idle]
            await _end_session(manager, idle)
        status: list[int] = []
        session.mcp_opening += 1
        try:
            await manager.handle_request(scope, receive, _watching(send, status, opened))
        finally:
            session.mcp_opening -= 1

    def _ended(self, session: ToolSession) -> None:
        """A task-trial ended: its listen streams end now, its idle MCP sessions soon (a
        busy one when its idle timeout passes; its calls are refused meanwhile)."""
        self.announcing.forget(session.token)
        idle = [sid for sid, busy in session.mcp_sessions.items() if busy == 0]
        session.mcp_sessions.clear()
        if not idle:
            return
        manager = self.streaming if session.announces else self.manager
        try:
            task = asyncio.get_running_loop().create_task(_end_sessions(manager, idle))
        except RuntimeError:  # closed outside the endpoint's loop: they end by idle timeout
            return
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)


async def _end_sessions(manager: StreamableHTTPSessionManager, ids: list[str]) -> None:
    for sid in ids:
        await _end_session(manager, sid)


async def _end_session(manager: StreamableHTTPSessionManager, sid: str) -> None:
    """End one MCP session through the SDK's own door: a DELETE naming it."""
    scope: Scope = {"type": "http", "method": "DELETE", "path": "/", "raw_path": b"/",
                    "root_path": "", "scheme": "http", "query_string": b"",
                    "http_version": "1.1", "server": ("127.0.0.1", 0),
                    "headers": [(_SESSION_HEADER, sid.encode("latin-1"))]}

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def discard(message: Message) -> None:
        return None

    await manager.handle_request(scope, receive, discard)


async def _handshake_body(receive: Receive, send: Send, version: str | None
                          ) -> Receive | None:
    """Read a handshake-era POST's body and refuse it (None) if it is too large or its
    `_meta` claims a protocol version its header (`version`: none, or a handshake one)
    contradicts; else a `receive` that gives the SDK the body again."""
    body = await _body(receive)
    if body is None:
        await _respond(send, 413, {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": f"the body is over {MAX_BODY_BYTES} bytes"}})
        return None
    claimed = _claimed_version(body)
    if claimed is not None and claimed[0] != version:
        await _respond(send, 400, {"jsonrpc": "2.0", "id": claimed[1], "error": {
            "code": HEADER_MISMATCH, "message": "the MCP-Protocol-Version header does not "
            f"match the request's _meta protocol version {claimed[0]!r}"}})
        return None
    return _replaying(body, receive)


async def _body(receive: Receive) -> bytes | None:
    """The whole request body, or None past `MAX_BODY_BYTES` (what the SDK refuses too)."""
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` that first gives `body` again, whole, then what the client sends next."""
    given = [False]

    async def replaying() -> Message:
        if given[0]:
            return await receive()
        given[0] = True
        return {"type": "http.request", "body": body, "more_body": False}
    return replaying


def _claimed_version(body: bytes) -> tuple[Any, Any] | None:
    """(version, request id) when a body claims a protocol version in its `_meta` (only the
    per-request envelope of 2026-07-28 and later carries one)."""
    if _VERSION_KEY not in body:  # no handshake client sends it: skip the parse
        return None
    try:
        message = json.loads(body)
        meta = message["params"]["_meta"]
        return meta["io.modelcontextprotocol/protocolVersion"], message.get("id")
    except (ValueError, RecursionError, KeyError, TypeError, AttributeError):
        return None


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    return next((v.decode("latin-1") for k, v in headers if k == name), None)


def _watching(send: Send, status: list[int], record: Any = None) -> Send:
    """`send` that notes the response status in `status` and, with `record` (a token's
    MCP sessions), adds the session id an opening response assigns."""
    async def watching(message: Message) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
            if record is not None and message["status"] < 400:
                for k, v in message.get("headers", []):
                    if k.lower() == _SESSION_HEADER:
                        record[v.decode("latin-1")] = 0
        await send(message)
    return watching


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
    """A JSON-RPC "unsupported protocol version" error naming every served revision."""
    body = await _body(receive)
    try:
        request_id = json.loads(body).get("id") if body is not None else None
    except (ValueError, RecursionError, AttributeError):
        request_id = None
    await _respond(send, 400, {"jsonrpc": "2.0", "id": request_id, "error": {
        "code": UNSUPPORTED_VERSION, "message": "Unsupported protocol version",
        "data": {"supported": list(SERVED_VERSIONS), "requested": version}}})
