"""Adaptive assessment, simulated: coverage, task-trials saved, gate decisions (issues 26, 40).

    python perf/adaptive_sim.py [--scale 1.0] [--only NAME,...]

Synthetic agents with known per-task success probabilities (a fifth of the tasks always pass
or always fail, the rest Beta(2, 2)-spread, unless the setting says otherwise) run through
the engine's own statistics. One-stratum settings (`batch`) run many seeded runs side by
side (a2abench/run/adaptive/simulate.py `simulate_many`: the Tracker's stop rule over the
same `Stratum`, checked equal to it by tests/adaptive/test_simulation.py); settings with
strata (`engine`) run each seeded run through the engine's own `Sequence` (order,
allocation, errors, 4 task-trials in flight finishing in random order). Every run follows the
confidence sequence to the end of the population (N task-trials) to check that it held the
full-run score (a paired run: the full-run difference) after every result, and records how
many task-trials a real run would have started when the stop rule fired (in-flight ones
included). The baseline is the full run (N task-trials).

Targets: coverage ≥ 95 % at every time in every setting; median task-trials ≤ 75 % of the
full run at W = 0.05 on 300 tasks × 1 trial scoring 0.6, ≤ 46 % on 300 × 4; the gate right
in ≥ 95 % of runs; runs with 10 % unscored task-trials still stop early.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from _util import machine

from a2abench.run.adaptive.simulate import Scenario, scenario, simulate, simulate_many
from a2abench.run.adaptive.tracker import Settings


@dataclass
class Setting:
    name: str
    what: str
    suite: Scenario
    settings: Settings
    runs: int
    engine: bool = False  # each run through the engine's Sequence (strata), else batched
    to_end: bool = True  # engine runs: follow the sequence to N (coverage at every time)


def _s(n: int, mean: float, trials: int = 4, **kw: object) -> Scenario:
    return scenario(n, mean, num_trials=trials, seed=1, **kw)  # type: ignore[arg-type]


def settings() -> list[Setting]:
    tau2, w05 = _s(300, 0.6), Settings(target_ci=0.05)
    macro = _s(100, 0.5, strata=3, skew=0.25, headline="macro_category_mean")
    ab = Settings(target_ci=0.03, gate=True, paired=True)
    return [
        Setting("target-300x1", "300 tasks × 1 trial, score 0.6, W = 0.05", _s(300, 0.6, 1),
                w05, 1000),
        Setting("target-300x4", "300 × 4, score 0.6, W = 0.05", tau2, w05, 1000),
        Setting("gate-pass", "300 × 4, 0.6, `--fail-under 0.55 --adaptive-gate`", tau2,
                Settings(fail_under=0.55, gate=True), 400),
        Setting("gate-fail", "300 × 4, 0.6, `--fail-under 0.65 --adaptive-gate`", tau2,
                Settings(fail_under=0.65, gate=True), 400),
        Setting("strata-300x4", "300 × 4 in 3 domains (±0.2 apart), mean reward, W = 0.05, "
                "proportional", _s(300, 0.6, strata=3, skew=0.2), w05, 20, engine=True,
                to_end=False),
        Setting("uniform-300x4", "the same, `--allocate uniform`", _s(300, 0.6, strata=3,
                                                                       skew=0.2), w05, 400),
        Setting("binary", "300 × 4, every task always passes or always fails (0/1 scores)",
                _s(300, 0.6, constant=1.0), w05, 400),
        Setting("edge-low", "300 × 4, score 0.02", _s(300, 0.02), w05, 400),
        Setting("edge-high", "300 × 4, score 0.98", _s(300, 0.98), w05, 400),
        Setting("correlated", "300 × 4, every trial of a task the same outcome",
                _s(300, 0.6, correlated=True), w05, 400),
        Setting("small", "20 tasks × 4 trials, score 0.6, W = 0.1", _s(20, 0.6),
                Settings(target_ci=0.1), 1000),
        Setting("strata-skewed", "100 × 4, 3 skewed categories (±0.25), macro average, "
                "W = 0.1, proportional", macro, Settings(target_ci=0.1), 100, engine=True),
        Setting("strata-neyman", "the same, `--allocate neyman`", macro,
                Settings(target_ci=0.1, allocate="neyman"), 60, engine=True),
        Setting("one-task-strata", "20 tasks × 4 trials, one category per task, W = 0.1",
                _s(20, 0.6, strata=20, skew=0.02), Settings(target_ci=0.1), 100,
                engine=True),
        Setting("50-strata", "100 tasks × 2 trials in 50 categories, W = 0.1",
                _s(100, 0.6, trials=2, strata=50), Settings(target_ci=0.1), 40,
                engine=True),
        Setting("errors-indep", "300 × 4, 0.6, 10 % unscored at random, W = 0.1",
                _s(300, 0.6, errors=0.1), Settings(target_ci=0.1), 400),
        Setting("errors-fail", "300 × 4, 0.6, 10 % unscored, all on failures, W = 0.1",
                _s(300, 0.6, errors=0.1, error_mode="failures"), Settings(target_ci=0.1),
                400),
        Setting("errors-w05", "300 × 4, 0.6, 10 % unscored at random, W = 0.05",
                _s(300, 0.6, errors=0.1), w05, 400),
        Setting("errors-gate", "300 × 4, 0.6, 10 % unscored at random, `--fail-under 0.5 "
                "--adaptive-gate`", _s(300, 0.6, errors=0.1),
                Settings(fail_under=0.5, gate=True), 400),
        Setting("errors-gate-fail", "the same, unscored all on failures",
                _s(300, 0.6, errors=0.1, error_mode="failures"),
                Settings(fail_under=0.5, gate=True), 400),
        Setting("ab-equal", "A/B, 300 × 4, true difference 0, `--target-ci 0.03 "
                "--adaptive-gate`", _s(300, 0.6, shift=0.0), ab, 400),
        Setting("ab-better", "A/B, the same, true difference +0.05", _s(300, 0.6, shift=0.05),
                ab, 400),
        Setting("ab-worse", "A/B, the same, true difference −0.05", _s(300, 0.6, shift=-0.05),
                ab, 400),
        Setting("ab-target", "A/B, true difference +0.05, `--target-ci 0.03` (no gate)",
                _s(300, 0.6, shift=0.05), Settings(target_ci=0.03, paired=True), 400),
    ]


def right(decision: str | None, truth: float, s: Settings) -> bool:
    """The gate agrees with the full run: a score's side of T; a pair better or equal within
    the margin (pass) or worse (fail; both are right between −margin and 0)."""
    if s.paired:
        if truth < 0 and decision == "fail":
            return True
        return decision == ("fail" if truth < -s.margin - 1e-9 else "pass")
    threshold = s.fail_under or 0.0
    return decision == ("pass" if truth >= threshold else "fail")


@dataclass
class Row:
    covered: float | None
    stopped: list[float]
    early: float
    right: float | None
    errors: float


def run_setting(s: Setting, runs: int, tick: Callable[[str], None]) -> Row:
    gate = s.settings.gate
    if not s.engine:
        b = simulate_many(s.suite, s.settings, runs, seed=11)
        early = sum(r not in (None, "exhausted") for r in b.reason) / runs
        good = [right(d, t, s.settings) for d, t in zip(b.decision, b.truth, strict=True)]
        return Row(float(b.covered.mean()), list(b.stopped), early,
                   float(np.mean(good)) if gate else None, float(b.errors.mean()))
    outs = []
    for seed in range(runs):
        outs.append(simulate(s.suite, s.settings, seed, to_end=s.to_end))
        if seed % 20 == 19:
            tick(f"{s.name}: {seed + 1}/{runs}")
    early = sum(o.stop_reason not in (None, "exhausted") for o in outs) / runs
    good = [right(o.decision, o.full_score, s.settings) for o in outs]
    return Row(sum(o.covered for o in outs) / runs if s.to_end else None,
               [o.task_trials for o in outs], early, float(np.mean(good)) if gate else None,
               statistics.fmean(o.errors for o in outs))


def measure(s: Setting, scale: float, tick: Callable[[str], None]) -> str:
    started = time.perf_counter()
    runs = max(10, round(s.runs * scale))
    row = run_setting(s, runs, tick)
    units = s.suite.units
    share = statistics.median(row.stopped) / units
    coverage = "(stops early)" if row.covered is None else f"{100 * row.covered:.1f} %"
    gate = "" if row.right is None else f"{100 * row.right:.1f} %"
    errors = f"{row.errors:.0f}" if row.errors else ""
    return (f"| {s.what} | {'engine' if s.engine else 'batch'} | {runs} | {coverage} | "
            f"{100 * share:.1f} % of {units:,} | {100 * row.early:.0f} % | {gate} | "
            f"{errors} | {time.perf_counter() - started:.0f} s |")


def hypergeometric_reference(size: int = 300, score: float = 0.6, half: float = 0.05) -> int:
    """The smallest fixed n whose exact 95 % hypergeometric interval (equal tails, every
    population count it does not reject) is ±half or narrower at the median count drawn:
    what a run that fixes n in advance needs (no stopping rule may look at the results)."""
    ones = round(score * size)
    for n in range(10, size + 1):
        k = round(score * n)
        kept = [m for m in range(size + 1)
                if _tail(k, n, m, size, below=True) > 0.025
                and _tail(k, n, m, size, below=False) > 0.025]
        if kept and (max(kept) - min(kept)) / (2 * size) <= half and ones in kept:
            return n
    return size


def _tail(k: int, n: int, m: int, size: int, *, below: bool) -> float:
    def log_comb(a: int, b: int) -> float:
        return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)

    def pmf(j: int) -> float:
        if j < max(0, n - (size - m)) or j > min(n, m):
            return 0.0
        return math.exp(log_comb(m, j) + log_comb(size - m, n - j) - log_comb(size, n))

    return sum(pmf(j) for j in (range(0, k + 1) if below else range(k, n + 1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="runs per setting, as a multiple of each setting's default")
    parser.add_argument("--only", default=None, help="settings by name, comma-separated")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}", flush=True)
    print("| setting | how | runs | coverage at every time | median task-trials (full run "
          "= baseline) | stopped early | gate right | unscored per run | time |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    started = time.perf_counter()
    for s in settings():
        if args.only and s.name not in args.only.split(","):
            continue
        print(measure(s, args.scale, lambda text: print(f"  … {text}", flush=True)),
              flush=True)
    if not args.only or "hypergeometric" in args.only:
        n = hypergeometric_reference()
        print(f"fixed-n exact hypergeometric interval, 300 × 1 at 0.6, ±0.05: n = {n} "
              f"({100 * n / 300:.0f} %)")
    print(f"total {time.perf_counter() - started:.0f} s; load average at the end "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
