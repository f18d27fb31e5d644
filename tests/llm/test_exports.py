"""Pin the public surface of a2abench.llm so that changing it is a deliberate act."""

from __future__ import annotations

import a2abench.llm
from a2abench.llm import LLMConfig

EXPECTED = [
    "API_KEY_ENV_VARS", "DEFAULT_BASE_URL", "PRICES", "ChatLLM", "ChatResult", "LLMCallMetrics",
    "LLMConfig", "MetricsHook", "Price", "ResponseCache", "RetryPolicy", "ToolCall", "Usage",
    "api_key_from_env", "cache_key", "cost_usd", "default_cache_root", "lookup_price",
]


def test_public_names() -> None:
    assert sorted(a2abench.llm.__all__) == sorted(EXPECTED)
    for name in EXPECTED:
        assert getattr(a2abench.llm, name) is not None


def test_config_is_hashable_and_compares_by_value() -> None:
    a = LLMConfig(model="m", api_key=None, args={"temperature": 0})
    b = LLMConfig(model="m", api_key=None, args={"temperature": 0})
    assert a == b and hash(a) == hash(b)
    assert a != LLMConfig(model="m", api_key=None, args={"temperature": 1})
