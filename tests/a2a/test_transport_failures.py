"""The transport-failure rule (issue 34, docs/run-semantics.md): whose failure each transport
exception is, and when a dropped connection becomes the agent's error."""

from __future__ import annotations

import time

import httpx
import pytest

from a2abench.a2a.transport import JsonRpcTransport, _transport_error, retry_decision
from a2abench.errors import (
    AgentUnreachable,
    BrokenReply,
    ConnectionLost,
    RepeatedTransportFailure,
)
from a2abench.net.attempts import Attempt, Outcome
from a2abench.net.failures import whose
from a2abench.net.h1 import WireConnectError, WireError, WireFrameError
from a2abench.net.retry import RetryPolicy
from tests.a2a.test_h1 import reply, scripted

URL = "http://agent.example/rpc"


@pytest.mark.parametrize(("exc", "answered", "expected"), [
    (httpx.ConnectError("refused"), False, "network"),
    (httpx.ConnectTimeout("slow"), False, "network"),
    (WireConnectError("refused"), False, "network"),
    (httpx.RemoteProtocolError("Server disconnected without sending a response."), False,
     "lost"),
    (WireError("Server disconnected without sending a response"), False, "lost"),
    (httpx.ReadError("reset"), False, "lost"),
    (httpx.WriteError("broken pipe"), False, "lost"),
    (httpx.ReadError("reset"), True, "peer"),  # mid-body
    (httpx.RemoteProtocolError("illegal status line"), False, "peer"),
    (httpx.RemoteProtocolError("peer closed connection without sending complete message "
                               "body"), True, "peer"),
    (WireFrameError("bad chunk size"), True, "peer"),
])
def test_whose_failure(exc: Exception, answered: bool, expected: str) -> None:
    assert whose(exc, answered=answered) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(("exc", "error", "transient"), [
    (httpx.ConnectError("refused"), AgentUnreachable, True),
    (httpx.RemoteProtocolError("Server disconnected without sending a response."),
     ConnectionLost, True),
    (httpx.RemoteProtocolError("illegal header line"), BrokenReply, False),
])
def test_each_class_is_an_error_and_a_retry_decision(exc: Exception, error: type,
                                                     transient: bool) -> None:
    mapped, retried = _transport_error(exc, URL, 30.0)  # type: ignore[arg-type]
    assert type(mapped) is error
    assert retried is transient


def _attempt(number: int, error: Exception | None) -> Attempt:
    return Attempt(number, Outcome(error=error, transient=True))  # type: ignore[arg-type]


POLICY = RetryPolicy(max_attempts=3, base_delay_s=0.0, jitter=0.0)


def _lost() -> ConnectionLost:
    return ConnectionLost(f"the connection to {URL} ended without a reply: reset")


def test_the_same_lost_connection_on_every_attempt_is_the_agents() -> None:
    decide = retry_decision(POLICY)
    assert decide(_attempt(1, _lost()), time.monotonic()) is not None
    assert decide(_attempt(2, _lost()), time.monotonic()) is not None
    last = _attempt(3, _lost())
    assert decide(last, time.monotonic()) is None
    assert isinstance(last.outcome.error, RepeatedTransportFailure)
    assert "on every one of 3 attempt(s)" in last.outcome.error.message


def test_a_network_failure_among_the_attempts_keeps_it_infrastructure() -> None:
    decide = retry_decision(POLICY)
    decide(_attempt(1, _lost()), time.monotonic())
    decide(_attempt(2, AgentUnreachable(f"cannot connect to {URL}: refused")), time.monotonic())
    last = _attempt(3, _lost())
    assert decide(last, time.monotonic()) is None
    assert type(last.outcome.error) is ConnectionLost


def test_refused_on_every_attempt_stays_infrastructure() -> None:
    decide = retry_decision(POLICY)
    for number in (1, 2, 3):
        attempt = _attempt(number, AgentUnreachable(f"cannot connect to {URL}: refused"))
        decide(attempt, time.monotonic())
    assert type(attempt.outcome.error) is AgentUnreachable


async def test_one_lost_connection_is_retried_and_the_call_succeeds() -> None:
    async with scripted(b"", reply(), close_after={1}) as server, httpx.AsyncClient() as http:
        rpc = JsonRpcTransport(http, server.url, "0.3", retry=POLICY)
        assert await rpc.call("message/send", {}) == {
            "kind": "message", "role": "agent", "messageId": "m", "parts": []}


async def test_a_call_dropped_on_every_attempt_raises_the_agents_error() -> None:
    async with scripted(b"", b"", b"", close_after={1, 2, 3}) as server, \
            httpx.AsyncClient() as http:
        rpc = JsonRpcTransport(http, server.url, "0.3", retry=POLICY)
        with pytest.raises(RepeatedTransportFailure, match="ended without a reply"):
            await rpc.call("message/send", {})
    assert len(server.heads) == 3
