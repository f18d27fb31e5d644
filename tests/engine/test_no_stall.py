"""`--concurrency N` puts N conversations in flight from the first call (issue 39).

The agent holds its first turn until a second conversation reaches it: if a2abench let one
call decide something before the others start (as it once did, to see whether the interface
redirects), the run would wait for the task-trial deadline instead. No timing is measured:
the deadline only turns a hang into a failure.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.run import RunConfig, execute_async
from tests.engine.scripted import ScriptedDriver, ScriptedOptions

CARD = {"name": "holding", "description": "d", "version": "1", "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC", "capabilities": {"streaming": False},
        "defaultInputModes": ["text"], "defaultOutputModes": ["text"], "skills": []}


class HoldingAgent:
    """An A2A 0.3 JSON-RPC echo agent on asyncio streams whose every turn waits until
    `together` conversations have sent their first message."""

    def __init__(self, together: int) -> None:
        self.together = together
        self.first_messages = 0
        self.most_in_flight = self.in_flight = 0
        self.everyone = asyncio.Event()
        self.url = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                body = await reader.readexactly(length)
                writer.write(await self.answer(head, body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def answer(self, head: bytes, body: bytes) -> bytes:
        if head.startswith(b"GET "):
            return _http(json.dumps({**CARD, "url": self.url}).encode())
        call = json.loads(body)
        message = call["params"]["message"]
        if message.get("contextId") is None:
            self.first_messages += 1
            if self.first_messages >= self.together:
                self.everyone.set()
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await self.everyone.wait()
        finally:
            self.in_flight -= 1
        text = message["parts"][0]["text"]
        return _http(json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": {
            "kind": "message", "role": "agent", "messageId": "m-" + message["messageId"],
            "contextId": message.get("contextId") or "ctx-" + message["messageId"],
            "parts": [{"kind": "text", "text": "echo: " + text}]}}).encode())


def _http(body: bytes) -> bytes:
    return (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
            % len(body)) + body


@pytest.mark.parametrize("client", ["lean", "httpx"])
async def test_every_conversation_is_in_flight_from_the_first_call(
        client: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if client == "httpx":
        monkeypatch.setenv("A2ABENCH_HTTP_CLIENT", "httpx")
    agent = HoldingAgent(together=4)
    server = await asyncio.start_server(agent.handle, "127.0.0.1", 0)
    agent.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/"
    options = ScriptedOptions(tasks=4, turns=2)
    config = RunConfig(benchmark="scripted", white_agent_url=agent.url, concurrency=4,
                       num_trials=1, output=tmp_path / "m.jsonl", task_timeout=20,
                       options=options.model_dump(mode="json"))
    events: list[Any] = []
    try:
        summary = await execute_async(config, events.append, driver=ScriptedDriver(options))
    finally:
        server.close()
        await server.wait_closed()
    assert summary.counts.passed == 4, summary
    assert agent.most_in_flight == 4
