"""Task-trial status: its values, the scoring rule and the one set of run counters.

Every place that counts task-trials (engine progress, the `run_end` record, `RunSummary`,
report groups and warnings, serve-green's result and status page) uses `Counts`, so a new
status is added here once. No heavy imports: the display and the CLI read it too.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

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


def is_success(reward: float | None) -> bool:
    """tau2's rule, used by every benchmark: success is reward 1 (within SUCCESS_EPS)."""
    return reward is not None and abs(reward - 1.0) <= SUCCESS_EPS


def failed_reward(status: str) -> float | None:
    """The reward of a task-trial that failed with `status`: 0 when that status is scored
    (the agent's fault), None when it is not (we could not judge the agent)."""
    return 0.0 if status in SCORED_STATUSES else None


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
