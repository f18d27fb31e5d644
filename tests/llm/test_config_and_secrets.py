"""LLMConfig validation, API-key resolution, and the key staying out of every output."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from pydantic import SecretStr

from a2abench.errors import ConfigError, LLMAuthError, LLMResponseInvalid
from a2abench.llm import ChatLLM, LLMCallMetrics, LLMConfig, RetryPolicy, default_cache_root
from tests.fakes import FakeLLMServer
from tests.fakes.fixtures import TEST_API_KEY

HI = [{"role": "user", "content": "Hi"}]


def test_api_key_comes_from_a2abench_then_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    assert LLMConfig(model="m").api_key is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    assert LLMConfig(model="m").api_key == SecretStr("sk-openai")
    monkeypatch.setenv("A2ABENCH_LLM_API_KEY", "sk-a2abench")
    assert LLMConfig(model="m").api_key == SecretStr("sk-a2abench")
    monkeypatch.setenv("A2ABENCH_LLM_API_KEY", "  ")  # blank counts as unset
    assert LLMConfig(model="m").api_key == SecretStr("sk-openai")
    assert LLMConfig(model="m", api_key=None).api_key is None  # explicit None wins


def test_defaults() -> None:
    config = LLMConfig(model="gpt-4.1")
    assert config.base_url == "https://api.openai.com/v1"
    assert config.endpoint == "https://api.openai.com/v1/chat/completions"
    assert LLMConfig(model="m", base_url="http://h/v1/").endpoint == "http://h/v1/chat/completions"
    assert config.cache and config.cache_dir is None and config.args == {}
    assert config.retry == RetryPolicy()


@pytest.mark.parametrize("kwargs", [
    {"model": " "},
    {"model": "m", "base_url": "api.openai.com/v1"},
    {"model": "m", "timeout_s": 0},
    {"model": "m", "args": {"stream": True}},
])
def test_bad_config_is_a_config_error(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        LLMConfig(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs", [{"max_attempts": 0}, {"base_delay_s": -1},
                                    {"budget_s": -0.1}, {"jitter": 1.5}])
def test_bad_retry_policy_is_a_config_error(kwargs: dict[str, float]) -> None:
    with pytest.raises(ConfigError):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


def test_record_is_json_ready_and_names_no_key(llm_config: LLMConfig, tmp_path: Path) -> None:
    config = dataclasses.replace(llm_config, cache_dir=tmp_path)
    record = config.to_record()
    assert record["api_key_set"] is True and record["model"] == "gpt-4.1"
    assert record["retry"]["max_attempts"] == llm_config.retry.max_attempts
    text = json.dumps(record)
    assert TEST_API_KEY not in text
    assert LLMConfig(model="m", api_key=None).to_record()["api_key_set"] is False


async def test_key_is_not_in_repr_or_str(llm: ChatLLM, llm_config: LLMConfig) -> None:
    for text in (repr(llm_config), str(llm_config), repr(llm), repr(llm_config.api_key)):
        assert TEST_API_KEY not in text


async def test_key_is_sent_as_a_bearer_header_only(
        llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="ok")
    await llm.chat(HI)
    sent = llm_server.requests[0]
    assert sent.headers["authorization"] == f"Bearer {TEST_API_KEY}"
    assert TEST_API_KEY not in sent.text


async def test_no_key_no_authorization_header(llm_config: LLMConfig,
                                              llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="ok")
    async with ChatLLM(dataclasses.replace(llm_config, api_key=None)) as llm:
        await llm.chat(HI)
    assert "authorization" not in llm_server.requests[0].headers


async def test_key_is_not_in_cache_files(llm: ChatLLM, llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(content="ok")
    await llm.chat(HI)
    files = list(default_cache_root().rglob("*"))
    assert any(f.suffix == ".json" for f in files)
    for path in files:
        assert path.is_dir() or TEST_API_KEY.encode() not in path.read_bytes()
        assert TEST_API_KEY not in path.name


async def test_key_echoed_by_the_server_is_redacted_from_errors(
        llm_config: LLMConfig, llm_server: FakeLLMServer) -> None:
    seen: list[LLMCallMetrics] = []
    llm_server.enqueue_error(401, f"Incorrect API key provided: {TEST_API_KEY}.")
    llm_server.enqueue(tool_calls=[{"name": "f", "arguments": "{" + TEST_API_KEY}])
    async with ChatLLM(llm_config, on_call=seen.append) as llm:
        with pytest.raises(LLMAuthError) as auth:
            await llm.chat(HI)
        with pytest.raises(LLMResponseInvalid) as invalid:
            await llm.chat(HI)
    for error in (auth.value, invalid.value):
        assert TEST_API_KEY not in error.render()
        assert TEST_API_KEY not in str(error) and TEST_API_KEY not in repr(error)
        assert TEST_API_KEY not in json.dumps(error.to_dict())
    assert "Incorrect API key provided: ***" in auth.value.message
    assert all(m.error is not None and TEST_API_KEY not in str(m.error) for m in seen)


async def test_build_llm_needs_a_key_only_for_the_default_endpoint(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from a2abench.llm import DEFAULT_BASE_URL, build_llm

    with pytest.raises(ConfigError, match=r"--judge-llm gpt-x needs an API key") as err:
        build_llm("gpt-x", base_url=None, args={}, cache=False, flag="--judge-llm",
                  alternative="pass --judge-llm offline")
    assert err.value.hint == ("Or point --judge-llm-base-url at another OpenAI-compatible "
                              "server, or pass --judge-llm offline.")
    local = build_llm("m", base_url="http://127.0.0.1:9/v1", args={"temperature": 0},
                      cache=False, flag="--user-llm")
    assert local.config.base_url == "http://127.0.0.1:9/v1" and local.config.args == {
        "temperature": 0}
    await local.aclose()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    remote = build_llm("m", base_url=None, args={}, cache=True, flag="--user-llm")
    assert remote.config.base_url == DEFAULT_BASE_URL and remote.config.cache
    await remote.aclose()


def test_tau2_without_a_key_fails_before_the_first_task() -> None:
    from a2abench.benchmarks.tau2.driver import Tau2Driver
    from a2abench.benchmarks.tau2.options import Tau2Options

    driver = Tau2Driver(Tau2Options(domain="mock", user_llm="gpt-4.1"))
    with pytest.raises(ConfigError, match="--user-llm gpt-4.1 needs an API key"):
        driver._user_llm()


def test_retry_policy_stops_on_attempts_or_budget() -> None:
    policy = RetryPolicy(max_attempts=3, base_delay_s=1.0, max_delay_s=2.0, budget_s=10.0,
                         jitter=0.0)
    assert [policy.delay(n) for n in (1, 2, 3)] == [1.0, 2.0, 2.0]
    assert policy.delay(1, retry_after=-3) == 0.0 and policy.delay(1, retry_after=7) == 7
    assert policy.retry_after(2, elapsed_s=1.0, delay_s=2.0)
    assert not policy.retry_after(3, elapsed_s=0.0, delay_s=0.0)  # attempts used up
    assert not policy.retry_after(1, elapsed_s=9.0, delay_s=2.0)  # would end past the budget
    assert RetryPolicy.none().max_attempts == 1
