"""The A2A client against real loopback servers: a2a-sdk 1.x, a raw 0.3 agent, a 0.2 agent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from a2abench.a2a import A2AClient, A2AConfig, RetryPolicy, TaskState
from a2abench.a2a.card import CardFetch
from a2abench.a2a.dialects import parse_card
from a2abench.a2a.metrics import ProtocolMetrics
from a2abench.errors import AgentTimeout, AgentUnreachable
from tests.agents import LegacyAgent, echo_agent
from tests.servers import free_port, serve


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    with serve(echo_agent) as base:
        yield base


def legacy(version: str = "0.3", **kw: object) -> tuple[LegacyAgent, object]:
    holder: dict[str, LegacyAgent] = {}

    def factory(base: str) -> object:
        holder["agent"] = LegacyAgent(base, version=version, **kw)  # type: ignore[arg-type]
        return holder["agent"].app()

    ctx = serve(factory)
    return holder, ctx  # type: ignore[return-value]


async def test_sdk_agent_blocking_reply_and_context_reuse(echo_url: str) -> None:
    seen: list[ProtocolMetrics] = []
    async with A2AClient(A2AConfig.create(echo_url), on_request=seen.append) as client:
        transport = await client.transport()
        assert transport.dialect == "1.0" and transport.url == echo_url + "/a2a"
        chat = client.conversation()
        first = await chat.send("hello")
        assert first.text == "echo: hello" and first.state is TaskState.COMPLETED
        second = await chat.send("again", {"tool_results": [1]})
        assert second.context_id == first.context_id == chat.context_id
        assert second.text == 'echo: again\n{"tool_results": [1.0]}'
    assert [m.method for m in seen] == ["SendMessage", "SendMessage"]
    assert all(m.status_code == 200 and m.bytes_sent > 0 and m.bytes_received > 0 for m in seen)
    assert seen[1].context_id == first.context_id and seen[0].input_tokens >= 1


async def test_sdk_agent_streaming(echo_url: str) -> None:
    config = A2AConfig.create(echo_url, streaming=True)
    async with A2AClient(config) as client:
        reply = await client.conversation().send("stream me")
    assert reply.text == "echo: stream me"
    assert reply.state is TaskState.COMPLETED and reply.events >= 3


async def test_sdk_agent_through_its_0_3_compat_endpoint(echo_url: str) -> None:
    raw = {"name": "echo", "description": "d", "version": "1", "protocolVersion": "0.3.0",
           "url": echo_url + "/a2a", "capabilities": {"streaming": True},
           "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
           "skills": []}
    fetched = CardFetch(card=parse_card(raw), raw=raw, card_url=echo_url, latency_ms=0,
                        size_bytes=0, legacy_path=False)
    async with A2AClient(A2AConfig.create(echo_url), card=fetched) as client:
        assert (await client.transport()).dialect == "0.3"
        chat = client.conversation()
        assert (await chat.send("via 0.3")).text == "echo: via 0.3"
        assert (await chat.send("streamed", stream=True)).text == "echo: streamed"


@pytest.mark.parametrize("version", ["0.2", "0.3"])
async def test_legacy_agents_message_replies_keep_context(version: str) -> None:
    holder, ctx = legacy(version)
    with ctx as base:  # type: ignore[attr-defined]
        async with A2AClient(A2AConfig.create(base)) as client:
            fetched = await client.card()
            assert fetched.legacy_path is (version == "0.2")
            chat = client.conversation()
            assert (await chat.send("a")).text == "echo[turn=1]: a"
            assert (await chat.send("b")).text == "echo[turn=2]: b"
    headers = [r["headers"] for r in holder["agent"].requests]
    assert [h.get("a2a-version") for h in headers] == [None if version == "0.2" else "0.3"] * 2
    assert all(r["body"]["method"] == "message/send" for r in holder["agent"].requests)


async def test_working_task_is_polled_until_terminal() -> None:
    holder, ctx = legacy("0.3", mode="working")
    with ctx as base:  # type: ignore[attr-defined]
        async with A2AClient(A2AConfig.create(base)) as client:
            reply = await client.conversation().send("slow job")
    assert reply.state is TaskState.COMPLETED and reply.text == "echo[turn=1]: slow job"
    assert [r["body"]["method"] for r in holder["agent"].requests] == ["message/send",
                                                                       "tasks/get"]


async def test_input_required_task_is_continued_with_its_task_id() -> None:
    holder, ctx = legacy("0.3", mode="input-required")
    with ctx as base:  # type: ignore[attr-defined]
        async with A2AClient(A2AConfig.create(base)) as client:
            chat = client.conversation()
            first = await chat.send("book a flight")
            assert first.state is TaskState.INPUT_REQUIRED and chat.task_id
            second = await chat.send("tomorrow")
    assert second.state is TaskState.COMPLETED and chat.task_id is None
    sent = [r["body"]["params"]["message"] for r in holder["agent"].requests]
    assert "taskId" not in sent[0] and sent[1]["taskId"] == first.task.id  # type: ignore[union-attr]


async def test_streamed_task_events_assemble_into_one_reply() -> None:
    _, ctx = legacy("0.3", mode="task")
    with ctx as base:  # type: ignore[attr-defined]
        async with A2AClient(A2AConfig.create(base, streaming=True)) as client:
            reply = await client.conversation().send("s")
    assert reply.state is TaskState.COMPLETED and reply.text == "echo[turn=1]: s"
    assert reply.events == 2


async def test_unreachable_agent_is_retried_then_named() -> None:
    port = free_port()
    seen: list[ProtocolMetrics] = []
    raw = {"name": "x", "url": f"http://127.0.0.1:{port}/rpc", "protocolVersion": "0.3.0"}
    fetched = CardFetch(card=parse_card(raw), raw=raw, card_url=raw["url"], latency_ms=0,
                        size_bytes=0, legacy_path=False)
    config = A2AConfig.create(f"http://127.0.0.1:{port}",
                              retry=RetryPolicy(max_attempts=3, base_delay_s=0.01))
    async with A2AClient(config, card=fetched, on_request=seen.append) as client:
        with pytest.raises(AgentUnreachable, match="cannot connect"):
            await client.conversation().send("hi")
    assert [m.attempt for m in seen] == [1, 2, 3] and all(m.error for m in seen)


async def test_slow_rpc_times_out() -> None:
    import asyncio

    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def slow(_: object) -> JSONResponse:
        await asyncio.sleep(30)  # far past the 0.2 s deadline, whatever the load
        return JSONResponse({})

    with serve(lambda base: Starlette(routes=[Route("/rpc", slow, methods=["POST"])])) as base:
        raw = {"name": "x", "url": base + "/rpc", "protocolVersion": "0.3.0"}
        fetched = CardFetch(card=parse_card(raw), raw=raw, card_url=base, latency_ms=0,
                            size_bytes=0, legacy_path=False)
        config = A2AConfig.create(base, timeout=0.2, retry=RetryPolicy.none())
        async with A2AClient(config, card=fetched) as client:
            with pytest.raises(AgentTimeout, match="within 0.2 s"):
                await client.conversation().send("hi")
