"""The simulation suite, fast subset: synthetic agents with known per-task success
probabilities (skewed categories, all-pass and all-fail tasks) through the engine's own
Sequence. The full figures (1,000 runs per setting) come from perf/adaptive_sim.py and are
recorded in docs/performance.md."""

from __future__ import annotations

import statistics

import pytest

from a2abench.run.adaptive.sequence import Settings
from a2abench.run.adaptive.simulate import scenario, simulate


def test_scenario_has_the_mean_and_the_constant_tasks_asked_for() -> None:
    sc = scenario(300, 0.6, strata=3, skew=0.2, constant=0.2)
    assert statistics.fmean(sc.probs) == pytest.approx(0.6, abs=0.01)
    assert sum(p in (0.0, 1.0) for p in sc.probs) >= 30
    assert set(sc.categories) == {"c0", "c1", "c2"}


def test_coverage_at_every_time_small_suite() -> None:
    sc = scenario(30, 0.6, num_trials=2, constant=0.3)
    outs = [simulate(sc, Settings(target_ci=0.1), seed, to_end=True) for seed in range(60)]
    assert sum(o.covered for o in outs) / len(outs) >= 0.95


@pytest.mark.slow
def test_coverage_at_every_time_skewed_macro_strata() -> None:
    sc = scenario(30, 0.5, strata=3, skew=0.3, num_trials=2,
                  headline="macro_category_mean")
    outs = [simulate(sc, Settings(target_ci=0.1, allocate="neyman"), seed, to_end=True)
            for seed in range(60)]
    assert sum(o.covered for o in outs) / len(outs) >= 0.95


@pytest.mark.slow
def test_target_saves_task_trials_on_a_300_task_suite() -> None:
    sc = scenario(300, 0.6, num_trials=4)
    outs = [simulate(sc, Settings(target_ci=0.05), seed) for seed in range(12)]
    assert statistics.median(o.task_trials for o in outs) <= 0.6 * 1200
    assert all(o.stop_reason == "target_ci" for o in outs)


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [0.55, 0.65])
def test_gate_decides_correctly_when_the_score_is_off_by_005(threshold: float) -> None:
    sc = scenario(100, 0.6, num_trials=4)
    outs = [simulate(sc, Settings(fail_under=threshold, gate=True), seed)
            for seed in range(20)]
    right = sum(o.decision == ("pass" if o.full_score >= threshold else "fail")
                for o in outs)
    assert right / len(outs) >= 0.95


@pytest.mark.slow
def test_coverage_at_every_time_neyman_weighted_draws() -> None:
    """--allocate neyman with trials: weighted draws towards mixed tasks keep coverage."""
    sc = scenario(20, 0.6, strata=2, skew=0.2, num_trials=3, constant=0.3)
    outs = [simulate(sc, Settings(target_ci=0.1, allocate="neyman"), seed, to_end=True)
            for seed in range(40)]
    assert sum(o.covered for o in outs) / len(outs) >= 0.95
