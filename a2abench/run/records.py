"""The metrics.jsonl record schema (docs/design.md §4), written by `run`, read by `report`.

One JSON object per line, `type` first. Readers skip lines they cannot use; `schema_version`
lets a future reader refuse what it does not understand.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from a2abench.a2a.metrics import ProtocolMetrics

# Re-exported: status values and the success rule live in run/status.py (no pydantic there).
from a2abench.run.status import SCORED_STATUSES as SCORED_STATUSES
from a2abench.run.status import SUCCESS_EPS as SUCCESS_EPS
from a2abench.run.status import UNSCORED_STATUSES as UNSCORED_STATUSES
from a2abench.run.status import Counts
from a2abench.run.status import TaskStatus as TaskStatus
from a2abench.run.status import is_success as is_success

SCHEMA_VERSION = 1

Headline = Literal["mean_reward", "macro_category_mean"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")
    schema_version: int = SCHEMA_VERSION
    run_id: str


class Scoring(BaseModel):
    """How `report` turns task rewards into the headline score of a benchmark."""

    headline: Headline = "mean_reward"
    description: str = "mean reward over task-trials"
    # Named groups of categories scored apart and left out of the headline, e.g.
    # CRMArena-Pro's {"confidentiality": [the three privacy categories]}.
    separate: dict[str, list[str]] = Field(default_factory=dict)


class RunRecord(_Record):
    type: Literal["run"] = "run"
    a2abench_version: str
    benchmark: str
    domain: str | None = None
    config: dict[str, Any]  # secrets removed
    compat_key: dict[str, Any]  # what must match for --resume and shard merging
    data: dict[str, Any] = Field(default_factory=dict)  # source, commit, sha256 …
    models: dict[str, Any] = Field(default_factory=dict)  # user simulator, judge
    scoring: Scoring = Field(default_factory=Scoring)
    shard: tuple[int, int] | None = None  # (index, count), 1-based
    planned: int = 0  # task-trials in this run's share (before resume skips)
    # The same share by domain and category: [{domain, category, task_trials}].
    plan_counts: list[dict[str, Any]] | None = None
    skipped: int = 0  # already recorded when resuming
    resumed: bool = False
    started_at: str
    # The A2A interface used: binding, dialect, url, streaming (absent in runs before 0.2).
    interface: dict[str, Any] | None = None
    # Where the agent found its tools: in its A2A messages, or over MCP (`Driver.mcp_channel`).
    tool_channel: Literal["a2a", "mcp"] = "a2a"
    # An adaptive run's plan (run/adaptive): mode, confidence, strata and their weights.
    adaptive: dict[str, Any] | None = None


class RequestRecord(_Record, ProtocolMetrics):
    """One A2A request attempt (every ProtocolMetrics field) and the task-trial it served."""

    type: Literal["request"] = "request"
    task_id: str | None = None
    trial: int | None = None


class ErrorInfo(BaseModel):
    error: str  # class name
    kind: str
    message: str
    hint: str | None = None
    traceback: str | None = None  # harness bugs, evaluator errors, unprocessable replies


class TaskRecord(_Record):
    type: Literal["task"] = "task"
    benchmark: str
    domain: str | None = None
    category: str | None = None
    task_id: str
    trial: int
    seed: int
    status: TaskStatus
    reward: float | None = None  # None only for unscored statuses (infrastructure, harness)
    success: bool = False
    reward_components: dict[str, Any] = Field(default_factory=dict)
    labels: list[str] = Field(default_factory=list)  # e.g. "offline", "nl_skipped"
    termination: str | None = None
    turns: int = 0
    tool_calls: int = 0
    latency_ms: float = 0.0
    agent_latency_ms: float = 0.0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    llm_prompt_tokens: int = 0
    llm_completion_tokens: int = 0
    cost_usd: float | None = None
    error: ErrorInfo | None = None
    transcript: list[dict[str, Any]] | None = None
    details: dict[str, Any] = Field(default_factory=dict)  # benchmark-specific extras
    adaptive: dict[str, Any] | None = None  # an adaptive run's {stratum, rank} of this one
    started_at: str
    finished_at: str

    @property
    def key(self) -> tuple[str, str | None, str, int]:
        return (self.benchmark, self.domain, self.task_id, self.trial)


class RunEndRecord(_Record):
    type: Literal["run_end"] = "run_end"
    status: Literal["completed", "interrupted", "aborted"]
    finished_at: str
    duration_s: float
    counts: Counts  # the run's task-trials by outcome (run/status.py)
    score: float | None = None
    reason: str | None = None
    # An adaptive run's stop: reason, n of N, the confidence sequence's bounds, decision.
    adaptive: dict[str, Any] | None = None
