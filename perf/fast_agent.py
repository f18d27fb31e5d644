"""A minimal A2A 0.3 JSON-RPC agent for throughput measurements, on bare asyncio.

    python perf/fast_agent.py PORT [DELAY_S] [--lognormal MEDIAN,P95] [--tls CERT KEY]

Answers every `message/send` with a Message holding one `done` tool call (a tau2 solo
task-trial ends after one round trip), after DELAY_S seconds of "thinking" (a timer, no CPU).
`--lognormal`: the n-th message/send to arrive waits the n-th delay of a seeded lognormal
sequence instead (so that two loops sent the same way wait the same); `POST /reset` with a
seed as its body starts the sequence again. `--tls`: https with that certificate and key.
It parses HTTP/1.1 by hand on an `asyncio.Protocol` (keep-alive, Content-Length bodies only)
so that the agent costs far less CPU than the harness it serves: uvicorn with the pure-Python
h11 parser would itself be the bottleneck on a 2-core machine. Not a general server: loopback
benchmarks only.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import ssl

import orjson

CARD = {
    "name": "fast-agent", "description": "throughput benchmark agent", "version": "1.0",
    "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC",
    "capabilities": {"streaming": False}, "defaultInputModes": ["text"],
    "defaultOutputModes": ["text"], "skills": [],
}
DONE = [{"kind": "data", "data": {"tool_call": {"name": "done", "arguments": {}}}}]


def _response(body: bytes, status: bytes = b"200 OK") -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\ncontent-length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body)


class Delays:
    """The agent's waits: a constant, or the n-th of a seeded lognormal sequence."""

    def __init__(self, constant: float, lognormal: tuple[float, float] | None) -> None:
        self.constant, self.lognormal = constant, lognormal
        self.reset(0)

    def reset(self, seed: int) -> None:
        self.n, self.rng = 0, random.Random(seed)
        self.sequence: list[float] = []

    def next(self) -> float:
        if self.lognormal is None:
            return self.constant
        median, p95 = self.lognormal
        sigma = math.log(p95 / median) / 1.6448536  # the 95th percentile of N(0, 1)
        while len(self.sequence) <= self.n:
            self.sequence.append(self.rng.lognormvariate(math.log(median), sigma))
        self.n += 1
        return self.sequence[self.n - 1]


class AgentProtocol(asyncio.Protocol):
    def __init__(self, base: str, delays: Delays) -> None:
        self.base, self.delays = base, delays
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4:end + 4 + length]
            self.buffer = self.buffer[end + 4 + length:]
            self._handle(head.split(" ", 2), body)

    def _handle(self, request_line: list[str], body: bytes) -> None:
        method, path = request_line[0], request_line[1]
        if method == "GET" and path.startswith("/.well-known/"):
            self._send(_response(orjson.dumps({**CARD, "url": self.base + "/"})))
            return
        if path == "/reset":
            self.delays.reset(int(body or b"0"))
            self._send(_response(b"{}"))
            return
        call = orjson.loads(body)
        message = call["params"]["message"]
        reply = orjson.dumps({"jsonrpc": "2.0", "id": call["id"], "result": {
            "kind": "message", "role": "agent", "messageId": "m-" + message["messageId"],
            "contextId": message.get("contextId") or "ctx-" + message["messageId"],
            "parts": DONE}})
        delay = self.delays.next()
        if delay > 0:
            asyncio.get_running_loop().call_later(delay, self._send, _response(reply))
        else:
            self._send(_response(reply))

    def _send(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)


async def serve(port: int, delays: Delays, tls: ssl.SSLContext | None = None) -> None:
    loop = asyncio.get_running_loop()
    base = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    server = await loop.create_server(lambda: AgentProtocol(base, delays), "127.0.0.1", port,
                                      backlog=1024, ssl=tls)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("delay", type=float, nargs="?", default=0.0)
    parser.add_argument("--lognormal", type=lambda s: tuple(float(x) for x in s.split(",")))
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = parser.parse_args()
    tls = None
    if args.tls:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(*args.tls)
    asyncio.run(serve(args.port, Delays(args.delay, args.lognormal), tls))


if __name__ == "__main__":
    main()
