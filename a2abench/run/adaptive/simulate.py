"""Simulated adaptive runs: synthetic agents with known per-task success probabilities run
through the very `Sequence` the engine uses (order, allocation, stop rule, in-flight
task-trials finishing out of order). tests/adaptive and perf/adaptive_sim.py use it to check
coverage at every stopping time, the task-trials saved, and gate decisions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from a2abench.run.adaptive.sequence import Sequence, Settings
from a2abench.run.driver import TaskSpec


@dataclass(frozen=True)
class Scenario:
    """A synthetic suite: each task's success probability and category."""

    probs: tuple[float, ...]
    categories: tuple[str, ...]
    num_trials: int = 1
    headline: str = "mean_reward"
    separate: dict[str, list[str]] = field(default_factory=dict)
    concurrency: int = 4

    def tasks(self) -> list[TaskSpec]:
        return [TaskSpec(task_id=f"t{i}", domain="sim", category=c)
                for i, c in enumerate(self.categories)]

    def scoring(self) -> dict[str, Any]:
        return {"headline": self.headline, "separate": self.separate}


@dataclass
class Outcome:
    full_score: float  # the headline over every task-trial (what a full run scores)
    task_trials: int  # started, hence run and counted (in-flight ones included)
    stop_reason: str | None
    decision: str | None
    covered: bool  # the full score stayed inside the sequence after every result
    lower: float
    upper: float


def scenario(n_tasks: int, mean: float, *, strata: int = 1, skew: float = 0.0,
             constant: float = 0.2, num_trials: int = 1, seed: int = 0,
             headline: str = "mean_reward", concurrency: int = 4) -> Scenario:
    """Per-task probabilities averaging `mean`: a share `constant` of tasks always pass or
    always fail, the rest spread around; with `skew`, stratum s is shifted by
    skew·(s − mid) (easy and hard categories)."""
    rng = np.random.default_rng(seed)
    cats = [f"c{i % strata}" for i in range(n_tasks)]
    base = rng.beta(2.0, 2.0, n_tasks)
    fixed = rng.random(n_tasks) < constant
    base[fixed] = (rng.random(fixed.sum()) < mean).astype(float)
    shift = np.array([skew * ((i % strata) - (strata - 1) / 2) for i in range(n_tasks)])
    probs = np.clip(base + shift, 0.0, 1.0)
    probs = np.clip(probs + (mean - probs.mean()), 0.0, 1.0)  # hit the mean (one nudge)
    return Scenario(tuple(float(p) for p in probs), tuple(cats), num_trials,
                    headline=headline, concurrency=concurrency)


def full_score(outcomes: dict[tuple[str, int], float], sc: Scenario) -> float:
    by_cat: dict[str, list[float]] = {}
    for (task, _), value in outcomes.items():
        by_cat.setdefault(sc.categories[int(task[1:])], []).append(value)
    if sc.headline == "macro_category_mean":
        means = [sum(v) / len(v) for v in by_cat.values()]
        return sum(means) / len(means)
    return sum(outcomes.values()) / len(outcomes)


def simulate(sc: Scenario, settings: Settings, seed: int, *,
             to_end: bool = False) -> Outcome:
    """One seeded run: outcomes drawn up front (the finite population a full run would
    see), task-trials started `concurrency` at a time, finishing in random order. With
    `to_end` the run ignores the stop rule, so `covered` checks every time up to N (the
    stop is recorded all the same)."""
    rng = np.random.default_rng(seed)
    draws = rng.random((len(sc.probs), sc.num_trials))
    outcomes = {(f"t{i}", k): float(draws[i, k] < p)
                for i, p in enumerate(sc.probs) for k in range(sc.num_trials)}
    truth = full_score(outcomes, sc)
    seq = Sequence(sc.tasks(), sc.num_trials, int(rng.integers(2**31)), sc.scoring(),
                   settings)
    seq.obey_stop = not to_end
    in_flight: list[Any] = []
    started, covered = 0, True
    stopped_at: int | None = None
    while True:
        while len(in_flight) < sc.concurrency:
            item = seq.next_item()
            if item is None:
                break
            in_flight.append(item)
            started += 1
        if not in_flight:
            break
        item = in_flight.pop(int(rng.integers(len(in_flight))))
        value = outcomes[item.key]
        seq.observe(SimpleNamespace(task_id=item.task.task_id, trial=item.trial,
                                    status="ok", reward=value))
        covered = covered and truth in seq.tracker.interval
        if stopped_at is None and seq.tracker.stop_reason is not None:
            stopped_at = started  # a real run starts no more; these all finish and count
    t = seq.tracker
    decision = t.stop_reason[5:] if t.stop_reason in ("gate_pass", "gate_fail") \
        else t.decision()
    return Outcome(truth, stopped_at or started, t.stop_reason, decision, covered,
                   t.interval.lower, t.interval.upper)
