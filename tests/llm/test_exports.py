"""Pin the public surface of a2abench.llm so that changing it is a deliberate act."""

from __future__ import annotations

import importlib

import pytest

import a2abench.llm
from a2abench.llm import LLMConfig

EXPECTED = [
    "API_KEY_ENV_VARS", "DEFAULT_BASE_URL", "PRICES", "ChatLLM", "ChatResult", "LLMArgs",
    "LLMCallMetrics", "LLMConfig", "LLMOptions", "MetricsHook", "Price", "ResponseCache",
    "RetryPolicy", "ToolCall", "Usage",
    "api_key_from_env", "build_llm", "cache_key", "cost_usd", "default_cache_root",
    "lookup_price",
]


def test_public_names() -> None:
    """Each name loads on first use (a2abench/llm/__init__.py) as its module's own object."""
    assert sorted(a2abench.llm.__all__) == sorted(EXPECTED)
    for name in EXPECTED:
        home = importlib.import_module(a2abench.llm._HOME[name])
        assert getattr(a2abench.llm, name) is getattr(home, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = a2abench.llm.nope


def test_config_is_hashable_and_compares_by_value() -> None:
    a = LLMConfig(model="m", api_key=None, args={"temperature": 0})
    b = LLMConfig(model="m", api_key=None, args={"temperature": 0})
    assert a == b and hash(a) == hash(b)
    assert a != LLMConfig(model="m", api_key=None, args={"temperature": 1})


def test_llm_args_accept_json_text_or_a_dict() -> None:
    from pydantic import TypeAdapter, ValidationError

    from a2abench.llm import LLMArgs

    adapter = TypeAdapter(LLMArgs)
    assert adapter.validate_python('{"temperature": 0.5}') == {"temperature": 0.5}
    assert adapter.validate_python(None) == {} and adapter.validate_python({"a": 1}) == {"a": 1}
    for bad, words in (("{nope", "not JSON"), ("[1]", "JSON object")):
        with pytest.raises(ValidationError, match=words):
            adapter.validate_python(bad)


def test_one_retry_policy_for_agents_and_llms() -> None:
    import a2abench.a2a
    from a2abench.a2a.config import AGENT_RETRY, A2AConfig

    assert a2abench.a2a.RetryPolicy is a2abench.llm.RetryPolicy
    assert A2AConfig(endpoint="http://127.0.0.1:1").retry == AGENT_RETRY
    assert AGENT_RETRY.max_attempts == 4 and AGENT_RETRY.budget_s == 60.0
    assert LLMConfig(model="m", api_key=None).retry == a2abench.llm.RetryPolicy()
