"""RunConfig: everything a run needs, validated once; plus shards, seeds and redaction."""

from __future__ import annotations

import hashlib
import re
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from a2abench.a2a._limits import DEFAULT_MAX_REPLY_BYTES
from a2abench.a2a.config import transport_choice
from a2abench.errors import ConfigError

# Secret-looking keys: `api_key`, `x-api-key`, `access_token`, `client_secret`, `password`,
# `Authorization` ... but not `max_tokens` or `monkey`.
_SECRET_KEY = re.compile(r"(^|[_\-. ])(api[_\-]?key|key|token|secret|password|passwd|pwd|"
                         r"authorization|auth|credentials?|cookie|session[_\-]?id)$|"
                         r"^(api[_\-]?key|secret|password|token)", re.I)
REDACTED = "***"
MIN_SECRET_CHARS = 6  # shorter values would redact ordinary words


def is_secret_key(key: object) -> bool:
    return bool(_SECRET_KEY.search(str(key)))


class Redactor:
    """Replaces known secret values wherever they appear in serialized text.

    An agent may echo the bearer token it was sent; a URL may carry a password. Records,
    events and reports pass through this before they leave the process.
    """

    def __init__(self, secrets: list[str]) -> None:
        import json

        values = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS},
                        key=len, reverse=True)
        self.texts = values
        # In a JSON line a secret appears escaped (quotes, backslashes, non-ASCII).
        forms = {v.encode() for v in values} | {json.dumps(v)[1:-1].encode() for v in values}
        self.forms = sorted(forms, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self.texts)

    def line(self, data: bytes) -> bytes:
        for form in self.forms:
            if form in data:
                data = data.replace(form, REDACTED.encode())
        return data

    def text(self, value: str) -> str:
        for secret in self.texts:
            value = value.replace(secret, REDACTED)
        return value


def secret_values(value: Any) -> list[str]:
    """Secret values inside a configuration: values under secret-named keys (anywhere,
    including JSON objects given as strings) and passwords in URLs."""
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if is_secret_key(k) and isinstance(v, str | int) and not isinstance(v, bool):
                out.append(str(v))
            else:
                out += secret_values(v)
    elif isinstance(value, list | tuple):
        for v in value:
            out += secret_values(v)
    elif isinstance(value, str):
        if "://" in value:
            with suppress(ValueError):
                parts = urlsplit(value.strip())
                if parts.password:
                    out.append(parts.password)
                    out.append(unquote(parts.password))
        stripped = value.strip()
        if stripped.startswith("{"):
            import json

            with suppress(ValueError, RecursionError):
                out += secret_values(json.loads(stripped))
    elif hasattr(value, "get_secret_value"):
        out.append(value.get_secret_value())
    return out


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
        return transport_choice(value)

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

    def secrets(self) -> list[str]:
        """Every secret value this run knows: the agent's token, URL passwords, secret-named
        LLM arguments, and the LLM API keys from the environment."""
        import os

        found = secret_values(self.white_agent_url) + secret_values(self.options)
        if self.auth_token is not None:
            found.append(self.auth_token.get_secret_value())
        found += [value for name, value in os.environ.items()
                  if name.startswith(("A2ABENCH_", "OPENAI_", "SALESFORCE_"))
                  and is_secret_key(name.lower()) and value]
        return found

    def public(self) -> dict[str, Any]:
        """The config as written to metrics.jsonl: secrets removed."""
        data = self.model_dump(mode="json", exclude={"auth_token"})
        data["auth_token"] = REDACTED if self.auth_token else None
        data["white_agent_url"] = redact_url(self.white_agent_url)
        cleaned: dict[str, Any] = redact(data)
        return cleaned


def redact(value: Any) -> Any:
    """Replace values under secret-looking keys (also inside JSON given as a string) and
    credentials in URLs."""
    if isinstance(value, dict):
        return {k: (REDACTED if is_secret_key(k) and v not in (None, "", False)
                    else redact(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, str):
        if "@" in value and "://" in value:
            return redact_url(value)
        if value.strip().startswith("{") and secret_values(value):
            return REDACTED  # e.g. --user-llm-args '{"api_key": ...}' kept as text
    return value


_URL_CREDENTIALS = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@]+@")


def redact_url_credentials(text: str) -> str:
    """`http://user:pw@host` -> `http://***@host` anywhere in free text (error messages)."""
    return _URL_CREDENTIALS.sub(lambda m: m.group(1) + REDACTED + "@", text)


def redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
        if parts.password is None and parts.username is None:
            return url
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # not a URL we can take apart: keep nothing after the scheme
        return url.split("://", 1)[0] + "://" + REDACTED
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{REDACTED}@{host}" + (f":{port}" if port else "")
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
    """`--output` names a directory (metrics.jsonl goes inside) when it is an existing
    directory, ends with a path separator, or is a new path without a suffix (`runs/x`);
    otherwise it is the metrics file itself (`runs/x.jsonl`, an existing file)."""
    if output is None:
        return default_output(benchmark, domain)
    text = str(output)
    if output.is_dir() or text.endswith(("/", "\\")):
        return output / "metrics.jsonl"
    if not output.exists() and not output.is_symlink() and not output.suffix:
        return output / "metrics.jsonl"
    return output
