"""Hostile streaming replies through the A2A client (message/stream against a real server):
a never-ending SSE stream, a 50 MB stream, a slow drip, deep events; and discovery under a
dripping card. Each ends within its deadline with a typed error."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from a2abench.a2a import A2AClient, A2AConfig, RetryPolicy
from a2abench.discover import discover
from a2abench.errors import (
    AgentTimeout,
    ProtocolError,
    ReplyLimitExceeded,
    ReplyTooDeep,
    ReplyTooLarge,
    ReplyTooSlow,
    TaskTimeout,
)
from a2abench.net.limits import ReplyLimits, task_deadline
from tests.hostile.hostile_agent import HostileAgent, hostile
from tests.servers import serve
from tests.waits import cpu_s, within_hang

NO_RETRY = RetryPolicy(max_attempts=1)


def client(base: str, **config: object) -> A2AClient:
    settings: dict[str, object] = {"streaming": True, "retry": NO_RETRY, **config}
    return A2AClient(A2AConfig.create(base, **settings))


def _stream_app(base: str, events: AsyncIterator[bytes]) -> Starlette:
    agent = HostileAgent(base, "normal", streaming=True)

    async def card(_: Request) -> JSONResponse:
        return JSONResponse(agent.card())

    async def rpc(_: Request) -> Response:
        return StreamingResponse(events, media_type="text/event-stream")

    return Starlette(routes=[Route("/.well-known/agent-card.json", card),
                             Route("/rpc", rpc, methods=["POST"])])


def status_event(state: str = "working") -> bytes:
    return ("data: " + json.dumps({"jsonrpc": "2.0", "id": "1", "result": {
        "kind": "status-update", "taskId": "t", "contextId": "c",
        "status": {"state": state}, "final": False}}) + "\n\n").encode()


async def test_never_ending_stream_ends_at_the_request_deadline() -> None:
    with hostile("endless", streaming=True) as (_, base):
        async with client(base, timeout=1.5) as a2a:
            # The deadline ends it (the error says so); the hang bound only stops the defect,
            # an endless stream, from holding the suite forever.
            with pytest.raises(ReplyTooSlow, match="still sending its reply"):
                await within_hang(a2a.conversation().send("hi"))


async def test_never_ending_stream_ends_at_the_task_deadline() -> None:
    with hostile("endless", streaming=True) as (_, base):
        async with client(base, timeout=60) as a2a:
            with task_deadline(0.4), pytest.raises(TaskTimeout, match="--task-timeout 0.4"):
                await a2a.conversation().send("hi")


async def test_stream_bytes_are_capped() -> None:
    async def events() -> AsyncIterator[bytes]:
        while True:
            yield status_event() * 100
            await asyncio.sleep(0)  # let the server's loop breathe (and shut down)

    with serve(lambda base: _stream_app(base, events())) as base:
        limits = ReplyLimits(max_bytes=200_000)
        async with client(base, limits=limits) as a2a:
            with pytest.raises(ReplyTooLarge, match="200 kB cap"):
                await a2a.conversation().send("hi")


async def test_stream_event_count_is_capped() -> None:
    async def events() -> AsyncIterator[bytes]:
        for _ in range(200):
            yield status_event()
        yield status_event("completed")

    with serve(lambda base: _stream_app(base, events())) as base:
        async with client(base, limits=ReplyLimits(max_events=100)) as a2a:
            with pytest.raises(ReplyLimitExceeded, match="101 stream events"):
                await a2a.conversation().send("hi")


async def test_deep_stream_event_is_too_deep() -> None:
    async def events() -> AsyncIterator[bytes]:
        yield b"data: " + b"[" * 3000 + b"]" * 3000 + b"\n\n"

    with serve(lambda base: _stream_app(base, events())) as base:
        async with client(base) as a2a:
            with pytest.raises(ReplyTooDeep, match="an SSE event from .* nested deeper"):
                await a2a.conversation().send("hi")


@pytest.mark.slow
async def test_twenty_thousand_artifact_events_are_linear_and_capped() -> None:
    def artifact(i: int) -> bytes:
        return ("data: " + json.dumps({"jsonrpc": "2.0", "id": "1", "result": {
            "kind": "artifact-update", "taskId": "t", "contextId": "c",
            "artifact": {"artifactId": f"a{i}", "parts": [{"kind": "text", "text": "x"}]}}})
            + "\n\n").encode()

    async def events() -> AsyncIterator[bytes]:
        for i in range(20_000):
            yield artifact(i)
            if i % 100 == 0:  # let the server see the client leave, and stop sending
                await asyncio.sleep(0)

    with serve(lambda base: _stream_app(base, events())) as base:
        async with client(base, limits=ReplyLimits(max_events=50_000)) as a2a:
            with cpu_s() as took, \
                    pytest.raises(ReplyLimitExceeded, match="1001 artifacts; the limit is 1000"):
                await within_hang(a2a.conversation().send("hi"))
            # The client's CPU seconds (this thread; the server runs in another): quadratic
            # merging took minutes, and wall time stretched past 30 s on a loaded machine.
            assert took[0] < 30


async def test_invalid_utf8_event_is_a_protocol_error() -> None:
    async def events() -> AsyncIterator[bytes]:
        yield b"data: {\"a\": \"\xff\"}\n\n"

    with serve(lambda base: _stream_app(base, events())) as base:
        async with client(base) as a2a:
            with pytest.raises(ProtocolError, match="not valid UTF-8"):
                await a2a.conversation().send("hi")


def _dripping_card(_: str) -> Starlette:
    async def card(_: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield b"{"
            while True:
                yield b" "
                await asyncio.sleep(0.05)

        return StreamingResponse(body(), media_type="application/json")

    return Starlette(routes=[Route("/.well-known/agent-card.json", card)])


async def test_a_dripping_card_cannot_hold_discovery() -> None:
    with serve(_dripping_card) as base, \
            pytest.raises(AgentTimeout, match=r"did not arrive within 0\.5 s"):
        await within_hang(discover(base, timeout=0.5))  # the drip never ends by itself


async def test_a_dripping_probe_reply_cannot_hold_discovery() -> None:
    with hostile("drip", hostile_calls=10) as (_, base):
        result = await within_hang(discover(base, timeout=0.5))
    assert not result.usable and result.error is not None
    assert "still sending its reply" in json.dumps(result.error)


def test_discover_reports_an_oversize_probe_reply_with_its_cap() -> None:
    from tests.clihelp import run_cli

    with hostile("oversize", hostile_calls=5) as (_, base):
        result = run_cli("discover", base, "--max-reply-bytes", "1000000", "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert data["usable"] is False and data["error"]["error"] == "ReplyTooLarge"
    assert "1 MB cap (--max-reply-bytes 1000000)" in data["error"]["message"]
