"""The betting confidence sequence for sampling without replacement (run/adaptive/confseq.py):
exact martingale property, Ville-type coverage under optional stopping, width 0 at N."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from a2abench.run.adaptive.confseq import (
    GRID,
    Interval,
    Stratum,
    draws_for,
    stratified_interval,
)


@pytest.mark.parametrize("horizon", [None, 3.0])
def test_capital_at_the_true_mean_is_a_martingale(horizon: float | None) -> None:
    """Averaged over every order of a small population, the capital of the true mean is 1
    after every draw: E[K_t] = 1 exactly, which is what makes the sequence valid."""
    population = [0.0, 0.25, 0.5, 1.0, 1.0]
    index = round(sum(population) / len(population) * GRID)  # 0.55 lies on the grid
    totals = np.zeros(len(population))
    orders = list(itertools.permutations(population))
    for order in orders:
        s = Stratum(len(population), 0.05)
        for t, x in enumerate(order):
            s.add(x, horizon=horizon)
            totals[t] += math.exp(s.log_capital()[index])
    # (to 1e-8: a remaining mean of exactly 0 or 1 is clipped by 1e-9 to keep logs finite)
    assert totals / len(orders) == pytest.approx(np.ones(len(population)), abs=1e-8)


def test_capital_of_a_wrong_mean_grows() -> None:
    s = Stratum(200, 0.05)
    for x in [1.0, 0.0, 1.0, 1.0] * 25:
        s.add(x)
    capital = s.log_capital()
    assert capital[round(0.75 * GRID)] < 1.0 < capital[round(0.3 * GRID)]


def test_width_shrinks_to_zero_at_n_and_holds_the_mean() -> None:
    rng = np.random.default_rng(5)
    values = (rng.random(80) < 0.4).astype(float)
    s = Stratum(len(values), 0.05)
    widths = []
    for x in values:
        s.add(float(x))
        widths.append(s.interval().half_width)
    final = s.interval()
    assert final.lower == pytest.approx(values.mean()) == pytest.approx(final.upper)
    assert widths[10] > widths[40] > widths[70] > widths[-1] == pytest.approx(0.0)


def test_logical_bounds_are_what_the_draws_prove() -> None:
    s = Stratum(10, 0.05)
    for x in (1.0, 1.0, 0.5):
        s.add(x)
    assert s.logical() == Interval(0.25, 0.95)
    assert s.interval().lower >= 0.25 and s.interval().upper <= 0.95


def test_draws_reject_values_outside_the_population() -> None:
    s = Stratum(1, 0.05)
    with pytest.raises(ValueError):
        s.add(1.5)
    s.add(1.0)
    with pytest.raises(ValueError):
        s.add(1.0)  # beyond N


def test_draws_for_is_the_fixed_time_sample_size() -> None:
    # Infinite population: z²·v/W²; the finite-population correction lowers it.
    assert draws_for(0.25, 10**9, 0.05) == pytest.approx(1.96**2 * 0.25 / 0.05**2, rel=1e-6)
    assert draws_for(0.25, 300, 0.05) == pytest.approx(384.16 * 300 / (300 + 384.16 - 0),
                                                       rel=1e-3)


def test_stratified_bounds_are_exact_when_every_stratum_is_drawn() -> None:
    a, b = Stratum(4, 0.05), Stratum(6, 0.05)
    for x in (1.0, 0.0, 1.0, 1.0):
        a.add(x)
    for x in (0.0, 0.0, 1.0, 0.0, 0.0, 0.5):
        b.add(x)
    iv = stratified_interval([a, b], [0.4, 0.6], 0.05)
    assert iv.lower == pytest.approx(0.4 * 0.75 + 0.6 * 0.25, abs=1e-9)
    assert iv.upper == pytest.approx(iv.lower, abs=1e-9)


def test_a_weight_zero_stratum_does_not_count() -> None:
    a, b = Stratum(2, 0.05), Stratum(2, 0.05)
    a.add(1.0)
    a.add(1.0)
    assert stratified_interval([a, b], [1.0, 0.0], 0.05) == Interval(1.0, 1.0)


def _coverage(strata: int, runs: int, size: int) -> float:
    """Share of runs whose sequence holds the weighted population mean after every draw."""
    hits = 0
    for seed in range(runs):
        rng = np.random.default_rng(seed)
        pops = [(rng.random(size) < p).astype(float)
                for p in np.linspace(0.2, 0.9, strata)]
        weights = [1 / strata] * strata
        truth = sum(w * p.mean() for w, p in zip(weights, pops, strict=True))
        objs = [Stratum(size, 0.05) for _ in pops]
        orders = [rng.permutation(size) for _ in pops]
        ok = True
        for t in range(size):
            for s, pop, order in zip(objs, pops, orders, strict=True):
                s.add(float(pop[order[t]]), horizon=size / 3)
            iv = (objs[0].interval() if strata == 1
                  else stratified_interval(objs, weights, 0.05))
            ok = ok and truth in iv
        hits += ok
    return hits / runs


def test_coverage_at_every_time_one_stratum() -> None:
    assert _coverage(1, 150, 40) >= 0.95


@pytest.mark.slow
def test_coverage_at_every_time_three_strata() -> None:
    assert _coverage(3, 150, 30) >= 0.95


def test_weighted_draws_keep_the_martingale() -> None:
    """Draws with probability ∝ fixed weights (not uniform) enter as x/(q·R): the capital of
    the true mean still averages 1 after every draw, over every order and its probability."""
    population = [0.0, 1.0, 0.5, 1.0]
    weight = [2.0, 1.0, 1.0, 2.0]
    index = round(sum(population) / len(population) * GRID)
    totals = np.zeros(len(population))
    for order in itertools.permutations(range(len(population))):
        s, left, prob = Stratum(len(population), 0.05), list(range(len(population))), 1.0
        capital = np.zeros(len(population))
        for t, unit in enumerate(order):
            mass = sum(weight[u] for u in left)
            q = weight[unit] / mass
            prob *= q
            top = mass / (min(weight[u] for u in left) * len(left))
            s.add(population[unit], scale=1 / (q * len(left)), top=top)
            left.remove(unit)
            # Each full order is counted once: its probability up to t times the capital,
            # summed over the orders that share the prefix, is that prefix's expectation.
            capital[t] = math.exp(s.log_capital()[index])
        totals += prob * capital
    assert totals == pytest.approx(np.ones(len(population)), abs=1e-8)
