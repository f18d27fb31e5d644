"""1,000 sequential round trips to the local echo agent: a2abench's client vs raw httpx.

    python benchmarks/a2a_roundtrip.py [--n 1000]

The echo agent (examples/echo_agent.py, a2a-sdk 1.x) runs in its own process. Both loops send
the same A2A 1.0 SendMessage; they alternate in blocks of 50 so machine noise hits both alike.
Target (issue 2): median ratio a2abench / raw <= 1.3.
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


async def run(n: int, base: str) -> tuple[list[float], list[float]]:
    raw, ours = [], []
    async with httpx.AsyncClient() as http, A2AClient(A2AConfig.create(base)) as client:
        url = (await client.transport()).url
        for _ in range(10):  # warm both paths
            await raw_round_trip(http, url)
            await client.conversation().send("ping")
        block = 50
        for _ in range(n // block):
            for _ in range(block):
                t0 = time.perf_counter()
                await raw_round_trip(http, url)
                raw.append(time.perf_counter() - t0)
            for _ in range(block):
                t0 = time.perf_counter()
                reply = await client.conversation().send("ping")
                ours.append(time.perf_counter() - t0)
                assert reply.text == "echo: ping"
    return raw, ours


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    args = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    agent = subprocess.Popen([sys.executable, str(ROOT / "examples" / "echo_agent.py"),
                              "--port", str(port)])
    try:
        asyncio.run(wait_ready(base))
        raw, ours = asyncio.run(run(args.n, base))
    finally:
        agent.terminate()
        agent.wait(timeout=10)
    r, o = median_ms(raw), median_ms(ours)
    print(f"# a2a_roundtrip, {len(raw)} + {len(ours)} round trips, {machine()}")
    print(f"raw httpx JSON-RPC   median {r:6.2f} ms")
    print(f"a2abench A2AClient   median {o:6.2f} ms")
    print(f"ratio                {o / r:6.2f}   (target <= 1.3)")


if __name__ == "__main__":
    main()
