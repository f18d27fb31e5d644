"""Simulated adaptive runs: synthetic agents with known per-task success probabilities.

`simulate` runs one seeded run through the very `Sequence` the engine uses (order,
allocation, errors, stop rule, in-flight task-trials finishing out of order). `simulate_many`
runs many single-stratum runs side by side through the same `Stratum` and stop rule, with
numpy doing the runs at once (tests check that both give the same bounds). tests/adaptive
and perf/adaptive_sim.py use them to check coverage at every stopping time, the task-trials
saved and gate decisions.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import numpy.typing as npt

from a2abench.run.adaptive.baseline import Baseline, Unit
from a2abench.run.adaptive.confseq import Stratum
from a2abench.run.adaptive.sequence import Sequence, units_of
from a2abench.run.adaptive.tracker import GATE_FLOOR, MIN_MARGIN, STALL_RUN, Settings
from a2abench.run.driver import TaskSpec
from a2abench.run.plan import Item

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Scenario:
    """A synthetic suite: each task's success probability and category; infrastructure
    errors (a share of task-trials left unscored: `independent` of the outcome, or only on
    `failures`); a paired run's new agent (`shift` added to every probability, the same
    random numbers as the baseline's, so the two agents agree where they can)."""

    probs: tuple[float, ...]
    categories: tuple[str, ...]
    num_trials: int = 1
    headline: str = "mean_reward"
    separate: dict[str, list[str]] = field(default_factory=dict)
    concurrency: int = 4
    correlated: bool = False  # every trial of a task has the same outcome
    errors: float = 0.0
    error_mode: str = "independent"  # or "failures"
    shift: float | None = None  # paired: the new agent's probabilities, p + shift

    def tasks(self) -> list[TaskSpec]:
        return _tasks(self.categories)

    def scoring(self) -> dict[str, Any]:
        return {"headline": self.headline, "separate": self.separate}

    @property
    def units(self) -> int:
        return len(self.probs) * self.num_trials

    def draw(self, rng: np.random.Generator, runs: int | None = None
             ) -> tuple[Array, Array, Array | None]:
        """Outcomes (the full run's), errors (True: unscored) and baseline outcomes, as
        (runs, tasks × trials) arrays (or one run's, flat)."""
        shape = (runs or 1, len(self.probs), self.num_trials)
        u = rng.random(shape)
        if self.correlated:
            u[:] = u[:, :, :1]
        p = np.array(self.probs)[None, :, None]
        new = p if self.shift is None else np.clip(p + self.shift, 0.0, 1.0)
        outcomes = (u < new).astype(float).reshape(shape[0], -1)
        base = None if self.shift is None else (u < p).astype(float).reshape(shape[0], -1)
        e = rng.random(outcomes.shape)
        if self.error_mode == "failures":  # errors only where the task-trial would fail
            fails = np.maximum((1 - outcomes).mean(axis=1, keepdims=True), 1e-9)
            errors = (e < np.minimum(self.errors / fails, 1.0)) & (outcomes == 0)
        else:
            errors = e < self.errors
        if runs is None:
            return outcomes[0], errors[0], None if base is None else base[0]
        return outcomes, errors.astype(float), base


@dataclass
class Outcome:
    full_score: float  # the headline over every task-trial (a paired run: the difference)
    task_trials: int  # started, hence run and counted (in-flight ones included)
    stop_reason: str | None
    decision: str | None
    covered: bool  # the full score stayed inside the sequence after every result
    lower: float
    upper: float
    errors: int = 0  # unscored results counted


def scenario(n_tasks: int, mean: float, *, strata: int = 1, skew: float = 0.0,
             constant: float = 0.2, num_trials: int = 1, seed: int = 0,
             headline: str = "mean_reward", concurrency: int = 4,
             **extra: Any) -> Scenario:
    """Per-task probabilities averaging `mean`: a share `constant` of tasks always pass or
    always fail, the rest spread around; with `skew`, stratum s is shifted by
    skew·(s − mid) (easy and hard categories). `extra`: Scenario's other fields."""
    rng = np.random.default_rng(seed)
    cats = [f"c{i % strata}" for i in range(n_tasks)]
    base = rng.beta(2.0, 2.0, n_tasks)
    fixed = rng.random(n_tasks) < constant
    base[fixed] = (rng.random(fixed.sum()) < mean).astype(float)
    shift = np.array([skew * ((i % strata) - (strata - 1) / 2) for i in range(n_tasks)])
    probs = np.clip(base + shift, 0.0, 1.0)
    spread = ~fixed if (~fixed).any() else np.ones(n_tasks, bool)
    for _ in range(20):  # hit the mean, moving the spread tasks (clipping moves it again)
        probs[spread] = np.clip(probs[spread] + (mean - probs.mean()) * n_tasks
                                / spread.sum(), 0.0, 1.0)
    return Scenario(tuple(float(p) for p in probs), tuple(cats), num_trials,
                    headline=headline, concurrency=concurrency, **extra)


def full_score(values: dict[tuple[str, int], float], sc: Scenario) -> float:
    by_cat: dict[str, list[float]] = {}
    for (task, _), value in values.items():
        by_cat.setdefault(sc.categories[int(task[1:])], []).append(value)
    apart = {c for cats in sc.separate.values() for c in cats}
    by_cat = {c: v for c, v in by_cat.items() if c not in apart}
    if sc.headline == "macro_category_mean":
        means = [sum(v) / len(v) for v in by_cat.values()]
        return sum(means) / len(means)
    kept = [x for v in by_cat.values() for x in v]
    return sum(kept) / len(kept)


@functools.lru_cache(maxsize=8)
def _units(categories: tuple[str, ...], num_trials: int) -> tuple[Item, ...]:
    """A scenario's task-trials (the same for every seed: a hash per unit, once)."""
    return tuple(units_of(_tasks(categories), num_trials, 0))


def _tasks(categories: tuple[str, ...]) -> list[TaskSpec]:
    return [TaskSpec(task_id=f"t{i}", domain="sim", category=c)
            for i, c in enumerate(categories)]


def simulate(sc: Scenario, settings: Settings, seed: int, *,
             to_end: bool = False) -> Outcome:
    """One seeded run through the engine's Sequence: outcomes drawn up front (the finite
    population a full run would see), task-trials started `concurrency` at a time, finishing
    in random order. With `to_end` the run ignores the stop rule, so `covered` checks every
    time up to N (the stop is recorded all the same)."""
    rng = np.random.default_rng(seed)
    flat, errs, base = sc.draw(rng)
    keys = [(f"t{i}", k) for i in range(len(sc.probs)) for k in range(sc.num_trials)]
    outcomes = dict(zip(keys, flat.tolist(), strict=True))
    errors = dict(zip(keys, errs.tolist(), strict=True))
    truth = full_score(outcomes, sc)
    units = list(_units(sc.categories, sc.num_trials))
    baseline = None
    if base is not None:
        values = dict(zip(keys, base.tolist(), strict=True))
        truth -= full_score(values, sc)
        baseline = Baseline("sim", None, {k: Unit(0, v, v == 1.0) for k, v in values.items()},
                            "sim")
    seq = Sequence(units, int(rng.integers(2**31)), sc.scoring(), settings, baseline)
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
        failed = errors[item.key]
        seq.observe(SimpleNamespace(task_id=item.task.task_id, trial=item.trial,
                                    status="infrastructure_error" if failed else "ok",
                                    reward=None if failed else outcomes[item.key]))
        covered = covered and truth in seq.tracker.shown()
        if stopped_at is None and seq.tracker.stop_reason is not None:
            stopped_at = started  # a real run starts no more; these all finish and count
    t = seq.tracker
    shown = t.shown()
    decision = t.stop_reason[5:] if t.stop_reason in ("gate_pass", "gate_fail") \
        else t.decision()
    return Outcome(truth, stopped_at or started, t.stop_reason, decision, covered,
                   shown.lower, shown.upper, t.errors)


@dataclass
class Batch:
    """Many single-stratum runs: per run, the full score, where the rule fired (task-trials
    started then, in-flight ones included), why, the gate's decision, coverage at every
    time, errors counted."""

    truth: Array
    stopped: Array
    reason: list[str | None]
    decision: list[str | None]
    covered: Array
    errors: Array
    decided: Array  # results counted when the rule fired
    lower: Array  # the interval after every result (displayed unit)
    upper: Array


def simulate_many(sc: Scenario, settings: Settings, runs: int, seed: int) -> Batch:
    """`runs` seeded runs of a one-stratum suite (a mean-reward headline), side by side,
    each followed to the end (coverage at every time)."""
    rng = np.random.default_rng(seed)
    outcomes, errors, base = sc.draw(rng, runs)
    order = np.argsort(rng.random((runs, sc.units)), axis=1)
    truth = outcomes.mean(axis=1) - (base.mean(axis=1) if base is not None else 0.0)
    return follow(np.take_along_axis(outcomes, order, 1), np.take_along_axis(errors, order, 1),
                  None if base is None else np.take_along_axis(base, order, 1), truth,
                  settings, sc.concurrency)


def follow(x: Array, e: Array, b: Array | None, truth: Array, settings: Settings,
           concurrency: int) -> Batch:
    """Runs of one stratum, one per row: outcomes `x` in the order drawn, `e` > 0 where
    unscored, `b` the baseline's outcomes (paired runs). The stop rule is the Tracker's for
    one stratum; a run had started `concurrency` − 1 more task-trials by the time the rule
    fired (the results still in flight)."""
    runs, n = x.shape
    paired = b is not None
    unit = 2.0 if paired else 1.0
    # value space: a score is itself; a difference d is (d + 1)/2
    unit_lo = (1 - b) / 2 if b is not None else np.zeros_like(x)
    unit_hi = (2 - b) / 2 if b is not None else np.ones_like(x)
    value = (x - b + 1) / 2 if b is not None else x
    lo, hi = np.where(e > 0, unit_lo, value), np.where(e > 0, unit_hi, value)
    stratum = Stratum(n, 1 - settings.confidence, runs=runs,
                      bounds=(unit_lo.sum(axis=1), unit_hi.sum(axis=1)))
    lines = settings.gate_lines()
    lower, upper = np.zeros(runs), np.ones(runs)
    covered, stopped, decided = np.ones(runs, bool), np.zeros(runs), np.zeros(runs)
    reason: list[str | None] = [None] * runs
    decision: list[str | None] = [None] * runs
    streak = np.zeros(runs)
    for t in range(n):
        margin = _margins(stratum, settings, lines, (upper - lower) / 2, unit)
        stratum.add(lo[:, t], hi[:, t], margin=margin, unit=(unit_lo[:, t], unit_hi[:, t]))
        now = stratum.bounds()
        meet_lo, meet_hi = np.maximum(lower, now[0]), np.minimum(upper, now[1])
        keep = meet_lo <= meet_hi
        lower, upper = np.where(keep, meet_lo, now[0]), np.where(keep, meet_hi, now[1])
        shown = (lower, upper) if not paired else (2 * lower - 1, 2 * upper - 1)
        covered &= (shown[0] - 1e-12 <= truth) & (truth <= shown[1] + 1e-12)
        streak = np.where(e[:, t] > 0, streak + 1, 0)
        why = _reasons(t + 1 == n, shown, lines, settings, streak >= STALL_RUN)
        for r in np.flatnonzero((stopped == 0) & (why != "")):
            decided[r] = t + 1
            stopped[r] = t + 1 if why[r] == "exhausted" else min(n, t + concurrency)
            reason[r] = text = str(why[r])
            decision[r] = text[5:] if text.startswith("gate") else None
    return Batch(truth, stopped, reason, decision, covered, e.sum(axis=1), decided,
                 shown[0], shown[1])


def _margins(stratum: Stratum, settings: Settings, lines: tuple[float, float] | None,
             half: Array, unit: float) -> Array:
    """Tracker._stop_margin for many one-stratum runs at once."""
    margins = []
    if settings.target_ci is not None:
        margins.append(np.full_like(half, settings.target_ci / unit))
    if lines is not None:
        known = stratum.resolved > 0
        mean = np.where(known, stratum.total / np.maximum(stratum.resolved, 1), 0.5)
        at = 2 * mean - 1 if settings.paired else mean
        at = np.where(known, at, 0.0 if settings.paired else 0.5)
        distance = np.maximum(at - lines[0], lines[1] - at) / unit
        margins.append(np.maximum(distance, GATE_FLOOR / unit))
    if not margins:
        margins.append(half)
    out: Array = np.maximum(np.max(margins, axis=0), MIN_MARGIN)
    return out


def _reasons(last: bool, shown: tuple[Array, Array], lines: tuple[float, float] | None,
             settings: Settings, stalled: npt.NDArray[np.bool_]) -> npt.NDArray[np.str_]:
    """Tracker._check's rule (then the Sequence's stall) for every run: "" while none."""
    lower, upper = shown
    rules = [("stalled", stalled)]  # the last wins: listed from the weakest
    if settings.target_ci is not None and not (settings.paired and settings.gate):
        rules.append(("target_ci", (upper - lower) / 2 <= settings.target_ci))
    if lines is not None:
        rules += [("gate_fail", upper < lines[1]), ("gate_pass", lower >= lines[0])]
    why = np.full(len(lower), "", dtype="<U9")
    for name, hit in rules:
        why = np.where(hit, name, why)
    return np.full(len(lower), "exhausted", dtype="<U9") if last else why
