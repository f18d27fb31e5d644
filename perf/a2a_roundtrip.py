"""Sequential round trips to the local echo agent, per binding: a2abench's client vs a raw
loop on the same binding (raw httpx JSON-RPC, raw httpx HTTP+JSON, a raw grpc stub).

    python perf/a2a_roundtrip.py [--n 1000] [--bindings jsonrpc,http-json,grpc]

The echo agent (examples/echo_agent.py, a2a-sdk 1.x, all three bindings) runs in its own
process. Both loops send the same A2A 1.0 SendMessage; they alternate in blocks of 50 so
machine noise hits both alike. Target (issues 2 and 13): median ratio a2abench / raw <= 1.3
on each binding.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from _util import ROOT, machine, median_ms

from a2abench.a2a import A2AClient, A2AConfig


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def wait_ready(base: str) -> None:
    async with httpx.AsyncClient() as http:
        for _ in range(200):
            try:
                if (await http.get(base + "/.well-known/agent-card.json")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.05)
    raise SystemExit("echo agent did not start")


async def raw_round_trip(http: httpx.AsyncClient, url: str) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "role": "ROLE_USER", "messageId": str(uuid.uuid4()), "parts": [{"text": "ping"}]}}}
    response = await http.post(url, content=json.dumps(body),
                                headers={"A2A-Version": "1.0",
                                         "Content-Type": "application/json"})
    result = json.loads(response.content)["result"]
    assert result["task"]["artifacts"][0]["parts"][0]["text"] == "echo: ping"


async def raw_rest_round_trip(http: httpx.AsyncClient, url: str) -> None:
    body = {"message": {"role": "ROLE_USER", "messageId": str(uuid.uuid4()),
                        "parts": [{"text": "ping"}]}}
    response = await http.post(url + "/message:send", content=json.dumps(body),
                               headers={"A2A-Version": "1.0",
                                        "Content-Type": "application/json"})
    result = json.loads(response.content)
    assert result["task"]["artifacts"][0]["parts"][0]["text"] == "echo: ping"


def raw_grpc(target: str) -> tuple[Any, Callable[[], Awaitable[None]]]:
    """A grpc.aio channel and one raw SendMessage round trip on a2a-sdk's generated stub."""
    import grpc
    from a2a.types import Message, Part, Role, SendMessageRequest, a2a_pb2_grpc

    channel = grpc.aio.insecure_channel(target)
    stub = a2a_pb2_grpc.A2AServiceStub(channel)

    async def round_trip() -> None:
        request = SendMessageRequest(message=Message(
            role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=[Part(text="ping")]))
        reply = await stub.SendMessage(request, metadata=(("a2a-version", "1.0"),))
        assert reply.task.artifacts[0].parts[0].text == "echo: ping"

    return channel, round_trip


async def run(n: int, base: str, binding: str) -> tuple[list[float], list[float]]:
    raw, ours = [], []
    config = A2AConfig.create(base, transport=binding)
    async with httpx.AsyncClient() as http, A2AClient(config) as client:
        transport = await client.transport()
        assert transport.binding == {"jsonrpc": "JSONRPC", "http-json": "HTTP+JSON",
                                     "grpc": "GRPC"}[binding] and transport.dialect == "1.0"
        channel = None
        if binding == "grpc":
            channel, raw_trip = raw_grpc(transport.url)
        elif binding == "http-json":
            async def raw_trip() -> None:
                await raw_rest_round_trip(http, transport.url)
        else:
            async def raw_trip() -> None:
                await raw_round_trip(http, transport.url)
        for _ in range(10):  # warm both paths
            await raw_trip()
            await client.conversation().send("ping")
        block = 50
        for _ in range(n // block):
            for _ in range(block):
                t0 = time.perf_counter()
                await raw_trip()
                raw.append(time.perf_counter() - t0)
            for _ in range(block):
                t0 = time.perf_counter()
                reply = await client.conversation().send("ping")
                ours.append(time.perf_counter() - t0)
                assert reply.text == "echo: ping"
        if channel is not None:
            await channel.close()
    return raw, ours


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--bindings", default="jsonrpc,http-json,grpc")
    args = parser.parse_args()
    bindings = [b.strip() for b in args.bindings.split(",") if b.strip()]
    port, grpc_port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    agent = subprocess.Popen([sys.executable, str(ROOT / "examples" / "echo_agent.py"),
                              "--port", str(port), "--bindings", "jsonrpc,http-json,grpc",
                              "--grpc-port", str(grpc_port)])
    results = {}
    try:
        asyncio.run(wait_ready(base))
        for binding in bindings:
            results[binding] = asyncio.run(run(args.n, base, binding))
    finally:
        agent.terminate()
        agent.wait(timeout=10)
    print(f"# a2a_roundtrip, {args.n} + {args.n} round trips per binding, {machine()}")
    raw_names = {"jsonrpc": "raw httpx JSON-RPC", "http-json": "raw httpx HTTP+JSON",
                 "grpc": "raw grpc stub"}
    for binding, (raw, ours) in results.items():
        r, o = median_ms(raw), median_ms(ours)
        print(f"{binding:9}  {raw_names[binding]:20} median {r:6.2f} ms   "
              f"a2abench A2AClient median {o:6.2f} ms   ratio {o / r:5.2f} (target <= 1.3)")


if __name__ == "__main__":
    main()
