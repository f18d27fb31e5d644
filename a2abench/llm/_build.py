"""The one way a benchmark builds its user-simulator and judge clients from run flags."""

from __future__ import annotations

from typing import Any

from a2abench.errors import ConfigError
from a2abench.llm._client import ChatLLM
from a2abench.llm._config import DEFAULT_BASE_URL, LLMConfig, api_key_from_env
from a2abench.net.limits import DEFAULT_MAX_REPLY_BYTES

ROLES = {"--user-llm": "the user simulator's LLM", "--judge-llm": "the judge LLM"}


def build_llm(model: str, *, base_url: str | None, args: dict[str, Any], cache: bool,
              flag: str, alternative: str = "",
              max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES) -> ChatLLM:
    """A `ChatLLM` for `model` at `base_url` (default: OpenAI's).

    Fails at once, as a ConfigError naming `flag`, when the default endpoint would be called
    without an API key; `alternative` adds a benchmark's own way out to the hint.
    """
    url = base_url or DEFAULT_BASE_URL
    if url == DEFAULT_BASE_URL and api_key_from_env() is None:
        raise ConfigError(
            f"{flag} {model} needs an API key: set OPENAI_API_KEY (or A2ABENCH_LLM_API_KEY)",
            hint=f"Or point {flag}-base-url at another OpenAI-compatible server"
                 + (f", or {alternative}." if alternative else "."))
    return ChatLLM(LLMConfig(model=model, base_url=url, args=args, cache=cache,
                             max_reply_bytes=max_reply_bytes),
                   role=f"{ROLES.get(flag, 'the LLM')} ({flag} {model})")
