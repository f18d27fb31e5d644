"""A lean HTTP/1.1 client for the A2A hot path: keep-alive POSTs to one origin.

httpx (with httpcore, h11 and anyio) costs ~1.2 ms of CPU per request on a 2-core machine,
more than the rest of a single-turn task-trial; this client costs ~0.1 ms
(perf/throughput.py, docs/performance.md). It is used only where it is complete: `http://`
and `https://` URLs without credentials (TLS over asyncio's streams, with the process's
verifying context: net/tls.py), headers h11 would send, the non-streaming calls `A2AClient`
makes to an interface until it redirects (`a2a/transport.py`: `LeanFirst`). Redirects, SSE
and cards stay on httpx. It reads replies as h11
(under httpx) reads them, refuses what h11 refuses, and bounds every part of a reply
(tests/a2a/test_h1_review.py, docs/transports.md).
`A2ABENCH_HTTP_CLIENT=httpx` turns it off.

Responses look like the part of `httpx.Response` that `_limits.read_body` and the
transport use: `status_code`, `headers.get`, `url`, `aiter_bytes()`, `aclose()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import ssl
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sized
from urllib.parse import urlsplit

import httpx

from a2abench._version import __version__

MAX_HEAD = 65_536  # status line and headers of one reply, and its trailers (h11 allows less)
MAX_DIGITS = 20  # of a Content-Length or a chunk size, as h11 allows
# Idle keep-alive connections kept per origin: the pool only opens what concurrent calls
# need, and closing the ones beyond 64 at --concurrency 256 meant a connect every few calls.
MAX_IDLE = 1024
CHUNK = 65_536
_NO_BODY = frozenset({204, 304})
_CHUNKED = -1  # the body length of a chunked reply
_HEX = frozenset(b"0123456789abcdefABCDEF")
# What h11 (under httpx) accepts in a request's header names and values.
_TOKEN = re.compile(r"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_VALUE = re.compile(r"(?:[^\x00\s]+(?:[ \t]+[^\x00\s]+)*)?", re.ASCII)


def enabled() -> bool:
    """False when the user asked for httpx everywhere (A2ABENCH_HTTP_CLIENT=httpx)."""
    return os.environ.get("A2ABENCH_HTTP_CLIENT", "").strip().lower() != "httpx"


class WireError(httpx.TransportError):
    """The connection failed, or what came back was not an HTTP/1.1 reply. An httpx
    transport error, so that callers handle one family of failures whichever client sent."""


class Headers:
    """A reply's headers: names lower-cased, repeated names joined with ", "."""

    __slots__ = ("_items", "http10")

    def __init__(self, items: dict[str, str], *, http10: bool = False) -> None:
        self._items = items
        self.http10 = http10  # the reply's version was HTTP/1.0

    def get(self, name: str, default: str | None = None) -> str | None:
        return self._items.get(name.lower(), default)


class _Conn:
    __slots__ = ("end", "eol", "poll", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.eol = self.end = b""  # the server's line end (CRLF, or a bare LF) and a head's end,
        # learnt from its first reply
        self.poll = _poller(writer.get_extra_info("socket").fileno())

    @property
    def fresh(self) -> bool:
        """Still open: the server has not closed it (as far as the event loop has seen)."""
        return not (self.reader.at_eof() or self.writer.is_closing())

    def silent(self) -> bool:
        """Open, and nothing came from the server while it sat idle: no EOF, no stray bytes
        (a body longer than its reply said, or one on a 204), not even in the socket's
        buffer that the event loop has not read yet. Only such a connection may carry the
        next request; else stray bytes would be read as its reply (httpcore checks the
        same before reusing a connection)."""
        reader = self.reader
        # StreamReader has no public way to ask for what it holds unread.
        return not (reader._buffer or reader.at_eof()  # type: ignore[attr-defined]
                    or self.writer.is_closing() or self.poll(0))

    def close(self) -> None:
        self.writer.close()


def _poller(fd: int) -> Callable[[int], Sized]:
    """`poll(0)`: what is waiting on the socket `fd` (data, EOF, an error), without waiting."""
    if hasattr(select, "poll"):  # no FD_SETSIZE limit, unlike select() (not on Windows)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return poller.poll
    return lambda timeout: select.select((fd,), (), (), timeout)[0]


def usable(url: str, headers: Mapping[str, str]) -> bool:
    """True when this client can send to `url` with `headers` exactly as httpx would: the
    request line and Host header are httpx's own (`_origin`), the headers h11 would send."""
    parts = urlsplit(url)
    try:
        _ = parts.port  # a bad port raises
        origin = httpx.URL(url)
    except (ValueError, httpx.InvalidURL):
        return False
    if origin.scheme not in ("http", "https") or not origin.raw_host or origin.userinfo:
        return False
    return all(name.isascii() and _TOKEN.fullmatch(name) is not None and value.isascii()
               and _VALUE.fullmatch(value) is not None for name, value in headers.items())


def _origin(url: str) -> tuple[str, int, str, str]:
    """(host to connect to, port, Host header, request target) as httpx makes them:
    an IDNA host, a percent-encoded path and query, no default port in Host."""
    origin = httpx.URL(url)
    return (origin.raw_host.decode("ascii"),
            origin.port or (443 if origin.scheme == "https" else 80),
            origin.netloc.decode("ascii"), origin.raw_path.decode("ascii"))


class WirePool:
    """Keep-alive connections to the origin of `url`, each POSTing to `url` with `headers`.

    `check` (the host policy) is called before every request, as httpx's request hook does.
    """

    def __init__(self, url: str, headers: Mapping[str, str], *, connect_timeout: float,
                 check: Callable[[str], None] | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        assert usable(url, headers), url
        assert (tls is not None) == url.lower().startswith("https:"), "https takes a context"
        self.url = url
        self._tls = tls
        self._host, self._port, host_header, target = _origin(url)
        self._connect_timeout = connect_timeout
        self._check = check
        self._idle: list[_Conn] = []
        self._closed = False
        sent = {"host": host_header, "accept": "*/*", "connection": "keep-alive",
                "user-agent": f"a2abench/{__version__}"}
        sent.update((name.lower(), value) for name, value in headers.items())
        sent.pop("content-length", None)
        lines = "".join(f"{name}: {value}\r\n" for name, value in sent.items())
        self._head = f"POST {target} HTTP/1.1\r\n{lines}content-length: ".encode("ascii")

    async def post(self, body: bytes) -> WireResponse:
        """Send one POST; the reply with its headers read and its body not yet read.

        A request is sent once. When a reused connection fails before any byte of a reply
        (the server closed it just as it was reused, or read the request and closed without
        an answer: we cannot tell which), the error goes to the caller, whose retry policy
        decides, exactly as with httpx.
        """
        if self._check is not None:
            self._check(self.url)
        request = self._head + b"%d\r\n\r\n" % len(body)
        while self._idle:
            conn = self._idle.pop()
            if conn.silent():
                return await self._exchange(conn, request, body)
            conn.close()
        return await self._exchange(await self._connect(), request, body)

    async def _connect(self) -> _Conn:
        try:
            async with asyncio.timeout(self._connect_timeout):  # the TLS handshake included
                reader, writer = await asyncio.open_connection(
                    self._host, self._port, limit=MAX_HEAD, ssl=self._tls,
                    server_hostname=self._host.strip("[]") if self._tls else None)
        except TimeoutError:
            raise WireError(f"connection timed out after {self._connect_timeout:g} s") from None
        except OSError as exc:
            raise WireError(str(exc) or type(exc).__name__) from None
        return _Conn(reader, writer)

    async def _exchange(self, conn: _Conn, request: bytes, body: bytes) -> WireResponse:
        try:
            if len(body) < CHUNK:
                conn.writer.write(request + body)
            else:  # no copy of a large body
                conn.writer.writelines((request, body))
            status, headers = await _read_head(conn)
            length, reusable = _framing(status, headers)
        except BaseException:
            conn.close()
            raise
        return WireResponse(self, conn, status, headers, length, reusable)

    def release(self, conn: _Conn) -> None:
        if not self._closed and len(self._idle) < MAX_IDLE and conn.fresh:
            self._idle.append(conn)
        else:
            conn.close()

    async def aclose(self) -> None:
        """Close the idle connections; those still in use close when their reply ends."""
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
        for conn in idle:
            with contextlib.suppress(OSError):  # the peer reset it first: closed either way
                await conn.writer.wait_closed()


async def _read_head(conn: _Conn) -> tuple[int, Headers]:
    while True:
        try:
            end = conn.end
            raw = await (conn.reader.readuntil(end) if end else _first_head(conn))
        except asyncio.IncompleteReadError as exc:
            raise WireError("Server disconnected without sending a complete response"
                            if exc.partial else
                            "Server disconnected without sending a response") from None
        except asyncio.LimitOverrunError:
            raise WireError(f"the reply's status line and headers exceed {MAX_HEAD} bytes"
                            ) from None
        except OSError as exc:
            raise WireError(str(exc) or type(exc).__name__) from None
        status, headers = _parse_head(raw, conn.eol)
        if not 100 <= status < 200 or status == 101:
            return status, headers
        # An interim 1xx reply (100 Continue, 103 Early Hints): the real one follows.


async def _first_head(conn: _Conn) -> bytes:
    """The head of a connection's first reply, learning the server's line end on the way:
    CRLF, or a bare LF, which h11 accepts too. Later heads are read in one call."""
    reader = conn.reader
    status = await reader.readuntil(b"\n")
    conn.eol = eol = b"\r\n" if status.endswith(b"\r\n") else b"\n"
    conn.end = eol + eol
    try:
        start = await reader.readexactly(len(eol))
        if start == eol:  # no header lines at all
            return status + start
        return status + start + await reader.readuntil(b"\n" + eol)
    except asyncio.IncompleteReadError as exc:
        raise asyncio.IncompleteReadError(status + exc.partial, None) from None


def _parse_head(raw: bytes, eol: bytes) -> tuple[int, Headers]:
    lines = raw[:-2 * len(eol)].split(eol)
    first = lines[0]
    # h11's grammar: "HTTP/1.x", a space, three digits, nothing or a space and a reason;
    # below 100 is no status at all.
    if (first[:9] not in (b"HTTP/1.1 ", b"HTTP/1.0 ") or not first[9:12].isdigit()
            or first[12:13] not in (b"", b" ") or first[9:10] == b"0"):
        raise WireError(f"not an HTTP/1.1 reply: {first[:80]!r}")
    items: dict[str, str] = {}
    key = ""
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t") and key:  # obs-fold: RFC 9112 5.2 says unfold to SP
            items[key] += " " + line.strip(b" \t").decode("latin-1")
            continue
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip() or name[:1] in b" \t":
            raise WireError(f"malformed header line in the reply: {line[:80]!r}")
        key = name.decode("latin-1").lower()
        text = value.strip(b" \t").decode("latin-1")
        items[key] = f"{items[key]}, {text}" if key in items else text
    return int(first[9:12]), Headers(items, http10=first[:8] == b"HTTP/1.0")


def _framing(status: int, headers: Headers) -> tuple[int | None, bool]:
    """(the body's length: bytes, `_CHUNKED` or None for "until the connection closes",
    may the connection carry another request after it), refusing what h11 refuses."""
    items = headers._items
    connection = items.get("connection", "").lower()
    # HTTP/1.0 closes after the reply unless it says otherwise
    keep = "keep-alive" in connection if headers.http10 else "close" not in connection
    if status in _NO_BODY:
        return 0, keep
    coding = items.get("transfer-encoding")
    declared = items.get("content-length")
    if coding is not None:
        if coding.lower() != "chunked":
            raise WireError(f"the reply's Transfer-Encoding is {coding[:40]!r}: only "
                            f"Transfer-Encoding: chunked is supported")
        # RFC 9112 6.1, 6.3: with a Content-Length too, or on HTTP/1.0, the framing is
        # suspect (request smuggling): read as chunked, then never reuse the connection.
        return _CHUNKED, keep and declared is None and not headers.http10
    if declared is None:
        return None, False
    return _length(declared), keep


def _length(declared: str) -> int:
    if declared.isdigit() and declared.isascii() and len(declared) <= MAX_DIGITS:
        return int(declared)  # the usual single length, without the split below
    values = {value.strip() for value in declared.split(",")}
    if len(values) != 1:  # repeated equal values are one length, as in h11
        raise WireError(f"conflicting Content-Length headers in the reply: {declared[:40]!r}")
    value = values.pop()
    if not (value.isascii() and value.isdigit()) or len(value) > MAX_DIGITS:
        raise WireError(f"the reply's Content-Length is not a number: {value[:40]!r}")
    return int(value)


class WireResponse:
    """One reply: status and headers read, the body read by `aiter_bytes()` once."""

    __slots__ = ("_conn", "_done", "_length", "_pool", "_reusable", "headers", "status_code",
                 "url")

    def __init__(self, pool: WirePool, conn: _Conn, status: int, headers: Headers,
                 length: int | None, reusable: bool) -> None:
        self._pool, self._conn = pool, conn
        self.status_code, self.headers, self.url = status, headers, pool.url
        self._length, self._reusable = length, reusable
        self._done = False

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body, decoded as httpx decodes it (`_Decoding`)."""
        coding = self.headers.get("content-encoding")
        decoding = _Decoding.of(coding) if coding else None
        try:
            async for chunk in self._raw():
                if decoding is None:
                    yield chunk
                    continue
                for part in decoding.decode(chunk):
                    yield part
            for part in decoding.flush() if decoding is not None else ():
                yield part
        except zlib.error as exc:
            raise WireError(f"the reply's body cannot be decoded: {exc}") from None
        except asyncio.IncompleteReadError:
            raise WireError("Server disconnected before the end of the response body"
                            ) from None
        except OSError as exc:
            raise WireError(str(exc) or type(exc).__name__) from None

    async def _raw(self) -> AsyncIterator[bytes]:
        reader, left = self._conn.reader, self._length
        if left == _CHUNKED:
            async for chunk in _chunks(reader):
                yield chunk
        elif left is None:  # no length: the body ends with the connection
            while chunk := await reader.read(CHUNK):
                yield chunk
        else:
            while left:
                chunk = await reader.readexactly(min(left, CHUNK))
                left -= len(chunk)
                yield chunk
        self._done = True
        if self._reusable:
            self._pool.release(self._conn)
        else:
            self._conn.close()

    async def aclose(self) -> None:
        """Give the connection back when the body was read to its end; close it otherwise."""
        if not self._done:
            self._done = True
            self._conn.close()


async def _chunks(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    """The data of a chunked body, at most CHUNK bytes at a time however large a chunk
    says it is; the trailers are read (bounded like the head) and dropped."""
    while True:
        line = await _line(reader, "a chunk-size line of the reply is too long")
        size_text = line[:-2].split(b";", 1)[0].rstrip(b" \t")  # extensions: not used
        if not 0 < len(size_text) <= MAX_DIGITS or not _HEX.issuperset(size_text):
            raise WireError(f"bad chunk size in the reply: {size_text[:40]!r}")
        left = int(size_text, 16)
        if not left:
            break
        while left:
            data = await reader.readexactly(min(left, CHUNK))
            left -= len(data)
            yield data
        if await reader.readexactly(2) != b"\r\n":
            raise WireError("a chunk of the reply does not end with CRLF")
    too_long, trailers = f"the reply's trailers exceed {MAX_HEAD} bytes", 0
    while (line := await _line(reader, too_long)) != b"\r\n":
        trailers += len(line)
        if trailers > MAX_HEAD:
            raise WireError(too_long)


async def _line(reader: asyncio.StreamReader, too_long: str) -> bytes:
    try:
        return await reader.readuntil(b"\r\n")
    except asyncio.LimitOverrunError:
        raise WireError(too_long) from None


class _Decoding:
    """Content-Encoding undone as httpx undoes it: gzip and deflate (zlib-wrapped, or raw when
    the first bytes say so), several codings in reverse order, identity and codings it does
    not know passed through. Each step yields at most CHUNK bytes at a time: a 64 kB
    compressed chunk could otherwise expand to 64 MB before the reply's size cap saw any."""

    __slots__ = ("_steps",)

    def __init__(self, steps: list[_Inflate]) -> None:
        self._steps = steps

    @classmethod
    def of(cls, header: str) -> _Decoding | None:
        codings = [coding.strip().lower() for coding in header.split(",")]
        steps = [_Inflate(coding) for coding in reversed(codings) if coding in _INFLATE]
        return cls(steps) if steps else None

    def decode(self, data: bytes, first: int = 0) -> Iterator[bytes]:
        if first == len(self._steps):
            yield data
            return
        for part in self._steps[first].decode(data):
            yield from self.decode(part, first + 1)

    def flush(self) -> Iterator[bytes]:
        for index, step in enumerate(self._steps):
            if tail := step.flush():
                yield from self.decode(tail, index + 1)


_INFLATE = {"gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}


class _Inflate:
    __slots__ = ("_raw_next", "_zlib")

    def __init__(self, coding: str) -> None:
        self._zlib = zlib.decompressobj(_INFLATE[coding])
        self._raw_next = coding == "deflate"  # httpx retries a failing first deflate as raw

    def decode(self, data: bytes) -> Iterator[bytes]:
        while data:
            try:
                part = self._zlib.decompress(data, CHUNK)
            except zlib.error:
                if not self._raw_next:
                    raise
                self._zlib, self._raw_next = zlib.decompressobj(-zlib.MAX_WBITS), False
                continue
            self._raw_next = False
            if part:
                yield part
            data = self._zlib.unconsumed_tail

    def flush(self) -> bytes:
        return self._zlib.flush()
