"""Retries, error classes and SSE parsing of the JSON-RPC transport (httpx.MockTransport)."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from a2abench.a2a.config import RetryPolicy
from a2abench.a2a.metrics import ProtocolMetrics
from a2abench.a2a.transport import JsonRpcTransport, parse_retry_after
from a2abench.errors import (
    AgentHTTPError,
    AgentTimeout,
    AgentUnreachable,
    JSONRPCError,
    ProtocolError,
)
from tests.waits import HANG_S

OK = {"jsonrpc": "2.0", "id": "1", "result": {"kind": "message", "role": "agent",
                                              "messageId": "m", "parts": []}}
FAST = RetryPolicy(max_attempts=4, base_delay_s=0.001, max_delay_s=0.01, budget_s=HANG_S)


def transport(handler: Callable[[httpx.Request], httpx.Response], *,
              retry: RetryPolicy = FAST, dialect: str = "1.0",
              seen: list[ProtocolMetrics] | None = None) -> JsonRpcTransport:
    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return JsonRpcTransport(http, "http://agent/rpc", dialect, retry=retry,  # type: ignore[arg-type]
                            on_request=seen.append if seen is not None else None)


def sequence(*responses: httpx.Response | Exception) -> Callable[[httpx.Request], httpx.Response]:
    queue = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        item = queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    return handler


async def test_transient_503_then_success_is_retried_and_measured() -> None:
    seen: list[ProtocolMetrics] = []
    t = transport(sequence(httpx.Response(503), httpx.Response(200, json=OK)), seen=seen)
    assert (await t.call("SendMessage", {}))["messageId"] == "m"
    assert [(m.attempt, m.status_code, bool(m.error)) for m in seen] == [(1, 503, True),
                                                                         (2, 200, False)]


async def test_retry_after_is_honoured_within_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)

    monkeypatch.setattr("asyncio.sleep", fake_sleep)
    t = transport(sequence(httpx.Response(429, headers={"Retry-After": "2"}),
                           httpx.Response(200, json=OK)))
    await t.call("SendMessage", {})
    assert slept == [2.0]


async def test_retry_after_beyond_budget_gives_up() -> None:
    t = transport(sequence(httpx.Response(429, headers={"Retry-After": "60"})),
                  retry=RetryPolicy(max_attempts=5, base_delay_s=0.5, max_delay_s=8.0, budget_s=1))
    with pytest.raises(AgentUnreachable, match="HTTP 429"):
        await t.call("SendMessage", {})


async def test_attempts_are_bounded() -> None:
    seen: list[ProtocolMetrics] = []
    t = transport(sequence(*[httpx.Response(502)] * 4), seen=seen)
    with pytest.raises(AgentUnreachable, match="HTTP 502"):
        await t.call("SendMessage", {})
    assert len(seen) == FAST.max_attempts


@pytest.mark.parametrize(("response", "error", "text"), [
    (httpx.Response(500, text="boom"), AgentHTTPError, "HTTP 500"),
    (httpx.Response(401), AgentHTTPError, "HTTP 401"),
    (httpx.Response(200, text="<html>"), ProtocolError, "not JSON"),
    (httpx.Response(200, json={"jsonrpc": "2.0", "id": "1",
                               "error": {"code": -32601, "message": "nope"}}),
     JSONRPCError, "-32601"),
    (httpx.Response(200, json={"jsonrpc": "2.0", "id": "1"}), ProtocolError, "neither"),
])
async def test_deterministic_failures_are_not_retried(response: httpx.Response,
                                                      error: type[Exception], text: str) -> None:
    seen: list[ProtocolMetrics] = []
    t = transport(sequence(response), seen=seen)
    with pytest.raises(error, match=text):
        await t.call("SendMessage", {})
    assert len(seen) == 1


async def test_read_timeouts_are_retried_then_named() -> None:
    t = transport(sequence(*[httpx.ReadTimeout("slow")] * 4))
    with pytest.raises(AgentTimeout):
        await t.call("SendMessage", {})


async def test_version_header_per_dialect() -> None:
    headers: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        headers.append(request.headers.get("A2A-Version"))
        return httpx.Response(200, json=OK)

    for dialect in ("1.0", "0.3", "0.2"):
        await transport(handler, dialect=dialect).call("x", {})
    assert headers == ["1.0", "0.3", None]


def test_retry_after_http_date() -> None:
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert parse_retry_after("3") == 3.0 and parse_retry_after("soon") is None


async def test_stream_error_event_raises_jsonrpc_error() -> None:
    body = ("data: " + json.dumps(OK) + "\n\n" + "event: error\ndata: "
            + json.dumps({"code": -32603, "message": "died"}) + "\n\n")

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})

    got = []
    with pytest.raises(JSONRPCError, match="died"):
        async for result in transport(handler).stream("SendStreamingMessage", {}):
            got.append(result)
    assert len(got) == 1


async def test_stream_request_answered_with_plain_json_is_accepted() -> None:
    t = transport(sequence(httpx.Response(200, json=OK)))
    results = [r async for r in t.stream("SendStreamingMessage", {})]
    assert len(results) == 1 and results[0]["messageId"] == "m"
