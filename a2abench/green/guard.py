"""The server's guards: which white-agent hosts it may contact, bearer auth, body size.

The middlewares are plain ASGI so they run before a2a-sdk reads anything: a request with a
wrong token or an oversized body is answered without being parsed.
"""

from __future__ import annotations

import fnmatch
import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CARD_PATHS = frozenset({"/.well-known/agent-card.json", "/.well-known/agent.json"})


class HostPolicy:
    """`--allow-host` patterns: a glob on the host name (`*.example.com`, `agent`), a glob on
    `host:port` (`agent:9019`), or an IP network (`10.0.0.0/8`). No pattern allows any host.

    Patterns match the URL as written (no DNS resolution), so allow names you control.
    """

    def __init__(self, patterns: tuple[str, ...] | list[str] = ()) -> None:
        self.patterns = tuple(p.strip().lower() for p in patterns if p.strip())
        self._networks = [net for net in map(_network, self.patterns) if net is not None]

    @property
    def open(self) -> bool:
        return not self.patterns

    def allows(self, url: str) -> bool:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if not host:
            return False
        if self.open:
            return True
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return False
        hostport = f"{host}:{port}"
        for pattern in self.patterns:
            target = hostport if _has_port(pattern) else host
            if fnmatch.fnmatchcase(target, pattern):
                return True
        address = _address(host)
        return address is not None and any(address in net for net in self._networks)


def _has_port(pattern: str) -> bool:
    head, sep, tail = pattern.rpartition(":")
    return bool(sep) and bool(head) and (tail.isdigit() or tail == "*") and "/" not in pattern


def _network(pattern: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    if "/" not in pattern:
        return None
    try:
        return ipaddress.ip_network(pattern, strict=False)
    except ValueError:
        return None


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


async def _error(send: Send, status: int, message: str,
                 headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """A JSON-RPC-shaped error body, so JSON-RPC clients can show the reason."""
    body = json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


class BearerAuth:
    """Every request except GETs of the agent card must carry `Authorization: Bearer TOKEN`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._public(scope) or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        await _error(send, 401, "missing or wrong bearer token: send Authorization: Bearer "
                                "<token>", [(b"www-authenticate", b'Bearer realm="a2abench"')])

    @staticmethod
    def _public(scope: Scope) -> bool:
        return scope.get("method") in ("GET", "HEAD") and scope.get("path") in CARD_PATHS

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
        await _error(send, 413, f"request body larger than {self.limit} bytes "
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
