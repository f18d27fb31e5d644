"""The simulation suite, fast subset: synthetic agents with known per-task success
probabilities (skewed categories, all-pass and all-fail tasks, errors, paired A/B) through the
engine's own Sequence, and the batch simulator checked against it. The full figures come from
perf/adaptive_sim.py and are recorded in docs/performance.md."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from a2abench.run.adaptive.simulate import follow, scenario, simulate, simulate_many
from a2abench.run.adaptive.tracker import Settings, Tracker


def test_scenario_has_the_mean_and_the_constant_tasks_asked_for() -> None:
    sc = scenario(300, 0.6, strata=3, skew=0.2, constant=0.2)
    assert statistics.fmean(sc.probs) == pytest.approx(0.6, abs=0.01)
    assert sum(p in (0.0, 1.0) for p in sc.probs) >= 30
    assert set(sc.categories) == {"c0", "c1", "c2"}


def test_errors_are_drawn_as_asked() -> None:
    rng = np.random.default_rng(1)
    indep = scenario(200, 0.6, num_trials=2, errors=0.1)
    outcomes, errors, _ = indep.draw(rng, runs=50)
    assert errors.mean() == pytest.approx(0.1, abs=0.01)
    failures = scenario(200, 0.6, num_trials=2, errors=0.1, error_mode="failures")
    outcomes, errors, _ = failures.draw(rng, runs=50)
    assert errors.mean() == pytest.approx(0.1, abs=0.01)
    assert np.all(outcomes[errors > 0] == 0)  # only where the task-trial would fail


@pytest.mark.parametrize("settings", [Settings(target_ci=0.05),
                                      Settings(fail_under=0.55, gate=True),
                                      Settings(target_ci=0.05, gate=True, paired=True)])
def test_the_batch_follows_the_trackers_rule(settings: Settings) -> None:
    """The batch simulator (numpy over runs) gives the Tracker's bounds, stop and decision
    for the same results in the same order."""
    rng = np.random.default_rng(3)
    runs, n = 3, 120
    x = (rng.random((runs, n)) < 0.62).astype(float)
    e = (rng.random((runs, n)) < 0.05).astype(float)
    b = (rng.random((runs, n)) < 0.55).astype(float) if settings.paired else None
    truth = x.mean(axis=1) - (b.mean(axis=1) if b is not None else 0.0)
    batch = follow(x, e, b, truth, settings, concurrency=1)
    for r in range(runs):
        extra = {}
        if b is not None:
            extra = {"bounds": {"all": (float(((1 - b[r]) / 2).sum()),
                                        float(((2 - b[r]) / 2).sum()))},
                     "baseline_score": float(b[r].mean())}
        tracker = Tracker({"all": n}, {"all": 1.0}, settings, **extra)
        for t in range(n):
            tracker.record("all", t, None if e[r, t] else float(x[r, t]), t,
                           baseline=None if b is None else float(b[r, t]))
        shown = tracker.shown()
        assert (shown.lower, shown.upper) == pytest.approx((batch.lower[r], batch.upper[r]),
                                                           abs=1e-12)
        assert (tracker.stop_reason, tracker.decided_at) == (batch.reason[r], batch.decided[r])


def test_coverage_at_every_time_small_suite() -> None:
    sc = scenario(30, 0.6, num_trials=2, constant=0.3)
    outs = [simulate(sc, Settings(target_ci=0.1), seed, to_end=True) for seed in range(60)]
    assert sum(o.covered for o in outs) / len(outs) >= 0.95


@pytest.mark.parametrize("mode", ["independent", "failures"])
def test_coverage_with_errors_and_an_early_stop(mode: str) -> None:
    sc = scenario(150, 0.6, num_trials=2, errors=0.1, error_mode=mode)
    batch = simulate_many(sc, Settings(target_ci=0.1), 200, seed=4)
    assert batch.covered.mean() >= 0.95 and batch.errors.mean() > 20
    assert np.median(batch.stopped) < 300  # counted at their worst, runs still stop early


@pytest.mark.parametrize("shift", [0.0, 0.05, -0.05])
def test_paired_coverage_and_decisions(shift: float) -> None:
    sc = scenario(300, 0.6, num_trials=2, shift=shift)
    batch = simulate_many(sc, Settings(target_ci=0.03, gate=True, paired=True), 200, seed=5)
    assert batch.covered.mean() >= 0.95
    # better or equal within 0.03 passes, worse fails; between -0.03 and 0 both are right
    right = [d == ("fail" if t < -0.03 - 1e-9 else "pass") or (t < 0 and d == "fail")
             for d, t in zip(batch.decision, batch.truth, strict=True)]
    assert np.mean(right) >= 0.95


@pytest.mark.slow
def test_coverage_at_every_time_skewed_macro_strata() -> None:
    sc = scenario(30, 0.5, strata=3, skew=0.3, num_trials=2,
                  headline="macro_category_mean")
    outs = [simulate(sc, Settings(target_ci=0.1, allocate="neyman"), seed, to_end=True)
            for seed in range(60)]
    assert sum(o.covered for o in outs) / len(outs) >= 0.95


@pytest.mark.slow
def test_target_saves_task_trials_on_a_300_task_suite() -> None:
    sc = scenario(300, 0.6, num_trials=1)
    batch = simulate_many(sc, Settings(target_ci=0.05), 40, seed=1)
    assert np.median(batch.stopped) <= 0.75 * 300
    assert all(r == "target_ci" for r in batch.reason)


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


def test_a_paired_run_through_the_sequence() -> None:
    sc = scenario(40, 0.6, num_trials=2, shift=0.1, errors=0.05)
    out = simulate(sc, Settings(target_ci=0.1), seed=2, to_end=True)
    assert out.covered and out.lower <= out.full_score <= out.upper
