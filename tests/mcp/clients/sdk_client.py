"""A tool caller on the official Python `mcp` SDK, whichever era is installed: 1.x speaks the
initialize handshake (2025-11-25), 2.x is pinned to 2026-07-28 (no fallback: it probes
`server/discover` at that revision and adopts it). Runs in a venv of its own
(tests/mcp/real_clients.py), never with a2abench importable.

stdin, one JSON command a line: `{"url", "headers", "calls": [[name, arguments], ...],
"alias": bool}`. For each it connects (as an agent does each turn), lists the tools, makes
the calls in order and disconnects, then answers one JSON line on stdout:
`{"protocol", "list_changed", "lists": [[names], ...], "changes", "calls": [...]}`, a call
being `{"name", "arguments", "text", "is_error"}` or `{"name", "arguments", "error"}`.

With `alias`, banking's `call_discoverable_agent_tool` goes to the unlocked tool by its own
name once it is listed. After a call that changed the list (the list fetched again shows
it), the caller waits for `notifications/tools/list_changed`: on the call's response stream
(handshake) or on its `subscriptions/listen` stream (2026-07-28).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import json
import ssl
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

MODERN = "2026-07-28"
CHANGE_WAIT_S = 60.0  # a notification the list says is due; bounded so a bug fails, not hangs


@functools.cache
def tls(module: str) -> ssl.SSLContext:
    """The HTTP client's own default TLS context, built once per process as an agent that
    reuses it would (a client made without one loads the CA bundle anew: ~30 ms of CPU for
    every connection, one a command here)."""
    context: ssl.SSLContext = importlib.import_module(module).create_ssl_context(
        verify=True, trust_env=True)
    return context


@dataclass
class Connection:
    protocol: str
    list_changed: bool
    names: Callable[[], Awaitable[list[str]]]
    call: Callable[[str, dict[str, Any]], Awaitable[tuple[str, bool]]]
    errors: tuple[type[BaseException], ...]


@contextlib.asynccontextmanager
async def handshake(pointer: dict[str, Any], on_change: Callable[[], None]
                    ) -> AsyncIterator[Connection]:
    """mcp 1.x: initialize, Mcp-Session-Id, notifications on the call's stream."""
    import httpx
    from mcp import ClientSession, types
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import McpError

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
                message.root, types.ToolListChangedNotification):
            on_change()

    async def names() -> list[str]:
        return [t.name for t in (await session.list_tools()).tools]

    async def call(name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        result = await session.call_tool(name, arguments)
        return "".join(getattr(c, "text", "") for c in result.content), bool(result.isError)

    async with httpx.AsyncClient(headers=pointer["headers"], verify=tls("httpx"),
                                 timeout=httpx.Timeout(30.0, read=300.0)) as http, \
            streamable_http_client(pointer["url"], http_client=http) as (read, write, _), \
            ClientSession(read, write, message_handler=on_message) as session:
        init = await session.initialize()
        tools = init.capabilities.tools
        yield Connection(init.protocolVersion, bool(tools and tools.listChanged), names, call,
                         (McpError,))


@contextlib.asynccontextmanager
async def stateless(pointer: dict[str, Any], on_change: Callable[[], None]
                    ) -> AsyncIterator[Connection]:
    """mcp 2.x pinned to 2026-07-28: server/discover, then per-request envelopes;
    list changes on a subscriptions/listen stream."""
    import httpx2
    import mcp_types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            on_change()

    async def names() -> list[str]:
        return [t.name for t in (await client.list_tools()).tools]

    async def call(name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        result = await client.call_tool(name, arguments)
        return "".join(getattr(c, "text", "") for c in result.content), bool(result.is_error)

    async with httpx2.AsyncClient(headers=pointer["headers"], verify=tls("httpx2"),
                                  timeout=httpx2.Timeout(30.0, read=300.0)) as http, \
            Client(streamable_http_client(pointer["url"], http_client=http), mode=MODERN,
                   message_handler=on_message) as client:
        client.session.adopt(types.DiscoverResult.model_validate(
            await client.session.send_discover(MODERN)))
        tools = client.server_capabilities.tools
        listed = bool(tools and tools.list_changed)
        async with client.listen(tools_list_changed=True) if listed else \
                contextlib.nullcontext():
            yield Connection(client.protocol_version, listed, names, call, (MCPError,))


async def play(command: dict[str, Any]) -> dict[str, Any]:
    changed = asyncio.Event()
    seen = {"changes": 0}

    def on_change() -> None:
        seen["changes"] += 1
        changed.set()

    connect = handshake if version("mcp").startswith("1.") else stateless
    calls: list[dict[str, Any]] = []
    pointer = {"url": command["url"], "headers": command["headers"]}
    async with connect(pointer, on_change) as conn:
        names = await conn.names()
        lists = [names]
        for name, arguments in command["calls"]:
            target = arguments.get("agent_tool_name")
            if command.get("alias") and name == "call_discoverable_agent_tool" \
                    and target in names:
                name, arguments = target, json.loads(arguments.get("arguments") or "{}")
            try:
                text, is_error = await conn.call(name, arguments)
            except conn.errors as exc:
                calls.append({"name": name, "arguments": arguments, "error": str(exc)})
                continue
            calls.append({"name": name, "arguments": arguments, "text": text,
                          "is_error": is_error})
            if conn.list_changed and name == "unlock_discoverable_agent_tool":
                after = await conn.names()  # a stateless agent's way: the next list shows it
                if after != names:
                    await asyncio.wait_for(changed.wait(), CHANGE_WAIT_S)
                    changed.clear()
                    names = after
                    lists.append(after)
    return {"protocol": conn.protocol, "list_changed": conn.list_changed, "lists": lists,
            "changes": seen["changes"], "calls": calls}


async def main() -> None:
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        answer = await play(json.loads(line))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
