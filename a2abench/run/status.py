"""Task-trial status: its values, the scoring rule, what a task record may hold
(`record_problem`: records may be forged) and the one set of run counters.

Every place that counts task-trials (engine progress, the `run_end` record, `RunSummary`,
report groups and warnings, serve-green's result and status page) uses `Counts`, so a new
status is added here once. No heavy imports: the display and the CLI read it too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Literal

TaskStatus = Literal["ok", "agent_error", "evaluator_error", "infrastructure_error",
                     "harness_error", "forfeit"]
# Statuses that enter the score. `evaluator_error` (the benchmark's own evaluator raised on
# what the agent did, e.g. tau2's env assertion on a task the agent never created) counts as
# reward 0: leaving it out would raise the score of every agent that fails that task.
SCORED_STATUSES: tuple[str, ...] = ("ok", "agent_error", "evaluator_error")
# Not scored: the score is then incomplete (report says so; --fail-under refuses it).
# `forfeit`: in a multi-party match, a participant other than the agent timed out, answered
# malformed or crashed (docs/multi-agent.md): kept and counted against it, and the agent,
# whom nobody could judge, is not penalised.
UNSCORED_STATUSES: tuple[str, ...] = ("infrastructure_error", "harness_error", "forfeit")
SUCCESS_EPS = 1e-6  # tau2: success is reward within 1 ± 1e-6
_STATUSES = frozenset({*SCORED_STATUSES, *UNSCORED_STATUSES})
_INF = math.inf
_BIG = 2**63


def is_success(reward: float | None) -> bool:
    """tau2's rule, used by every benchmark: success is reward 1 (within SUCCESS_EPS)."""
    return reward is not None and abs(reward - 1.0) <= SUCCESS_EPS


def failed_reward(status: str) -> float | None:
    """The reward of a task-trial that failed with `status`: 0 when that status is scored
    (the agent's fault), None when it is not (we could not judge the agent)."""
    return 0.0 if status in SCORED_STATUSES else None


def safe_number(value: Any) -> float | None:
    """A finite, non-negative number from a record (which may be forged), or None.
    Compared by exact class (JSON gives int, float, or bool, which is not a number here);
    NaN fails both comparisons. Called ~10 times a record: kept to two tests."""
    cls = value.__class__
    if cls is float:
        return value if 0.0 <= value < _INF else None
    if cls is int:
        return float(value) if 0 <= value < _BIG else None
    return None


def record_problem(rec: dict[str, Any]) -> str | None:
    """Why a task record cannot be true (validated when reading: records may be forged)."""
    status, reward = rec.get("status", "ok"), rec.get("reward")
    if not isinstance(rec.get("task_id"), str):
        return f"task_id {str(rec.get('task_id'))[:40]!r} is not a string"
    if status not in _STATUSES:
        return f"unknown status {str(status)[:40]!r}"
    if not isinstance(rec.get("trial"), int) or isinstance(rec.get("trial"), bool) \
            or not 0 <= rec["trial"] < 2**31:
        return f"trial {str(rec.get('trial'))[:40]!r} is not a small non-negative integer"
    if status in SCORED_STATUSES:
        number = safe_number(reward)
        if number is None or number > 1.0 + SUCCESS_EPS:  # tau2's tolerance
            return f"reward {str(reward)[:40]!r} is not a number between 0 and 1"
        if status != "ok" and (number or rec.get("success") is True):
            return f"a {status} record claims a pass"  # an error is scored 0, never passed
    elif reward is not None:
        return f"a {status} record carries reward {str(reward)[:40]!r}"
    if not isinstance(rec.get("success", False), bool):
        return "success is not a boolean"
    return None


# The keys `Counts.as_dict` writes (the `run_end` record's `counts`, serve-green's result).
COUNT_KEYS = ("done", "passed", "failed", "agent_errors", "evaluator_errors", "infra_errors",
              "harness_errors")
_ERROR_FIELD = {"agent_error": "agent_errors", "evaluator_error": "evaluator_errors",
                "infrastructure_error": "infra_errors", "harness_error": "harness_errors",
                "forfeit": "forfeits"}


@dataclass
class Counts:
    """Task-trials by outcome. `passed`/`failed` split the scored ones; agent and evaluator
    errors are scored (as failures), infrastructure and harness errors are not."""

    done: int = 0
    passed: int = 0
    failed: int = 0
    agent_errors: int = 0
    evaluator_errors: int = 0
    infra_errors: int = 0
    harness_errors: int = 0
    forfeits: int = 0  # another participant's forfeit (multi-party runs only)
    scored: int = 0
    reward_sum: float = 0.0

    def add(self, status: str, success: bool, reward: float | None) -> None:
        self.done += 1
        field = _ERROR_FIELD.get(status)
        if field is not None:
            setattr(self, field, getattr(self, field) + 1)
        if status in SCORED_STATUSES:
            passed = success and status == "ok"  # an agent or evaluator error never passes
            self.scored += 1
            self.reward_sum += reward or 0.0
            self.passed += passed
            self.failed += not passed

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.scored if self.scored else None

    @property
    def mean_reward(self) -> float | None:
        return self.reward_sum / self.scored if self.scored else None

    @property
    def errors(self) -> int:
        return self.agent_errors + self.evaluator_errors + self.infra_errors + self.harness_errors

    @property
    def unscored(self) -> int:
        return self.infra_errors + self.harness_errors + self.forfeits

    def as_dict(self) -> dict[str, int]:
        out = {key: getattr(self, key) for key in COUNT_KEYS}
        if self.forfeits:  # only multi-party runs have them: single-agent records unchanged
            out["forfeits"] = self.forfeits
        return out

    def snapshot(self) -> Counts:
        """A plain copy (of a subclass too, such as the engine's Progress)."""
        return Counts(**{f.name: getattr(self, f.name) for f in fields(Counts)})
