"""The HTTP+JSON (REST) binding of A2A 1.0 and 0.3 over httpx (a2a.md §1.2).

1.0: `POST {url}/message:send`, `POST {url}/message:stream` (SSE), `GET {url}/tasks/{id}`,
`POST {url}/tasks/{id}:cancel`, bodies in ProtoJSON, a tenant as a path prefix. 0.3: the same
under `{url}/v1/`, with 0.3's proto shapes (`proto03.py`). Errors come back as a
`google.rpc.Status`-style `{"error": {"code", "status", "message", "details"}}` body.
Retries, timeouts, metrics, error classes and reply limits (a bounded body and SSE reader,
depth-limited JSON, a whole-request deadline: `net/limits.py`) are those of the JSON-RPC
transport.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import quote

import httpx

from a2abench.a2a import proto03
from a2abench.a2a.card import status_origin
from a2abench.a2a.config import AGENT_RETRY
from a2abench.a2a.metrics import MetricsHook, content_chars, estimate_tokens
from a2abench.a2a.models import Dialect
from a2abench.a2a.transport import (
    ERROR_BODY_BYTES,
    TRANSIENT_STATUS,
    LeanWire,
    Reply,
    _transport_error,
    deadline_error,
    metered_loop,
    sender,
    version_headers,
)
from a2abench.errors import (
    A2ABenchError,
    A2AStatusError,
    AgentHTTPError,
    ProtocolError,
    ReplyTooLarge,
)
from a2abench.net.attempts import AttemptLoop, Outcome
from a2abench.net.limits import (
    Deadline,
    DeadlinePassed,
    ReplyLimits,
    current_task_deadline,
    deadline_scope,
    iter_sse,
    loads,
    read_body,
    read_prefix,
)
from a2abench.net.retry import RetryPolicy, parse_retry_after

_ids = itertools.count(1)
# google.rpc status names a retry may cure (the same classes as TRANSIENT_STATUS).
TRANSIENT_RPC_STATUS = frozenset({"UNAVAILABLE", "RESOURCE_EXHAUSTED"})


def status_error(payload: Any, where: str, http_status: int | None = None) -> A2AStatusError | None:
    """An A2A error from a REST error body (`{"error": {...}}`), or None if it is not one."""
    err = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(err, dict):
        return None
    reason = None
    for detail in err.get("details") or []:
        if isinstance(detail, dict) and detail.get("reason"):
            reason = str(detail["reason"])
            break
    status = str(err.get("status") or "") or None
    return A2AStatusError(str(err.get("message", "")), status=status, reason=reason,
                          where=where, http_status=http_status)


def rest_base(url: str, dialect: Dialect, tenant: str | None) -> str:
    """Where an interface's REST paths start: `/v1` under 0.3, the tenant's segment under 1.0."""
    url = url.rstrip("/")
    if dialect == "0.3":
        return url + "/v1"
    if tenant:  # 1.0 REST carries the tenant as the first path segment
        return f"{url}/{quote(tenant, safe='')}"
    return url


def rest_headers(dialect: Dialect, headers: dict[str, str] | None) -> dict[str, str]:
    """The headers of every REST request with a body in `dialect`, the caller's last."""
    return {"Content-Type": "application/json", **version_headers(dialect), **(headers or {})}


class RestTransport:
    """HTTP+JSON calls to one A2A interface in one dialect (1.0 or 0.3)."""

    binding = "HTTP+JSON"

    def __init__(self, http: httpx.AsyncClient, url: str, dialect: Dialect, *,
                 headers: dict[str, str] | None = None, timeout: float = 300.0,
                 retry: RetryPolicy | None = None, on_request: MetricsHook | None = None,
                 before_request: Callable[[], Awaitable[None]] | None = None,
                 tenant: str | None = None, limits: ReplyLimits | None = None,
                 wire: LeanWire | None = None) -> None:
        """`wire`: the lean client for `message:send` until the interface redirects
        (`transport.LeanFirst`); its URL is `rest_base(...) + "/message:send"`."""
        self.http = http
        self.limits = limits or ReplyLimits()
        self.url = url.rstrip("/")
        self.dialect = dialect
        self.timeout = timeout
        self.retry = retry or AGENT_RETRY
        self.on_request = on_request
        self.before_request = before_request
        self.headers = rest_headers(dialect, headers)
        self.base = rest_base(url, dialect, tenant)
        self.send_url = self.base + "/message:send"
        self.sender = sender(http, self.send_url, self.headers, wire)

    # --- operations (results in the shapes `dialects` parses) ----------------------------------

    async def send(self, params: dict[str, Any], *, context_id: str | None = None) -> Any:
        body = self._body(params)
        result = await self._call("POST", "/message:send", body, context_id)
        return proto03.response_in(result) if self.dialect == "0.3" else result

    async def stream(self, params: dict[str, Any], *,
                     context_id: str | None = None) -> AsyncGenerator[Any, None]:
        async for event in self._stream("/message:stream", self._body(params), context_id):
            yield proto03.response_in(event) if self.dialect == "0.3" else event

    async def get_task(self, task_id: str) -> Any:
        result = await self._call("GET", f"/tasks/{quote(task_id, safe='')}", None, None)
        return proto03.task_in(result) if self.dialect == "0.3" else result

    async def cancel_task(self, task_id: str) -> Any:
        result = await self._call("POST", f"/tasks/{quote(task_id, safe='')}:cancel", {}, None)
        return proto03.task_in(result) if self.dialect == "0.3" else result

    def _body(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.dialect == "0.3":
            return proto03.send_request_out(params)
        return {k: v for k, v in params.items() if k != "tenant"}  # tenant is in the path

    # --- the wire --------------------------------------------------------------------------------

    async def _call(self, verb: str, path: str, body: dict[str, Any] | None,
                    context_id: str | None) -> Any:
        url = self.base + path
        content = json.dumps(body).encode() if body is not None else b""
        loop = self._loop(url, path, content, body, context_id)
        async for attempt in loop:
            try:
                attempt.result = await self._once(verb, url, content, attempt.outcome)
                attempt.received(content_chars(attempt.result), event=False)
            except A2ABenchError as exc:
                attempt.outcome.error = exc
        return loop.result

    def _loop(self, url: str, path: str, content: bytes, body: dict[str, Any] | None,
              context_id: str | None) -> AttemptLoop:
        # `method` names the operation as the path does: message:send, tasks/{id}:cancel.
        method = path.lstrip("/") if not path.startswith("/tasks/") else (
            "tasks:cancel" if path.endswith(":cancel") else "tasks:get")
        return metered_loop(self.retry, self.on_request, sent=len(content),
                            request_id=f"rest-{next(_ids)}", endpoint=url, method=method,
                            binding=self.binding, in_tokens=estimate_tokens(content_chars(body)),
                            context_id=context_id)

    async def _once(self, verb: str, url: str, content: bytes, outcome: Outcome) -> Any:
        if self.before_request is not None:
            await self.before_request()
        headers = self.headers if content else {k: v for k, v in self.headers.items()
                                                if k != "Content-Type"}
        try:
            async with deadline_scope(Deadline.after(self.timeout, "request"),
                                      current_task_deadline()):
                response = await (self.sender.post(content) if url == self.send_url
                                  else self.http.send(self.http.build_request(
                                      verb, url, content=content or None, headers=headers),
                                      stream=True))
                try:
                    outcome.status = response.status_code
                    if response.status_code >= 400:
                        raise await self._http_error(response, url, outcome)
                    body = await read_body(response, self.limits.max_bytes, url=url)
                    outcome.received = len(body)
                finally:
                    await response.aclose()
        except httpx.HTTPError as exc:
            error, outcome.transient = _transport_error(exc, url, self.timeout,
                                                        answered=outcome.status is not None)
            raise error from exc
        except DeadlinePassed as exc:
            error, outcome.transient = deadline_error(exc, url, outcome.status is not None)
            raise error from None
        except ReplyTooLarge as exc:
            outcome.received = exc.received
            raise
        return self._json(body, url)

    async def _http_error(self, response: Reply, url: str,
                          outcome: Outcome) -> A2ABenchError:
        """The error for an HTTP error status; only the start of the body is read."""
        status = response.status_code
        body = await read_prefix(response, ERROR_BODY_BYTES)
        outcome.received = len(body)
        outcome.transient = status in TRANSIENT_STATUS
        outcome.retry_after = parse_retry_after(response.headers.get("Retry-After"))
        try:
            payload = loads(body, self.limits.max_depth, what="the error body") if body else None
        except (ValueError, A2ABenchError):
            payload = None
        error = status_error(payload, url, status)
        if error is not None:
            outcome.transient = outcome.transient or error.status in TRANSIENT_RPC_STATUS
            return error
        hint = ("Pass a valid --auth-token (or A2ABENCH_AUTH_TOKEN)." if status in (401, 403)
                else "Check the interface URL in the agent's card.")
        where, why = status_origin(status, url, str(response.url), hint)
        return AgentHTTPError(status, where, body[:300].decode("utf-8", "replace"), hint=why)

    def _json(self, content: bytes | str, url: str) -> Any:
        """A reply body as JSON, depth-limited; an unreadable body is the agent's error."""
        try:
            return loads(content, self.limits.max_depth, what=f"the reply from {url}")
        except ValueError:  # UnicodeDecodeError included
            raw = content.encode() if isinstance(content, str) else content
            snippet = raw[:120].decode("utf-8", "replace").replace("\n", " ")
            raise ProtocolError(f"the agent's reply from {url} is not JSON: {snippet!r}"
                                ) from None

    async def _stream(self, path: str, body: dict[str, Any],
                      context_id: str | None) -> AsyncIterator[Any]:
        """SSE events of one streaming call; only failures before the first event retry."""
        url = self.base + path
        content = json.dumps(body).encode()
        async for attempt in self._loop(url, path, content, body, context_id):
            outcome = attempt.outcome
            try:
                async with deadline_scope(Deadline.after(self.timeout, "request"),
                                          current_task_deadline()):
                    async for event, size in self._stream_once(url, content, outcome):
                        attempt.received(content_chars(event), size)
                        yield event
            except A2ABenchError as exc:
                outcome.error = exc
            except DeadlinePassed as exc:
                outcome.error, outcome.transient = deadline_error(exc, url,
                                                                  outcome.status is not None)

    async def _stream_once(self, url: str, content: bytes,
                           outcome: Outcome) -> AsyncIterator[tuple[Any, int]]:
        if self.before_request is not None:
            await self.before_request()
        headers = {**self.headers, "Accept": "text/event-stream"}
        try:
            async with self.http.stream("POST", url, content=content,
                                        headers=headers) as response:
                outcome.status = response.status_code
                if response.status_code >= 400:
                    raise await self._http_error(response, url, outcome)
                ctype = response.headers.get("content-type", "")
                if "text/event-stream" not in ctype:
                    # An agent may answer a stream request with one plain JSON response.
                    body = await read_body(response, self.limits.max_bytes, url=url)
                    yield self._json(body, url), len(body)
                    return
                async for _event, data, size in iter_sse(response, self.limits, url=url):
                    payload = self._json(data, url)
                    failure = status_error(payload, url)
                    if failure is not None:  # an error event in the middle of the stream
                        raise failure
                    yield payload, size
        except ReplyTooLarge as exc:
            outcome.received = max(outcome.received, exc.received)
            raise
        except httpx.HTTPError as exc:
            error, outcome.transient = _transport_error(exc, url, self.timeout,
                                                        answered=outcome.status is not None)
            raise error from exc
