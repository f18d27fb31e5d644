"""RunConfig: everything a run needs, validated once; plus shards, seeds and redaction."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from a2abench.a2a._limits import DEFAULT_MAX_REPLY_BYTES
from a2abench.errors import ConfigError

_SECRET_KEY = re.compile(r"(key|token|secret|password|passwd|authorization|credential)", re.I)
REDACTED = "***"


class Shard(BaseModel):
    """Shard `index` of `count`, 1-based, as in `--shard 2/3`."""

    model_config = ConfigDict(frozen=True)
    index: int
    count: int

    @classmethod
    def parse(cls, text: str | None) -> Shard | None:
        if text is None or text == "":
            return None
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match:
            raise ConfigError(f"--shard {text!r} is not I/N", hint="Write it like --shard 2/5.")
        index, count = int(match[1]), int(match[2])
        if count < 1 or not 1 <= index <= count:
            raise ConfigError(f"--shard {text}: I must be between 1 and N",
                              hint="Shards are numbered 1..N, e.g. --shard 1/4.")
        return cls(index=index, count=count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


class RunConfig(BaseModel):
    """A benchmark run. Benchmark-specific options live in `options` (the driver's model)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    benchmark: str
    white_agent_url: str
    options: dict[str, Any] = Field(default_factory=dict)
    auth_token: SecretStr | None = None
    timeout: float = 300.0
    streaming: bool = False  # blocking by default; --streaming needs the card's capability
    transport: str | None = None  # jsonrpc | http-json | grpc; None: the card's best
    task_ids: list[str] | None = None
    max_tasks: int | None = None
    num_trials: int = 1
    concurrency: int = 4
    rate_limit: float | None = None
    seed: int = 300
    output: Path | None = None
    resume: bool = False
    retry_errors: bool = False
    shard: Shard | None = None
    fail_under: float | None = None
    max_consecutive_failures: int = 5
    retries: int = 3
    retry_delay: float = 0.5
    # Hosts besides white_agent_url's that requests may reach (card interfaces, redirects)
    # and that get the bearer token; empty: any host, the token to white_agent_url's only.
    allowed_hosts: list[str] = Field(default_factory=list)
    task_timeout: float | None = None  # wall-clock cap per task-trial (a2a/_limits.py)
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES  # per reply, agent and LLM endpoints

    @field_validator("transport")
    @classmethod
    def _transport(cls, value: str | None) -> str | None:
        if value in (None, "", "auto"):
            return None
        if value.strip().lower() not in ("jsonrpc", "http-json", "grpc"):
            raise ValueError(f"transport must be jsonrpc, http-json or grpc, got {value!r}")
        return value.strip().lower()

    @field_validator("num_trials", "concurrency", "max_consecutive_failures")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value < 1:
            raise ValueError("must be at least 1")
        return value

    @field_validator("max_reply_bytes")
    @classmethod
    def _reply_cap(cls, value: int) -> int:
        if value < 1024:
            raise ValueError(f"max_reply_bytes must be at least 1024, got {value}")
        return value

    @field_validator("task_timeout")
    @classmethod
    def _task_timeout(cls, value: float | None) -> float | None:
        if value is not None and not value > 0:
            raise ValueError(f"task_timeout must be greater than 0 seconds, got {value}")
        return value

    def public(self) -> dict[str, Any]:
        """The config as written to metrics.jsonl: secrets removed."""
        data = self.model_dump(mode="json", exclude={"auth_token"})
        data["auth_token"] = REDACTED if self.auth_token else None
        data["white_agent_url"] = redact_url(self.white_agent_url)
        cleaned: dict[str, Any] = redact(data)
        return cleaned


def redact(value: Any) -> Any:
    """Replace values under secret-looking keys and credentials in URLs."""
    if isinstance(value, dict):
        return {k: (REDACTED if _SECRET_KEY.search(str(k)) and v not in (None, "", False)
                    else redact(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, str) and "@" in value and "://" in value:
        return redact_url(value)
    return value


def redact_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None and parts.username is None:
        return url
    host = parts.hostname or ""
    netloc = f"{REDACTED}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def trial_seed(run_seed: int, task_id: str, trial: int) -> int:
    """A per-(task, trial) seed: the same on every machine, different for every trial."""
    digest = hashlib.sha256(f"{run_seed}|{task_id}|{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def default_output(benchmark: str, domain: str | None, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    name = f"{stamp}_{benchmark}" + (f"_{domain}" if domain else "")
    return Path("runs") / name / "metrics.jsonl"


def resolve_output(output: Path | None, benchmark: str, domain: str | None) -> Path:
    """`--output` is a file path exactly as given, unless it is an existing directory or ends
    with a path separator; then metrics.jsonl goes inside it."""
    if output is None:
        return default_output(benchmark, domain)
    text = str(output)
    if output.is_dir() or text.endswith(("/", "\\")):
        return output / "metrics.jsonl"
    return output
