"""Adaptive assessment, simulated: coverage, task-trials saved, gate decisions (issue 26).

    python perf/adaptive_sim.py [--runs 1000] [--only NAME,...]

Synthetic agents with known per-task success probabilities (a fifth of the tasks always pass
or always fail, the rest Beta(2, 2)-spread; skewed categories where named) run through the
engine's own plan (a2abench/run/adaptive/sequence.py) with 4 task-trials in flight finishing
in random order. Each setting is `--runs` seeded runs. Every run follows the confidence
sequence to the end of the population (N task-trials) to check that it held the full-run score
after every result, and records how many task-trials a real run would have started when the
stop rule fired (in-flight ones included). The baseline is the full run (N task-trials).
Targets: coverage ≥ 95 % at every stopping time; median task-trials ≤ 60 % of the full run at
W = 0.05 on 300 tasks scoring 0.6; the gate right in ≥ 95 % of runs when the score is 0.05
from T.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from _util import machine

from a2abench.run.adaptive.sequence import Settings
from a2abench.run.adaptive.simulate import Outcome, Scenario, scenario, simulate


@dataclass
class Setting:
    name: str
    what: str
    suite: Scenario
    settings: Settings
    to_end: bool = True  # follow the sequence to N (coverage at every time)


def settings() -> list[Setting]:
    tau2 = scenario(300, 0.6, num_trials=4, seed=1)
    return [
        Setting("target-300x4", "300 tasks × 4 trials, score 0.6, one stratum, W = 0.05",
                tau2, Settings(target_ci=0.05)),
        Setting("target-300x1", "300 tasks × 1 trial, score 0.6, one stratum, W = 0.05",
                scenario(300, 0.6, num_trials=1, seed=1), Settings(target_ci=0.05)),
        Setting("gate-pass", "300 × 4, score 0.6, --fail-under 0.55 --adaptive-gate",
                tau2, Settings(fail_under=0.55, gate=True), to_end=False),
        Setting("gate-fail", "300 × 4, score 0.6, --fail-under 0.65 --adaptive-gate",
                tau2, Settings(fail_under=0.65, gate=True), to_end=False),
        Setting("strata-prop", "100 × 4, 3 skewed categories (±0.25), macro mean, "
                "W = 0.1, proportional",
                scenario(100, 0.5, strata=3, skew=0.25, num_trials=4, seed=2,
                         headline="macro_category_mean"), Settings(target_ci=0.1)),
        Setting("strata-neyman", "same, --allocate neyman",
                scenario(100, 0.5, strata=3, skew=0.25, num_trials=4, seed=2,
                         headline="macro_category_mean"),
                Settings(target_ci=0.1, allocate="neyman")),
    ]


def correct(o: Outcome, threshold: float | None) -> bool:
    if threshold is None:
        return True
    return o.decision == ("pass" if o.full_score >= threshold else "fail")


def measure(s: Setting, runs: int, tick: Callable[[str], None]) -> str:
    started = time.perf_counter()
    outs = []
    for seed in range(runs):
        outs.append(simulate(s.suite, s.settings, seed, to_end=s.to_end))
        if seed % 100 == 99:
            tick(f"{s.name}: {seed + 1}/{runs}")
    units = len(s.suite.probs) * s.suite.num_trials
    share = statistics.median(o.task_trials for o in outs) / units
    covered = sum(o.covered for o in outs) / runs
    right = sum(correct(o, s.settings.fail_under) for o in outs) / runs
    coverage = f"{100 * covered:.1f} %" if s.to_end else "(stops early)"
    gate = f"{100 * right:.1f} %" if s.settings.gate else ""
    return (f"| {s.what} | {runs} | {coverage} | {100 * share:.1f} % of {units} | {gate} | "
            f"{time.perf_counter() - started:.0f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--only", default=None, help="settings by name, comma-separated")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}", flush=True)
    print("| setting | runs | coverage at every time | median task-trials (full run = "
          "baseline) | gate right | time |")
    print("|---|---:|---:|---:|---:|---:|")
    for s in settings():
        if args.only and s.name not in args.only.split(","):
            continue
        print(measure(s, args.runs, lambda text: print(f"  … {text}", flush=True)),
              flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
