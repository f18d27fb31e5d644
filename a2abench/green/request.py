"""Assessment requests: the three formats platforms send, parsed into one `AssessmentRequest`,
then into the `RunConfig` the run engine takes.

Accepted (as a TextPart holding the text/JSON, or a DataPart holding the object):

- AgentBeats v3: `{"participants": {"agent": URL}, "config": {"benchmark": ..., ...}}`; config
  keys are named like the `a2abench run` flags (`max_tasks` or `max-tasks`; `num_tasks` is an
  alias of `max_tasks`, as AgentBeats' tau2 scenario names it). The Amber gateway sends this
  format, with the leaderboard workflow's `shard_index` (0-based), `num_shards` and
  `num_instances` patched into `config`.
- The CRMArena-Pro AgentBeats seed: `{"white_agent_url": URL, "task_category": ..., ...}`.
- tau2's agentify example: `<white_agent_url>URL</white_agent_url>` and
  `<env_config>{"env": ..., "user_model": ..., "task_split": ..., "task_ids": [...]}</env_config>`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ValidationError

from a2abench.errors import ConfigError
from a2abench.green import caps
from a2abench.green.guard import HostPolicy
from a2abench.green.roles import RolesRejected, other_participants, pairings, seat
from a2abench.green.settings import GreenSettings, check_http_url
from a2abench.net.egress import PARTICIPANTS, participant_hosts
from a2abench.options import request_keys
from a2abench.run.config import RunConfig, Shard
from a2abench.run.driver import Driver

Format = Literal["agentbeats", "seed", "agentify"]

ACCEPTED_FORMATS = (
    'AgentBeats: {"participants": {"agent": "<white agent URL>"}, "config": {"benchmark": '
    '"tau2" | "crmarena", ...keys named like the `a2abench run` flags}}',
    'CRMArena seed: {"white_agent_url": "<URL>", "task_category": "all", "max_tasks": 5, '
    '"interactive": false, "max_turns": 20, "max_user_turns": 10}',
    'tau2 agentify: <white_agent_url>URL</white_agent_url><env_config>{"domain": "airline", '
    '"task_ids": ["0", "1"]}</env_config> (or tau-bench\'s {"env": "retail", "task_split": '
    '"test", "task_ids": [1]}, ids as positions in the split)',
)

# Run-engine settings a request may choose; everything else is a benchmark option.
# The run settings a request may choose: RunConfig fields declared with option(request=True).
RUN_KEYS = request_keys(RunConfig)
ALIASES = {"num_tasks": "max_tasks"}  # AgentBeats' tau2 scenario says num_tasks
MAX_CONCURRENCY = 64  # task-trials of one assessment in flight on the server's one loop
# The engine plans every task-trial up front; this bounds that plan per request (telecom's
# `full` split, 2,285 tasks, fits 8 trials).
MAX_TASK_TRIALS = 20_000
_SECRET_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd",
                           "credential", "credentials", "authorization"})
# _host, _port: where `run` serves MCP (--mcp-host, --mcp-port); a server binds its own
_SERVER_SUFFIXES = ("_url", "_dir", "_file", "_path", "_db", "_host", "_port")
# What AgentBeats' leaderboard workflow patches into every assessment config (any dialect):
# shard `shard_index` (0-based) of `num_shards`, and at most `num_instances` tasks in all.
SHARD_KEYS = ("shard_index", "num_shards", "num_instances")
_CRM_HINTS = frozenset({"task_category", "org", "dataset", "interactive", "max_turns",
                        "max_user_turns", "crm_db", "backend", "privacy_aware"})


class RequestRejected(ConfigError):
    """The assessment request cannot be run as sent; the message says why and how."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem, hint="Accepted formats: " + " | ".join(ACCEPTED_FORMATS))
        self.problem = problem


@dataclass(frozen=True)
class AssessmentRequest:
    format: Format
    benchmark: str
    white_agent_url: str
    config: dict[str, Any] = field(default_factory=dict)  # keys normalised, aliases applied
    participants: dict[str, str] = field(default_factory=dict)
    role: str = "agent"  # the participant under test: its role name identifies it in Results


def parse_request(texts: list[str], data: list[Any], benchmarks: list[str]) -> AssessmentRequest:
    """The request in a message's text and data parts. Raises RequestRejected."""
    obj = next((d for d in data if isinstance(d, dict)), None)
    text = "\n".join(t for t in texts if t).strip()
    if obj is None and not text:
        raise RequestRejected("the message holds no text and no JSON object")
    if obj is None and ("<white_agent_url>" in text or "<env_config>" in text):
        return _agentify(text, benchmarks)
    if obj is None:
        obj = _json_object(text)
    if "participants" in obj:
        return _agentbeats(obj, benchmarks)
    if "white_agent_url" in obj:
        return _seed(obj, benchmarks)
    raise RequestRejected("the JSON object has neither `participants` (AgentBeats) nor "
                          "`white_agent_url` (CRMArena seed format)")


def _fenced(text: str) -> str | None:
    """The first ``` block's body (str.find, linear: a non-greedy regex is quadratic on
    hostile input with many fences)."""
    start = text.find("```")
    end = text.find("```", start + 3) if start >= 0 else -1
    if end < 0:
        return None
    body = text[start + 3:end]
    return body[4:] if body[:4].lower() == "json" else body


def _json_object(text: str) -> dict[str, Any]:
    fenced = _fenced(text)
    candidate = fenced if fenced is not None else text
    start = candidate.find("{")
    if start < 0:
        raise RequestRejected("the text is not a JSON object and has no <white_agent_url> tag")
    try:
        value, _ = json.JSONDecoder().raw_decode(candidate[start:])
    except ValueError as exc:
        raise RequestRejected(f"the text is not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise RequestRejected("the JSON is not an object")
    return value


def _agentbeats(obj: dict[str, Any], benchmarks: list[str]) -> AssessmentRequest:
    participants = obj.get("participants")
    if not isinstance(participants, dict) or not participants or not all(
            isinstance(v, str) for v in participants.values()):
        raise RequestRejected("`participants` must map roles to agent URLs, e.g. "
                              '{"agent": "http://purple:9019"}')
    if "agent" in participants:
        role = "agent"
    elif len(participants) == 1:
        role = str(next(iter(participants)))
    else:
        raise RequestRejected("`participants` must name the agent under test with the role "
                              f"`agent` (got roles: {', '.join(sorted(participants))})")
    config = obj.get("config") or {}
    if not isinstance(config, dict):
        raise RequestRejected("`config` must be a JSON object")
    config = normalize_keys(config)
    benchmark = config.pop("benchmark", None) or _infer_benchmark(config, benchmarks)
    return AssessmentRequest("agentbeats", _benchmark(benchmark, benchmarks),
                             participants[role], config,
                             {str(k): str(v) for k, v in participants.items()}, role)


def _infer_benchmark(config: dict[str, Any], benchmarks: list[str]) -> str:
    """AgentBeats' stock tau2 scenario sends only `domain`; CRMArena configs name categories."""
    if "domain" in config:
        return "tau2"
    if _CRM_HINTS & config.keys():
        return "crmarena"
    if len(benchmarks) == 1:
        return benchmarks[0]
    raise RequestRejected("`config.benchmark` is missing (one of: " + ", ".join(benchmarks)
                          + ")")


def _seed(obj: dict[str, Any], benchmarks: list[str]) -> AssessmentRequest:
    config = normalize_keys(obj)
    url = config.pop("white_agent_url")
    if not isinstance(url, str):
        raise RequestRejected("`white_agent_url` must be a URL string")
    benchmark = config.pop("benchmark", None) or "crmarena"
    return AssessmentRequest("seed", _benchmark(benchmark, benchmarks), url, config,
                             {"agent": url})


def _agentify(text: str, benchmarks: list[str]) -> AssessmentRequest:
    """Two dialects, told apart by their domain key:

    - tau2's agentify (`domain`, `task_ids`, `max_steps`, `user_llm`, `user_llm_args`): task ids
      are tau2 ids in the `base` split, all of them when `task_ids` is missing, and
      `max_steps` defaults to 100 (upstream's EnvConfig).
    - tau-bench's original agentify, which AgentBeats' tau-bench kickoff sends (`env`,
      `user_strategy`, `user_model`, `user_provider`, `task_split`, `task_ids`): `task_ids`
      are positions in the split's task list (tau-bench's `env.reset(task_index=...)`),
      `task_split` defaults to `test` as in tau-bench's run.py, and `task_ids` is required.
    Without <env_config> the request is rejected, as upstream fails on it.
    """
    url = _tag(text, "white_agent_url")
    raw = _tag(text, "env_config", required=False)
    if not raw:
        raise RequestRejected("<env_config>{...}</env_config> is missing: name at least the "
                              'domain, e.g. <env_config>{"domain": "airline", "task_ids": '
                              '["0", "1"]}</env_config>')
    try:
        env: Any = json.loads(raw)
    except ValueError as exc:
        raise RequestRejected(f"<env_config> is not valid JSON ({exc})") from None
    if not isinstance(env, dict):
        raise RequestRejected("<env_config> must hold a JSON object")
    config = normalize_keys(env)
    strategy = config.pop("user_strategy", "llm")
    if strategy != "llm":
        raise RequestRejected(f"user_strategy {strategy!r} is not supported (only `llm`)")
    # tau-bench passes user_provider to litellm; a2abench always calls the OpenAI-compatible
    # endpoint the operator configured, so the provider name has no use here.
    config.pop("user_provider", None)
    benchmark = config.pop("benchmark", None) or "tau2"
    if "env" in config:  # tau-bench's original dialect
        if "task_ids" not in config:
            raise RequestRejected("`task_ids` is missing: tau-bench's agentify format names "
                                  "the task positions to run, e.g. \"task_ids\": [1]")
        config["task_indexes"] = config.pop("task_ids")
        config.setdefault("task_split", "test")
        config["domain"] = config.pop("env")
    elif benchmark == "tau2":  # tau2's agentify: the base split, upstream's max_steps default
        config.setdefault("split", "base")
        config.setdefault("max_steps", 100)
    for old, new in (("user_model", "user_llm"), ("task_split", "split")):
        if old in config:
            config[new] = config.pop(old)
    if benchmark == "tau2":
        config.setdefault("prompt_style", "agentify")
    return AssessmentRequest("agentify", _benchmark(benchmark, benchmarks), url, config,
                             {"agent": url})


def _tag(text: str, name: str, required: bool = True) -> str:
    """The first <name>...</name>'s body, stripped (as upstream's parse_tags). str.find keeps
    it linear: `<(.*?)>(.*?)</...>` retries from every opening tag, quadratic on hostile input."""
    opening, closing = f"<{name}>", f"</{name}>"
    start = text.find(opening)
    end = text.find(closing, start + len(opening)) if start >= 0 else -1
    if end < 0:
        if required:
            raise RequestRejected(f"<{name}>...</{name}> is missing")
        return ""
    return text[start + len(opening):end].strip()


def _benchmark(name: Any, benchmarks: list[str]) -> str:
    if not isinstance(name, str) or name not in benchmarks:
        raise RequestRejected(f"unknown benchmark {name!r} (this server runs: "
                              f"{', '.join(benchmarks) or 'none'})")
    return name


def normalize_keys(config: dict[str, Any]) -> dict[str, Any]:
    """`--max-tasks` / `max-tasks` / `max_tasks` -> `max_tasks`; aliases applied."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        name = str(key).strip().lstrip("-").replace("-", "_").lower()
        out[ALIASES.get(name, name)] = value
    return out


def secret_keys(value: Any, prefix: str = "") -> list[str]:
    """Keys (dotted paths) that name a secret: `api_key`, `authToken`, `password`, ..."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            path = f"{prefix}{key}"
            words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(key)).lower()
            if _SECRET_WORDS & set(re.split(r"[^a-z0-9]+", words)) or any(
                    w in words.replace("_", "") for w in ("apikey", "accesstoken")):
                found.append(path)
            found.extend(secret_keys(inner, path + "."))
    elif isinstance(value, list):
        for item in value:
            found.extend(secret_keys(item, prefix))
    return found


def server_only(model: type[BaseModel]) -> set[str]:
    """Options only the operator may set: paths on the server and LLM endpoints (the server's
    API key is sent there)."""
    return {name for name, info in model.model_fields.items()
            if name.endswith(_SERVER_SUFFIXES) or _mentions_path(info.annotation)}


def _mentions_path(annotation: Any) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, type) and issubclass(annotation, Path):
        return True
    return get_origin(annotation) is not None and any(_mentions_path(a)
                                                      for a in get_args(annotation))


@dataclass
class Planned:
    config: RunConfig
    driver: Driver
    task_indexes: list[Any] | None = None  # tau-bench agentify: positions in the split


def plan_run(request: AssessmentRequest, settings: GreenSettings, task_id: str) -> Planned:
    """The RunConfig and driver for a request: presets under the request, the checks of the
    house applied (secrets, server-only options, allowed hosts). Raises RequestRejected."""
    from a2abench.run import build_driver
    from a2abench.run.registry import get_driver

    try:
        check_http_url(request.white_agent_url, "the white agent URL")
        # Every participant through the operator's participant proxy, if any: the URLs
        # reached, and the hosts @participants allows, are the proxy's.
        request = dataclasses.replace(
            request, white_agent_url=settings.participant_url(request.white_agent_url),
            participants={pid: settings.participant_url(url)
                          for pid, url in request.participants.items()})
    except ConfigError as exc:
        raise RequestRejected(exc.message) from None
    explicit = [p for p in settings.allow_hosts if p != PARTICIPANTS]
    if not HostPolicy(explicit).allows(request.white_agent_url):
        raise RequestRejected(f"the white agent {request.white_agent_url!r} is not on this "
                              "server's allowed hosts (serve-green --allow-host)")
    secrets = secret_keys(request.config)
    if secrets:
        raise RequestRejected(f"config keys that look like secrets are refused: "
                              f"{', '.join(secrets)}; credentials come from the server's "
                              "environment only")
    cls = get_driver(request.benchmark)
    request_config = shard_config(dict(request.config))
    indexes = request_config.pop("task_indexes", None)
    baseline = earlier_run(request_config.pop("baseline", None), settings.output_dir)
    if indexes is not None and not isinstance(indexes, list):
        indexes = [indexes]
    bound = caps.Bound(settings.caps, request.benchmark, cls.options_model, RunConfig, RUN_KEYS)
    lowered = bound.defaults({*settings.presets.get(request.benchmark, {}), *request_config})
    run_keys, options = _split(dataclasses.replace(request, config=request_config), cls,
                               settings, lowered)
    try:  # a multi-party request's other participants (green/roles.py)
        others = other_participants(request.participants, request_config, cls, settings)
    except RolesRejected as exc:
        raise RequestRejected(exc.message) from None
    try:
        config = RunConfig(benchmark=request.benchmark, white_agent_url=request.white_agent_url,
                           options=options, baseline=baseline, participant=others, **run_keys)
    except ValidationError as exc:
        ranges = _server_ranges(settings)
        _over_range(exc, ranges)
        raise RequestRejected("invalid config: " + _problems(exc, lambda key: (
            f" (this server's range: {ranges[key][0]:g}..{ranges[key][1]:g})"
            if key in ranges else ""))) from None
    check_limits(config, settings)
    try:
        driver = build_driver(config)
        driver.lineup = seat(config, driver)  # which built-in partners it must be able to play
    except ConfigError as exc:
        raise RequestRejected(exc.message) from None
    over = bound.problem(lambda key: getattr(config if key in RUN_KEYS else driver.options, key))
    if over is not None:
        raise RequestRejected(over)
    config.output = output_path(settings.output_dir, request.benchmark, driver.domain, task_id)
    # The allowed hosts bind every request of the run, not just the URL asked for: the
    # agent's card, its interfaces and any redirect.
    config.allowed_hosts = explicit + (participant_hosts(
        request.participants.values() or [request.white_agent_url])
        if PARTICIPANTS in settings.allow_hosts else [])
    config.ca_cert = settings.ca_cert  # the operator's trust, never a request's
    return Planned(config, driver, indexes)


def earlier_run(value: Any, root: Path) -> Path | None:
    """The `baseline` key: the A2A task id of an earlier assessment on this server, whose
    metrics (in its own directory under the server's output directory) an A/B run replays.
    Never a path: a request must not name files on the server."""
    if value is None:
        return None
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9-]{8,64}", value):
        raise RequestRejected("`baseline` must be the task id of an earlier assessment on "
                              f"this server (letters, digits and '-'), not {str(value)[:40]!r}")
    suffix = "_" + value[:8]  # output_path() names a run's directory after its task id
    found = sorted(p for p in root.glob(f"*{suffix}") if p.name.endswith(suffix)
                   and (p / "metrics.jsonl").is_file()) if root.is_dir() else []
    if len(found) != 1:
        what = "no earlier assessment" if not found else "more than one assessment"
        raise RequestRejected(f"`baseline` {value!r}: {what} with that task id on this server")
    return found[0] / "metrics.jsonl"


def _over_range(exc: ValidationError, ranges: dict[str, tuple[float, float]]) -> None:
    """A value over the model's own ceiling (e.g. concurrency 10000 > 1000) is over this
    server's range too: say it as check_limits does."""
    for error in exc.errors():
        key = str(error["loc"][0]) if error["loc"] else ""
        if error["type"] != "less_than_equal" or key not in ranges:
            continue
        try:
            value = float(error["input"])
        except (TypeError, ValueError):
            continue
        low, high = ranges[key]
        raise RequestRejected(f"{key} {value:g} is outside {low:g}..{high:g} "
                              "(this server's limits)")


def _whole(key: str, value: Any, low: int) -> int:
    """A whole number >= low; a DataPart carries 2 as 2.0 and jq may write "2"."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise RequestRejected(f"`{key}` must be a whole number >= {low} (got {value!r})")
    return value


def shard_config(config: dict[str, Any]) -> dict[str, Any]:
    """The workflow's shard keys as the run engine's: `shard_index` i (0-based) of
    `num_shards` n is `--shard i+1/n` (the same round-robin split over task-trials, so n
    shards hold every task-trial once), `num_instances` caps the tasks like `max_tasks`."""
    index, count = config.pop("shard_index", None), config.pop("num_shards", None)
    instances = config.pop("num_instances", None)
    if index is not None or count is not None:
        if "shard" in config:
            raise RequestRejected("send either `shard` (\"I/N\", 1-based) or `shard_index` "
                                  "and `num_shards`, not both")
        count = _whole("num_shards", 1 if count is None else count, 1)
        index = _whole("shard_index", 0 if index is None else index, 0)
        if index >= count:
            raise RequestRejected(f"`shard_index` {index} is not below `num_shards` {count} "
                                  "(shards are numbered 0..num_shards-1)")
        if count > 1:  # one shard is the whole run (adaptive runs refuse real shards)
            config["shard"] = Shard(index=index + 1, count=count)
    if instances is not None:
        instances = _whole("num_instances", instances, 1)
        current = config.get("max_tasks")
        config["max_tasks"] = instances if current is None else min(
            instances, _whole("max_tasks", current, 1))
    return config


# Limits on the values as the run engine will use them (after coercion: "10000" is 10000).
_RANGES: dict[str, tuple[float, float]] = {
    "concurrency": (1, MAX_CONCURRENCY), "max_tasks": (1, 1_000_000), "timeout": (0.001, 3600),
    "retries": (0, 10), "retry_delay": (0, 60), "rate_limit": (0.001, 1000),
    "task_timeout": (0.001, 24 * 3600), "max_consecutive_failures": (1, 1_000_000),
}


def _server_ranges(settings: GreenSettings) -> dict[str, tuple[float, float]]:
    return {**_RANGES, "num_trials": (1, settings.max_trials)}


def check_limits(config: RunConfig, settings: GreenSettings) -> None:
    """Every run setting within the server's bounds, whatever JSON type carried it."""
    for name, (low, high) in _server_ranges(settings).items():
        value = getattr(config, name)
        if value is None:
            continue
        if not low <= value <= high:
            limit = "--max-trials" if name == "num_trials" else "this server's limits"
            raise RequestRejected(f"{name} {value:g} is outside {low:g}..{high:g} "
                                  f"({limit})")


async def check_tasks(planned: Planned) -> None:
    """Load the benchmark's tasks once, before the assessment starts: tau-bench positions
    become task ids, and ids that are not in the chosen split are a bad request (rejected,
    with the valid ids), not a failed run. Raises RequestRejected."""
    driver, config = planned.driver, planned.config
    try:
        await driver.setup()
        ids = [t.task_id for t in driver.tasks()]
    except ConfigError as exc:  # e.g. an unknown split, no user simulator configured
        raise RequestRejected(exc.render()) from None

    async def done() -> None:  # the engine calls setup() again; the data is loaded already
        return None

    setattr(driver, "setup", done)  # noqa: B010 (an instance attribute shadows the method)
    split = config.options.get("split")
    where = f"split {split!r}" if split else "this benchmark"
    if planned.task_indexes is not None:
        config.task_ids = [_position(i, ids, where) for i in planned.task_indexes] or None
    missing = [t for t in config.task_ids or [] if t not in set(ids)]
    if missing:
        raise RequestRejected(f"task id(s) not in {where}: {', '.join(missing[:10])}; valid "
                              f"ids: {_listing(ids)}")
    tasks = len(set(config.task_ids)) if config.task_ids else len(ids)
    if config.max_tasks is not None:
        tasks = min(tasks, config.max_tasks)
    matches = pairings(config, driver)  # a multi-party run plays each on every task-trial
    if tasks * config.num_trials * matches > MAX_TASK_TRIALS:
        each = f" × {matches} pairings" if matches > 1 else ""
        raise RequestRejected(f"{tasks} tasks × {config.num_trials} trials{each} is over this "
                              f"server's limit of {MAX_TASK_TRIALS} task-trials per assessment; "
                              "choose fewer tasks (max_tasks, task_ids) or trials")


def _position(value: Any, ids: list[str], where: str) -> str:
    """tau-bench's agentify counts integers as positions; a string is a task id, as it is
    everywhere else ("9" is retail task 9, never the task at position 9)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # a DataPart carries numbers as doubles
    if isinstance(value, str):
        if value in ids:
            return value
        raise RequestRejected(f"task id {value!r} is not in {where} (a string is a task id; "
                              f"give an integer for a position); its ids: {_listing(ids)}")
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < len(ids):
        raise RequestRejected(f"task index {value!r} is not a position in {where} (0 to "
                              f"{len(ids) - 1}; tau-bench's agentify format counts positions, "
                              f"not ids); its ids in order: {_listing(ids)}")
    return ids[value]


def _listing(ids: list[str], limit: int = 20) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f", … ({len(ids)} in all)" if len(ids) > limit else "")


def _split(request: AssessmentRequest, cls: type[Driver], settings: GreenSettings,
           lowered: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run keys and options: the request over the operator's defaults (`--option`) over
    the defaults a cap lowered."""
    fields = set(cls.options_model.model_fields)
    reserved = server_only(cls.options_model)
    refused = sorted(reserved & request.config.keys())
    if refused:
        raise RequestRejected(f"{', '.join(refused)} can only be set by the server operator "
                              f"(serve-green --option {request.benchmark}.{refused[0]}=...)")
    unknown = sorted(request.config.keys() - fields - RUN_KEYS)
    if unknown:
        accepted = ", ".join(sorted((fields - reserved) | RUN_KEYS | set(SHARD_KEYS)))
        raise RequestRejected(f"unknown config key(s) for {request.benchmark}: "
                              f"{', '.join(unknown)} (accepted: {accepted})")
    preset = settings.presets.get(request.benchmark, {})
    for key, value in request.config.items():
        in_force = preset.get(key, _default(cls.options_model, key))
        # Judge what the run will use: `user_llm_args` sent as a JSON string is an object.
        _check_narrowing(key, _parsed(cls.options_model, key, value),
                         _parsed(cls.options_model, key, in_force), settings)
    merged = {**lowered, **preset, **request.config}
    run = {k: v for k, v in merged.items() if k in RUN_KEYS}
    options = {k: v for k, v in merged.items() if k not in RUN_KEYS}
    return _coerce_run(run), options


def _parsed(model: type[BaseModel], key: str, value: Any) -> Any:
    """`value` as the options model will hold it (as given when it does not validate: the
    options' own validation then refuses the request)."""
    if key not in model.model_fields:
        return value
    try:
        return caps.as_field(model, key, value)
    except ValidationError:
        return value


def _default(model: type[BaseModel], key: str) -> Any:
    info = model.model_fields.get(key)
    return None if info is None else info.get_default(call_default_factory=True)


def _check_narrowing(key: str, value: Any, in_force: Any, settings: GreenSettings) -> None:
    """A request may narrow what the operator set, never widen it: models, LLM arguments and
    the CRM backend (each spends the operator's key or credentials) stay as the operator set
    them, unless --allow-model / --allow-llm-arg open them."""
    if value == in_force:
        return
    if key.endswith("_llm"):
        if value in settings.allow_models or value == "offline":  # offline: no model at all
            return
        allowed = ", ".join(settings.allow_models) or "none"
        raise RequestRejected(f"{key} {value!r} is not this server's model ({in_force!r}); "
                              f"models a request may choose (serve-green --allow-model): "
                              f"{allowed}")
    if key.endswith("_llm_args") and isinstance(value, dict):
        current = in_force if isinstance(in_force, dict) else {}
        extra = sorted(k for k, v in value.items()
                       if k not in settings.allow_llm_args and current.get(k, _UNSET) != v)
        if extra:
            raise RequestRejected(f"{key}: {', '.join(extra)} can only be set by the server "
                                  "operator (serve-green --allow-llm-arg to open one)")
    elif key == "backend" and value != "sandbox":  # the sandbox reaches nothing outside
        raise RequestRejected(f"backend {value!r} can only be chosen by the server operator "
                              f"(serve-green --option <benchmark>.backend=...)")


_UNSET = object()


def _coerce_run(run: dict[str, Any]) -> dict[str, Any]:
    if "task_ids" in run:
        ids = run["task_ids"]
        ids = ids if isinstance(ids, list) else [ids]
        # A DataPart carries numbers as doubles: task 3 arrives as 3.0.
        run["task_ids"] = [str(int(i)) if isinstance(i, float) and i.is_integer() else str(i)
                           for i in ids] or None
    if isinstance(run.get("shard"), str):
        try:
            run["shard"] = Shard.parse(run["shard"])
        except ConfigError as exc:
            raise RequestRejected(exc.message) from None
    return run


def _problems(exc: ValidationError, note: Callable[[str], str] = lambda key: "") -> str:
    """Pydantic's errors as `key: message` (plus `note(key)`), joined."""
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'config'}: {e['msg']}"
                     f"{note(str(e['loc'][0])) if e['loc'] else ''}" for e in exc.errors())


def output_path(root: Path, benchmark: str, domain: str | None, task_id: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    name = "_".join(p for p in (stamp, benchmark, domain, task_id[:8]) if p)
    return root / name / "metrics.jsonl"
