"""A lean HTTP/1.1 client for the A2A hot path: keep-alive POSTs to one plain-http origin.

httpx (with httpcore, h11 and anyio) costs ~1.2 ms of CPU per request on a 2-core machine,
more than the rest of a single-turn task-trial; this client costs ~0.1 ms
(perf/throughput.py, docs/performance.md). It is used only where it is complete: plain
`http://` URLs without credentials, headers of plain text, non-streaming JSON-RPC calls
made by `A2AClient` to an interface that does not redirect (`a2a/transport.py` decides from
its first call, made with httpx). TLS, redirects, SSE, cards and the REST binding stay on
httpx.
`A2ABENCH_HTTP_CLIENT=httpx` turns it off.

Responses look like the part of `httpx.Response` that `_limits.read_body` and the
transport use: `status_code`, `headers.get`, `url`, `aiter_bytes()`, `aclose()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import zlib
from collections.abc import AsyncIterator, Callable, Mapping
from urllib.parse import urlsplit

from a2abench._version import __version__

MAX_HEAD = 65_536  # status line and headers of one reply (h11 allows less)
# Idle keep-alive connections kept per origin: the pool only opens what concurrent calls
# need, and closing the ones beyond 64 at --concurrency 256 meant a connect every few calls.
MAX_IDLE = 1024
CHUNK = 65_536
_NO_BODY = frozenset({204, 304})


def enabled() -> bool:
    """False when the user asked for httpx everywhere (A2ABENCH_HTTP_CLIENT=httpx)."""
    return os.environ.get("A2ABENCH_HTTP_CLIENT", "").strip().lower() != "httpx"


class WireError(Exception):
    """The connection failed, or what came back was not an HTTP/1.1 reply."""


class Headers:
    """A reply's headers: names lower-cased, repeated names joined with ", "."""

    __slots__ = ("_items", "http10")

    def __init__(self, items: dict[str, str], *, http10: bool = False) -> None:
        self._items = items
        self.http10 = http10  # the reply's version was HTTP/1.0

    def get(self, name: str, default: str | None = None) -> str | None:
        return self._items.get(name.lower(), default)


class _Conn:
    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @property
    def fresh(self) -> bool:
        """Still open: the server has not closed it while it sat idle."""
        return not (self.reader.at_eof() or self.writer.is_closing())

    def close(self) -> None:
        self.writer.close()


def usable(url: str, headers: Mapping[str, str]) -> bool:
    """True when this client can send to `url` with `headers` exactly as httpx would."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname or "@" in parts.netloc:
        return False
    try:
        _ = parts.port  # a bad port raises
    except ValueError:
        return False
    return all(_plain(name, token=True) and _plain(value) for name, value in headers.items())


def _plain(text: str, *, token: bool = False) -> bool:
    if not text.isascii() or "\r" in text or "\n" in text or "\0" in text:
        return False
    return not token or (bool(text) and ":" not in text and " " not in text)


class WirePool:
    """Keep-alive connections to the origin of `url`, each POSTing to `url` with `headers`.

    `check` (the host policy) is called before every request, as httpx's request hook does.
    `direct` is None until a call through httpx shows whether the URL redirects (False);
    `deciding` is set while that call is on its way.
    """

    def __init__(self, url: str, headers: Mapping[str, str], *, connect_timeout: float,
                 check: Callable[[str], None] | None = None) -> None:
        parts = urlsplit(url)
        assert usable(url, headers), url
        self.url = url
        self._host, self._port = parts.hostname or "", parts.port or 80
        self._connect_timeout = connect_timeout
        self._check = check
        self._idle: list[_Conn] = []
        self.direct: bool | None = None
        self.deciding: asyncio.Event | None = None
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        sent = {"host": parts.netloc, "accept": "*/*", "connection": "keep-alive",
                "user-agent": f"a2abench/{__version__}"}
        sent.update((name.lower(), value) for name, value in headers.items())
        sent.pop("content-length", None)
        lines = "".join(f"{name}: {value}\r\n" for name, value in sent.items())
        self._head = f"POST {target} HTTP/1.1\r\n{lines}content-length: ".encode("ascii")

    async def post(self, body: bytes) -> WireResponse:
        """Send one POST; the reply with its headers read and its body not yet read.

        A reused connection that the server had closed while idle (EOF before any byte of
        a reply) is replaced by a new one and the request sent once more: the server never
        read it.
        """
        if self._check is not None:
            self._check(self.url)
        request = self._head + b"%d\r\n\r\n" % len(body)
        while self._idle:
            conn = self._idle.pop()
            if conn.fresh:
                try:
                    return await self._exchange(conn, request, body)
                except _ClosedIdle:
                    continue
            conn.close()
        return await self._exchange(await self._connect(), request, body, reused=False)

    async def _connect(self) -> _Conn:
        try:
            async with asyncio.timeout(self._connect_timeout):
                reader, writer = await asyncio.open_connection(self._host, self._port,
                                                               limit=MAX_HEAD)
        except TimeoutError:
            raise WireError(f"connection timed out after {self._connect_timeout:g} s") from None
        except OSError as exc:
            raise WireError(str(exc) or type(exc).__name__) from None
        return _Conn(reader, writer)

    async def _exchange(self, conn: _Conn, request: bytes, body: bytes, *,
                        reused: bool = True) -> WireResponse:
        try:
            if len(body) < CHUNK:
                conn.writer.write(request + body)
            else:  # no copy of a large body
                conn.writer.writelines((request, body))
            status, headers = await _read_head(conn.reader, reused)
        except BaseException:
            conn.close()
            raise
        return WireResponse(self, conn, status, headers)

    def release(self, conn: _Conn) -> None:
        if len(self._idle) < MAX_IDLE and conn.fresh:
            self._idle.append(conn)
        else:
            conn.close()

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
        for conn in idle:
            with contextlib.suppress(OSError):  # the peer reset it first: closed either way
                await conn.writer.wait_closed()


class _ClosedIdle(WireError):
    """A reused connection was closed by the server before it answered."""


async def _read_head(reader: asyncio.StreamReader, reused: bool) -> tuple[int, Headers]:
    while True:
        try:
            raw = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if not exc.partial and reused:
                raise _ClosedIdle("the server closed the connection") from None
            raise WireError("Server disconnected without sending a complete response"
                            if exc.partial else
                            "Server disconnected without sending a response") from None
        except asyncio.LimitOverrunError:
            raise WireError(f"the reply's status line and headers exceed {MAX_HEAD} bytes"
                            ) from None
        except OSError as exc:
            raise WireError(str(exc) or type(exc).__name__) from None
        status, headers = _parse_head(raw)
        if not 100 <= status < 200 or status == 101:
            return status, headers
        # An interim 1xx reply (100 Continue, 103 Early Hints): the real one follows.


def _parse_head(raw: bytes) -> tuple[int, Headers]:
    lines = raw[:-4].split(b"\r\n")
    version, _, rest = lines[0].partition(b" ")
    code = rest[:3]
    if version not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 or not code.isdigit():
        raise WireError(f"not an HTTP/1.1 reply: {lines[0][:80]!r}")
    items: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip() or name[:1] in b" \t":
            raise WireError(f"malformed header line in the reply: {line[:80]!r}")
        key = name.decode("latin-1").lower()
        text = value.strip(b" \t").decode("latin-1")
        items[key] = f"{items[key]}, {text}" if key in items else text
    return int(code), Headers(items, http10=version == b"HTTP/1.0")


class WireResponse:
    """One reply: status and headers read, the body read by `aiter_bytes()` once."""

    __slots__ = ("_conn", "_done", "_pool", "headers", "status_code", "url")

    def __init__(self, pool: WirePool, conn: _Conn, status: int, headers: Headers) -> None:
        self._pool, self._conn = pool, conn
        self.status_code, self.headers, self.url = status, headers, pool.url
        self._done = False

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body, decoded (gzip and zlib deflate, as httpx; other codings pass through)."""
        decoder = _decoder(self.headers.get("content-encoding") or "")
        try:
            async for chunk in self._raw():
                if decoder is not None:
                    chunk = decoder.decompress(chunk)
                if chunk:
                    yield chunk
            if decoder is not None and (tail := decoder.flush()):
                yield tail
        except zlib.error as exc:
            raise WireError(f"the reply's body cannot be decoded: {exc}") from None
        except asyncio.IncompleteReadError:
            raise WireError("Server disconnected before the end of the response body"
                            ) from None
        except OSError as exc:
            raise WireError(str(exc) or type(exc).__name__) from None

    async def _raw(self) -> AsyncIterator[bytes]:
        reader, headers = self._conn.reader, self.headers
        if self.status_code in _NO_BODY:
            self._finish(True)
            return
        if "chunked" in (headers.get("transfer-encoding") or "").lower():
            async for chunk in _chunks(reader):
                yield chunk
            self._finish(self._keep_alive())
            return
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
                raise WireError(f"the reply's Content-Length is not a number: {declared[:40]!r}")
            left = int(declared)
            while left:
                chunk = await reader.readexactly(min(left, CHUNK))
                left -= len(chunk)
                yield chunk
            self._finish(self._keep_alive())
            return
        while chunk := await reader.read(CHUNK):  # no length: the body ends with the connection
            yield chunk
        self._finish(False)

    def _keep_alive(self) -> bool:
        connection = (self.headers.get("connection") or "").lower()
        if self.headers.http10:  # HTTP/1.0 closes after the reply unless it says otherwise
            return "keep-alive" in connection
        return "close" not in connection

    def _finish(self, reusable: bool) -> None:
        self._done = True
        if reusable:
            self._pool.release(self._conn)
        else:
            self._conn.close()

    async def aclose(self) -> None:
        """Give the connection back when the body was read to its end; close it otherwise."""
        if not self._done:
            self._done = True
            self._conn.close()


async def _chunks(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    while True:
        try:
            line = await reader.readuntil(b"\r\n")
        except asyncio.LimitOverrunError:
            raise WireError("a chunk-size line of the reply is too long") from None
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise WireError(f"bad chunk size in the reply: {size_text[:40]!r}") from None
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":
                pass  # trailers: not used
            return
        data = await reader.readexactly(size + 2)
        if data[-2:] != b"\r\n":
            raise WireError("a chunk of the reply does not end with CRLF")
        yield data[:-2]


def _decoder(coding: str) -> zlib._Decompress | None:
    coding = coding.strip().lower()
    if coding == "gzip":
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if coding == "deflate":
        return zlib.decompressobj()
    return None
