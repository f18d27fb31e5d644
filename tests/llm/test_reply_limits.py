"""LLM replies are read like agent replies: a byte cap, a nesting limit, a whole-request
deadline and the task-trial's deadline (net/limits.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from a2abench.errors import LLMError, LLMResponseInvalid
from a2abench.llm import ChatLLM, LLMConfig, RetryPolicy
from a2abench.net.limits import task_deadline

HI = [{"role": "user", "content": "Hi"}]
ONCE = RetryPolicy(max_attempts=1)


def completion(content: str) -> bytes:
    return json.dumps({"id": "c", "model": "m", "choices": [{
        "index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()


def llm(body: AsyncIterator[bytes] | bytes, **config: object) -> ChatLLM:
    def handler(_: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    settings: dict[str, object] = {"model": "m", "base_url": "http://llm/v1", "cache": False,
                                   "retry": ONCE, **config}
    return ChatLLM(LLMConfig(**settings),  # type: ignore[arg-type]
                   transport=httpx.MockTransport(handler))


async def chunks(total: int, size: int = 1_000_000) -> AsyncIterator[bytes]:
    yield b'{"choices": [{"message": {"content": "'
    for _ in range(total // size):
        yield b"x" * size


async def test_oversize_reply_is_refused_at_the_cap() -> None:
    async with llm(chunks(50_000_000), max_reply_bytes=2_000_000) as client:
        with pytest.raises(LLMResponseInvalid, match=r"larger than the 2 MB cap"):
            await client.chat(HI)


async def test_the_run_cap_reaches_the_llm_clients_a_driver_builds() -> None:
    from a2abench.llm import build_llm
    from tests.engine.scripted import ScriptedDriver, ScriptedOptions

    driver = ScriptedDriver(ScriptedOptions())
    assert driver.max_reply_bytes == 16_000_000  # the default, before the engine sets it
    driver.max_reply_bytes = 1_500_000  # as the engine does, from --max-reply-bytes
    built = build_llm("m", base_url="http://llm/v1", args={}, cache=False, flag="--user-llm",
                      max_reply_bytes=driver.max_reply_bytes)
    assert built.config.max_reply_bytes == 1_500_000
    async with llm(chunks(50_000_000), max_reply_bytes=built.config.max_reply_bytes) as client:
        with pytest.raises(LLMResponseInvalid, match=r"1\.5 MB cap"):
            await client.chat(HI)
    async with llm(completion("fine")) as client:
        assert (await client.chat(HI)).content == "fine"


async def test_deeply_nested_reply_is_invalid_not_a_crash() -> None:
    body = b'{"choices": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    async with llm(body) as client:
        with pytest.raises(LLMResponseInvalid, match="nested deeper than 100 levels"):
            await client.chat(HI)


async def test_deep_tool_arguments_are_invalid_not_a_crash() -> None:
    args = "[" * 3000 + "]" * 3000
    body = json.dumps({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "f", "arguments": args}}]}}]})
    async with llm(body.encode()) as client:
        with pytest.raises(LLMResponseInvalid, match="nested deeper"):
            await client.chat(HI)


async def drip() -> AsyncIterator[bytes]:
    yield b'{"choices": '
    while True:
        yield b" "
        await asyncio.sleep(0.02)


async def test_a_dripping_reply_ends_at_the_whole_request_deadline() -> None:
    async with llm(drip(), timeout_s=0.3) as client:
        with pytest.raises(LLMError, match=r"did not finish its reply within 0\.3 s"):
            await client.chat(HI)


async def test_the_task_deadline_ends_an_llm_call() -> None:
    async with llm(drip(), timeout_s=30) as client:
        with task_deadline(0.2), pytest.raises(LLMError, match="task-trial deadline"):
            await client.chat(HI)


async def test_no_retry_outlives_the_task_deadline() -> None:
    calls = []

    def handler(_: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(503, json={"error": {"message": "busy"}},
                              headers={"retry-after": "30"})

    config = LLMConfig(model="m", base_url="http://llm/v1", cache=False,
                       retry=RetryPolicy(max_attempts=5, budget_s=300))
    async with ChatLLM(config, transport=httpx.MockTransport(handler)) as client:
        with task_deadline(5), pytest.raises(LLMError, match="gave up after 1 attempt"):
            await client.chat(HI)
    assert calls == [1]
