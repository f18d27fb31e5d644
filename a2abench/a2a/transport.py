"""JSON-RPC over HTTP for A2A 0.2, 0.3 and 1.0: one call, retries, SSE, metrics.

Why not a2a-sdk's client for the wire: it refuses 0.2 cards ("no compatible transports"),
has no legacy `agent.json` path, defaults to a 5 s timeout, mutates a shared httpx client's
headers, hides status codes and byte counts behind its own errors, and returns protobuf
objects we would convert anyway. The three JSON-RPC dialects differ only in method names,
one header and the result envelope, so this module speaks them directly over httpx, and
the tests prove interop against real a2a-sdk 1.x servers (and a2a-sdk serves our own servers).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import httpx
import orjson

from a2abench.a2a.card import status_origin, unreachable
from a2abench.a2a.config import AGENT_RETRY
from a2abench.a2a.metrics import MetricsHook, ProtocolMetrics, content_chars, estimate_tokens
from a2abench.a2a.models import Dialect
from a2abench.errors import (
    A2ABenchError,
    AgentHTTPError,
    AgentTimeout,
    AgentUnreachable,
    BrokenReply,
    ConnectionLost,
    JSONRPCError,
    ProtocolError,
    RepeatedTransportFailure,
    ReplyTooLarge,
    ReplyTooSlow,
    TaskTimeout,
    TooManyRedirects,
)
from a2abench.net.attempts import Attempt, AttemptLoop, Decide, Outcome
from a2abench.net.failures import whose
from a2abench.net.h1 import WirePool
from a2abench.net.limits import (
    Deadline,
    DeadlinePassed,
    ReplyLimits,
    StreamedReply,
    current_task_deadline,
    deadline_scope,
    iter_sse,
    loads,
    read_body,
    read_prefix,
)
from a2abench.net.retry import RetryPolicy, parse_retry_after

TRANSIENT_STATUS = frozenset({429, 502, 503, 504})
_ids = itertools.count(1)
ERROR_BODY_BYTES = 65_536  # what we read of an HTTP error body: enough for any message

_RPC_HINTS = {
    -32601: "The agent does not know this method: it may speak another A2A version. "
            "Run `a2abench discover URL` to see what its card declares.",
    -32009: "The agent rejected the A2A version. Run `a2abench discover URL` to check its card.",
    -32600: "The agent found the request invalid; its card may declare the wrong A2A version.",
}


def version_headers(dialect: Dialect) -> dict[str, str]:
    # 1.0 servers treat a missing A2A-Version as 0.3 and reject 1.0 methods (a2a.md §1.8).
    if dialect == "1.0":
        return {"A2A-Version": "1.0"}
    if dialect == "0.3":
        return {"A2A-Version": "0.3"}
    return {}


def jsonrpc_headers(dialect: Dialect, headers: dict[str, str] | None) -> dict[str, str]:
    """The headers of every JSON-RPC request in `dialect`, the caller's `headers` last."""
    return {"Content-Type": "application/json", **version_headers(dialect), **(headers or {})}


def _encode(method: str, params: dict[str, Any]) -> tuple[str, bytes, int]:
    """A fresh request id, the JSON-RPC body, and the estimated input tokens."""
    request_id = str(next(_ids))
    call = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    try:  # orjson: a tau2 first message (~30 KB of schemas) encodes ~10x faster than json's
        body = orjson.dumps(call)
    except TypeError:  # non-string keys or integers beyond 64 bits: what json.dumps allows
        body = json.dumps(call).encode()
    return request_id, body, estimate_tokens(content_chars(params))


_Attempt = Outcome  # what one attempt produced (the bindings' name for it)


def retry_delay(retry: RetryPolicy, outcome: Outcome, attempt: int,
                started: float) -> float | None:
    """Seconds to wait before the next attempt, or None to give up, on every binding: only
    transient failures retry, within the policy's attempts and budget and the task-trial
    deadline; a Retry-After beyond what is left is not waited for, and the error says so."""
    if not outcome.transient:
        return None
    delay = retry.delay(attempt, outcome.retry_after)
    if attempt >= retry.max_attempts:
        return None
    remaining = retry.budget_s - (time.monotonic() - started)
    task = current_task_deadline()
    if task is not None:
        remaining = min(remaining, task.remaining())
    if delay <= remaining:
        return delay
    if outcome.retry_after is not None and outcome.error is not None:
        # A huge Retry-After is not waited for: say why we gave up.
        outcome.error.message += (f" (it asked to retry after {outcome.retry_after:g} s, "
                                  f"beyond the {max(remaining, 0):.0f} s left to retry)")
        outcome.error.args = (outcome.error.message,)
    return None


def retry_decision(retry: RetryPolicy) -> Decide:
    """The attempt loop's retry decision on every binding: `retry_delay`, except that a
    stream that delivered an event is never sent again. When the call gives up after the
    same `ConnectionLost` on every attempt, its error becomes the agent's
    (`RepeatedTransportFailure`): a server that keeps dropping connections is failing."""
    lost: list[str | None] = []  # per attempt: the ConnectionLost message, or None

    def decide(attempt: Attempt, started: float) -> float | None:
        if attempt.first_event_ms is not None:
            return None
        error = attempt.outcome.error
        lost.append(error.message if isinstance(error, ConnectionLost) else None)
        delay = retry_delay(retry, attempt.outcome, attempt.number, started)
        if delay is None and isinstance(error, ConnectionLost) and set(lost) == {error.message}:
            attempt.outcome.error = RepeatedTransportFailure(
                f"{error.message}, on every one of {len(lost)} attempt(s)",
                hint="The agent's server accepts connections and drops them: check its logs.")
        return delay
    return decide


def metered_loop(retry: RetryPolicy, hook: MetricsHook | None, *, sent: int, request_id: str,
                 endpoint: str, method: str, binding: str = "JSONRPC", in_tokens: int = 0,
                 context_id: str | None = None) -> AttemptLoop:
    """The attempt loop of one A2A call on any binding: one ProtocolMetrics per attempt to
    `hook` (a gRPC call reports its status name, HTTP its status code)."""
    def report(attempt: Attempt) -> None:
        if hook is None:
            return
        outcome, error = attempt.outcome, attempt.outcome.error
        grpc = binding == "GRPC"
        hook(ProtocolMetrics(
            request_id=request_id, endpoint=endpoint, method=method, binding=binding,
            attempt=attempt.number, status_code=None if grpc else outcome.status,
            grpc_status=(outcome.status_name or "OK") if grpc else None,
            latency_ms=round(attempt.latency_ms(), 3), first_event_ms=attempt.first_event_ms,
            input_tokens=in_tokens, output_tokens=estimate_tokens(attempt.out_chars),
            bytes_sent=outcome.sent, bytes_received=outcome.received, context_id=context_id,
            error=f"{type(error).__name__}: {error.message}" if error else None,
            timestamp=datetime.now(UTC).isoformat(timespec="milliseconds")))
    return AttemptLoop(retry_decision(retry), sent=sent, report=report)


def _transport_error(exc: httpx.HTTPError, url: str, timeout: float, *,
                     answered: bool = False) -> tuple[A2ABenchError, bool]:
    """Map an httpx exception (the lean client's `WireError` is one) to (our error, is it
    worth retrying). `answered`: the reply's head had arrived. Whose failure it is:
    net/failures.py."""
    if isinstance(exc, httpx.TooManyRedirects):
        return TooManyRedirects(f"too many redirects from {url}",
                                hint="The server redirects in a loop; check the URL."), False
    if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
        return AgentTimeout(f"no answer from {url} within {timeout:g} s",
                            hint="Raise --timeout if the agent is just slow."), True
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return ProtocolError(f"cannot request {url}: {exc}"), False
    why = str(exc) or type(exc).__name__
    blame = whose(exc, answered=answered)
    if blame == "peer":  # not sent again: the server may have acted on it
        return BrokenReply(f"the agent's server at {url} broke its reply: {why}",
                           hint="Its HTTP framing is invalid; check the agent's server."), False
    if blame == "lost":
        return ConnectionLost(f"the connection to {url} ended without a reply: {why}",
                              hint="Check that the agent is running and the URL is right."), True
    return unreachable(url, exc)


def deadline_error(passed: DeadlinePassed, url: str, answered: bool) -> tuple[A2ABenchError, bool]:
    """Map a passed deadline to (our error, is it worth retrying).

    The task-trial's deadline is the agent's when it passes while we wait for the agent.
    The request's own deadline (--timeout, for the whole request) is the agent's when it was
    still sending (a slow drip, an endless stream); silence stays an AgentTimeout.
    """
    deadline = passed.deadline
    if deadline.what == "task":
        return TaskTimeout(f"the task-trial deadline (--task-timeout {deadline.seconds:g} s) "
                           f"passed while waiting for the agent at {url}",
                           hint="Raise --task-timeout if the agent is just slow."), False
    if answered:
        return ReplyTooSlow(f"the agent at {url} was still sending its reply when the "
                            f"{deadline.seconds:g} s request deadline passed",
                            hint="Raise --timeout if the agent's replies are really this "
                                 "slow."), False
    return AgentTimeout(f"no answer from {url} within {deadline.seconds:g} s",
                        hint="Raise --timeout if the agent is just slow."), True


# --- how one POST travels: httpx, or the lean client until the interface redirects -----------

class Reply(StreamedReply, Protocol):
    """One reply, its body unread: an `httpx.Response` or the lean client's `WireResponse`.
    Either sender's failures are `httpx.HTTPError`s (`WireError` is one)."""

    @property
    def status_code(self) -> int: ...

    @property
    def url(self) -> object: ...

    async def aclose(self) -> None: ...


class Sender(Protocol):
    """POSTs a body to one interface URL with the transport's headers."""

    async def post(self, content: bytes) -> Reply: ...


class HttpxSender:
    """Through httpx, which follows redirects (its request hook checks every hop)."""

    def __init__(self, http: httpx.AsyncClient, url: str, headers: dict[str, str]) -> None:
        self.http, self.url, self.headers = http, url, headers

    async def post(self, content: bytes) -> httpx.Response:
        # What `http.stream()` does, without its generator-based context manager.
        return await self.http.send(self.http.build_request(
            "POST", self.url, content=content, headers=self.headers), stream=True)


@dataclass(eq=False)
class LeanWire:
    """The lean HTTP/1.1 client's pool for one interface (a2abench/net/h1.py), shared by
    every lane of a client, and whether the interface has redirected: from its first
    redirect on, httpx keeps it."""

    pool: WirePool
    redirected: bool = False


class LeanFirst:
    """The lean client from the first call on, so that every conversation is in flight at
    once; a redirect is httpx's to follow. The lean client does not follow redirects: a
    3xx reply is closed and the call sent again through httpx (the redirecting server did
    not act on it), and httpx keeps the interface for every lane from then on."""

    def __init__(self, lean: LeanWire, fallback: HttpxSender) -> None:
        self.lean, self.fallback = lean, fallback

    async def post(self, content: bytes) -> Reply:
        lean = self.lean
        if not lean.redirected:
            response = await lean.pool.post(content)
            if not 300 <= response.status_code < 400:
                return response
            await response.aclose()
            lean.redirected = True
        return await self.fallback.post(content)


def sender(http: httpx.AsyncClient, url: str, headers: dict[str, str],
           lean: LeanWire | None) -> Sender:
    """How a transport POSTs to `url`: the lean client first when there is one, else httpx."""
    through_httpx = HttpxSender(http, url, headers)
    return through_httpx if lean is None else LeanFirst(lean, through_httpx)


class JsonRpcTransport:
    """JSON-RPC calls to one A2A endpoint in one dialect."""

    def __init__(self, http: httpx.AsyncClient, url: str, dialect: Dialect, *,
                 headers: dict[str, str] | None = None, timeout: float = 300.0,
                 retry: RetryPolicy | None = None, on_request: MetricsHook | None = None,
                 before_request: Callable[[], Awaitable[None]] | None = None,
                 limits: ReplyLimits | None = None, wire: LeanWire | None = None) -> None:
        """`wire` sends the non-streaming calls over the lean HTTP/1.1 client until the
        interface redirects (`LeanFirst`)."""
        self.http = http
        self.url = url
        self.dialect = dialect
        self.timeout = timeout
        self.retry = retry or AGENT_RETRY
        self.limits = limits or ReplyLimits()
        self.on_request = on_request
        self.before_request = before_request
        self.headers = jsonrpc_headers(dialect, headers)
        self.sender = sender(http, url, self.headers, wire)

    async def call(self, method: str, params: dict[str, Any], *,
                   context_id: str | None = None) -> Any:
        """One JSON-RPC call with retries; returns `result` or raises a named error."""
        request_id, content, in_tokens = _encode(method, params)
        loop = metered_loop(self.retry, self.on_request, sent=len(content),
                            request_id=request_id, endpoint=self.url, method=method,
                            in_tokens=in_tokens, context_id=context_id)
        async for attempt in loop:
            payload = await self._post(content, attempt.outcome)
            if attempt.outcome.error is None:
                try:
                    attempt.result = self._unwrap(payload)
                    attempt.received(content_chars(attempt.result), event=False)
                except A2ABenchError as exc:
                    attempt.outcome.error = exc
        return loop.result

    async def _post(self, content: bytes, outcome: Outcome) -> Any:
        """One POST; its body as JSON, or None with `outcome.error` set."""
        if self.before_request is not None:
            await self.before_request()
        try:
            async with deadline_scope(self._request_deadline(), current_task_deadline()):
                response = await self.sender.post(content)
                try:
                    outcome.status = response.status_code
                    if response.status_code >= 400:
                        await self._fail(response, outcome)
                        return None
                    body = await read_body(response, self.limits.max_bytes, url=self.url)
                    outcome.received = len(body)
                    ctype = response.headers.get("content-type") or ""
                finally:
                    await response.aclose()
        except httpx.HTTPError as exc:
            outcome.error, outcome.transient = _transport_error(
                exc, self.url, self.timeout, answered=outcome.status is not None)
            return None
        except DeadlinePassed as exc:
            outcome.error, outcome.transient = deadline_error(exc, self.url,
                                                              outcome.status is not None)
            return None
        except ReplyTooLarge as exc:
            outcome.error, outcome.received = exc, exc.received
            return None
        except BrokenReply as exc:  # a body its Content-Encoding cannot undo
            outcome.error = exc
            return None
        try:
            return self._loads(body, ctype)
        except A2ABenchError as exc:
            outcome.error = exc
            return None

    def _request_deadline(self) -> Deadline:
        """The whole request (connect, send, every read) within --timeout, not just each read."""
        return Deadline.after(self.timeout, "request")

    def _loads(self, body: bytes, ctype: str) -> Any:
        """A reply body as JSON, depth-limited; unreadable bodies are the agent's error."""
        try:
            return loads(body, self.limits.max_depth, what=f"the reply from {self.url}")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"the agent's reply from {self.url} is not valid UTF-8 "
                                f"({exc.reason} at byte {exc.start}; content-type "
                                f"{ctype or 'none'})") from None
        except ValueError:
            snippet = body[:120].decode("utf-8", "replace").replace("\n", " ")
            raise ProtocolError(f"the agent's reply from {self.url} is not JSON (content-type "
                                f"{ctype or 'none'}): {snippet!r}") from None

    async def _fail(self, response: Reply, outcome: Outcome) -> None:
        """Fill `outcome` for an HTTP error status; only the start of the body is read."""
        body = await read_prefix(response, ERROR_BODY_BYTES)
        outcome.received = len(body)
        outcome.transient = response.status_code in TRANSIENT_STATUS
        outcome.retry_after = parse_retry_after(response.headers.get("Retry-After"))
        outcome.error = self._http_error(response.status_code,
                                         body[:300].decode("utf-8", "replace"),
                                         str(response.url))

    def _http_error(self, status: int, body: str, final: str | None = None) -> A2ABenchError:
        # A JSON-RPC error in a 4xx/5xx body is still the agent's answer: report it as such.
        try:
            payload = loads(body, self.limits.max_depth, what="the error body") if body else None
        except (ValueError, A2ABenchError):
            payload = None
        if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
            error = self._rpc_error(payload["error"])
            error.http_status = status  # a 401 stays recognisable (run/match.py)
            return error
        if status in TRANSIENT_STATUS:
            return AgentUnreachable(f"the agent at {self.url} answered HTTP {status}",
                                    hint="It is overloaded or restarting; try again later.")
        hint = ("Pass a valid --auth-token (or A2ABENCH_AUTH_TOKEN)." if status in (401, 403)
                else "Check the interface URL in the agent's card.")
        where, why = status_origin(status, self.url, final or self.url, hint)
        return AgentHTTPError(status, where, body, hint=why)

    def _rpc_error(self, err: dict[str, Any]) -> JSONRPCError:
        code = err.get("code")
        code = int(code) if isinstance(code, int | float) else 0
        return JSONRPCError(code, str(err.get("message", ""))[:1000], err.get("data"),
                            hint=_RPC_HINTS.get(code))

    def _unwrap(self, payload: Any) -> Any:
        if not isinstance(payload, dict):
            raise ProtocolError(f"the agent's reply is not a JSON-RPC object: {payload!r:.80}")
        if isinstance(payload.get("error"), dict):
            raise self._rpc_error(payload["error"])
        if "result" not in payload:
            raise ProtocolError("the agent's JSON-RPC reply has neither result nor error")
        return payload["result"]

    async def stream(self, method: str, params: dict[str, Any], *,
                     context_id: str | None = None) -> AsyncGenerator[Any, None]:
        """Server-sent events of one streaming call; yields each event's `result`.

        Only failures before the first event are retried (a half-consumed stream is not).
        The whole stream is one request: --timeout and the task-trial deadline bound it, so
        consume it without awaiting other work between events (the deadline cancels the
        consuming task), and close it with `contextlib.aclosing`.
        """
        request_id, content, in_tokens = _encode(method, params)
        loop = metered_loop(self.retry, self.on_request, sent=len(content),
                            request_id=request_id, endpoint=self.url, method=method,
                            in_tokens=in_tokens, context_id=context_id)
        async for attempt in loop:
            outcome = attempt.outcome
            try:
                async with deadline_scope(self._request_deadline(), current_task_deadline()):
                    async for result, size in self._stream_once(content, outcome):
                        attempt.received(content_chars(result), size)
                        yield result
            except A2ABenchError as exc:
                outcome.error = exc
            except DeadlinePassed as exc:
                outcome.error, outcome.transient = deadline_error(exc, self.url,
                                                                  outcome.status is not None)

    async def _stream_once(self, content: bytes,
                           outcome: Outcome) -> AsyncIterator[tuple[Any, int]]:
        if self.before_request is not None:
            await self.before_request()
        headers = {**self.headers, "Accept": "text/event-stream"}
        try:
            async with self.http.stream("POST", self.url, content=content,
                                        headers=headers) as response:
                outcome.status = response.status_code
                if response.status_code >= 400:
                    await self._fail(response, outcome)
                    assert outcome.error is not None
                    raise outcome.error
                ctype = response.headers.get("content-type", "")
                if "text/event-stream" not in ctype:
                    # Some agents answer a stream request with one plain JSON-RPC response.
                    body = await read_body(response, self.limits.max_bytes, url=self.url)
                    yield self._unwrap(self._loads(body, ctype)), len(body)
                    return
                async for event, data, size in iter_sse(response, self.limits, url=self.url):
                    try:
                        payload = loads(data, self.limits.max_depth,
                                        what=f"an SSE event from {self.url}")
                    except ValueError as exc:
                        raise ProtocolError(f"an SSE event from {self.url} is not JSON: "
                                            f"{data[:80]!r}") from exc
                    if event == "error" and isinstance(payload, dict) and "error" not in payload:
                        payload = {"error": payload}
                    yield self._unwrap(payload), size
        except ReplyTooLarge as exc:
            outcome.received = max(outcome.received, exc.received)
            raise
        except httpx.HTTPError as exc:
            error, outcome.transient = _transport_error(exc, self.url, self.timeout,
                                                        answered=outcome.status is not None)
            raise error from exc
