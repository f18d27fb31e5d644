"""GreenSettings: how `serve-green` runs, fixed by the operator when the server starts.

Requests choose the benchmark and its options; the operator fixes everything that touches the
server's own machine or credentials: where metrics go, data paths, LLM endpoints (the server's
API key is sent there), which white-agent hosts may be contacted, and the limits.

Each field declared with `option()` is a `serve-green` flag, as a `RunConfig` field is a `run`
flag (a2abench/options.py): its name gives `--field-name` and `A2ABENCH_FIELD_NAME`, its
description the help, its default and bounds the flag's. To add one (a CA bundle, a new
limit), add the field here and run `python scripts/gen_run_flags.py` and
`python scripts/gen_cli_reference.py`; `cli/_serve.py` needs no edit.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import SecretStr, ValidationError, field_validator, model_validator
from pydantic.dataclasses import dataclass

from a2abench.errors import ConfigError
from a2abench.options import option, parse_pairs

DEFAULT_PORT = 9009
DEFAULT_MAX_REQUEST_BYTES = 1_000_000
DEFAULT_HEARTBEAT_S = 30.0
DEFAULT_MAX_TRIALS = 8  # num_trials a request may ask for (tau2's leaderboard uses up to 4)
NOT_FLAGS = frozenset({"cancel_grace_s", "progress_interval_s"})  # tests and embedders only


@dataclass(frozen=True)
class GreenSettings:
    """Server configuration. `presets` maps benchmark -> option defaults (see `parse_presets`),
    `caps` benchmark (or "*") -> the most a request may ask for (see `caps.parse_caps`)."""

    host: str = option("127.0.0.1", "Interface to bind.")
    port: int = option(DEFAULT_PORT, "Port to bind (0 picks a free one).", ge=0, le=65535)
    card_url: str | None = option(None, "URL the agent card advertises (the JSON-RPC "
                                        "endpoint) [default: http://HOST:PORT/].")
    auth_token: SecretStr | None = option(None, "Bearer token clients must send (prefer the "
                                                "environment variable).", kind="str")
    max_concurrent_assessments: int = option(1, "Assessments run in parallel.", ge=1)
    max_queued_assessments: int = option(8, "Assessments that wait for a free slot; more are "
                                            "rejected.", ge=0)
    allow_hosts: tuple[str, ...] = option((), "White-agent host pattern allowed (repeatable): "
                                              "name, *.glob, host:port or CIDR.",
                                          flag="--allow-host")
    max_request_bytes: int = option(DEFAULT_MAX_REQUEST_BYTES, "Largest request body "
                                                               "accepted.", ge=1024)
    output_dir: Path = option(Path("runs"), "Where each assessment's metrics.jsonl is "
                                            "written.")
    presets: dict[str, dict[str, Any]] = option(
        help="Benchmark option, BENCH.KEY=VALUE (repeatable): a default requests may change "
             "(bound it with --cap), or an operator-only one such as tau2.data_dir=/data.",
        flag="--option", kind="strs", default_factory=dict)
    caps: dict[str, dict[str, Any]] = option(
        help="The most a request may ask for, [BENCH.]KEY=VALUE (repeatable): a number is a "
             "maximum, false keeps a switch off, a list allows only its items, any other "
             "value is the only one allowed; without BENCH. it binds every benchmark with "
             "that key. Over-cap requests are rejected; a default above a cap drops to it.",
        flag="--cap", kind="strs", default_factory=dict)
    rpc_path: str | None = option(None, "Serve JSON-RPC only at this path [default: / and the "
                                        "card URL's path].")
    max_trials: int = option(DEFAULT_MAX_TRIALS, "Largest num_trials a request may ask for.",
                             ge=1)
    allow_models: tuple[str, ...] = option((), "A model requests may choose for user_llm / "
                                               "judge_llm (repeatable).", flag="--allow-model")
    allow_llm_args: tuple[str, ...] = option((), "A key of user_llm_args requests may set "
                                                 "(repeatable), e.g. temperature.",
                                             flag="--allow-llm-arg")
    grpc: bool = option(True, "Serve the gRPC binding too (needs the grpc extra; without it "
                              "serve-green goes on without gRPC).")
    grpc_port: int | None = option(None, "Port of the gRPC binding [default: a free port, "
                                         "advertised in the card].", ge=0, le=65535)
    # A WORKING update after this many silent seconds (0: none): streaming clients time out
    # on silence (AgentBeats' gateway after 300 s) while one task-trial may take minutes.
    heartbeat_s: float = option(DEFAULT_HEARTBEAT_S, "Seconds of silence after which a running "
                                                     "assessment sends a progress status update "
                                                     "(0: never); streaming clients such as "
                                                     "AgentBeats' gateway time out on silence.",
                                flag="--heartbeat", ge=0)
    # A2A 0.3 beside 1.0 on every binding; False serves a strict 1.0 card (no legacy fields).
    a2a_03: bool = option(True, "Serve A2A 0.3 beside 1.0 on every binding (0.3 clients such "
                                "as AgentBeats' need it); --no-a2a-03 serves strict 1.0.")
    metrics: bool = option(False, "Serve Prometheus metrics at /metrics.")
    metrics_port: int | None = option(None, "Serve /metrics on this port instead (implies "
                                            "--metrics).", ge=1, le=65535)
    log_format: Literal["text", "json"] = option("text", "text | json: one structured line "
                                                         "per assessment and task start and "
                                                         "end.")
    ca_cert: Path | None = option(None, "CA certificates (PEM) trusted for white agents' TLS "
                                        "certificates besides the default bundle "
                                        "(SSL_CERT_FILE and SSL_CERT_DIR are honoured too).")
    # Where loopback participant URLs go (AgentBeats: the green's `proxy` slot, see
    # participant_url); None leaves every participant URL as the request gives it.
    participant_proxy: str | None = option(
        None, "Reach participants whose URL names a loopback host through this URL (its host, "
              "port and path prefix); on AgentBeats, the green's proxy slot "
              "(${slots.proxy.url}).")
    tck: bool = option(False, "Test only: answer A2A TCK scenario messages "
                              "(docs/conformance.md).", hidden=True)
    cancel_grace_s: float = 30.0
    progress_interval_s: float = 1.0  # at most one progress status update per interval

    @field_validator("presets", mode="before")
    @classmethod
    def _read_presets(cls, value: Any) -> Any:
        """`--option` items (a list of BENCH.KEY=VALUE) or the parsed dict."""
        return parse_presets(list(value)) if isinstance(value, list | tuple) else value

    @field_validator("caps", mode="before")
    @classmethod
    def _read_caps(cls, value: Any) -> Any:
        from a2abench.green.caps import parse_caps

        return parse_caps(value) if isinstance(value, list | tuple) else value

    @model_validator(mode="wrap")
    @classmethod
    def _as_config_error(cls, values: Any, handler: Any) -> Any:
        """A value out of its field's range is the operator's usage error, named by flag."""
        try:
            return handler(values)
        except ValidationError as exc:
            raise ConfigError(_problem(exc.errors()[0])) from None

    def __post_init__(self) -> None:
        if self.auth_token is not None and not self.auth_token.get_secret_value().strip():
            raise ConfigError("--auth-token is empty", hint="Unset it to serve without auth.")
        if self.card_url is not None:
            check_http_url(self.card_url, "--card-url")
        if self.participant_proxy is not None:
            check_http_url(self.participant_proxy, "--participant-proxy")
        if self.rpc_path is not None and not self.rpc_path.startswith("/"):
            raise ConfigError(f"--rpc-path {self.rpc_path!r} does not start with /",
                              hint="Write it like /a2a, or leave it out to serve at / and at "
                                   "the card URL's path.")
        if self.ca_cert is not None:
            from a2abench.net.tls import check_ca

            check_ca(str(self.ca_cert))  # a ConfigError naming the file
        from a2abench.net.egress import pattern_problem

        for pattern in self.allow_hosts:
            problem = pattern_problem(pattern)
            if problem is not None:
                raise ConfigError(problem, hint="Patterns: a name glob, host:port or an IP "
                                                "network (docs/limits.md).")

    def advertised_url(self, port: int | None = None) -> str:
        """The URL the card advertises: --card-url, else http://host:port/ (a wildcard bind
        address is replaced by 127.0.0.1, which only local clients can use)."""
        if self.card_url:
            return self.card_url
        host = self.host
        if is_wildcard(host):
            host = "127.0.0.1"
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self.port if port is None else port}/"

    def participant_url(self, url: str) -> str:
        """A participant's URL as this server reaches it. AgentBeats' gateway names every
        participant at its own loopback proxy (`http://127.0.0.1:8080/<role>`), which only
        the gateway's host can reach; with --participant-proxy (the green's Amber `proxy`
        slot) such a loopback URL goes through that proxy: its scheme, host and port replace
        the URL's and its path comes first. Any other URL is left as given."""
        if self.participant_proxy is None:
            return url
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not (
                is_wildcard(parts.hostname or "") or is_loopback(parts.hostname or "")):
            return url
        proxy = urlsplit(self.participant_proxy)
        return urlunsplit((proxy.scheme, proxy.netloc, proxy.path.rstrip("/") + parts.path,
                           parts.query, parts.fragment))

    def exposed(self) -> bool:
        """True when the bind address is reachable from other machines."""
        return not is_loopback(self.host)


def _problem(error: Any) -> str:
    """One pydantic error as the flag the operator typed: `--max-trials must be at least 1`."""
    from a2abench.options import flag_specs

    field = str(error["loc"][0]) if error["loc"] else ""
    flag = next((s.flag.split("/")[0] for s in flag_specs(GreenSettings)
                 if s.target == field), field)
    ctx = error.get("ctx") or {}
    if error["type"] == "greater_than_equal":
        return f"{flag} must be at least {ctx['ge']:g}"
    if error["type"] == "less_than_equal":
        return f"{flag} must be at most {ctx['le']:g}"
    if error["type"] == "literal_error":
        return f"{flag} {error['input']!r} is not {ctx['expected']}"
    return f"{flag}: {error['msg']}"


def check_http_url(url: str, what: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{what} {url!r} is not an http(s) URL with a host",
                          hint="Write it like http://green.example:9009/.")


def rpc_path(card_url: str) -> str:
    """The JSON-RPC path the card URL names ("/" when it names only the host)."""
    path = urlsplit(card_url).path or "/"
    return path if path.startswith("/") else "/" + path


def card_paths(url: str) -> list[str]:
    """The card's well-known paths at the root and, when the card URL has a path, under it
    (for proxies that forward without stripping the prefix)."""
    prefixes = dict.fromkeys(["", rpc_path(url).rstrip("/")])
    return [f"{prefix}/.well-known/{name}" for prefix in prefixes
            for name in ("agent-card.json", "agent.json")]


def serving_paths(url: str, explicit: str | None = None) -> list[str]:
    """Where JSON-RPC answers: `explicit` alone when given, else `/` and the card URL's path;
    each with and without a trailing slash (Starlette would answer the other with a 307 that
    JSON-RPC clients do not follow)."""
    wanted = [explicit] if explicit is not None else ["/", rpc_path(url)]
    out: list[str] = []
    for path in wanted:
        bare = path.rstrip("/")
        for variant in ([bare, bare + "/"] if bare else ["/"]):
            if variant not in out:
                out.append(variant)
    return out


def normalized_card_url(card_url: str) -> str:
    """The interface URL as advertised: the card URL without query or fragment."""
    parts = urlsplit(card_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", "", ""))


def is_wildcard(host: str) -> bool:
    return host in ("0.0.0.0", "::", "", "[::]")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_presets(items: list[str] | None) -> dict[str, dict[str, Any]]:
    """`["tau2.data_dir=/data", "tau2.user_llm=gpt-4.1"]` -> {"tau2": {...}}.

    Values are JSON when they parse as JSON (numbers, booleans, objects), else plain strings.
    """
    example = "e.g. --option tau2.data_dir=/data/tau2."
    for item in items or []:  # the benchmark first: the shared parser knows only KEY=VALUE
        bench, dot, name = item.partition("=")[0].strip().partition(".")
        if not dot or not bench or not name:
            raise ConfigError(f"--option {item!r} is not BENCHMARK.KEY=VALUE", hint=example)
    presets: dict[str, dict[str, Any]] = {}
    pairs = parse_pairs(items, "--option", example="BENCHMARK.KEY=VALUE", hint=example)
    for key, value in pairs.items():
        bench, _, name = key.partition(".")
        presets.setdefault(bench, {})[name.replace("-", "_")] = value
    return presets
