"""The MCP endpoint on loopback with a real `mcp` client on both eras of the protocol (the
initialize handshake, and 2026-07-28 only): token isolation, the turn, the limits, expired
tokens and the call counters hold alike (test_revisions.py: what differs between them)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from _pytest.raises import RaisesExc

from a2abench.mcp.channel import McpChannel
from a2abench.mcp.client import Protocol, connect, result_text
from a2abench.mcp.options import ToolChannelOptions
from a2abench.mcp.session import McpLimits, ToolCallTimeout, ToolResult, ToolSpec


def raises_mcp_error(match: str | None = None) -> RaisesExc[Exception]:
    """`pytest.raises(MCPError, match=match)`, the SDK imported when a test runs (a worker
    that runs no MCP test never imports it at collection)."""
    from mcp.shared.exceptions import MCPError

    return pytest.raises(MCPError, match=match)


@dataclass
class Counter:
    """A tiny environment: `add` changes its state, `read` shows it, `slow` sleeps."""

    name: str
    value: int = 0
    calls: list[str] = field(default_factory=list)

    def tools(self) -> list[ToolSpec]:
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
        return [ToolSpec(f"add_{self.name}", "Add n.", schema),
                ToolSpec("read", "The value.", {"type": "object", "properties": {}}),
                ToolSpec("slow", "Sleeps.", {"type": "object", "properties": {}})]

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        self.calls.append(name)
        if name == "slow":
            await asyncio.sleep(30)  # far past the 0.3 s call timeout, whatever the load
        if name.startswith("add_"):
            self.value += int(arguments.get("n", 1))
        return ToolResult(f"{self.name}={self.value}")


@pytest.fixture
async def channel() -> AsyncIterator[McpChannel]:
    chan = McpChannel(ToolChannelOptions(tool_channel="mcp"),
                      McpLimits(max_argument_bytes=200, max_calls_per_turn=3,
                                call_timeout_s=0.3))
    await chan.start()
    try:
        yield chan
    finally:
        await chan.aclose()


@pytest.fixture(params=["legacy", "2026-07-28"])
def protocol(request: pytest.FixtureRequest) -> Protocol:
    """What the client speaks: the handshake era, or the stateless revision only."""
    value: Protocol = request.param
    return value


def errors(exc: BaseException) -> list[BaseException]:
    """The leaves of an exception group (the SDK raises from task groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in errors(inner)]
    return [exc]


async def test_each_token_reaches_only_its_own_environment(channel: McpChannel,
                                                          protocol: Protocol) -> None:
    a, b = Counter("a"), Counter("b")
    with channel.session("a#0") as sa, channel.session("b#0") as sb:
        sa.backend, sb.backend = a, b
        url = channel.url

        async def play(session: Any, env: Counter, n: int) -> tuple[list[str], list[str]]:
            async with connect(session.pointer(url)["mcp"], protocol=protocol) as client, \
                    session.turn():
                names = [t.name for t in (await client.list_tools()).tools]
                texts = [result_text(await client.call_tool(f"add_{env.name}", {"n": n}))
                         for _ in range(2)]
                return names, texts

        (names_a, texts_a), (names_b, texts_b) = await asyncio.gather(play(sa, a, 1),
                                                                      play(sb, b, 10))
        assert names_a == ["add_a", "read", "slow"] and names_b == ["add_b", "read", "slow"]
        assert texts_a == ["a=1", "a=2"] and texts_b == ["b=10", "b=20"]
        # a's token calling b's tool: unknown in a's session, nothing changes anywhere
        async with connect(sa.pointer(url)["mcp"], protocol=protocol) as client, sa.turn():
            with raises_mcp_error("unknown tool 'add_b'"):
                await client.call_tool("add_b", {"n": 5})
        assert (a.value, b.value) == (2, 20)


async def test_an_mcp_session_is_bound_to_the_token_that_opened_it(
        channel: McpChannel) -> None:
    a, b = Counter("a"), Counter("b")
    with channel.session("a#0") as sa, channel.session("b#0") as sb:
        sa.backend, sb.backend = a, b
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}
        accept = {"accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient() as http:
            opened = await http.post(channel.url, json=init, headers={
                **accept, "authorization": f"Bearer {sa.token}"})
            assert opened.status_code == 200
            session_id = opened.headers["mcp-session-id"]
            stolen = await http.post(channel.url, headers={
                **accept, "authorization": f"Bearer {sb.token}", "mcp-session-id": session_id,
                "mcp-protocol-version": "2025-11-25"},
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            assert stolen.status_code == 404  # as if a's session did not exist
            nobody = await http.post(channel.url, json=init, headers=accept)
            assert nobody.status_code == 401
            stream = await http.get(channel.url, headers={"authorization": f"Bearer {sa.token}"})
            assert stream.status_code == 405


async def test_calls_outside_the_turn_are_refused_and_change_nothing(
        channel: McpChannel, protocol: Protocol) -> None:
    env = Counter("a")
    with channel.session("a#0") as session:
        session.backend = env
        async with connect(session.pointer(channel.url)["mcp"], protocol=protocol) as client:
            with raises_mcp_error("only while the agent holds the turn"):
                await client.call_tool("add_a", {"n": 1})
            async with session.turn():
                assert result_text(await client.call_tool("add_a", {"n": 1})) == "a=1"
            with raises_mcp_error("only while the agent holds the turn"):
                await client.call_tool("add_a", {"n": 1})
    assert env.value == 1 and env.calls == ["add_a"]
    assert channel.endpoint is not None
    counts = channel.endpoint.registry.counts
    assert counts[("add_a", "ok")] == 1 and counts[("add_a", "rejected")] == 2


async def test_expired_tokens_are_refused(channel: McpChannel, protocol: Protocol) -> None:
    env = Counter("a")
    with channel.session("a#0") as session:
        session.backend = env
        pointer = session.pointer(channel.url)["mcp"]
        async with connect(pointer, protocol=protocol) as client:
            session.close()  # the task-trial ended while the agent was still connected
            with raises_mcp_error():
                await client.call_tool("add_a", {"n": 1})
    with pytest.raises(BaseException) as caught:
        async with connect(pointer, protocol=protocol) as client:
            await client.list_tools()
    assert any("error" in str(e).lower() for e in errors(caught.value))
    assert env.calls == []


async def test_oversized_arguments_and_too_many_calls_are_refused(
        channel: McpChannel, protocol: Protocol) -> None:
    env = Counter("a")
    with channel.session("a#0") as session:
        session.backend = env
        async with connect(session.pointer(channel.url)["mcp"], protocol=protocol) as client, \
                session.turn():
            with raises_mcp_error("the limit is 200") as big:
                await client.call_tool("add_a", {"n": 1, "pad": "x" * 500})
            assert big.value.error.code == -32602
            with raises_mcp_error("unknown tool 'nope'"):
                await client.call_tool("nope", {})
            for _ in range(3):
                await client.call_tool("read", {})
            with raises_mcp_error("more than 3 tool calls in one turn"):
                await client.call_tool("add_a", {"n": 1})
    assert env.value == 0 and env.calls == ["read"] * 3
    assert channel.endpoint is not None
    assert channel.endpoint.registry.counts[("(unknown)", "rejected")] == 1


async def test_a_call_past_its_deadline_ends_the_task_trial(channel: McpChannel,
                                                            protocol: Protocol) -> None:
    env = Counter("a")
    with channel.session("a#0") as session:
        session.backend = env
        async with connect(session.pointer(channel.url)["mcp"], protocol=protocol) as client:
            with pytest.raises(ToolCallTimeout, match="ran past the 0.3 s deadline"):
                async with session.turn():
                    with raises_mcp_error("deadline"):
                        await client.call_tool("slow", {})
                    with raises_mcp_error():  # the token died with the task-trial
                        await client.call_tool("read", {})
    assert channel.endpoint is not None
    assert channel.endpoint.registry.counts[("slow", "timeout")] == 1
