"""A run's --concurrency bounds the LLM calls in flight, not httpx's own pool (issue 39): at
--concurrency 256 its default of 100 connections queued the user simulator's calls."""

from __future__ import annotations

import asyncio
import json

from a2abench.llm import ChatLLM, LLMConfig
from tests.asyncio_agent import http_reply, listening

IN_FLIGHT = 120  # above httpx's default cap of 100


async def test_more_calls_in_flight_than_httpx_would_allow_by_default() -> None:
    arrived, everyone, connections = 0, asyncio.Event(), 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal arrived, connections
        connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                await reader.readexactly(length)
                arrived += 1
                if arrived >= IN_FLIGHT:
                    everyone.set()
                await everyone.wait()  # every call waits until all are in flight at once
                writer.write(http_reply(json.dumps({
                    "id": "c", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": "hi"}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                              "total_tokens": 2}}).encode()))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async with listening(handle) as url, \
            ChatLLM(LLMConfig(model="m", base_url=url, cache=False, timeout_s=30)) as llm:
        async with asyncio.timeout(30):  # a guard against a hang, not a measurement
            replies = await asyncio.gather(*(llm.chat([{"role": "user", "content": "x"}])
                                             for _ in range(IN_FLIGHT)))
    assert [r.content for r in replies] == ["hi"] * IN_FLIGHT
    assert connections == IN_FLIGHT
