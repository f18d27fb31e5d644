"""The gRPC binding of A2A 1.0 (`lf.a2a.v1.A2AService`) and 0.3 (`a2a.v1.A2AService`).

The framing is grpcio's and the messages are a2a-sdk's generated protobuf classes; requests
are built from the same JSON the other bindings send (1.0 JSON-RPC params are ProtoJSON of
`SendMessageRequest`; 0.3 goes through `proto03.py`), and replies are turned back into that
JSON, so `dialects.py` parses every binding alike. grpcio is the optional extra
`a2abench[grpc]`; creating a GrpcTransport without it raises a ConfigError naming the
extra. Reply limits are the other bindings' (`net/limits.py`): grpcio refuses a reply over
`max_bytes` (RESOURCE_EXHAUSTED), a stream may hold `max_events` events, and the whole call
runs under the request deadline and the task-trial's.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from a2abench.a2a import proto03
from a2abench.a2a.config import AGENT_RETRY
from a2abench.a2a.metrics import MetricsHook, content_chars, estimate_tokens
from a2abench.a2a.models import Dialect
from a2abench.a2a.transport import deadline_error, metered_loop, version_headers
from a2abench.errors import (
    A2ABenchError,
    A2AStatusError,
    AgentTimeout,
    AgentUnreachable,
    ConfigError,
)
from a2abench.net.limits import (
    Deadline,
    DeadlinePassed,
    ReplyLimits,
    check_count,
    current_task_deadline,
    deadline_scope,
    too_large,
)
from a2abench.net.retry import RetryPolicy

EXTRA_HINT = 'Install the extra: pip install "a2abench[grpc]".'
_TRANSIENT = frozenset({"UNAVAILABLE", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"})
_ids = itertools.count(1)


def grpc_available() -> bool:
    try:
        import grpc  # noqa: F401
    except ImportError:
        return False
    return True


def require_grpc() -> None:
    if not grpc_available():
        raise ConfigError("the agent's gRPC interface needs grpcio, which is not installed",
                          hint=EXTRA_HINT)


def grpc_target(url: str) -> tuple[str, bool]:
    """(host:port, use TLS) from an interface URL: `host:port` (what a2a-sdk samples
    publish), `grpc://`, `grpcs://`, `http://` or `https://`."""
    secure = url.startswith(("grpcs://", "https://"))
    target = url.split("://", 1)[1] if "://" in url else url
    return target.split("/", 1)[0], secure


class GrpcTransport:
    """gRPC calls to one A2A interface in one dialect (1.0 or 0.3)."""

    binding = "GRPC"

    def __init__(self, url: str, dialect: Dialect, *, headers: dict[str, str] | None = None,
                 timeout: float = 300.0, retry: RetryPolicy | None = None,
                 on_request: MetricsHook | None = None,
                 before_request: Callable[[], Awaitable[None]] | None = None,
                 tenant: str | None = None,
                 check_url: Callable[[str], None] | None = None,
                 limits: ReplyLimits | None = None) -> None:
        require_grpc()
        self.limits = limits or ReplyLimits()
        self.url = url
        self.target, self.secure = grpc_target(url)
        self.dialect = dialect
        self.timeout = timeout
        self.retry = retry or AGENT_RETRY
        self.on_request = on_request
        self.before_request = before_request
        self.tenant = tenant if dialect == "1.0" else None
        self.metadata = tuple((k.lower(), v) for k, v in
                              {**version_headers(dialect), **(headers or {})}.items())
        self.check_url = check_url  # the host policy: gRPC bypasses httpx's request hook
        self._channel: Any = None
        self._stub: Any = None

    def _stub_for_loop(self) -> Any:
        """The stub, on a channel opened in the running event loop (grpc.aio binds to it)."""
        if self.check_url is not None:
            self.check_url(f"{'https' if self.secure else 'http'}://{self.target}")
        if self._stub is None:
            import grpc

            # grpcio refuses larger replies (RESOURCE_EXHAUSTED), like the HTTP body cap.
            options = [("grpc.max_receive_message_length", self.limits.max_bytes)]
            if self.secure:
                self._channel = grpc.aio.secure_channel(
                    self.target, grpc.ssl_channel_credentials(), options=options)
            else:
                self._channel = grpc.aio.insecure_channel(self.target, options=options)
            self._stub = self._pb()[1].A2AServiceStub(self._channel)
        return self._stub

    def _pb(self) -> tuple[Any, Any]:
        if self.dialect == "0.3":
            from a2a.compat.v0_3 import a2a_v0_3_pb2, a2a_v0_3_pb2_grpc
            return a2a_v0_3_pb2, a2a_v0_3_pb2_grpc
        from a2a.types import a2a_pb2, a2a_pb2_grpc
        return a2a_pb2, a2a_pb2_grpc

    async def aclose(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = self._stub = None

    # --- operations ----------------------------------------------------------------------------

    def _send_request(self, params: dict[str, Any]) -> Any:
        from google.protobuf.json_format import ParseDict

        pb = self._pb()[0]
        if self.dialect == "0.3":
            return ParseDict(proto03.send_request_out(params), pb.SendMessageRequest())
        body = dict(params)
        if self.tenant:
            body["tenant"] = self.tenant
        return ParseDict(body, pb.SendMessageRequest())

    def _in(self, reply: Any, task: bool = False) -> Any:
        from google.protobuf.json_format import MessageToDict

        payload = MessageToDict(reply)
        if self.dialect == "0.3":
            return proto03.task_in(payload) if task else proto03.response_in(payload)
        return payload

    def _task_request(self, kind: str, task_id: str) -> Any:
        pb = self._pb()[0]
        if self.dialect == "0.3":
            return getattr(pb, kind)(name=f"tasks/{task_id}")
        return getattr(pb, kind)(id=task_id, tenant=self.tenant or "")

    async def send(self, params: dict[str, Any], *, context_id: str | None = None) -> Any:
        return await self._unary("SendMessage", self._send_request(params), context_id,
                                 estimate_tokens(content_chars(params)), task=False)

    async def get_task(self, task_id: str) -> Any:
        return await self._unary("GetTask", self._task_request("GetTaskRequest", task_id),
                                 None, 0, task=True)

    async def cancel_task(self, task_id: str) -> Any:
        return await self._unary("CancelTask", self._task_request("CancelTaskRequest", task_id),
                                 None, 0, task=True)

    async def _unary(self, method: str, request: Any, context_id: str | None,
                     in_tokens: int, *, task: bool) -> Any:
        import grpc

        loop = metered_loop(self.retry, self.on_request, sent=request.ByteSize(),
                            request_id=f"grpc-{next(_ids)}", endpoint=self.url, method=method,
                            binding=self.binding, in_tokens=in_tokens, context_id=context_id)
        async for attempt in loop:
            outcome = attempt.outcome
            try:
                if self.before_request is not None:
                    await self.before_request()
                call = getattr(self._stub_for_loop(), method)
                async with deadline_scope(Deadline.after(self.timeout, "request"),
                                          current_task_deadline()):
                    reply = await call(request, timeout=self.timeout, metadata=self.metadata)
                outcome.received = reply.ByteSize()
                attempt.result = self._in(reply, task=task)
                attempt.received(content_chars(attempt.result), event=False)
            except grpc.aio.AioRpcError as exc:
                outcome.status_name = exc.code().name
                outcome.error, outcome.transient = self._error(exc)
            except DeadlinePassed as exc:
                outcome.status_name = "DEADLINE_EXCEEDED"
                outcome.error, outcome.transient = deadline_error(exc, self.url, False)
        return loop.result

    async def stream(self, params: dict[str, Any], *,
                     context_id: str | None = None) -> AsyncGenerator[Any, None]:
        """Events of one SendStreamingMessage; only failures before the first event retry."""
        import grpc

        request = self._send_request(params)
        loop = metered_loop(self.retry, self.on_request, sent=request.ByteSize(),
                            request_id=f"grpc-{next(_ids)}", endpoint=self.url,
                            method="SendStreamingMessage", binding=self.binding,
                            in_tokens=estimate_tokens(content_chars(params)),
                            context_id=context_id)
        async for attempt in loop:
            outcome, events = attempt.outcome, 0
            try:
                if self.before_request is not None:
                    await self.before_request()
                call = self._stub_for_loop().SendStreamingMessage(
                    request, timeout=self.timeout, metadata=self.metadata)
                async with deadline_scope(Deadline.after(self.timeout, "request"),
                                          current_task_deadline()):
                    async for reply in call:
                        attempt.received(0)  # the first event's time
                        events += 1
                        check_count(events, self.limits.max_events, "stream events")
                        outcome.received += reply.ByteSize()
                        if outcome.received > self.limits.max_bytes:
                            call.cancel()
                            raise too_large(self.url, self.limits.max_bytes, outcome.received)
                        event = self._in(reply)
                        attempt.out_chars += content_chars(event)
                        yield event
            except grpc.aio.AioRpcError as exc:
                outcome.status_name = exc.code().name
                outcome.error, outcome.transient = self._error(exc)
            except DeadlinePassed as exc:
                outcome.status_name = "DEADLINE_EXCEEDED"
                outcome.error, outcome.transient = deadline_error(
                    exc, self.url, attempt.first_event_ms is not None)
            except A2ABenchError as exc:  # a limit: the agent's reply is at fault
                outcome.status_name = "CANCELLED"
                outcome.error = exc

    # --- errors, retries, metrics --------------------------------------------------------------

    def _error(self, exc: Any) -> tuple[A2ABenchError, bool]:
        code = exc.code().name
        details = exc.details() or ""
        if code == "UNAVAILABLE":
            return AgentUnreachable(f"cannot reach the gRPC interface {self.target}: {details}",
                                    hint="Check that the agent is running and the URL is "
                                         "right."), True
        if code == "RESOURCE_EXHAUSTED" and "larger than max" in details:
            # grpcio's own receive cap (our --max-reply-bytes), not the agent's quota: the
            # reply is too large, as on the HTTP bindings, and retrying cannot help.
            sizes = re.search(r"\((\d+) vs\. (\d+)\)", details)
            received = int(sizes.group(1)) if sizes else self.limits.max_bytes + 1
            return too_large(self.url, self.limits.max_bytes, received), False
        if code == "DEADLINE_EXCEEDED":
            return AgentTimeout(f"no answer from {self.target} within {self.timeout:g} s",
                                hint="Raise --timeout if the agent is just slow."), True
        hint = ("Pass a valid --auth-token (or A2ABENCH_AUTH_TOKEN)."
                if code in ("UNAUTHENTICATED", "PERMISSION_DENIED") else None)
        return A2AStatusError(details, status=code, reason=_reason(exc),
                              where=f"grpc {self.target}", hint=hint), code in _TRANSIENT


def _reason(exc: Any) -> str | None:
    """The ErrorInfo reason in the `grpc-status-details-bin` trailer, if the server sent one."""
    for key, value in exc.trailing_metadata() or ():
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        from google.protobuf.message import DecodeError
        from google.rpc import error_details_pb2, status_pb2

        try:
            status = status_pb2.Status.FromString(value)
        except DecodeError:  # a malformed trailer carries no reason; the code still counts
            return None
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return str(info.reason)
    return None
