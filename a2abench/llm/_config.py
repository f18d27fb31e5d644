"""LLMConfig: the value object that says which endpoint to call and how hard to try."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, SecretStr

from a2abench.errors import ConfigError
from a2abench.net.limits import DEFAULT_MAX_REPLY_BYTES
from a2abench.net.retry import RetryPolicy

DEFAULT_BASE_URL = "https://api.openai.com/v1"
API_KEY_ENV_VARS = ("A2ABENCH_LLM_API_KEY", "OPENAI_API_KEY")

# Keys the client owns: the model comes from the config (so prices and metrics name the model
# actually called), messages and tools are chat() arguments, and `stream` is refused because
# the client parses one JSON body, not server-sent events.
RESERVED_ARGS = frozenset({"model", "messages", "tools", "stream"})


def api_key_from_env() -> SecretStr | None:
    """The first non-empty of A2ABENCH_LLM_API_KEY, OPENAI_API_KEY; None when neither is set."""
    for name in API_KEY_ENV_VARS:
        value = os.environ.get(name, "").strip()
        if value:
            return SecretStr(value)
    return None


@dataclass(frozen=True)
class LLMConfig:
    """Which OpenAI-compatible endpoint and model to call, with which extra request arguments.

    `args` (e.g. temperature, seed, max_tokens) is merged into every request body. The API key
    defaults to the environment (see `api_key_from_env`); it is kept out of `repr`, out of
    `to_record()`, and out of cache keys and cache files.
    """

    model: str
    base_url: str = DEFAULT_BASE_URL
    api_key: SecretStr | None = field(default_factory=api_key_from_env, repr=False)
    args: dict[str, Any] = field(default_factory=dict, hash=False)  # hashable config anyway
    timeout_s: float = 120.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    cache: bool = True
    cache_dir: Path | None = None  # None: `<A2ABENCH cache dir>/llm`
    # The reply cap: the run's --max-reply-bytes, handed over by the driver (build_llm).
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise ConfigError("the LLM model name is empty", hint="Pass a model such as gpt-4.1.")
        if not self.base_url.startswith(("http://", "https://")):
            raise ConfigError(f"the LLM base URL {self.base_url!r} is not an http(s) URL",
                              hint="Use e.g. https://api.openai.com/v1.")
        if self.timeout_s <= 0:
            raise ConfigError(f"the LLM timeout must be positive, not {self.timeout_s}")
        check_args(self.args, source="LLM args")

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def to_record(self) -> dict[str, Any]:
        """The effective configuration for run records: JSON-ready, without the API key."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "api_key_set": self.api_key is not None,
            "args": dict(self.args),
            "timeout_s": self.timeout_s,
            "retry": asdict(self.retry),
            "cache": self.cache,
            "cache_dir": str(self.cache_dir) if self.cache_dir is not None else None,
        }


def check_args(args: dict[str, Any], *, source: str) -> None:
    clash = sorted(RESERVED_ARGS.intersection(args))
    if clash:
        raise ConfigError(f"{source} may not set {', '.join(clash)}",
                          hint="Set the model in the config, pass messages and tools to chat(); "
                               "streaming is not supported.")


def parse_llm_args(value: Any) -> dict[str, Any]:
    """`--user-llm-args` as given on the command line (a JSON object string) or already a
    dict; ValueError says what is wrong."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ValueError(f"--user-llm-args is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError("--user-llm-args must be a JSON object")
    return value


LLMArgs = Annotated[dict[str, Any], BeforeValidator(parse_llm_args)]
