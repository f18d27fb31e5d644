"""The client on every binding against real a2a-sdk agents: REST-only, gRPC-only, all three;
A2A 1.0 and 0.3 (a2a-sdk's compat layer) - blocking, streaming, input-required, polling,
cancel, metrics, errors, host policy."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from a2abench.a2a import A2AClient, A2AConfig
from a2abench.a2a.bindings import InterfaceChoice
from a2abench.a2a.metrics import ProtocolMetrics
from a2abench.a2a.models import TaskState
from a2abench.errors import A2AStatusError, AgentUnreachable, HostNotAllowed, NoUsableInterface
from a2abench.net.egress import HostPolicy
from a2abench.net.retry import RetryPolicy
from tests.sdk_agents import sdk_agent
from tests.servers import serve

pytest.importorskip("grpc")

CASES = [("HTTP+JSON", "1.0"), ("HTTP+JSON", "0.3"), ("GRPC", "1.0"), ("GRPC", "0.3")]


@pytest.fixture(scope="module")
def every_binding() -> Iterator[str]:
    """One agent offering JSON-RPC, HTTP+JSON and gRPC, each in 1.0 and 0.3."""
    with serve(sdk_agent) as base:
        yield base


def _force(binding: str) -> str:
    return {"JSONRPC": "jsonrpc", "HTTP+JSON": "http-json", "GRPC": "grpc"}[binding]


@pytest.mark.parametrize(("binding", "version"), CASES)
@pytest.mark.parametrize("streaming", [False, True])
async def test_single_binding_agent(binding: str, version: str, streaming: bool) -> None:
    """An agent offering only this binding in only this version: blocking or streaming,
    one contextId per conversation, input-required continued on the same task."""
    seen: list[ProtocolMetrics] = []
    with serve(lambda base: sdk_agent(base, bindings=(binding,), versions=(version,))) as base:
        config = A2AConfig.create(base, streaming=streaming)
        async with A2AClient(config, on_request=seen.append) as client:
            transport = await client.transport()
            assert (transport.binding, transport.dialect) == (binding, version)
            assert client.interface is not None and client.interface.binding == binding
            chat = client.conversation()
            first = await chat.send("hello", {"n": 1})
            assert first.state is TaskState.COMPLETED
            assert first.text == 'echo: hello\n{"n": 1.0}'
            asked = await chat.send("ask me")
            assert asked.state is TaskState.INPUT_REQUIRED and asked.text == "which one?"
            assert chat.task_id == asked.task.id  # type: ignore[union-attr]
            done = await chat.send("the blue one")
            assert done.state is TaskState.COMPLETED and done.text == "done: the blue one"
            assert done.task.id == asked.task.id  # type: ignore[union-attr]
            assert first.context_id == asked.context_id == done.context_id == chat.context_id
            task = await client.get_task(done.task.id)  # type: ignore[union-attr]
            assert task.status.state is TaskState.COMPLETED
    assert seen and all(m.binding == binding and m.error is None for m in seen)
    assert all(m.bytes_received > 0 for m in seen)
    assert all(m.bytes_sent > 0 for m in seen if m.method != "tasks:get")  # a bodiless GET
    if binding == "GRPC":
        assert all(m.grpc_status == "OK" and m.status_code is None for m in seen)
    else:
        assert all(m.status_code == 200 for m in seen)
    if streaming:
        assert any(m.first_event_ms is not None for m in seen)


@pytest.mark.parametrize(("binding", "version"), CASES)
async def test_errors_are_named(every_binding: str, binding: str, version: str) -> None:
    config = A2AConfig.create(every_binding, transport=_force(binding))
    async with A2AClient(config) as client:
        transport = await client.transport()
        assert transport.binding == binding
        with pytest.raises(A2AStatusError) as info:
            await client.get_task("no-such-task")
    assert info.value.status == "NOT_FOUND" and info.value.kind == "agent"
    if version == "1.0":
        assert info.value.reason == "TASK_NOT_FOUND"


@pytest.mark.parametrize("binding", ["HTTP+JSON", "GRPC"])
async def test_cancel_a_finished_task_is_refused(every_binding: str, binding: str) -> None:
    config = A2AConfig.create(every_binding, transport=_force(binding))
    async with A2AClient(config) as client:
        reply = await client.conversation().send("hi")
        with pytest.raises(A2AStatusError) as info:
            await client.cancel_task(reply.task.id)  # type: ignore[union-attr]
    assert info.value.status == "FAILED_PRECONDITION"


async def test_interface_choice_prefers_jsonrpc_1_0(every_binding: str) -> None:
    async with A2AClient(A2AConfig.create(every_binding)) as client:
        transport = await client.transport()
        assert (transport.binding, transport.dialect) == ("JSONRPC", "1.0")
        assert isinstance(client.interface, InterfaceChoice)
        assert client.interface.to_dict() == {"binding": "JSONRPC", "dialect": "1.0",
                                              "url": every_binding + "/rpc"}


async def test_forced_transport_missing_from_card() -> None:
    with serve(lambda base: sdk_agent(base, bindings=("HTTP+JSON",))) as base:
        async with A2AClient(A2AConfig.create(base, transport="grpc")) as client:
            with pytest.raises(NoUsableInterface, match="no usable GRPC interface"):
                await client.transport()


async def test_grpc_target_outside_allowed_hosts_is_refused() -> None:
    with serve(lambda base: sdk_agent(base, bindings=("GRPC",), versions=("1.0",))) as base:
        policy = HostPolicy(["127.0.0.1:" + base.rsplit(":", 1)[1]])  # the card's port only
        async with A2AClient(A2AConfig.create(base), host_policy=policy) as client:
            assert (await client.transport()).binding == "GRPC"
            with pytest.raises(HostNotAllowed, match="not an allowed host"):
                await client.conversation().send("hi")


async def test_grpc_agent_gone_is_unreachable() -> None:
    with serve(lambda base: sdk_agent(base, bindings=("GRPC",), versions=("1.0",))) as base:
        async with A2AClient(A2AConfig.create(base)) as client:
            await client.card()
    # The card is cached, the servers are gone: the call fails as infrastructure.
    config = A2AConfig.create(base, retry=RetryPolicy(max_attempts=2, base_delay_s=0.01))
    async with A2AClient(config, card=client._fetched) as gone:
        with pytest.raises(AgentUnreachable):
            await gone.conversation().send("anyone?")


@pytest.mark.parametrize("binding", ["HTTP+JSON", "GRPC"])
@pytest.mark.parametrize("streaming", [False, True])
async def test_reply_limits_hold_on_every_binding(every_binding: str, binding: str,
                                                  streaming: bool) -> None:
    """--max-reply-bytes bounds REST bodies, SSE streams and gRPC messages alike."""
    from a2abench.errors import ReplyTooLarge
    from a2abench.net.limits import ReplyLimits

    config = A2AConfig.create(every_binding, transport=_force(binding), streaming=streaming,
                              limits=ReplyLimits(max_bytes=2_000))
    async with A2AClient(config) as client:
        with pytest.raises(ReplyTooLarge) as info:
            await client.conversation().send("x" * 5_000)
    assert info.value.kind == "agent" and info.value.max_bytes == 2_000


async def test_grpc_request_deadline(every_binding: str) -> None:
    """The whole gRPC call runs under --timeout: a slow agent is an AgentTimeout."""
    from a2abench.errors import AgentTimeout
    from tests.sdk_agents import Echo

    class Slow(Echo):
        async def execute(self, context: Any, event_queue: Any) -> None:
            await asyncio.sleep(30)  # far past the 0.2 s deadline, whatever the load
            await super().execute(context, event_queue)

    with serve(lambda b: sdk_agent(b, bindings=("GRPC",), versions=("1.0",),
                                   executor=Slow())) as base:
        config = A2AConfig.create(base, timeout=0.2, retry=RetryPolicy.none())
        async with A2AClient(config) as client:
            with pytest.raises(AgentTimeout):
                await client.conversation().send("hi")
