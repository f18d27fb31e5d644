"""RunConfig: everything a run needs, validated once; plus shards, seeds and redaction."""

from __future__ import annotations

import hashlib
import re
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from a2abench.a2a.config import transport_field
from a2abench.errors import ConfigError
from a2abench.net.limits import DEFAULT_MAX_REPLY_BYTES
from a2abench.options import option
from a2abench.run.roles import PairingMode

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

    @model_validator(mode="after")
    def _bounds(self) -> Shard:
        # A shard given as an object (serve-green) meets the same rule as `--shard I/N`.
        if self.count < 1 or not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}/{self.count}: I must be between 1 and N "
                             "(shards are numbered 1..N, e.g. 1/4)")
        return self

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


# RunConfig fields of multi-party runs, left out of a single-agent run's `run` record.
_MULTI_PARTY_KEYS = ("user_agent_url", "scenario", "pairing", "reference_agent_url",
                     "user_auth_token", "user_transport", "participant", "specialist_url",
                     "specialist_auth_token", "adversary_url", "adversary_auth_token")
# The bearer tokens of the participants (run/engine.py `_client`: each to its role's
# first participant only) besides `auth_token`, the agent's.
PARTICIPANT_TOKENS = {"user": "user_auth_token", "specialist": "specialist_auth_token",
                      "adversary": "adversary_auth_token"}
MAX_RUN_CONCURRENCY = 1000  # docs/limits.md: one event loop; far above what agents serve


class RunConfig(BaseModel):
    """A benchmark run. Benchmark-specific options live in `options` (the driver's model)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    benchmark: str
    options: dict[str, Any] = Field(default_factory=dict)
    # The run flags, in `--help` order: each field is a flag (a2abench/options.py).
    white_agent_url: str = option(
        help="Base URL (or card URL) of the agent under test; repeatable with --pairing cross "
             "(the agents agent, agent_2, ...).")
    task_ids: list[str] | None = option(None, "Only these task ids (repeatable).", request=True)
    max_tasks: int | None = option(None, "Run at most N tasks (after filters).", ge=1,
                                   request=True)
    num_trials: int = option(1, "Trials per task (pass^k uses them).", ge=1, request=True)
    concurrency: int = option(4, "Task-trials in flight at once (never more than there are "
                                 "task-trials to run).", ge=1, le=MAX_RUN_CONCURRENCY,
                              request=True)
    seed: int = option(300, "Run seed; per-trial seeds derive from it, and, when given, an "
                            "adaptive run's order (else a fresh one per run, recorded).",
                       ge=-(2**63),
                       le=2**63 - 1, request=True)
    output: Path | None = option(
        None, "Metrics file (a path with a suffix, or an existing file) or a directory (an "
              "existing one, a path ending in /, or a new path without a suffix) [default: "
              "runs/<time>_<bench>_<domain>/].")
    resume: bool = option(False, "Skip task-trials already recorded in --output.")
    retry_errors: bool = option(False, "With --resume: re-run task-trials that ended in an "
                                       "infrastructure error.")
    shard: Shard | None = option(None, "Run shard I of N, written I/N (1-based).", kind="str",
                                 request=True)
    rate_limit: float | None = option(None, "Max A2A requests per second per host.", gt=0,
                                      request=True)
    max_consecutive_failures: int = option(
        5, "Stop the run when the agent was unreachable for N task-trials in a row.", ge=1,
        request=True)
    retries: int = option(3, "Retries of a transient A2A failure (connect errors, timeouts, "
                             "429/502/503/504).", ge=0, request=True)
    retry_delay: float = option(0.5, "First retry delay in seconds (doubles, with jitter; "
                                     "Retry-After wins).", ge=0, request=True)
    auth_token: SecretStr | None = option(
        None, "Bearer token sent to the agent (prefer the environment variable).", kind="str")
    # An operator's setting (a file on this machine): never one a serve-green request sets.
    ca_cert: Path | None = option(
        None, "CA certificates (PEM) to trust for the agent's TLS certificate besides the "
              "default bundle: a private or self-signed CA. SSL_CERT_FILE and SSL_CERT_DIR "
              "are honoured too (they replace the default bundle).")
    timeout: float = option(300.0, "Seconds one A2A request may take, whole (connect, send, "
                                   "every read, a whole stream).", gt=0, request=True)
    transport: str | None = option(  # None: the card's best
        None, "Force the A2A binding: jsonrpc | http-json | grpc [default: the card's first "
              "supported interface, 1.0 before 0.3, JSON-RPC first among equals].",
        request=True)
    streaming: bool = option(  # blocking by default; --streaming needs the card's capability
        False, "Send each message as a streaming call (SSE / gRPC stream) and assemble the "
               "reply from its events; needs the card's capabilities.streaming. The default "
               "is blocking calls.", negatable=True, request=True)
    task_timeout: float | None = option(  # wall-clock cap per task-trial (net/limits.py)
        None, "Seconds one task-trial may take in all; passing it while the agent answers is "
              "the agent's error [default: no limit].", gt=0, request=True)
    max_reply_bytes: int = option(  # per reply, agent and LLM endpoints
        DEFAULT_MAX_REPLY_BYTES, "Largest reply accepted from the agent or an LLM endpoint, "
                                 "in bytes (16000000 = 16 MB).", ge=1024)
    # Hosts besides white_agent_url's that requests may reach (card interfaces, redirects)
    # and that get the bearer token; empty: any host, the token to white_agent_url's only.
    allowed_hosts: list[str] = option(
        help="Hosts the run may contact besides --white-agent-url's (card interfaces, "
             "redirects, data downloads, the Salesforce login), and the only other hosts that "
             "get --auth-token; repeatable: a name glob, host:port or an IP network "
             "(docs/limits.md) [default: any host, token to the --white-agent-url host only].",
        flag="--allow-host", default_factory=list)
    # The report gate (cli/_launch.py): serve-green runs never gate.
    fail_under: float | None = option(
        None, "Exit 3 when the score is below X (0-1), missing, or incomplete.", ge=0, le=1,
        request=True)
    allow_incomplete: bool = option(
        False, "Let --fail-under pass on a score that leaves task-trials unscored "
               "(infrastructure/harness errors).")
    # Adaptive assessment (run/adaptive, docs/run-semantics.md): a random stratified order
    # and an always-valid confidence sequence that may stop the run early.
    target_ci: float | None = option(
        None, "Adaptive: stop starting task-trials once the headline score's 95% confidence "
              "sequence is ±W or narrower (in-flight ones finish and count); with --baseline, "
              "the difference's, and W is also the gate's margin.", gt=0, le=0.5,
        request=True)
    adaptive_gate: bool = option(
        False, "Adaptive, with --fail-under: stop as soon as the score's 95% confidence "
               "sequence lies wholly above the threshold (exit 0) or below it (exit 3). With "
               "--baseline: stop once the difference is known to be above -W (better or "
               "equal within --target-ci W, exit 0) or below 0 (worse, exit 3).",
        request=True)
    allocate: Literal["proportional", "neyman", "uniform"] = option(
        "proportional", "Adaptive order: proportional (strata = categories, else domains; "
                        "every prefix representative; best when they score differently) | "
                        "neyman (more draws where results vary; with several trials, tasks "
                        "with mixed outcomes drawn twice as often) | uniform (one order over "
                        "all task-trials, for mean-reward headlines: narrowest when the "
                        "strata score alike).", request=True)
    baseline: Path | None = option(
        None, "Adaptive A/B: replay an earlier run's scored task-trials (its metrics.jsonl "
              "or run directory: same tasks, trials and seeds) in a fresh order and bound "
              "the mean difference new - baseline.", kind="path")
    # Multi-party runs (run/roles.py, docs/multi-agent.md): other participants by role.
    user_agent_url: list[str] = option(
        help="Base URL (or card URL) of an A2A agent that plays the user (tau2: scenario "
             "dual); repeatable with --pairing cross (the users user, user_2, ...) [default: "
             "the built-in LLM user simulator].", default_factory=list)
    scenario: str | None = option(
        None, "The kind of match (docs/multi-agent.md): single | dual | ... as the benchmark "
              "offers [default: from the participants given: dual with --user-agent-url, "
              "else single].", request=True)
    pairing: PairingMode = option(
        "face", "Who plays whom in a multi-party run: face (each role's participant faces "
                "the others) | vs_reference (also each against the other roles' reference "
                "partners) | cross (every agent against every user).", request=True)
    reference_agent_url: str | None = option(
        None, "A2A agent used as the reference agent of --pairing vs_reference [default: "
              "a2abench's offline gold-replaying agent].")
    user_auth_token: SecretStr | None = option(
        None, "Bearer token sent to the user participants (prefer the environment "
              "variable).", kind="str")
    user_transport: str | None = option(
        None, "Force the user participants' A2A binding: jsonrpc | http-json | grpc "
              "[default: each card's best].")
    specialist_url: list[str] = option(
        help="Base URL (or card URL) of an A2A agent that plays the specialist the front "
             "agent delegates to (scenario team); repeatable with --pairing cross.",
        default_factory=list)
    specialist_auth_token: SecretStr | None = option(
        None, "Bearer token sent to the specialist participant (prefer the environment "
              "variable).", kind="str")
    participant: list[str] = option(
        help="Another participant, as ID=URL: agent_2=URL, user_2=URL (for --pairing "
             "cross); repeatable. A repeated --white-agent-url is read as agent_2=URL, ...",
        default_factory=list)
    adversary_url: list[str] = option(
        help="Base URL (or card URL) of an A2A agent that plays the adversarial customer "
             "(tau2: scenario pressure); repeatable with --pairing cross [default: the "
             "scripted reference adversaries].", default_factory=list)
    adversary_auth_token: SecretStr | None = option(
        None, "Bearer token sent to the adversary participant (prefer the environment "
              "variable).", kind="str")

    @field_validator("user_agent_url", "specialist_url", "participant", "adversary_url",
                     mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value  # an absent repeatable flag: none

    @field_validator("participant")
    @classmethod
    def _id_url(cls, value: list[str]) -> list[str]:
        for item in value:
            pid, sep, url = item.partition("=")
            if not sep or not pid.strip() or not url.strip():
                raise ValueError(f"--participant {item!r} is not ID=URL (e.g. "
                                 "agent_2=http://127.0.0.1:9020)")
        return value

    @model_validator(mode="after")
    def _participants(self) -> RunConfig:
        from a2abench.a2a.config import check_http_url

        named = {pid: url for pid, url in self.participant_urls().items() if pid != "agent"}
        if self.reference_agent_url is not None:
            named["--reference-agent-url"] = self.reference_agent_url
        for pid, url in named.items():
            try:
                check_http_url(url)
            except ValueError as exc:
                raise ValueError(f"participant {pid} {exc}") from None
        return self

    def participant_urls(self) -> dict[str, str]:
        """Every remote participant by id: `agent` (and `agent_2` ...), `user` ... ."""
        from a2abench.run.roles import numbered

        out = {"agent": self.white_agent_url, **dict(numbered("user", self.user_agent_url)),
               **dict(numbered("specialist", self.specialist_url)),
               **dict(numbered("adversary", self.adversary_url))}
        for item in self.participant:
            pid, _, url = item.partition("=")
            pid, url = pid.strip(), url.strip()
            if pid in out:
                raise ValueError(f"participant {pid} is given twice")
            out[pid] = url
        return out

    def participant_token(self, role: str) -> SecretStr | None:
        """The bearer token of a role's participant (`agent`: --auth-token), or None."""
        key = "auth_token" if role == "agent" else PARTICIPANT_TOKENS.get(role)
        value = getattr(self, key) if key else None
        return value if isinstance(value, SecretStr) else None

    def multi_party(self) -> bool:
        """Whether the run seats more than one agent under test (run/roles.py)."""
        return (len(self.participant_urls()) > 1 or self.scenario not in (None, "single")
                or self.pairing != "face" or self.reference_agent_url is not None)

    @model_validator(mode="after")
    def _adaptive(self) -> RunConfig:
        if self.adaptive_gate and self.fail_under is None and self.baseline is None:
            raise ValueError("--adaptive-gate needs --fail-under: add --fail-under T, the score "
                             "the run should decide against (or --baseline RUN, to decide "
                             "against an earlier run)")
        if self.adaptive_gate and self.fail_under is not None and self.baseline is not None:
            raise ValueError("--adaptive-gate with --baseline decides against the baseline: "
                             "drop --fail-under (or --baseline)")
        from a2abench.run.adaptive import is_adaptive

        if is_adaptive(self) and self.shard is not None:
            raise ValueError("--shard cannot be combined with --target-ci, --adaptive-gate, "
                             "--allocate neyman/uniform or --baseline: an adaptive run stops "
                             "on what all of its task-trials show, which no single shard "
                             "sees; run it unsharded")
        return self

    @field_validator("shard", mode="before")
    @classmethod
    def _shard(cls, value: Any) -> Any:
        return Shard.parse(value) if isinstance(value, str) else value

    @field_validator("ca_cert")
    @classmethod
    def _ca_cert(cls, value: Path | None) -> Path | None:
        from a2abench.net.tls import check_ca_file

        return None if value is None else Path(check_ca_file(str(value)))

    @field_validator("task_ids", "auth_token", *PARTICIPANT_TOKENS.values(), mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return value or None  # no ids: every task; an empty token: none

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _hosts(cls, value: Any) -> Any:
        from a2abench.net.egress import pattern_problem

        for pattern in value if isinstance(value, list) else []:
            problem = pattern_problem(pattern) if isinstance(pattern, str) else None
            if problem is not None:
                raise ValueError(problem)
        return [] if value is None else value

    @field_validator("transport", "user_transport")
    @classmethod
    def _transport(cls, value: str | None) -> str | None:
        return transport_field(value)

    def secrets(self) -> list[str]:
        """Every secret value this run knows: the agent's token, URL passwords, secret-named
        LLM arguments, and the LLM API keys from the environment."""
        import os

        found = secret_values(self.white_agent_url) + secret_values(self.options)
        found += secret_values(list(self.participant_urls().values()))
        found += secret_values(self.reference_agent_url)
        for token in (self.auth_token, *map(self.participant_token, PARTICIPANT_TOKENS)):
            if token is not None:
                found.append(token.get_secret_value())
        found += [value for name, value in os.environ.items()
                  if name.startswith(("A2ABENCH_", "OPENAI_", "SALESFORCE_"))
                  and is_secret_key(name.lower()) and value]
        return found

    def public(self) -> dict[str, Any]:
        """The config as written to metrics.jsonl: secrets removed."""
        data = self.model_dump(mode="json",
                               exclude={"auth_token", *PARTICIPANT_TOKENS.values()})
        data["auth_token"] = REDACTED if self.auth_token else None
        data["white_agent_url"] = redact_url(self.white_agent_url)
        if self.multi_party():
            for role, key in PARTICIPANT_TOKENS.items():
                data[key] = REDACTED if self.participant_token(role) else None
            for key in ("user_agent_url", "specialist_url", "adversary_url"):
                data[key] = [redact_url(url) for url in data[key]]
            data["participant"] = [f"{pid}={redact_url(url)}" for pid, url in
                                   (item.partition("=")[::2] for item in data["participant"])]
            if self.reference_agent_url:
                data["reference_agent_url"] = redact_url(self.reference_agent_url)
        else:  # a single-agent run's record stays as it was before multi-party runs
            for key in _MULTI_PARTY_KEYS:
                data.pop(key, None)
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
