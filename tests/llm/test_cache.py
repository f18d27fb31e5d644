"""The on-disk response cache: keys, hits, corruption, concurrency, and two processes."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from a2abench.errors import LLMBadRequest, LLMResponseInvalid
from a2abench.llm import ChatLLM, LLMConfig, ResponseCache, cache_key, default_cache_root
from tests.fakes import FakeLLMServer, Reply, completion

HI = [{"role": "user", "content": "Hi"}]
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def cache_files(root: Path) -> list[Path]:
    return sorted(root.glob("*/*.json")) if root.exists() else []


def echo(request: dict[str, Any]) -> Reply:
    """Answer with the last message's text, after a pause so calls overlap."""
    return Reply(body=completion("echo: " + request["messages"][-1]["content"],
                                 model=request["model"]), delay_s=0.05)


async def test_second_identical_call_is_a_hit(llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(tool_calls=[{"id": "c1", "name": "f", "arguments": {"a": 1}}],
                       content="thinking")
    first = await llm.chat(HI, tools=TOOLS, seed=7)
    second = await llm.chat(HI, tools=TOOLS, seed=7)
    assert len(llm_server.requests) == 1
    assert not first.cached and second.cached
    assert (second.content, second.tool_calls, second.usage, second.cost_usd, second.model) == \
        (first.content, first.tool_calls, first.usage, first.cost_usd, first.model)
    assert second.raw == first.raw


async def test_cache_file_location_and_content(llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="stored")
    await llm.chat(HI, seed=1)
    key = cache_key(llm.config.endpoint, llm.request_body(HI, seed=1))
    root = Path(os.environ["A2ABENCH_CACHE_DIR"]) / "llm"
    assert default_cache_root() == root
    assert cache_files(root) == [root / key[:2] / f"{key}.json"]
    entry = json.loads((root / key[:2] / f"{key}.json").read_text())
    assert entry["v"] == 1 and entry["key"] == key and entry["model"] == "gpt-4.1"
    assert entry["response"]["choices"][0]["message"]["content"] == "stored"
    assert not list(root.glob("*/*.tmp"))


async def test_explicit_cache_dir(llm_config: LLMConfig, llm_server: FakeLLMServer,
                                  tmp_path: Path) -> None:
    llm_server.enqueue(content="x")
    async with ChatLLM(dataclasses.replace(llm_config, cache_dir=tmp_path / "mine")) as llm:
        await llm.chat(HI)
    assert len(cache_files(tmp_path / "mine")) == 1
    assert cache_files(default_cache_root()) == []


@pytest.mark.parametrize("change", [
    {"messages": [{"role": "user", "content": "Hi!"}]},
    {"seed": 2},
    {"tools": TOOLS},
    {"temperature": 0.5},  # an override of the config's temperature 0.0
    {"max_tokens": 10},
])
async def test_key_covers_the_whole_request(llm: ChatLLM, change: dict[str, Any]) -> None:
    base: dict[str, Any] = {"messages": HI, "seed": 1}
    changed = {**base, **change}
    key = cache_key(llm.config.endpoint,
                    llm.request_body(base.pop("messages"), **base))
    other = cache_key(llm.config.endpoint,
                      llm.request_body(changed.pop("messages"), **changed))
    assert key != other


async def test_key_covers_model_and_endpoint(llm_config: LLMConfig) -> None:
    variants = [llm_config, dataclasses.replace(llm_config, model="gpt-4o"),
                dataclasses.replace(llm_config, base_url="http://127.0.0.1:1/v1")]
    keys = set()
    for config in variants:
        async with ChatLLM(config) as llm:
            keys.add(cache_key(config.endpoint, llm.request_body(HI)))
    assert len(keys) == 3


def test_key_is_canonical() -> None:
    assert cache_key("u", {"a": 1, "b": [1, 2]}) == cache_key("u", {"b": [1, 2], "a": 1})
    assert cache_key("u", {"a": 1}) != cache_key("v", {"a": 1})


async def test_key_ignores_the_api_key(llm_config: LLMConfig,
                                       llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="once")
    async with ChatLLM(llm_config) as llm:
        await llm.chat(HI)
    other_key = dataclasses.replace(llm_config, api_key=SecretStr("sk-someone-else-000000"))
    async with ChatLLM(other_key) as llm:
        again = await llm.chat(HI)
    assert again.cached and again.content == "once"
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize("garbage", [
    b"\x00\xff not json at all",
    b'{"v": 1, "key": "',
    b'{"v": 1, "key": "wrong", "response": {"choices": []}}',
    b'{"v": 99, "response": {}}',
    b"[1, 2, 3]",
    "KEY_PLACEHOLDER",  # the right key, but a response without choices
])
async def test_corrupt_file_is_a_logged_miss_and_is_rewritten(
        llm: ChatLLM, llm_server: FakeLLMServer, caplog: pytest.LogCaptureFixture,
        garbage: bytes | str) -> None:
    key = cache_key(llm.config.endpoint, llm.request_body(HI))
    if isinstance(garbage, str):
        garbage = json.dumps({"v": 1, "key": key, "response": {"choices": []}}).encode()
    path = default_cache_root() / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(garbage)
    llm_server.enqueue(content="fresh")
    with caplog.at_level(logging.WARNING, logger="a2abench.llm"):
        result = await llm.chat(HI)
    assert result.content == "fresh" and not result.cached
    assert any(str(path) in record.getMessage() for record in caplog.records)
    assert json.loads(path.read_text())["response"]["choices"][0]["message"]["content"] == \
        "fresh"
    assert (await llm.chat(HI)).cached


async def test_cache_off_neither_reads_nor_writes(
        llm_config: LLMConfig, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="1")
    llm_server.enqueue(content="2")
    llm_server.enqueue(content="3")
    async with ChatLLM(llm_config) as llm:
        await llm.chat(HI)  # fills the cache
    async with ChatLLM(dataclasses.replace(llm_config, cache=False)) as llm:
        results = [await llm.chat(HI), await llm.chat(HI)]
    assert [r.content for r in results] == ["2", "3"]
    assert not any(r.cached for r in results)
    assert len(cache_files(default_cache_root())) == 1


async def test_failures_are_not_cached(llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue_error(400, "nope")
    llm_server.enqueue(tool_calls=[{"name": "f", "arguments": "{oops"}])
    llm_server.enqueue(content="finally")
    with pytest.raises(LLMBadRequest):
        await llm.chat(HI)
    with pytest.raises(LLMResponseInvalid):
        await llm.chat(HI)
    assert cache_files(default_cache_root()) == []
    assert (await llm.chat(HI)).content == "finally"
    assert len(llm_server.requests) == 3


async def test_unwritable_cache_warns_once_and_still_answers(
        llm_config: LLMConfig, llm_server: FakeLLMServer, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    llm_server.handler = echo
    async with ChatLLM(dataclasses.replace(llm_config, cache_dir=blocker)) as llm:
        with caplog.at_level(logging.WARNING, logger="a2abench.llm"):
            first = await llm.chat([{"role": "user", "content": "a"}])
            second = await llm.chat([{"role": "user", "content": "b"}])
    assert (first.content, second.content) == ("echo: a", "echo: b")
    warnings = [r for r in caplog.records if "could not write" in r.getMessage()]
    assert len(warnings) == 1 and "A2ABENCH_CACHE_DIR" in warnings[0].getMessage()


async def test_fifty_concurrent_distinct_calls(llm: ChatLLM,
                                               llm_server: FakeLLMServer) -> None:
    llm_server.handler = echo
    prompts = [[{"role": "user", "content": f"q{i}"}] for i in range(50)]
    results = await asyncio.gather(*(llm.chat(p) for p in prompts))
    assert [r.content for r in results] == [f"echo: q{i}" for i in range(50)]
    assert len(llm_server.requests) == 50
    assert len(cache_files(default_cache_root())) == 50
    again = await asyncio.gather(*(llm.chat(p) for p in prompts))
    assert all(r.cached for r in again)
    assert [r.content for r in again] == [r.content for r in results]
    assert len(llm_server.requests) == 50
    assert len(llm._locks) == 0  # no lock left behind


async def test_fifty_concurrent_identical_calls_cost_one_request(
        llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.handler = echo
    results = await asyncio.gather(*(llm.chat(HI, seed=5) for _ in range(50)))
    assert len(llm_server.requests) == 1
    assert {r.content for r in results} == {"echo: Hi"}
    assert sum(not r.cached for r in results) == 1


async def test_two_clients_racing_on_one_key_both_succeed(
        llm_config: LLMConfig, llm_server: FakeLLMServer) -> None:
    llm_server.handler = echo
    async with ChatLLM(llm_config) as a, ChatLLM(llm_config) as b:
        results = await asyncio.gather(*(client.chat(HI) for client in [a, b] * 10))
    assert {r.content for r in results} == {"echo: Hi"}
    assert len(cache_files(default_cache_root())) == 1


_WRITER = textwrap.dedent("""
    import asyncio, sys
    from pathlib import Path
    from a2abench.llm import ResponseCache

    async def main(root: str, tag: str) -> None:
        cache = ResponseCache(Path(root))
        key = "ab" * 32
        for i in range(200):
            text = f"{tag}-{i}-" + "x" * 20000
            await cache.put(key, {"choices": [{"message": {"content": text}}]}, model="m")
            got = await cache.get(key)
            if got is None or not got["choices"][0]["message"]["content"].endswith("x" * 100):
                sys.exit(f"torn read: {got!r:.80}")

    asyncio.run(main(sys.argv[1], sys.argv[2]))
""")


@pytest.mark.slow
def test_two_processes_writing_one_key_never_see_a_torn_file(tmp_path: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), tag],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for tag in ("p1", "p2")]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "ignoring" not in err  # no corrupt-file warning in either process
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["ab" * 32 + ".json"]
    entry = asyncio.run(ResponseCache(tmp_path).get("ab" * 32))
    assert entry is not None and entry["choices"][0]["message"]["content"].startswith("p")
