"""Both eras of MCP on the one endpoint, as raw HTTP sees them: the stateless 2026-07-28
revision (server/discover, headers checked against the body, resultType, cache hints, 404
for unknown methods, subscriptions/listen) beside the handshake revisions, negotiated per
request; capabilities that say what each session does; MCP sessions capped per token."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2abench.mcp.channel import McpChannel
from a2abench.mcp.client import connect, result_text
from a2abench.mcp.options import ToolChannelOptions
from a2abench.mcp.session import McpLimits, ToolResult, ToolSession, ToolSpec
from tests.mcp.test_endpoint import Counter, raises_mcp_error

MODERN = "2026-07-28"
HANDSHAKES = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
ACCEPT = "application/json, text/event-stream"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


class Unlocker(Counter):
    """Counter plus banking's shape: `unlock` adds the tool `secret` to the list."""

    unlocked: bool = False

    def tools(self) -> list[ToolSpec]:
        extra = [ToolSpec("secret", "Unlocked.", {"type": "object", "properties": {}})]
        return [ToolSpec("unlock", "Unlock.", {"type": "object", "properties": {}}),
                *super().tools(), *(extra if self.unlocked else [])]

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        if name == "unlock":
            changed, self.unlocked = not self.unlocked, True
            return ToolResult("unlocked", tools_changed=changed)
        return await super().call(name, arguments)


@pytest.fixture
async def channel() -> AsyncIterator[McpChannel]:
    chan = McpChannel(ToolChannelOptions(tool_channel="mcp"),
                      McpLimits(max_mcp_sessions=3, call_timeout_s=30))
    await chan.start()
    try:
        yield chan
    finally:
        await chan.aclose()


def meta(version: str = MODERN) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}}


async def post(http: httpx.AsyncClient, url: str, session: ToolSession, method: str,
               params: dict[str, Any] | None = None, *, header: str | None = MODERN,
               body_version: str | None = MODERN, **extra: str) -> httpx.Response:
    """One raw request: a 2026-07-28 one by default (its `_meta`, version header,
    `Mcp-Method`, and `Mcp-Name` for tools/call); `extra` headers override."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 9, "method": method,
                            "params": dict(params or {})}
    if body_version is not None:
        body["params"]["_meta"] = meta(body_version)
    headers = {"accept": ACCEPT, "authorization": f"Bearer {session.token}",
               "mcp-method": method}
    if header is not None:
        headers["mcp-protocol-version"] = header
    if method == "tools/call":
        headers["mcp-name"] = body["params"]["name"]
    headers.update({k.replace("_", "-"): v for k, v in extra.items()})
    return await http.post(url, json=body, headers=headers)


async def test_each_revision_advertises_list_changed_where_the_session_announces(
        channel: McpChannel) -> None:
    with channel.session("a#0") as fixed, channel.session("b#0") as changing:
        fixed.backend, changing.backend = Counter("a"), Unlocker("b")
        changing.announces = True
        async with httpx.AsyncClient() as http:
            for session, announces in ((fixed, False), (changing, True)):
                found = (await post(http, channel.url, session, "server/discover")).json()
                result = found["result"]
                assert result["capabilities"]["tools"] == {"listChanged": announces}
                assert result["supportedVersions"] == [MODERN, *HANDSHAKES]
                assert (result["resultType"], result["ttlMs"], result["cacheScope"]) == (
                    "complete", 0, "private")
                assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == \
                    "a2abench"
                opened = await http.post(channel.url, json=INIT, headers={
                    "accept": ACCEPT, "authorization": f"Bearer {session.token}"})
                text = opened.text  # JSON, or one SSE event for the sessions that announce
                assert f'"tools":{{"listChanged":{str(announces).lower()}}}' in text
                assert '"protocolVersion":"2025-11-25"' in text


async def test_stateless_results_carry_result_type_and_cache_hints(
        channel: McpChannel) -> None:
    with channel.session("a#0") as session:
        session.backend = env = Counter("a")
        async with httpx.AsyncClient() as http, session.turn():
            listed = (await post(http, channel.url, session, "tools/list")).json()["result"]
            assert [t["name"] for t in listed["tools"]] == ["add_a", "read", "slow"]
            assert (listed["resultType"], listed["ttlMs"], listed["cacheScope"]) == (
                "complete", 0, "private")
            called = await post(http, channel.url, session, "tools/call",
                                {"name": "add_a", "arguments": {"n": 2}})
            assert called.status_code == 200 and "mcp-session-id" not in called.headers
            result = called.json()["result"]
            assert result["resultType"] == "complete"
            assert result["content"] == [{"type": "text", "text": "a=2"}]
            # The handshake era's list result has no 2026 fields.
            init = await http.post(channel.url, json=INIT, headers={
                "accept": ACCEPT, "authorization": f"Bearer {session.token}"})
            legacy = await http.post(channel.url, headers={
                "accept": ACCEPT, "authorization": f"Bearer {session.token}",
                "mcp-session-id": init.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25"},
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            assert set(legacy.json()["result"]) == {"tools"}
    assert env.value == 2


async def test_headers_must_match_the_body(channel: McpChannel) -> None:
    """HeaderMismatch (400, -32020) for each disagreement, and nothing runs."""
    with channel.session("a#0") as session:
        session.backend = env = Counter("a")
        call = {"name": "add_a", "arguments": {"n": 1}}
        async with httpx.AsyncClient() as http, session.turn():
            refused = [
                await post(http, channel.url, session, "tools/call", call,
                           mcp_protocol_version="2025-11-25"),  # a handshake header
                await post(http, channel.url, session, "tools/call", call, header=None),
                await post(http, channel.url, session, "tools/call", call,
                           body_version="2025-11-25"),
                await post(http, channel.url, session, "tools/call", call,
                           mcp_method="tools/list"),
                await post(http, channel.url, session, "tools/call", call, mcp_name="read"),
            ]
            for response in refused:
                assert response.status_code == 400, response.text
                assert response.json()["error"]["code"] == -32020, response.text
            assert env.calls == []
            encoded = "=?base64?" + base64.b64encode(b"add_a").decode() + "?="
            ok = await post(http, channel.url, session, "tools/call", call, mcp_name=encoded)
            assert ok.json()["result"]["content"][0]["text"] == "a=1"


async def test_unknown_methods_and_versions(channel: McpChannel) -> None:
    with channel.session("a#0") as session:
        session.backend = Counter("a")
        async with httpx.AsyncClient() as http:
            listen = {"notifications": {"toolsListChanged": True}}
            for method, params in (("tools/nope", {}), ("ping", {}), ("initialize", {}),
                                   ("subscriptions/listen", listen)):  # it never announces
                missing = await post(http, channel.url, session, method, params)
                assert missing.status_code == 404, method
                assert missing.json()["error"]["code"] == -32601, method
            future = await post(http, channel.url, session, "tools/list", header="2027-01-01",
                                body_version="2027-01-01")
            assert future.status_code == 400
            error = future.json()["error"]
            assert (future.json()["id"], error["code"]) == (9, -32022)
            assert error["data"] == {"supported": [MODERN, *HANDSHAKES],
                                     "requested": "2027-01-01"}


async def test_a_stateless_request_ignores_mcp_session_ids(channel: McpChannel) -> None:
    """2026-07-28 has no MCP sessions: a session id (even another token's) is ignored, and
    the token alone decides whose tools answer."""
    with channel.session("a#0") as sa, channel.session("b#0") as sb:
        sa.backend, sb.backend = Counter("a"), Counter("b")
        async with httpx.AsyncClient() as http:
            opened = await http.post(channel.url, json=INIT, headers={
                "accept": ACCEPT, "authorization": f"Bearer {sa.token}"})
            listed = await post(http, channel.url, sb, "tools/list",
                                mcp_session_id=opened.headers["mcp-session-id"])
            assert listed.status_code == 200
            assert listed.json()["result"]["tools"][0]["name"] == "add_b"


async def test_list_changes_reach_only_the_tokens_own_listen_streams(
        channel: McpChannel) -> None:
    """A stateless client sees an unlock on its listen stream and on its next list; another
    task-trial's stream sees nothing of it, and ends gracefully with its task-trial."""
    with channel.session("a#0") as sa, channel.session("b#0") as sb:
        sa.backend, sb.backend = Unlocker("a"), Unlocker("b")
        sa.announces = sb.announces = True
        async with connect(sa.pointer(channel.url)["mcp"], protocol=MODERN) as ca, \
                connect(sb.pointer(channel.url)["mcp"], protocol=MODERN) as cb, \
                ca.listen(tools_list_changed=True) as heard_a, \
                cb.listen(tools_list_changed=True) as heard_b:
            async with sa.turn():
                assert result_text(await ca.call_tool("unlock", {})) == "unlocked"
                assert "secret" in [t.name for t in (await ca.list_tools()).tools]
                assert result_text(await ca.call_tool("secret", {})) == "a=0"
            event = await asyncio.wait_for(anext(heard_a), 30)
            assert type(event).__name__ == "ToolsListChanged"
            assert "secret" not in [t.name for t in (await cb.list_tools()).tools]
            sb.close()  # b's stream ends with its task-trial, after anything sent before
            assert [e async for e in heard_b] == []


async def test_listen_streams_per_token_are_capped(channel: McpChannel) -> None:
    from a2abench.mcp.handlers import MAX_LISTENS_PER_TOKEN  # imports the SDK

    with channel.session("a#0") as session:
        session.backend, session.announces = Unlocker("a"), True
        async with contextlib.AsyncExitStack() as stack:
            client = await stack.enter_async_context(
                connect(session.pointer(channel.url)["mcp"], protocol=MODERN))
            for _ in range(MAX_LISTENS_PER_TOKEN):
                await stack.enter_async_context(client.listen(tools_list_changed=True))
            with raises_mcp_error("Subscription limit"):
                async with client.listen(tools_list_changed=True):
                    pass


async def test_mcp_sessions_per_token_are_capped(channel: McpChannel) -> None:
    """Opening a fourth MCP session with one token (limit 3) ends its least recently used
    one; another token is not affected; a token's sessions end with its task-trial."""
    assert channel.endpoint is not None
    instances = channel.endpoint.manager._server_instances  # the SDK's live sessions
    with channel.session("a#0") as sa, channel.session("b#0") as sb:
        sa.backend, sb.backend = Counter("a"), Counter("b")
        async with httpx.AsyncClient() as http:
            def headers(token: str, sid: str | None = None) -> dict[str, str]:
                return {"accept": ACCEPT, "authorization": f"Bearer {token}",
                        **({"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
                           if sid else {})}

            # Eight: the first five are each ended in turn to make room for a newer one.
            ids = [(await http.post(channel.url, json=INIT, headers=headers(sa.token))
                    ).headers["mcp-session-id"] for _ in range(8)]
            assert list(sa.mcp_sessions) == ids[-3:] and len(instances) == 3
            b_id = (await http.post(channel.url, json=INIT, headers=headers(sb.token))
                    ).headers["mcp-session-id"]
            ping = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
            for sid, status in ((ids[0], 404), (ids[-3], 200), (b_id, 200)):
                token = sb.token if sid == b_id else sa.token
                got = await http.post(channel.url, json=ping, headers=headers(token, sid))
                assert got.status_code == status, sid
            ended = await http.delete(channel.url, headers=headers(sa.token, ids[-1]))
            assert ended.status_code == 200 and ids[-1] not in sa.mcp_sessions
        sa.close()
        await asyncio.sleep(0)  # the sessions end in a task of the endpoint's loop
        for _ in range(100):
            if len(instances) == 1:
                break
            await asyncio.sleep(0.01)
        assert list(instances) == [b_id]


async def test_busy_mcp_sessions_are_never_ended_to_make_room(channel: McpChannel) -> None:
    """With every session of the token in a call, one more is refused (503) rather than
    cut a call short; once the calls are over, a session makes room."""
    release = asyncio.Event()

    class Gate(Counter):
        async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
            await release.wait()  # the first call holds the session's lock; the rest queue
            return ToolResult("through")

    with channel.session("a#0") as session:
        session.backend = Gate("a")
        pointer = session.pointer(channel.url)["mcp"]

        async def one() -> str:
            async with connect(pointer, protocol="legacy") as client:
                return result_text(await client.call_tool("read", {}))

        def all_busy() -> bool:
            busy = list(session.mcp_sessions.values())
            return len(busy) == 3 and all(n > 0 for n in busy)

        async with session.turn():
            calls = [asyncio.create_task(one()) for _ in range(3)]
            for _ in range(3000):  # until the three calls are in flight (bounded)
                if all_busy():
                    break
                await asyncio.sleep(0.01)
            assert all_busy()
            async with httpx.AsyncClient() as http:
                refused = await http.post(channel.url, json=INIT, headers={
                    "accept": ACCEPT, "authorization": f"Bearer {session.token}"})
                assert refused.status_code == 503
                assert "3 MCP sessions, all busy" in refused.json()["error"]["message"]
                release.set()
                assert await asyncio.gather(*calls) == ["through"] * 3
                opened = await http.post(channel.url, json=INIT, headers={
                    "accept": ACCEPT, "authorization": f"Bearer {session.token}"})
                assert opened.status_code == 200


async def test_a_lone_surrogate_in_call_arguments_is_refused_and_nothing_runs(
        channel: McpChannel) -> None:
    """`"\\ud800"` is valid JSON but no text: the call is refused (the agent's malformed
    request, answered as such), nothing runs, and the endpoint goes on serving."""
    with channel.session("a#0") as session:
        session.backend = env = Counter("a")
        call = {"name": "add_a", "arguments": {"n": 1, "note": "\ud800"}}
        async with httpx.AsyncClient() as http, session.turn():
            body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                    "params": {**call, "_meta": meta()}}
            refused = await http.post(channel.url, content=json.dumps(body), headers={
                "accept": ACCEPT, "content-type": "application/json",
                "authorization": f"Bearer {session.token}", "mcp-method": "tools/call",
                "mcp-name": "add_a", "mcp-protocol-version": MODERN})
            error = refused.json()["error"]  # once -32603 "Internal server error"
            assert error["code"] == -32602, error
            assert error["message"] == (
                "the arguments are not valid Unicode text: a lone surrogate (U+D800 at "
                "character 0 of note), which UTF-8 cannot encode")
            assert env.calls == []
            ok = await post(http, channel.url, session, "tools/call",
                            {"name": "add_a", "arguments": {"n": 2}})
            assert ok.json()["result"]["content"][0]["text"] == "a=2"
    assert channel.endpoint is not None
    assert channel.endpoint.registry.counts[("add_a", "rejected")] == 1
