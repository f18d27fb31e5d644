"""A minimal A2A 0.3 JSON-RPC agent for throughput measurements, on bare asyncio.

    python perf/fast_agent.py PORT [DELAY_S]

Answers every `message/send` with a Message holding one `done` tool call (a tau2 solo
task-trial ends after one round trip), after DELAY_S seconds of "thinking" (a timer, no CPU).
It parses HTTP/1.1 by hand on an `asyncio.Protocol` (keep-alive, Content-Length bodies only)
so that the agent costs far less CPU than the harness it serves: uvicorn with the pure-Python
h11 parser would itself be the bottleneck on a 2-core machine. Not a general server: loopback
benchmarks only.
"""

from __future__ import annotations

import asyncio
import sys

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


class AgentProtocol(asyncio.Protocol):
    def __init__(self, base: str, delay: float) -> None:
        self.base, self.delay = base, delay
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
        call = orjson.loads(body)
        message = call["params"]["message"]
        reply = orjson.dumps({"jsonrpc": "2.0", "id": call["id"], "result": {
            "kind": "message", "role": "agent", "messageId": "m-" + message["messageId"],
            "contextId": message.get("contextId") or "ctx-" + message["messageId"],
            "parts": DONE}})
        if self.delay > 0:
            asyncio.get_running_loop().call_later(self.delay, self._send, _response(reply))
        else:
            self._send(_response(reply))

    def _send(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)


async def serve(port: int, delay: float) -> None:
    loop = asyncio.get_running_loop()
    base = f"http://127.0.0.1:{port}"
    server = await loop.create_server(lambda: AgentProtocol(base, delay), "127.0.0.1", port,
                                      backlog=1024)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 0.0))
