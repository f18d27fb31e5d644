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
from collections.abc import AsyncIterator, Callable, ItemsView, Mapping, Sized
from urllib.parse import urlsplit

import httpx

from a2abench._version import __version__
from a2abench.net.coding import decode

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
    transport error, so that callers handle one family of failures whichever client sent.

    This class itself: the connection closed or broke before any byte of a reply (the
    server's fault or the network's: nobody can tell from one failure)."""


class WireConnectError(WireError):
    """No connection was made (refused, unreachable, timed out): plausibly the network's."""


class WireFrameError(WireError):
    """A reply began and then broke HTTP/1.1's framing (a malformed head, body or end, a
    connection that ended or was reset mid-reply): the server's fault."""


class Headers:
    """A reply's headers: names lower-cased, repeated names joined with ", "."""

    __slots__ = ("_items", "http10")

    def __init__(self, items: dict[str, str], *, http10: bool = False) -> None:
        self._items = items
        self.http10 = http10  # the reply's version was HTTP/1.0

    def get(self, name: str, default: str | None = None) -> str | None:
        return self._items.get(name.lower(), default)

    def items(self) -> ItemsView[str, str]:
        return self._items.items()


class _Conn:
    __slots__ = ("poll", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
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
        return not (unread(reader) or reader.at_eof()
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
            raise WireConnectError(f"connection timed out after {self._connect_timeout:g} s"
                                   ) from None
        except OSError as exc:
            raise WireConnectError(str(exc) or type(exc).__name__) from None
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
    reader = conn.reader
    while True:
        try:
            raw = await _block(reader, f"the reply's status line and headers exceed {MAX_HEAD} "
                                       f"bytes")
        except asyncio.IncompleteReadError as exc:
            if exc.partial:
                raise WireFrameError("Server disconnected without sending a complete "
                                     "response") from None
            raise WireError("Server disconnected without sending a response") from None
        except OSError as exc:
            raise WireError(str(exc) or type(exc).__name__) from None
        status, headers = _parse_head(raw)
        if status == 101:  # h11 refuses a switch nobody asked for, and so does httpx
            raise WireFrameError("the server switched protocols (HTTP 101) without being "
                                 "asked to")
        if not 100 <= status < 200:
            return status, headers
        # An interim 1xx reply (100 Continue, 103 Early Hints): the real one follows.


_BLANK = re.compile(rb"\n\r?\n")


def unread(reader: asyncio.StreamReader) -> bytearray:
    """The bytes `reader` holds unread (its own buffer, not a copy)."""
    # StreamReader has no public way to look at them; if Python renames it, this fails loudly.
    held: bytearray = reader._buffer  # type: ignore[attr-defined]
    return held


async def _block(reader: asyncio.StreamReader, too_long: str) -> bytes:
    """The bytes up to and including the first blank line, as h11 finds it: lines end with
    CRLF or a bare LF, mixed as they come (a blank line is `\\n\\r?\\n`); at most MAX_HEAD
    bytes. A head usually arrives whole: one search of what the reader holds. Otherwise it is
    read a line at a time, each byte searched once. IncompleteReadError's `partial` holds
    everything read."""
    held = unread(reader)
    found = _BLANK.search(held)
    if found is not None and held[:1] != b"\n" and held[:2] != b"\r\n" \
            and found.end() <= MAX_HEAD:
        return await reader.readexactly(found.end())  # the whole head was there
    got = bytearray()
    searched = 0  # how many of the reader's unread bytes were searched for a blank line
    while True:
        held = unread(reader)
        if not got or got.endswith(b"\n"):  # at the start of a line: is it blank?
            blank = 1 if held[:1] == b"\n" else 2 if held[:2] == b"\r\n" else 0
            if blank:
                return bytes(got + await reader.readexactly(blank))
        found = _BLANK.search(held, max(searched - 2, 0))
        if found is not None:
            if len(got) + found.end() > MAX_HEAD:
                raise WireFrameError(too_long)
            return bytes(got + await reader.readexactly(found.end()))
        searched = len(held)
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.LimitOverrunError:
            raise WireFrameError(too_long) from None
        except asyncio.IncompleteReadError as exc:
            raise asyncio.IncompleteReadError(bytes(got) + exc.partial, None) from None
        got += line
        searched = max(searched - len(line), 0)
        if len(got) > MAX_HEAD:
            raise WireFrameError(too_long)
        if line in (b"\n", b"\r\n"):
            return bytes(got)


# h11's grammar of a status line and a header field (h11/_abnf.py); _FIELDS: every header
# line of a head and its blank line, to check a whole head in one match.
_STATUS = re.compile(rb"HTTP/(1\.[01]) ([0-9]{3})(?: [^\x00\n\r\f\v]*)?\r?")
_FIELD_RE = (rb"([-!#$%&'*+.^_`|~0-9a-zA-Z]+):[ \t]*"
             rb"((?:[^\x00\s]+(?:[ \t]+[^\x00\s]+)*)?)[ \t]*")
_FIELD = re.compile(_FIELD_RE)
_FIELDS = re.compile(b"(?:" + _FIELD_RE.replace(b"(", b"(?:").replace(b"(?:?:", b"(?:")
                     + rb"\r?\n)*\r?\n")


def _parse_head(raw: bytes) -> tuple[int, Headers]:
    """Status and headers of a head as h11 reads them: a CR before each line's LF dropped,
    obs-folds unfolded, every line matched against h11's grammar (a bare CR or a NUL in a
    value, a space before the colon: refused)."""
    end = raw.find(b"\n")
    status = _STATUS.fullmatch(raw, 0, end)
    if status is None or status[2] < b"100":  # below 100 is no status at all
        raise WireFrameError(f"not an HTTP/1.1 reply: {raw[:min(end, 80)]!r}")
    items: dict[str, str] = {}
    if _FIELDS.fullmatch(raw, end + 1) is not None:  # the usual head: no folds, all valid
        fields = [line.partition(b":") for line in raw[end + 1:].split(b"\n")[:-2]]
    else:
        fields = [_field(line) for line in _unfold(raw[end + 1:].split(b"\n")[:-2])]
    for name, _, value in fields:
        key, text = name.decode("ascii").lower(), value.strip(b" \t\r").decode("latin-1")
        items[key] = f"{items[key]}, {text}" if key in items else text
    return int(status[2]), Headers(items, http10=status[1] == b"1.0")


def _field(line: bytes) -> tuple[bytes, bytes, bytes]:
    line = line[:-1] if line.endswith(b"\r") else line
    if _FIELD.fullmatch(line) is None:
        raise WireFrameError(f"malformed header line in the reply: {line[:80]!r}")
    return line.partition(b":")


def _unfold(lines: list[bytes]) -> list[bytes]:
    """obs-fold (RFC 9112 5.2): a line starting with SP or HTAB continues the one before."""
    out: list[bytes] = []
    for line in lines:
        line = line[:-1] if line.endswith(b"\r") else line
        if line[:1] in (b" ", b"\t"):
            if not out:
                raise WireFrameError(f"malformed header line in the reply (a continuation "
                                     f"line first): {line[:80]!r}")
            out[-1] += b" " + line.lstrip(b" \t")
        else:
            out.append(line)
    return out


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
            raise WireFrameError(f"the reply's Transfer-Encoding is {coding[:40]!r}: only "
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
        raise WireFrameError(f"conflicting Content-Length headers in the reply: {declared[:40]!r}")
    value = values.pop()
    if not (value.isascii() and value.isdigit()) or len(value) > MAX_DIGITS:
        raise WireFrameError(f"the reply's Content-Length is not a number: {value[:40]!r}")
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

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body as sent (not decoded: net/coding.py does that, for httpx's replies too).
        Whatever breaks it now is the server's: the reply had begun."""
        try:
            async for chunk in self._raw():
                yield chunk
        except asyncio.IncompleteReadError:
            raise WireFrameError("Server disconnected before the end of the response body"
                                 ) from None
        except OSError as exc:
            raise WireFrameError(f"the connection broke in the middle of the reply: "
                                 f"{exc or type(exc).__name__}") from None

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body decoded as httpx decodes it, in bounded pieces (net/coding.py)."""
        return decode(self.aiter_raw(), self.headers.get("content-encoding"))

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
            raise WireFrameError(f"bad chunk size in the reply: {size_text[:40]!r}")
        left = int(size_text, 16)
        if not left:
            break
        while left:
            data = await reader.readexactly(min(left, CHUNK))
            left -= len(data)
            yield data
        if await reader.readexactly(2) != b"\r\n":
            raise WireFrameError("a chunk of the reply does not end with CRLF")
    await _block(reader, f"the reply's trailers exceed {MAX_HEAD} bytes")  # read as h11 does


async def _line(reader: asyncio.StreamReader, too_long: str) -> bytes:
    try:
        return await reader.readuntil(b"\r\n")
    except asyncio.LimitOverrunError:
        raise WireFrameError(too_long) from None
