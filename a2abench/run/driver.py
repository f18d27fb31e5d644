"""The interface between the run engine and a benchmark.

A benchmark is a `Driver` subclass registered under the `a2abench.benchmarks` entry-point
group. It loads and filters its tasks, and runs one task-trial against the agent, returning a
`TaskOutcome`. The engine owns everything else: concurrency, retries, records, resume, shards.

    class MyBench(Driver[MyOptions]):      # MyOptions: the pydantic model of its options
        name = "mybench"

        def tasks(self) -> list[TaskSpec]: ...
        async def run_task(self, ctx: TaskContext) -> TaskOutcome: ...
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypeVar

from a2abench.errors import ConfigError, ProtocolError, foreign_errors_as
from a2abench.net.download import RemoteFile
from a2abench.net.limits import DEFAULT_MAX_REPLY_BYTES
from a2abench.run.events import EventSink
from a2abench.run.records import ErrorInfo, Scoring, TaskRecord, TaskStatus
from a2abench.run.roles import AGENT, Lineup, Pairing, Participant, Scenario
from a2abench.run.tracebacks import format_exc

if TYPE_CHECKING:
    from a2abench.a2a import A2AClient, Conversation
    from a2abench.mcp.channel import McpChannel


# The options model of a driver. Covariant with a default so that `Driver` alone means "any
# driver" (the registry, the engine) while `Driver[MyOptions]` types `self.options`.
OptionsT = TypeVar("OptionsT", bound=BaseModel, default=BaseModel, covariant=True)

# Terminations the engine itself records; a benchmark adds its own (tau2's TerminationReason,
# CRMArena's Termination), so `TaskOutcome.termination` stays a string.
EngineTermination = Literal["task_timeout", "agent_error", "infrastructure_error",
                            "harness_error"]


@dataclass(frozen=True)
class TaskSpec:
    """One task as the engine sees it; `data` is the benchmark's own object."""

    task_id: str
    domain: str | None = None
    category: str | None = None
    data: Any = field(default=None, compare=False, repr=False)


@dataclass
class LLMUsage:
    """LLM tokens and cost spent inside one task-trial (user simulator, judge)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    calls: int = 0
    # The same, per role ("user_simulator", "judge") when callers name one.
    by_role: dict[str, LLMUsage] = field(default_factory=dict)

    def add(self, prompt: int, completion: int, cost: float | None,
            role: str | None = None) -> None:
        self.calls += 1
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        if cost is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost
        if role is not None:
            self.by_role.setdefault(role, LLMUsage()).add(prompt, completion, cost)

    def roles(self) -> dict[str, dict[str, Any]]:
        """Per-role usage as JSON for a task record's details."""
        return {role: {"prompt_tokens": u.prompt_tokens,
                       "completion_tokens": u.completion_tokens, "cost_usd": u.cost_usd,
                       "calls": u.calls} for role, u in self.by_role.items()}


@dataclass
class TaskContext:
    """What a driver gets to run one task-trial (in a multi-party run, one match: the
    `pairing` seats a participant per role, docs/multi-agent.md)."""

    task: TaskSpec
    trial: int
    seed: int
    client: A2AClient
    usage: LLMUsage = field(default_factory=LLMUsage)
    pairing: Pairing | None = None  # None: a single-agent run
    seats: dict[str, Participant] = field(default_factory=dict)  # role -> who sits there
    clients: dict[str, A2AClient] = field(default_factory=dict)  # remote participants by id

    def seat(self, role: str) -> Participant | None:
        """Who plays `role` in this match (None in a single-agent run): a remote
        participant (`url`) or a partner the driver plays itself (`builtin`)."""
        return self.seats.get(role)

    def conversation(self, *, raise_for_state: bool = True, role: str = AGENT
                     ) -> Conversation:
        """A fresh A2A conversation (one contextId per task-trial) with the agent, or with
        the participant seated in `role`. A reply whose A2A task failed raises
        `ProtocolError` (scored as the agent's error) unless `raise_for_state=False`; with
        another role's participant every failure is its `Forfeit` instead."""
        seat = self.seats.get(role)
        if seat is None:
            if role != AGENT:
                raise RuntimeError(f"no {role} seat in this task-trial")
            return self.client.conversation(raise_for_state=raise_for_state)
        from a2abench.run.match import ParticipantConversation, client_for

        client = client_for(self.clients, seat.id)
        if role == AGENT:
            return client.conversation(raise_for_state=raise_for_state)
        return ParticipantConversation(client, role, seat.id, raise_for_state=raise_for_state)


class TaskOutcome(BaseModel):
    """A driver's verdict on one task-trial. Failures are outcomes too, never exceptions
    swallowed: a malformed agent reply is `status="agent_error"` with reward 0."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    status: TaskStatus = "ok"
    reward: float | None = 0.0
    success: bool | None = None  # default: reward == 1 (tau2's rule)
    reward_components: dict[str, Any] = Field(default_factory=dict)
    labels: list[str] = Field(default_factory=list)
    termination: str | None = None
    turns: int = 0
    tool_calls: int = 0
    transcript: list[dict[str, Any]] | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    error: ErrorInfo | None = None
    # Multi-party matches (docs/multi-agent.md): the role that forfeited (status "forfeit";
    # the agent's own failures are agent errors), each role's result when the match is not
    # cooperative (None: the reward, shared), and rule violations found per role
    # ({"user": [{"kind": ..., "message": ...}]}).
    forfeit: str | None = None
    role_scores: dict[str, float | None] | None = None
    violations: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)


@contextmanager
def agent_input(what: str) -> Iterator[None]:
    """Wrap code that processes what the agent sent (`what`: "reply", "tool call X", …).

    Whatever such code raises is the agent's failure, scored 0, never a harness bug: an agent
    must not be able to drop its own failures from the score by sending input that makes
    a2abench raise (JSON nested 900 deep, 4,000-digit numbers, 5,000 nested NOTs).
    """
    whose = f"the agent's {_bare(what)}"
    with foreign_errors_as(lambda summary: ProtocolError(
            f"a2abench could not process {whose} ({summary})",
            hint="Scored as an agent error.")):
        yield


_OWNERS = ("the agent's ", "agent's ", "the ")


def _bare(what: str) -> str:
    """`what` without a leading "the agent's" or "the": `agent_input("the agent's answer")`,
    named as `loads(..., what=...)` names it, reads "the agent's answer", not twice."""
    lowered = what.lower()
    for owner in _OWNERS:
        if lowered.startswith(owner):
            return what[len(owner):]
    return what


def evaluator_failure(exc: Exception, quirk: str) -> ErrorInfo:
    """ErrorInfo for a benchmark evaluator that raised on a finished conversation.

    `quirk` names the upstream behaviour (upstream's evaluator raises too)."""
    return ErrorInfo(error=type(exc).__name__, kind="evaluator",
                     message=f"{str(exc)[:500] or 'no message'} ({quirk})",
                     hint="Scored 0: the evaluator cannot judge what the agent left behind.",
                     traceback=format_exc())


def _options_argument(cls: type) -> type[BaseModel] | None:
    """The model in `class X(Driver[Model])` (or a generic Driver subclass), if any."""
    for base in cls.__dict__.get("__orig_bases__", ()):
        origin, args = get_origin(base), get_args(base)
        if (isinstance(origin, type) and issubclass(origin, Driver) and args
                and isinstance(args[0], type) and issubclass(args[0], BaseModel)):
            return args[0]
    return None


@dataclass(frozen=True)
class DataSet:
    """A group of pinned files a benchmark needs, cached together under the user cache's
    `folder`: what `a2abench data pull` fetches ahead of a run and `data status` checks.
    `large` sets (CRMArena's org dumps) are left out by `data pull --no-org-dbs`. `layout`,
    on the set laid out as the benchmark's reference copy (what its tests read), is the
    subfolder of `folder` that copy starts at ("" for `folder` itself)."""

    name: str
    folder: str
    files: tuple[RemoteFile, ...]
    purpose: str
    large: bool = False
    layout: str | None = None


@dataclass(frozen=True)
class Skill:
    """How serve-green's agent card offers a benchmark: a title, what it does and which
    config keys a request may set, search tags, and example configs (each becomes an
    example request naming the benchmark)."""

    title: str
    description: str
    tags: tuple[str, ...] = ()
    examples: tuple[dict[str, Any], ...] = ({},)


Exporter = Callable[[Iterator[dict[str, Any]], dict[str, Any]], str]

@dataclass(frozen=True)
class ExportResult:
    """What an export writer tells the user (on stderr): warnings, then what it wrote."""

    lines: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


# write(metrics files, --output, the format's options) -> ExportResult | None, sync or async.
ExportWriter = Callable[[list[Path], "Path | None", Any],
                        "Awaitable[ExportResult | None] | ExportResult | None"]


@dataclass(frozen=True)
class ExportFormat:
    """A `report --format` that writes what a benchmark's leaderboard takes (a directory,
    several files) from the records, with options of its own: each field of `options` (a
    pydantic model) becomes a `report` flag, as run flags come from an options model (a
    plugin's are set with `--format-option KEY=VALUE`)."""

    name: str
    options: type[BaseModel]
    write: ExportWriter
    help: str = ""


class Driver(ABC, Generic[OptionsT]):
    """Base class of benchmark drivers, generic over their options model.

    Subclasses set `name`; the type argument is the options model (`options_model`, set from
    it: the engine validates the run's options with it before constructing the driver).
    """

    name: ClassVar[str] = ""
    options_model: ClassVar[type[BaseModel]] = BaseModel
    scoring: ClassVar[Scoring] = Scoring()
    # `a2abench run <name> --help`: what the command does, and one example command line.
    help: ClassVar[str] = ""
    example: ClassVar[str] = ""
    # serve-green's card skill for this benchmark (None: a generic one naming the plugin).
    skill: ClassVar[Skill | None] = None
    # Multi-party scenarios the benchmark plays besides the single agent (docs/multi-agent.md):
    # their roles and built-in reference partners; () = one agent only.
    scenarios: ClassVar[tuple[Scenario, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = _options_argument(cls)
        if declared is None:
            return
        if "options_model" in cls.__dict__ and cls.__dict__["options_model"] is not declared:
            raise TypeError(f"{cls.__name__}: Driver[{declared.__name__}] already declares the "
                            f"options model; drop options_model = "
                            f"{cls.__dict__['options_model'].__name__}")
        cls.options_model = declared

    def __init__(self, options: OptionsT) -> None:
        self.options: OptionsT = options
        # The engine's event sink, set before `setup()` so a driver can report a data
        # download (`DataProgress`); call it on the event loop's thread only.
        self.emit: EventSink | None = None
        # The run's --max-reply-bytes, set before `setup()`: pass it to `build_llm` so the
        # LLM clients a driver builds refuse replies over the same cap as the agent's.
        self.max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
        # A multi-party run's participants and pairings, set before `setup()` (None: one
        # agent): a driver checks it can play the built-in partners the pairings seat.
        self.lineup: Lineup | None = None

    @property
    def domain(self) -> str | None:
        """Domain (tau2) or org (CRMArena) shown in reports and the default output path."""
        return None

    async def setup(self) -> None:
        """Load data (may download). Called once before `tasks()`."""

    @abstractmethod
    def tasks(self) -> list[TaskSpec]:
        """The benchmark's tasks after its own filters, in a stable order."""

    @abstractmethod
    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        """Run one task-trial against the agent and score it."""

    def unknown_tasks(self, task_ids: list[str]) -> ConfigError | None:
        """Why `--task-ids` names ids that `tasks()` does not hold, when the benchmark knows
        better than "unknown" (tasks outside a scenario's selection); None: the engine's
        generic error."""
        return None

    def manifest(self) -> dict[str, Any]:
        """Data source and models for the `run` record: {"data": {...}, "models": {...}}."""
        return {"data": {}, "models": {}}

    def compat(self) -> dict[str, Any]:
        """Options that must match for --resume and shard merging (default: all options)."""
        return self.options.model_dump(mode="json")

    async def aclose(self) -> None:
        """Release resources (LLM clients, databases)."""

    def mcp_channel(self) -> McpChannel | None:
        """The `McpChannel` the driver serves its tools on with `--tool-channel mcp` (None:
        none). serve-green attaches its own endpoint to it; the run record's `tool_channel`
        says "mcp" when it is enabled."""
        return None

    # -- optional hooks used by `report` ----------------------------------------------------

    async def rescore(self, record: TaskRecord) -> TaskRecord | None:
        """Re-score one recorded `ok` task-trial from its transcript (same task-trial, same
        status: anything else is refused); None if not supported."""
        return None

    @classmethod
    def data_sets(cls) -> list[DataSet]:
        """The pinned data `a2abench data pull <name>` fetches ahead of a run (none: the
        benchmark downloads nothing, or does it itself)."""
        return []

    @classmethod
    def exporters(cls) -> dict[str, Exporter]:
        """Extra `report --format` renderers: name -> fn(task records, run record) -> text."""
        return {}

    @classmethod
    def export_formats(cls) -> list[ExportFormat]:
        """`report --format` writers with options of their own (tau2's leaderboard
        submission); the built-ins' options become `report` flags in the generated table."""
        return []
