"""The server's guards: which white-agent hosts it may contact, bearer auth, body size.

The middlewares are plain ASGI so they run before a2a-sdk reads anything: a request with a
wrong token or an oversized body is answered without being parsed.
"""

from __future__ import annotations

import hmac
import json
import math
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from a2abench.net.egress import HostPolicy

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

__all__ = ["BearerAuth", "BodyLimit", "HostPolicy", "NumberRange", "error_response"]

CARD_PATHS = frozenset({"/.well-known/agent-card.json", "/.well-known/agent.json"})
PROBE_PATHS = frozenset({"/healthz", "/readyz"})  # load balancers probe without a token


async def error_response(send: Send, status: int, message: str,
                 headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """A JSON-RPC-shaped error body, so JSON-RPC clients can show the reason."""
    body = json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


class BearerAuth:
    """Every request except GETs of the agent card and the health probes must carry
    `Authorization: Bearer TOKEN`. `public` lists the card's paths (default: the two
    well-known ones at the root); `own_auth` paths check credentials of their own (the MCP
    endpoint: each task-trial's token) and pass whatever their method."""

    def __init__(self, app: ASGIApp, token: str, public: frozenset[str] = CARD_PATHS,
                 own_auth: frozenset[str] = frozenset()) -> None:
        if not token.strip():
            raise ValueError("an empty bearer token would let every request in")
        self.app = app
        self._token = token.encode()
        self._public_paths = public
        self._own_auth = own_auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._public(scope) or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        await error_response(send, 401, "missing or wrong bearer token: send Authorization: "
                                        "Bearer <token>",
                             [(b"www-authenticate", b'Bearer realm="a2abench"')])

    def _public(self, scope: Scope) -> bool:
        if scope.get("path") in self._own_auth:
            return True
        return scope.get("method") in ("GET", "HEAD") and (
            scope.get("path") in self._public_paths or scope.get("path") in PROBE_PATHS)

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                scheme, _, credential = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(
                    credential.strip(), self._token)
        return False


class BodyLimit:
    """Refuse request bodies over `limit` bytes with 413, before the app parses them.

    A declared Content-Length over the limit is refused at once; otherwise the body is read
    (up to the limit) and replayed to the app, so chunked uploads are capped too.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # client went away mid-body
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)

    async def _refuse(self, send: Send) -> None:
        await error_response(send, 413, f"request body larger than {self.limit} bytes "
                                        "(serve-green --max-request-bytes)")


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # later calls wait for http.disconnect, as the app expects

    return replay


# A double holds at most 309 integer digits: a shorter run of digits cannot overflow it.
_LONG_DIGITS = re.compile(rb"[0-9]{309,}")


class _Overflow(Exception):
    pass


class NumberRange:
    """Refuse a JSON-RPC body holding an integer beyond a double's range (about 1.8e308) as
    invalid params, naming the problem.

    a2a-sdk converts DataParts to protobuf Values (doubles), which raises OverflowError inside
    the SDK: 0.3 answered -32603 (the server blaming itself), 1.0 logged a traceback. The body
    is already bounded by `BodyLimit`, which sits outside this middleware.
    """

    def __init__(self, app: ASGIApp, paths: frozenset[str]) -> None:
        self.app = app
        self._paths = paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope.get("method") != "POST"
                or scope.get("path") not in self._paths):
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        if body is None:  # client went away mid-body
            return
        if _LONG_DIGITS.search(body) and _overflows(body):
            await _invalid_params(send, _request_id(body), "a number in the request is too "
                                  "large: integers must fit a double (at most about 1.8e308)")
            return
        await self.app(scope, _replay(body, receive), send)


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _checked_int(text: str) -> int:
    # float() of a digit string rounds to inf where float() of the int would overflow
    if math.isinf(float(text)):
        raise _Overflow
    return 0  # only the range matters here; the SDK parses the body itself


def _overflows(body: bytes) -> bool:
    try:
        json.loads(body, parse_int=_checked_int)
    except _Overflow:
        return True
    except ValueError:  # not JSON: the SDK answers with its own parse error
        return False
    return False


def _request_id(body: bytes) -> Any:
    """The JSON-RPC id of `body` (which parses: `_overflows` said so), if it is a valid one."""
    request = json.loads(body, parse_int=lambda text: int(text) if len(text) < 20 else None)
    rid = request.get("id") if isinstance(request, dict) else None
    return rid if isinstance(rid, (str, int)) and not isinstance(rid, bool) else None


async def _invalid_params(send: Send, rid: Any, message: str) -> None:
    """JSON-RPC's invalid params (-32602) with HTTP 200, as a2a-sdk answers its own."""
    body = json.dumps({"jsonrpc": "2.0", "id": rid,
                       "error": {"code": -32602, "message": f"Invalid params: {message}"}}
                      ).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
