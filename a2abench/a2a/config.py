"""A2AConfig (the seed data model): how to reach one agent, as a value object."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from a2abench.errors import ConfigError
from a2abench.net.limits import ReplyLimits
from a2abench.net.retry import RetryPolicy

# Agent requests retry sooner and give up sooner than LLM calls (the run has its own deadline).
AGENT_RETRY = RetryPolicy(max_attempts=4, base_delay_s=0.5, max_delay_s=8.0, budget_s=60.0)


def check_http_url(value: str) -> str:
    """`value` if it is an http(s) URL httpx can request; ValueError naming the problem.
    One validator for the flag and for the URLs an agent card names."""
    try:
        parts = urlsplit(value)
    except ValueError as exc:
        raise ValueError(f"is not a valid URL ({exc}): {value!r}") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"must be an http:// or https:// URL, got {value!r}")
    if not parts.netloc:
        raise ValueError(f"has no host: {value!r}")
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise ValueError(f"contains whitespace or control characters: {value!r}")
    import httpx

    try:
        _ = parts.port  # raises for a port outside 0-65535 or not a number
        httpx.URL(value)  # a host IDNA cannot encode, a URL over 64 KB: InvalidURL
    except (ValueError, httpx.InvalidURL) as exc:
        shown = value if len(value) <= 200 else f"{value[:200]}… ({len(value)} characters)"
        raise ValueError(f"is not a valid URL ({exc}): {shown!r}") from None
    return value


BindingName = Literal["JSONRPC", "HTTP+JSON", "GRPC"]
# --transport values -> the card's protocolBinding names.
TRANSPORT_CHOICES: dict[str, BindingName] = {"jsonrpc": "JSONRPC", "http-json": "HTTP+JSON",
                                             "grpc": "GRPC"}


def transport_choice(value: str | None) -> BindingName | None:
    """`--transport jsonrpc|http-json|grpc` -> binding name (None, "" or "auto": the card
    decides). The one reading of the flag: the configs validate with it, the client and
    `discover` choose with it."""
    if value is None or value.strip().lower() in ("", "auto"):
        return None
    name = TRANSPORT_CHOICES.get(value.strip().lower())
    if name is None:
        raise ConfigError(f"--transport {value!r} is not a binding a2abench speaks: use "
                          "jsonrpc, http-json or grpc", hint="Or leave it unset: the agent's "
                                                             "card decides.")
    return name


def transport_field(value: str | None) -> str | None:
    """A config's `transport` as written (lower case), or None for the card's choice; a value
    `transport_choice` refuses is a ValueError, so the model reports it as invalid."""
    try:
        chosen = transport_choice(value)
    except ConfigError as exc:
        raise ValueError(exc.message) from None
    return None if chosen is None or value is None else value.strip().lower()


class A2AConfig(BaseModel):
    """How to reach one agent: endpoint, credentials, limits."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    endpoint: str = Field(description="Base URL or card URL of the agent, http(s) only.")
    auth_token: SecretStr | None = Field(default=None, description="Bearer token, if any.")
    timeout: float = Field(default=300.0, description="Seconds per request, whole (connect, "
                                                      "send, every read, a whole stream).")
    verify_ssl: bool = True
    ca_cert: str | None = Field(default=None, description="CA certificates (a PEM file, or a "
                                "directory of hashed ones) trusted for the agent's TLS "
                                "certificate besides the default bundle (--ca-cert).")
    streaming: bool = Field(default=False, description="Use message/stream when advertised.")
    transport: str | None = Field(default=None, description="Force a binding: jsonrpc, "
                                  "http-json or grpc (None: the card's best).")
    retry: RetryPolicy = Field(default=AGENT_RETRY)
    limits: ReplyLimits = Field(default_factory=ReplyLimits,
                                description="Caps on one reply: bytes, nesting, counts.")

    @field_validator("endpoint")
    @classmethod
    def _endpoint(cls, value: str) -> str:
        return check_http_url(value.strip()).rstrip("/")

    @field_validator("ca_cert")
    @classmethod
    def _ca_cert(cls, value: str | None) -> str | None:
        from a2abench.net.tls import check_ca_file

        return None if value is None else check_ca_file(value)

    @field_validator("transport")
    @classmethod
    def _transport(cls, value: str | None) -> str | None:
        return transport_field(value)

    @field_validator("auth_token")
    @classmethod
    def _token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().strip():
            raise ValueError("must not be empty when given (unset it instead)")
        return value

    @field_validator("timeout")
    @classmethod
    def _timeout(cls, value: float) -> float:
        if not value > 0:
            raise ValueError(f"must be greater than 0 seconds, got {value}")
        return value

    @classmethod
    def create(cls, endpoint: str, **kwargs: Any) -> A2AConfig:
        """Build a config, turning validation errors into one ConfigError that names fields."""
        try:
            return cls(endpoint=endpoint, **kwargs)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'config'} "
                f"{err['msg'].removeprefix('Value error, ')}"
                for err in exc.errors())
            raise ConfigError(f"invalid agent configuration: {problems}",
                              hint="Fix the flag or its A2ABENCH_* environment variable.") from None

    def headers(self) -> dict[str, str]:
        if self.auth_token is None:
            return {}
        return {"Authorization": f"Bearer {self.auth_token.get_secret_value()}"}
