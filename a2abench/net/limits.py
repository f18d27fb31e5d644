"""What one reply from an agent (or an LLM endpoint) may cost us: bytes, nesting, counts, time.

A reply is read as a bounded stream, never as one unbounded `response.content`:

    limits = ReplyLimits(max_bytes=16_000_000)
    async with deadline_scope(Deadline.after(timeout, "request"), current_task_deadline()), \\
            http.stream("POST", url, content=body) as response:    # DeadlinePassed
        body = await read_body(response, limits.max_bytes, url=url)      # ReplyTooLarge
        payload = loads(body, limits.max_depth, what=f"the reply from {url}")  # ReplyTooDeep
    ...
        async for event, data, size in iter_sse(response, limits, url=url): ...  # SSE
    check_count(len(artifacts), limits.max_artifacts, "artifacts")  # ReplyLimitExceeded

`deadline_scope` raises `DeadlinePassed` naming the deadline that passed first (the request's
own, or the task-trial's set by the run engine with `task_deadline`); each caller turns it into
its own typed error, because who is to blame differs (an agent, an LLM endpoint).

The A2A bindings (JSON-RPC, HTTP+JSON, gRPC) and the LLM clients share this module, which sits
below both (a top-level module, not part of `a2a/`), so every reply meets the same limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

import httpx
import orjson

from a2abench.errors import (
    BrokenReply,
    ProtocolError,
    ReplyLimitExceeded,
    ReplyTooDeep,
    ReplyTooLarge,
)
from a2abench.net.coding import CodingError, decode, decode_blocking

DEFAULT_MAX_REPLY_BYTES = 16_000_000  # 16 MB: far above any real reply, far below trouble
DEFAULT_MAX_DEPTH = 100  # JSON nesting; the A2A envelope uses ~8 levels, tool arguments a few
DEFAULT_MAX_PARTS = 10_000  # parts in one reply (message, status, artifacts, history)
DEFAULT_MAX_ARTIFACTS = 1_000
DEFAULT_MAX_EVENTS = 10_000  # SSE events in one streamed reply
DEFAULT_MAX_TOOL_CALLS = 100  # tool calls in one agent turn (no real model sends more)


@dataclass(frozen=True)
class ReplyLimits:
    """Caps on one reply. `max_bytes` counts decoded body bytes (all SSE events together)."""

    max_bytes: int = DEFAULT_MAX_REPLY_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH
    max_parts: int = DEFAULT_MAX_PARTS
    max_artifacts: int = DEFAULT_MAX_ARTIFACTS
    max_events: int = DEFAULT_MAX_EVENTS
    max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_depth", "max_parts", "max_artifacts", "max_events",
                     "max_tool_calls"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")


def format_bytes(n: int) -> str:
    """16000000 -> '16 MB', 1500 -> '1.5 kB', 12 -> '12 bytes' (decimal units, as the flag)."""
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


def too_large(url: str, max_bytes: int, received: int) -> ReplyTooLarge:
    return ReplyTooLarge(f"the reply from {url} is larger than the {format_bytes(max_bytes)} "
                         f"cap (--max-reply-bytes {max_bytes}); stopped reading after "
                         f"{received} bytes", max_bytes=max_bytes, received=received,
                         hint="Raise --max-reply-bytes if the agent really sends replies "
                              "this large.")


def check_count(count: int, limit: int, what: str) -> None:
    """Raise ReplyLimitExceeded when a reply holds more `what` than the limit allows."""
    if count > limit:
        raise ReplyLimitExceeded(f"the reply holds {count} {what}; the limit is {limit}",
                                 hint="The agent sent far more than any benchmark turn needs.")


# --- bytes ------------------------------------------------------------------------------------

class _HeaderLookup(Protocol):
    def get(self, key: str, default: str | None = None, /) -> str | None: ...


class StreamedReply(Protocol):
    """What the readers below need of a streamed reply: an `httpx.Response`, or the lean
    HTTP/1.1 client's `WireResponse` (a2abench/net/h1.py). The raw body is read and decoded
    by net/coding.py, a bounded piece at a time: never by httpx's own decoder, which undoes
    each network chunk whole (a gzip bomb)."""

    @property
    def headers(self) -> _HeaderLookup: ...

    def aiter_raw(self) -> AsyncIterator[bytes]: ...


def body_of(response: StreamedReply) -> AsyncIterator[bytes]:
    """The decoded body of a streamed reply, in pieces of at most 64 kB once decoded;
    CodingError when its Content-Encoding cannot be undone (see `broken_coding`)."""
    if isinstance(response, httpx.Response) and response.is_stream_consumed:
        return response.aiter_bytes()  # read into memory before (a MockTransport's reply)
    return decode(response.aiter_raw(), response.headers.get("content-encoding"))


def body_of_blocking(response: httpx.Response) -> Iterator[bytes]:
    """`body_of` for a blocking httpx client."""
    if response.is_stream_consumed:
        return response.iter_bytes()
    return decode_blocking(response.iter_raw(), response.headers.get("content-encoding"))


def broken_coding(url: str, exc: CodingError) -> BrokenReply:
    return BrokenReply(f"the reply from {url} cannot be read: {exc}",
                       hint="The server's Content-Encoding does not match its body.")


async def read_body(response: StreamedReply, max_bytes: int, *, url: str) -> bytes:
    """The whole (decoded) body of a streamed response, refusing more than `max_bytes`.

    A declared Content-Length over the cap is refused before reading anything. A body that
    cannot be decoded is a BrokenReply.
    """
    _refuse_declared(response, max_bytes, url)
    buffer = bytearray()
    try:
        async for chunk in body_of(response):
            _append(buffer, chunk, max_bytes, url)
    except CodingError as exc:
        raise broken_coding(url, exc) from None
    return bytes(buffer)


def read_body_blocking(response: httpx.Response, max_bytes: int, *, url: str) -> bytes:
    """`read_body` for a blocking httpx client (the embeddings client)."""
    _refuse_declared(response, max_bytes, url)
    buffer = bytearray()
    try:
        for chunk in body_of_blocking(response):
            _append(buffer, chunk, max_bytes, url)
    except CodingError as exc:
        raise broken_coding(url, exc) from None
    return bytes(buffer)


def _refuse_declared(response: StreamedReply, max_bytes: int, url: str) -> None:
    declared = response.headers.get("content-length") or ""
    if declared.isdigit() and int(declared) > max_bytes:
        raise too_large(url, max_bytes, 0)


def _append(buffer: bytearray, chunk: bytes, max_bytes: int, url: str) -> None:
    if len(buffer) + len(chunk) > max_bytes:
        raise too_large(url, max_bytes, len(buffer) + len(chunk))
    buffer += chunk


async def read_prefix(response: StreamedReply, max_bytes: int) -> bytes:
    """At most the first `max_bytes` of a streamed body (error pages: the rest is not read).
    What cannot be decoded ends the prefix: an error page is read for its message only."""
    buffer = bytearray()
    with contextlib.suppress(CodingError):
        async for chunk in body_of(response):
            buffer += chunk[:max_bytes - len(buffer)]
            if len(buffer) >= max_bytes:
                break
    return bytes(buffer)


def read_prefix_blocking(response: httpx.Response, max_bytes: int) -> bytes:
    """`read_prefix` for a blocking httpx client."""
    buffer = bytearray()
    with contextlib.suppress(CodingError):
        for chunk in body_of_blocking(response):
            buffer += chunk[:max_bytes - len(buffer)]
            if len(buffer) >= max_bytes:
                break
    return bytes(buffer)


# --- JSON -------------------------------------------------------------------------------------

def loads(data: bytes | bytearray | str, max_depth: int, *, what: str) -> Any:
    """json.loads with a nesting limit. Raises ReplyTooDeep; invalid JSON raises ValueError
    (json.JSONDecodeError or UnicodeDecodeError) for the caller to word."""
    try:
        value = json.loads(data)
    except RecursionError:  # the C scanner gives up near the interpreter's recursion limit
        raise _too_deep(what, max_depth) from None
    check_depth(value, max_depth, what=what, brackets=_brackets(data))
    return value


def raw_decode(text: str, start: int, max_depth: int, *, what: str) -> tuple[Any, int]:
    """`json.JSONDecoder().raw_decode(text, start)` with the nesting limit of `loads`."""
    try:
        value, stop = _DECODER.raw_decode(text, start)
    except RecursionError:
        raise _too_deep(what, max_depth) from None
    check_depth(value, max_depth, what=what, brackets=text.count("[", start, stop)
                + text.count("{", start, stop))
    return value, stop


_DECODER = json.JSONDecoder()


def _brackets(data: bytes | bytearray | str) -> int:
    if isinstance(data, str):
        return data.count("[") + data.count("{")
    return data.count(b"[") + data.count(b"{")


def check_depth(value: Any, max_depth: int, *, what: str, brackets: int | None = None) -> None:
    """Raise ReplyTooDeep if `value` nests lists/objects deeper than `max_depth` (iteratively,
    so the check itself cannot overflow). `brackets`, the number of `[`/`{` in the source,
    skips the walk when it cannot reach the limit (every normal reply)."""
    if brackets is not None and brackets <= max_depth:
        return
    # level by level: the containers at `depth` (a scalar holds none: a top-level string
    # of brackets is not walked character by character)
    level, depth = ([value] if isinstance(value, dict | list) else []), 1
    while level:
        level = [child for item in level
                 for child in (item.values() if isinstance(item, dict) else item)
                 if isinstance(child, dict | list)]
        depth += 1
        if level and depth > max_depth:
            raise _too_deep(what, max_depth)


def lone_surrogate(value: Any) -> str | None:
    """Where decoded JSON holds a lone surrogate, or None: `"\\ud800"` is a valid JSON escape,
    but the str it decodes to cannot be encoded as UTF-8, so it fails whatever sends it on
    (a request to an LLM, a record). Says e.g. `U+D800 at character 3 of parts[0].text`."""
    try:  # orjson refuses lone surrogates at C speed: the walk below only when it refuses
        orjson.dumps(value)
        return None
    except orjson.JSONEncodeError:  # a surrogate, or what orjson refuses (a 65-bit integer)
        pass
    stack: list[tuple[Any, str]] = [({"": value}, "")]  # the root as a child: one loop
    while stack:
        item, path = stack.pop()
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, child in pairs:
            at = (f"{path}.{key}" if path else key) if isinstance(key, str) else f"{path}[{key}]"
            named = ((key, f"a key of {path or 'the reply'}"), (child, at or "the reply"))
            for text, where in named:
                found = (_LONE_SURROGATE.search(text)
                         if isinstance(text, str) and not text.isascii() else None)
                if found:
                    return f"U+{ord(found[0]):04X} at character {found.start()} of {where}"
            if isinstance(child, dict | list):
                stack.append((child, at))
    return None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # JSON decodes a valid pair to one char


def _too_deep(what: str, max_depth: int) -> ReplyTooDeep:
    return ReplyTooDeep(f"{what} is nested deeper than {max_depth} levels",
                        max_depth=max_depth,
                        hint="No A2A reply needs this much nesting; fix the agent.")


# --- server-sent events -----------------------------------------------------------------------

_EOL = re.compile(rb"\r\n|\r|\n")


async def iter_sse(response: StreamedReply, limits: ReplyLimits, *,
                   url: str) -> AsyncIterator[tuple[str, str, int]]:
    """(event type, data, size in bytes) of each server-sent event, read as a bounded stream.

    All events together may hold at most `limits.max_bytes` and `limits.max_events` events;
    a line never has to fit anywhere but that budget. Lines end with CRLF, LF or CR (the SSE
    spec); a last event without its blank line still counts. Invalid UTF-8 is a ProtocolError,
    a body that cannot be decoded a BrokenReply.
    """
    try:
        async for item in _sse(response, limits, url):
            yield item
    except CodingError as exc:
        raise broken_coding(url, exc) from None


async def _sse(response: StreamedReply, limits: ReplyLimits,
               url: str) -> AsyncIterator[tuple[str, str, int]]:
    total, events = 0, 0
    buffer = bytearray()
    event, data, size = "message", list[str](), 0
    async for chunk in body_of(response):
        total += len(chunk)
        if total > limits.max_bytes:
            raise too_large(url, limits.max_bytes, total)
        scan = len(buffer)
        buffer += chunk
        start = 0
        while (match := _EOL.search(buffer, max(start, scan - 1))) is not None:
            if match.group() == b"\r" and match.end() == len(buffer):
                break  # maybe the first half of CRLF: wait for the next chunk
            line = _decode_line(buffer[start:match.start()], url)
            size += match.end() - start
            start = match.end()
            if line:
                event = _field(line, event, data)
                continue
            if data:
                events += 1
                check_count(events, limits.max_events, "stream events")
                yield event, "\n".join(data), size
            event, data, size = "message", [], 0
        del buffer[:start]
    if buffer:
        size += len(buffer)
        event = _field(_decode_line(buffer, url), event, data)
    if data:
        check_count(events + 1, limits.max_events, "stream events")
        yield event, "\n".join(data), size


def _decode_line(raw: bytes | bytearray, url: str) -> str:
    try:
        return bytes(raw).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"an SSE event from {url} is not valid UTF-8 ({exc.reason} at "
                            f"byte {exc.start})") from None


def _field(line: str, event: str, data: list[str]) -> str:
    """Apply one SSE field line; returns the event type (comments and other fields ignored)."""
    if line.startswith("data:"):
        data.append(line[5:].removeprefix(" "))
    elif line.startswith("event:"):
        event = line[6:].strip() or "message"
    return event


# --- deadlines --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Deadline:
    """A point in monotonic time, what it bounds ("request" or "task"), and its length."""

    at: float
    seconds: float
    what: str

    @classmethod
    def after(cls, seconds: float, what: str) -> Deadline:
        return cls(time.monotonic() + seconds, seconds, what)

    def remaining(self) -> float:
        return self.at - time.monotonic()

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0


class DeadlinePassed(Exception):
    """Raised by `deadline_scope` when its earliest deadline passed; callers re-raise it as
    their own typed error."""

    def __init__(self, deadline: Deadline) -> None:
        super().__init__(f"{deadline.what} deadline of {deadline.seconds:g} s passed")
        self.deadline = deadline


_task_deadline: ContextVar[Deadline | None] = ContextVar("a2abench_task_deadline",
                                                         default=None)


@contextmanager
def task_deadline(seconds: float | None) -> Iterator[Deadline | None]:
    """Bound every request made in this context (and tasks it starts) by one task-trial
    deadline; `None` sets none."""
    deadline = Deadline.after(seconds, "task") if seconds else None
    token = _task_deadline.set(deadline)
    try:
        yield deadline
    finally:
        _task_deadline.reset(token)


def current_task_deadline() -> Deadline | None:
    return _task_deadline.get()


def earliest(*deadlines: Deadline | None) -> Deadline | None:
    first = None
    for deadline in deadlines:
        if deadline is not None and (first is None or deadline.at < first.at):
            first = deadline
    return first


class deadline_scope:
    """Cancel the body when the earliest deadline passes and raise DeadlinePassed for it.

    Also raises at once when that deadline has already passed. A class rather than an
    `asynccontextmanager`: every A2A request enters one, and the generator's frame and its
    extra wrapper cost more than the timeout itself (perf/throughput.py --profile).
    """

    __slots__ = ("_first", "_scope")

    def __init__(self, *deadlines: Deadline | None) -> None:
        self._first = earliest(*deadlines)
        self._scope: asyncio.Timeout | None = None

    async def __aenter__(self) -> Deadline | None:
        first = self._first
        if first is None:
            return None
        remaining = first.remaining()
        if remaining <= 0:
            raise DeadlinePassed(first)
        loop = asyncio.get_running_loop()
        self._scope = asyncio.timeout_at(loop.time() + remaining)
        await self._scope.__aenter__()
        return first

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        scope, first = self._scope, self._first
        if scope is None or first is None:
            return
        try:
            await scope.__aexit__(exc_type, exc, tb)
        except TimeoutError:
            if scope.expired():
                raise DeadlinePassed(first) from None
            raise
