"""OpenAI-compatible chat client for user simulators and judges, with an on-disk cache.

    from a2abench.llm import ChatLLM, LLMConfig

    async with ChatLLM(LLMConfig(model="gpt-4.1", args={"temperature": 0.0})) as llm:
        result = await llm.chat([{"role": "user", "content": "Hi"}], seed=300)
        print(result.content, result.usage.total_tokens, result.cost_usd, result.cached)

Failures raise `a2abench.errors.LLMError` or one of its subclasses (LLMAuthError,
LLMBadRequest, LLMContextWindowExceeded, LLMRateLimited, LLMResponseInvalid).
See docs/llm.md for configuration, environment variables and the cache.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from a2abench.llm._build import build_llm
    from a2abench.llm._cache import ResponseCache, cache_key, default_cache_root
    from a2abench.llm._client import ChatLLM, MetricsHook
    from a2abench.llm._config import (
        API_KEY_ENV_VARS,
        DEFAULT_BASE_URL,
        LLMArgs,
        LLMConfig,
        api_key_from_env,
    )
    from a2abench.llm._options import LLMOptions
    from a2abench.llm._pricing import PRICES, Price, cost_usd, lookup_price
    from a2abench.llm._result import ChatResult, LLMCallMetrics, ToolCall, Usage
    from a2abench.net.retry import RetryPolicy

__all__ = [
    "API_KEY_ENV_VARS",
    "DEFAULT_BASE_URL",
    "PRICES",
    "ChatLLM",
    "ChatResult",
    "LLMArgs",
    "LLMCallMetrics",
    "LLMConfig",
    "LLMOptions",
    "MetricsHook",
    "Price",
    "ResponseCache",
    "RetryPolicy",
    "ToolCall",
    "Usage",
    "api_key_from_env",
    "build_llm",
    "cache_key",
    "cost_usd",
    "default_cache_root",
    "lookup_price",
]


# Where each name lives: loaded on first use, so `a2abench.llm._cache` (a cache reader in a
# process of its own) does not import the client, httpx and pydantic.
_HOME = {
    "build_llm": "a2abench.llm._build",
    **dict.fromkeys(("ResponseCache", "cache_key", "default_cache_root"), "a2abench.llm._cache"),
    **dict.fromkeys(("ChatLLM", "MetricsHook"), "a2abench.llm._client"),
    **dict.fromkeys(("API_KEY_ENV_VARS", "DEFAULT_BASE_URL", "LLMArgs", "LLMConfig",
                     "api_key_from_env"), "a2abench.llm._config"),
    "LLMOptions": "a2abench.llm._options",
    **dict.fromkeys(("PRICES", "Price", "cost_usd", "lookup_price"), "a2abench.llm._pricing"),
    **dict.fromkeys(("ChatResult", "LLMCallMetrics", "ToolCall", "Usage"),
                    "a2abench.llm._result"),
    "RetryPolicy": "a2abench.net.retry",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module 'a2abench.llm' has no attribute {name!r}")
