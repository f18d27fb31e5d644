"""One MCP tool call through a2abench's endpoint vs the same trivial tool on a bare `mcp` SDK
server, same run, same client.

    python perf/mcp_call.py [--calls 300] [--rounds 5] [--protocol legacy|2026-07-28]

Each server runs in a background process of its own (uvicorn, loopback), a Starlette app with
the SDK's Streamable HTTP session manager: `bare` is the SDK alone (lowlevel Server, a tool
`echo` answering its argument); `a2abench` is `McpEndpoint` (bearer-token check, the session
registry, the turn and limit checks, call counters) with a tool session whose backend answers
the same, answering in plain JSON (its default) or, as the bare server and a2abench's
sessions that announce tool changes do, over SSE. One `mcp.Client` per server makes
`--calls` sequential calls per round, the servers alternating (each round starts with the
next one). The figures are medians per call of the server process's CPU time (user +
system, from /proc: what the server costs, far steadier under the shared machine's load)
and of the client's wall time (which the load moves a lot). `--protocol` is what the client
speaks: the initialize handshake (`legacy`, the default: the figures recorded before
2026-07-28 was served) or the stateless 2026-07-28 revision (every server serves both).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from _util import ROOT, machine

KINDS = ("bare", "a2abench", "a2abench-sse")
LABELS = {"bare": "bare mcp SDK server (SSE)      ",
          "a2abench": "a2abench McpEndpoint (JSON)    ",
          # banking's sessions: SSE on the handshake revisions, JSON on 2026-07-28
          "a2abench-sse": "a2abench, an announcing session"}


def bare_app() -> Any:
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.streamable_http_manager import (
        StreamableHTTPASGIApp,
        StreamableHTTPSessionManager,
    )
    from starlette.applications import Starlette
    from starlette.routing import Route

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(
            name="echo", description="Echo.", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = json.dumps(params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server: Server[Any] = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)
    manager = StreamableHTTPSessionManager(app=server, security_settings=None)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return Starlette(routes=[Route("/mcp", StreamableHTTPASGIApp(manager))], lifespan=lifespan)


def a2abench_app(announces: bool = False) -> tuple[Any, str]:
    from starlette.applications import Starlette
    from starlette.routing import Route

    from a2abench.mcp.server import McpEndpoint
    from a2abench.mcp.session import ToolResult, ToolSpec

    class Echo:
        def tools(self) -> list[ToolSpec]:
            return [ToolSpec("echo", "Echo.", {"type": "object"})]

        async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
            return ToolResult(json.dumps(arguments))

    endpoint = McpEndpoint()
    session = endpoint.registry.open()
    session.backend = Echo()
    session.in_turn = True  # the agent holds the turn for the whole benchmark
    session.announces = announces  # True: SSE responses, as the bare server sends
    session.limits = type(session.limits)(max_calls_per_turn=10**9)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        async with endpoint.running():
            yield

    return Starlette(routes=[Route("/mcp", endpoint)], lifespan=lifespan), session.token


def serve(kind: str) -> None:
    """A background process: one app on loopback; prints its URL and token."""
    from tests.servers import serve_in_thread

    app, token = (a2abench_app(kind == "a2abench-sse") if kind.startswith("a2abench")
                  else (bare_app(), None))
    with serve_in_thread(app) as base:
        print(json.dumps({"url": base + "/mcp", "token": token}), flush=True)
        sys.stdin.read()  # until the parent closes our stdin


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    import os
    from pathlib import Path

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def timed(server: dict[str, Any], calls: int, protocol: Any) -> tuple[float, float]:
    """(wall, server CPU) seconds per call over `calls` sequential calls."""
    from a2abench.mcp.client import connect

    token = server["token"]
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with connect({"url": server["url"], "headers": headers},
                       protocol=protocol) as client:
        for k in range(20):  # warm up
            await client.call_tool("echo", {"k": k})
        cpu0, t0 = cpu_s(server["pid"]), time.perf_counter()
        for k in range(calls):
            await client.call_tool("echo", {"k": k})
        wall, cpu = time.perf_counter() - t0, cpu_s(server["pid"]) - cpu0
    return wall / calls, cpu / calls


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--protocol", choices=("legacy", "2026-07-28"), default="legacy")
    parser.add_argument("--serve", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    kinds = KINDS
    procs = {k: subprocess.Popen([sys.executable, __file__, "--serve", k], cwd=ROOT,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for k in kinds}
    try:
        servers = {k: {**json.loads(p.stdout.readline()), "pid": p.pid}  # type: ignore[union-attr]
                   for k, p in procs.items()}
        walls: dict[str, list[float]] = {k: [] for k in kinds}
        cpus: dict[str, list[float]] = {k: [] for k in kinds}
        for r in range(args.rounds):  # alternate, and rotate who goes first: the load
            for k in kinds[r % len(kinds):] + kinds[:r % len(kinds)]:  # drifts within a round
                wall, cpu = await timed(servers[k], args.calls, args.protocol)
                walls[k].append(wall)
                cpus[k].append(cpu)
    finally:
        for p in procs.values():
            if p.stdin is not None:
                p.stdin.close()
            p.wait(10)
    print(f"{machine()}; {args.calls} sequential calls x {args.rounds} rounds (medians), "
          f"protocol {args.protocol}")
    base_cpu, base_wall = statistics.median(cpus["bare"]), statistics.median(walls["bare"])
    for k in kinds:
        cpu, wall = statistics.median(cpus[k]), statistics.median(walls[k])
        print(f"{LABELS[k]}: server CPU {1000 * cpu:.2f} ms per call (ratio "
              f"{cpu / base_cpu:.2f}), wall {1000 * wall:.2f} ms (ratio {wall / base_wall:.2f})")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    asyncio.run(main())
