"""Flag groups shared by every `run <benchmark>` command, declared once.

`@run_flags` adds the harness flags (agent, selection, trials, output, resume, shards, limits,
gate) to a command and hands them over as one `RunFlags`; `@llm_flags` adds the user-simulator
and judge flags as a dict of benchmark options. The commands then declare only their own flags.
"""

import functools
import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from a2abench.cli import _common as c


@dataclass(frozen=True)
class RunFlags:
    white_agent_url: str
    task_ids: list[str] | None
    max_tasks: int | None
    num_trials: int
    concurrency: int
    seed: int
    output: Path | None
    resume: bool
    retry_errors: bool
    shard: str | None
    rate_limit: float | None
    max_consecutive_failures: int
    retries: int
    retry_delay: float
    auth_token: str | None
    timeout: float
    transport: str | None
    streaming: bool
    task_timeout: float | None
    max_reply_bytes: int
    allow_host: list[str] | None
    fail_under: float | None
    allow_incomplete: bool
    json_: bool

    def engine_kwargs(self) -> dict[str, Any]:
        """Everything but --json and the gate, named like `common_config`'s keywords."""
        out = asdict(self)
        out.pop("json_")
        out.pop("allow_incomplete")
        return out


def _run_params(
    white_agent_url: c.WhiteAgentUrl,
    task_ids: c.TaskIds = None,
    max_tasks: c.MaxTasks = None,
    num_trials: c.NumTrials = 1,
    concurrency: c.Concurrency = 4,
    seed: c.Seed = 300,
    output: c.OutputPath = None,
    resume: c.Resume = False,
    retry_errors: c.RetryErrors = False,
    shard: c.Shard = None,
    rate_limit: c.RateLimit = None,
    max_consecutive_failures: c.MaxConsecutiveFailures = 5,
    retries: c.Retries = 3,
    retry_delay: c.RetryDelay = 0.5,
    auth_token: c.AuthToken = None,
    timeout: c.Timeout = 300.0,
    transport: c.Transport = None,
    streaming: c.Streaming = False,
    task_timeout: c.TaskTimeout = None,
    max_reply_bytes: c.MaxReplyBytes = 16_000_000,
    allow_host: c.AllowHost = None,
    fail_under: c.FailUnder = None,
    allow_incomplete: c.AllowIncomplete = False,
    json_: c.JsonFlag = False,
) -> None:
    """The shared run flags, as a signature to graft onto commands."""


def _llm_params(
    user_llm: c.UserLLM = None,
    user_llm_base_url: c.UserLLMBaseUrl = None,
    user_llm_args: c.UserLLMArgs = None,
    judge_llm: c.JudgeLLM = None,
    judge_llm_base_url: c.JudgeLLMBaseUrl = None,
    llm_cache: c.LLMCache = True,
) -> None:
    """The shared LLM flags (user simulator and judge)."""


def _graft(fn: Callable[..., Any], donor: Callable[..., Any], target: str,
           pack: Callable[[dict[str, Any]], Any], *, first: int = 0) -> Callable[..., Any]:
    """`fn` with `donor`'s parameters added; they arrive packed into `fn`'s `target`.

    Typer reads the resulting `__signature__`; `first` donor parameters go before `fn`'s own.
    """
    shared = list(inspect.signature(donor, eval_str=True).parameters.values())
    own = [p for p in inspect.signature(fn, eval_str=True).parameters.values()
           if p.name != target]
    merged = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
              for p in [*shared[:first], *own, *shared[first:]]]
    names = {p.name for p in shared}

    @functools.wraps(fn)
    def command(**kwargs: Any) -> Any:
        group = {k: kwargs.pop(k) for k in list(kwargs) if k in names}
        return fn(**kwargs, **{target: pack(group)})

    grafted: Any = command  # functools.wraps' type declares no __signature__; inspect reads it
    grafted.__signature__ = inspect.Signature(merged)
    command.__annotations__ = {p.name: p.annotation for p in merged}
    return command


def run_flags(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add the shared run flags; the command receives them as `flags: RunFlags`."""
    return _graft(fn, _run_params, "flags", lambda group: RunFlags(**group), first=1)


def llm_flags(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add the user-simulator and judge flags; the command receives them as `llm: dict`."""
    return _graft(fn, _llm_params, "llm", dict)
