"""ChatLLM against the real fake server: requests, results, tool calls, bad responses, hooks."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from a2abench.errors import ConfigError, LLMError, LLMResponseInvalid
from a2abench.llm import ChatLLM, LLMCallMetrics, LLMConfig, ToolCall
from tests.fakes import FakeLLMServer

HI = [{"role": "user", "content": "Hi"}]
TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {
    "type": "object", "properties": {"id": {"type": "string"}}}}}]


async def test_success_returns_content_usage_cost_and_latency(
        llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="Hello!", model="gpt-4.1-2025-04-14",
                       usage={"prompt_tokens": 1000, "completion_tokens": 100,
                              "prompt_tokens_details": {"cached_tokens": 200}})
    result = await llm.chat(HI)
    assert result.content == "Hello!"
    assert result.tool_calls == []
    assert (result.usage.prompt_tokens, result.usage.completion_tokens,
            result.usage.cached_tokens, result.usage.total_tokens) == (1000, 100, 200, 1100)
    # gpt-4.1: $2 input, $0.50 cached input, $8 output per million tokens.
    assert result.cost_usd == pytest.approx((800 * 2 + 200 * 0.5 + 100 * 8) / 1e6)
    assert result.model == "gpt-4.1-2025-04-14"
    assert result.finish_reason == "stop"
    assert not result.cached and result.attempts == 1
    assert result.latency_ms > 0
    assert result.raw["choices"][0]["message"]["content"] == "Hello!"


async def test_request_body_merges_args_overrides_and_seed(
        llm_config: LLMConfig, llm_server: FakeLLMServer) -> None:
    config = dataclasses.replace(llm_config, args={"temperature": 0.0, "max_tokens": 50,
                                                   "seed": 1})
    llm_server.enqueue(content="ok")
    async with ChatLLM(config) as llm:
        await llm.chat(HI, tools=TOOLS, seed=300, max_tokens=7)
    sent = llm_server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.json == {"model": "gpt-4.1", "temperature": 0.0, "max_tokens": 7, "seed": 300,
                         "messages": HI, "tools": TOOLS}
    assert sent.headers["authorization"].startswith("Bearer ")
    assert sent.headers["user-agent"].startswith("a2abench/")


async def test_tools_and_seed_are_omitted_when_not_given(
        llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="ok")
    await llm.chat(HI)
    assert set(llm_server.requests[0].json) == {"model", "temperature", "messages"}


@pytest.mark.parametrize("key", ["messages", "tools", "stream", "model"])
def test_reserved_keys_are_refused_in_args(llm_config: LLMConfig, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        dataclasses.replace(llm_config, args={key: True})


@pytest.mark.parametrize("key", ["stream", "model"])
async def test_reserved_keys_are_refused_as_overrides(llm: ChatLLM, key: str) -> None:
    overrides: dict[str, Any] = {key: True}
    with pytest.raises(ConfigError, match=key):
        await llm.chat(HI, **overrides)


async def test_tool_calls_are_decoded(llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(tool_calls=[
        {"id": "call_a", "name": "lookup", "arguments": {"id": "R1", "n": [1, 2]}},
        {"id": "call_b", "name": "ping", "arguments": ""},
    ])
    result = await llm.chat(HI, tools=TOOLS)
    assert result.content is None
    assert result.finish_reason == "tool_calls"
    assert result.tool_calls == [ToolCall("call_a", "lookup", {"id": "R1", "n": [1, 2]}),
                                 ToolCall("call_b", "ping", {})]
    message = result.to_message()
    assert message["role"] == "assistant"
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["lookup", "ping"]


async def test_invalid_tool_call_json_is_a_clear_error(
        llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(tool_calls=[{"name": "lookup", "arguments": '{"id": "R1"'}])
    with pytest.raises(LLMResponseInvalid) as caught:
        await llm.chat(HI, tools=TOOLS)
    assert "'lookup'" in caught.value.message
    assert "not valid JSON" in caught.value.message
    assert '{"id": "R1"' in caught.value.message
    assert len(llm_server.requests) == 1  # the model's output, not the network: no retry


async def test_tool_call_arguments_must_be_an_object(
        llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(tool_calls=[{"name": "lookup", "arguments": "[1, 2]"}])
    with pytest.raises(LLMResponseInvalid, match="JSON list, not an object"):
        await llm.chat(HI)


@pytest.mark.parametrize(("body", "match"), [
    ("<html>Bad gateway</html>", "not JSON"),
    ('{"choices": [', "not JSON"),
    ('{"choices": []}', "no choices"),
    ('{"object": "list"}', "no choices"),
    ("[1]", "not an object"),
])
async def test_unusable_2xx_bodies_are_not_retried(
        llm: ChatLLM, llm_server: FakeLLMServer, body: str, match: str) -> None:
    llm_server.enqueue_raw(body)
    with pytest.raises(LLMResponseInvalid, match=match) as caught:
        await llm.chat(HI)
    assert caught.value.hint
    assert len(llm_server.requests) == 1


async def test_unknown_model_or_missing_usage_has_no_cost(
        llm_config: LLMConfig, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="a", model="my-local-model")
    llm_server.enqueue(content="b", usage={})
    config = dataclasses.replace(llm_config, model="my-local-model", cache=False)
    async with ChatLLM(config) as llm:
        first = await llm.chat(HI)
    assert first.cost_usd is None and first.usage.prompt_tokens == 10
    async with ChatLLM(dataclasses.replace(llm_config, cache=False)) as llm:
        second = await llm.chat(HI)
    assert second.usage.prompt_tokens == 0 and second.cost_usd == 0.0


async def test_content_parts_are_joined(llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    body = {"model": "gpt-4.1", "choices": [{"message": {"role": "assistant", "content": [
        {"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}]}}]}
    llm_server.handler = lambda request: body
    assert (await llm.chat(HI)).content == "Hello"


async def test_metrics_hook_sees_success_cache_hits_and_errors(
        llm_config: LLMConfig, llm_server: FakeLLMServer) -> None:
    seen: list[LLMCallMetrics] = []
    llm_server.enqueue(content="ok", usage={"prompt_tokens": 3, "completion_tokens": 2})
    llm_server.enqueue_error(400, "bad model")
    async with ChatLLM(llm_config, on_call=seen.append) as llm:
        await llm.chat(HI)
        await llm.chat(HI)  # served from the cache
        with pytest.raises(LLMError):
            await llm.chat([{"role": "user", "content": "other"}])
    fresh, hit, failed = seen
    assert (fresh.model, fresh.prompt_tokens, fresh.completion_tokens, fresh.cached) == \
        ("gpt-4.1", 3, 2, False)
    assert fresh.cost_usd == pytest.approx((3 * 2 + 2 * 8) / 1e6)
    assert hit.cached and hit.attempts == 0 and hit.cost_usd == fresh.cost_usd
    assert failed.error is not None and failed.error.status_code == 400
    assert failed.cost_usd is None and not failed.cached and failed.latency_ms > 0


async def test_a_failing_hook_is_not_swallowed(
        llm_config: LLMConfig, llm_server: FakeLLMServer) -> None:
    def hook(metrics: LLMCallMetrics) -> None:
        raise RuntimeError("hook broke")

    llm_server.enqueue(content="ok")
    async with ChatLLM(llm_config, on_call=hook) as llm:
        with pytest.raises(RuntimeError, match="hook broke"):
            await llm.chat(HI)
