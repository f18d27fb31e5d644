"""GreenSettings: how `serve-green` runs, fixed by the operator when the server starts.

Requests choose the benchmark and its options; the operator fixes everything that touches the
server's own machine or credentials: where metrics go, data paths, LLM endpoints (the server's
API key is sent there), which white-agent hosts may be contacted, and the limits.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import SecretStr

from a2abench.errors import ConfigError
from a2abench.options import parse_pairs

DEFAULT_PORT = 9009
DEFAULT_MAX_REQUEST_BYTES = 1_000_000
DEFAULT_HEARTBEAT_S = 30.0
DEFAULT_MAX_TRIALS = 8  # num_trials a request may ask for (tau2's leaderboard uses up to 4)


@dataclass(frozen=True)
class GreenSettings:
    """Server configuration. `presets` maps benchmark -> option defaults (see `parse_presets`)."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    card_url: str | None = None
    auth_token: SecretStr | None = None
    max_concurrent_assessments: int = 1
    max_queued_assessments: int = 8
    allow_hosts: tuple[str, ...] = ()
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    output_dir: Path = Path("runs")
    presets: dict[str, dict[str, Any]] = field(default_factory=dict)
    cancel_grace_s: float = 30.0
    progress_interval_s: float = 1.0  # at most one progress status update per interval
    # A WORKING update after this many silent seconds (0: none): streaming clients time out
    # on silence (AgentBeats' gateway after 300 s) while one task-trial may take minutes.
    heartbeat_s: float = DEFAULT_HEARTBEAT_S
    tck: bool = False  # test-only TCK scenario behaviours (docs/conformance.md)
    rpc_path: str | None = None  # serve JSON-RPC only here (default: `/` and the card's path)
    max_trials: int = DEFAULT_MAX_TRIALS
    allow_models: tuple[str, ...] = ()  # models requests may pick (default: operator's only)
    allow_llm_args: tuple[str, ...] = ()  # keys of *_llm_args requests may set
    grpc: bool = True  # serve the gRPC binding too (when grpcio is installed)
    # A2A 0.3 beside 1.0 on every binding; False serves a strict 1.0 card (no legacy fields).
    a2a_03: bool = True
    grpc_port: int | None = None  # None: a free port, advertised in the card
    metrics: bool = False  # serve /metrics (Prometheus) on the main port
    metrics_port: int | None = None  # or on a port of its own (implies metrics)
    log_format: str = "text"  # text | json: structured assessment/task lines
    # Where loopback participant URLs go (AgentBeats: the green's `proxy` slot, see
    # participant_url); None leaves every participant URL as the request gives it.
    participant_proxy: str | None = None

    def __post_init__(self) -> None:
        if self.max_concurrent_assessments < 1:
            raise ConfigError("--max-concurrent-assessments must be at least 1")
        if self.max_queued_assessments < 0:
            raise ConfigError("--max-queued-assessments must not be negative")
        if self.max_request_bytes < 1024:
            raise ConfigError("--max-request-bytes must be at least 1024",
                              hint="The default is 1000000 (1 MB).")
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
        if self.heartbeat_s < 0:
            raise ConfigError("--heartbeat must not be negative",
                              hint="Seconds between heartbeats; 0 turns them off.")
        if self.max_trials < 1:
            raise ConfigError("--max-trials must be at least 1")
        if self.log_format not in ("text", "json"):
            raise ConfigError(f"--log-format {self.log_format!r} is not text or json")
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


def check_http_url(url: str, what: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{what} {url!r} is not an http(s) URL with a host",
                          hint="Write it like http://green.example:9009/.")


def rpc_path(card_url: str) -> str:
    """The JSON-RPC path the card URL names ("/" when it names only the host)."""
    path = urlsplit(card_url).path or "/"
    return path if path.startswith("/") else "/" + path


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
