"""The betting confidence sequence for sampling without replacement (run/adaptive/confseq.py):
exact martingale property, exact time-uniform coverage by enumerating every order of small
populations (with unscored draws and paired differences too), width 0 at N."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from a2abench.run.adaptive.confseq import GRID, Interval, Stratum, stratified_interval


@pytest.mark.parametrize("margin", [0.05, 0.3])
def test_capital_at_the_true_mean_is_a_martingale(margin: float) -> None:
    """Averaged over every order of a small population, the capital of the true mean is 1
    after every draw: E[K_t] = 1 exactly, which is what makes the sequence valid."""
    population = [0.0, 0.25, 0.5, 1.0, 1.0]
    index = round(sum(population) / len(population) * GRID)  # 0.55 lies on the grid
    totals = np.zeros(len(population))
    orders = list(itertools.permutations(population))
    for order in orders:
        s = Stratum(len(population), 0.05)
        for t, x in enumerate(order):
            s.add(x, margin=margin)
            totals[t] += math.exp(s.log_capital()[index])
    assert totals / len(orders) == pytest.approx(np.ones(len(population)), abs=1e-9)


def test_unscored_draws_keep_the_capital_below_a_martingale() -> None:
    """Two units of five are unscored (whatever they would have scored): the capital of the
    true mean, betting on each draw's worst end, averages at most 1 after every draw."""
    values = [0.0, 1.0, 1.0, 0.0, 1.0]
    hidden = [False, True, False, True, False]  # unit 1 would pass, unit 3 fail
    index = round(sum(values) / len(values) * GRID)
    totals = np.zeros(len(values))
    orders = list(itertools.permutations(range(len(values))))
    for order in orders:
        s = Stratum(len(values), 0.05)
        for t, unit in enumerate(order):
            low, high = (0.0, 1.0) if hidden[unit] else (values[unit], values[unit])
            s.add(low, high, margin=0.2)
            totals[t] += math.exp(s.log_capital()[index])
    assert np.all(totals / len(orders) <= 1 + 1e-9)
    assert totals[-1] / len(orders) < 0.999  # strictly below: the worst ends cost capital


def _every_order(values: list[float], alpha: float, margin: float,
                 hidden: list[bool] | None = None,
                 unit: tuple[list[float], list[float]] | None = None) -> tuple[float, float]:
    """Every order of `values` as one batch: the exact share of orders whose running
    interval ever leaves the mean, and the mean final half-width."""
    n = len(values)
    orders = np.array(list(itertools.permutations(range(n))))
    lows, highs = np.array(values, float), np.array(values, float)
    ulo, uhi = (np.zeros(n), np.ones(n)) if unit is None else map(np.array, unit)
    if hidden is not None:
        mask = np.array(hidden)
        lows, highs = np.where(mask, ulo, lows), np.where(mask, uhi, highs)
    s = Stratum(n, alpha, grid=n * 40, runs=len(orders), bounds=(ulo.sum(), uhi.sum()))
    truth = float(np.mean(values))
    lower, upper = np.zeros(len(orders)), np.ones(len(orders))
    missed = np.zeros(len(orders), bool)
    for t in range(n):
        pick = orders[:, t]
        s.add(lows[pick], highs[pick], margin=margin, unit=(ulo[pick], uhi[pick]))
        now = s.bounds()
        low, high = np.maximum(lower, now[0]), np.minimum(upper, now[1])
        meets = low <= high  # Interval.meet: the newer interval when they are disjoint
        lower, upper = np.where(meets, low, now[0]), np.where(meets, high, now[1])
        missed |= (truth < lower - 1e-12) | (truth > upper + 1e-12)
    return float(missed.mean()), float(((upper - lower) / 2).mean())


@pytest.mark.parametrize("values", [
    [1.0, 1.0, 1.0, 1.0, 0.0, 0.0],  # 0/1 scores
    [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],  # near the edge
    [0.0, 0.5, 1.0, 0.25, 0.75, 1.0],  # fractional rewards
])
@pytest.mark.parametrize("margin", [0.05, 0.3])
def test_exact_time_uniform_coverage_by_enumeration(values: list[float],
                                                    margin: float) -> None:
    """Over all 720 orders of six units, at α = 0.7 (so that the capital can reach 1/α
    within six draws: 13-33 % of the orders miss), the running interval leaves the true
    mean in at most α of them."""
    missed, _ = _every_order(values, 0.7, margin)
    assert 0 < missed <= 0.7


@pytest.mark.parametrize("hidden", [
    [False, True, False, False, True, False],  # errors independent of the outcome
    [False, False, False, False, True, True],  # errors only where the unit fails
])
def test_exact_coverage_with_unscored_units(hidden: list[bool]) -> None:
    values = [1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    missed, width = _every_order(values, 0.7, 0.1, hidden)
    assert missed <= 0.7
    _, scored_width = _every_order(values, 0.7, 0.1)
    assert width > scored_width  # the unknown values widen the interval, never narrow it


def test_counting_unscored_units_as_failures_would_miss() -> None:
    """The contrast: errors that hide passes, counted as failures (0 for both bounds),
    leave the true mean outside the interval in most orders."""
    values = [1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    as_failures = [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    n = len(values)
    orders = np.array(list(itertools.permutations(range(n))))
    s = Stratum(n, 0.7, grid=n * 40, runs=len(orders))
    missed = np.zeros(len(orders), bool)
    for t in range(n):
        s.add(np.array(as_failures)[orders[:, t]], margin=0.1)
        lower, upper = s.bounds()
        missed |= (np.mean(values) < lower - 1e-12) | (np.mean(values) > upper + 1e-12)
    assert missed.mean() > 0.7


def test_exact_coverage_of_a_paired_difference() -> None:
    """Differences new − baseline as values (d + 1)/2; each unit's range follows from its
    baseline reward; one unit unscored in the new run."""
    base = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    new = [1.0, 1.0, 1.0, 0.0, 0.0, 1.0]
    values = [(x - b + 1) / 2 for x, b in zip(new, base, strict=True)]
    ranges = ([(1 - b) / 2 for b in base], [(2 - b) / 2 for b in base])
    hidden = [False, False, True, False, False, False]
    missed, width = _every_order(values, 0.7, 0.1, hidden, ranges)
    assert missed <= 0.7 and width < 0.25  # ranges of 1/2 each: the draws prove more


def test_capital_of_a_wrong_mean_grows() -> None:
    s = Stratum(200, 0.05)
    for x in [1.0, 0.0, 1.0, 1.0] * 25:
        s.add(x, margin=0.1)
    capital = s.log_capital()
    assert capital[round(0.75 * GRID)] < 1.0 < capital[round(0.3 * GRID)]


def test_width_shrinks_to_zero_at_n_and_holds_the_mean() -> None:
    rng = np.random.default_rng(5)
    values = (rng.random(80) < 0.4).astype(float)
    s = Stratum(len(values), 0.05)
    widths = []
    for x in values:
        s.add(float(x), margin=0.1)
        widths.append(s.interval().half_width)
    final = s.interval()
    assert final.lower == pytest.approx(values.mean()) == pytest.approx(final.upper)
    assert widths[10] > widths[40] > widths[70] > widths[-1] == pytest.approx(0.0)


def test_logical_bounds_are_what_the_draws_prove() -> None:
    s = Stratum(10, 0.05)
    for x in (1.0, 1.0, 0.5):
        s.add(x, margin=0.1)
    assert s.logical() == Interval(0.25, 0.95)
    s.add(0.0, 1.0, margin=0.1)  # unscored: anywhere in [0, 1]
    assert s.logical() == Interval(0.25, 0.95)
    assert s.interval().lower >= 0.25 and s.interval().upper <= 0.95


def test_draws_reject_values_outside_the_population() -> None:
    s = Stratum(1, 0.05)
    with pytest.raises(ValueError):
        s.add(1.5, margin=0.1)
    with pytest.raises(ValueError):
        s.add(0.7, 0.2, margin=0.1)  # low above high
    with pytest.raises(ValueError):
        s.add(0.5, margin=0.0)  # bets need a margin to aim at
    s.add(1.0, margin=0.1)
    with pytest.raises(ValueError):
        s.add(1.0, margin=0.1)  # beyond N


def test_running_intersection_keeps_the_newer_interval_when_disjoint() -> None:
    assert Interval(0.2, 0.6).meet(Interval(0.4, 0.9)) == Interval(0.4, 0.6)
    assert Interval(0.2, 0.3).meet(Interval(0.5, 0.9)) == Interval(0.5, 0.9)


def test_many_runs_side_by_side_equal_one_at_a_time() -> None:
    rng = np.random.default_rng(2)
    values = (rng.random((3, 30)) < 0.6).astype(float)
    values[1, 4] = -1  # unscored
    batch = Stratum(30, 0.05, runs=3)
    ones = [Stratum(30, 0.05) for _ in range(3)]
    for t in range(30):
        lo = np.where(values[:, t] < 0, 0.0, values[:, t])
        hi = np.where(values[:, t] < 0, 1.0, values[:, t])
        batch.add(lo, hi, margin=np.array([0.05, 0.1, 0.2]))
        for r, one in enumerate(ones):
            one.add(float(lo[r]), float(hi[r]), margin=[0.05, 0.1, 0.2][r])
        lower, upper = batch.bounds()
        for r, one in enumerate(ones):
            assert (lower[r], upper[r]) == (one.interval().lower, one.interval().upper)


def _bounds_by_cells(s: Stratum) -> tuple[np.ndarray, np.ndarray]:
    """Stratum.bounds by its definition: the cells [max(g_i, lower), min(g_i+1, upper)] that
    are not empty (1e-15 slack) and have a plausible end; the logical bounds when none."""
    lower, upper = s.logical_bounds()
    low = np.maximum(s.grid[:-1], lower[..., None])
    high = np.minimum(s.grid[1:], upper[..., None])
    point = s._plausible(None)
    inside = (point[..., :-1] | point[..., 1:]) & (low <= high + 1e-15)
    none = ~inside.any(axis=-1)
    return (np.where(none, lower, np.where(inside, low, np.inf).min(axis=-1)),
            np.where(none, upper, np.where(inside, high, -np.inf).max(axis=-1)))


@pytest.mark.parametrize("runs", [0, 5])
def test_bounds_are_the_plausible_cells_within_the_logical_bounds(runs: int) -> None:
    """Logical bounds on, just off and between grid points, any set of plausible means
    (none, scattered, all): bounds() finds the same ends as every cell examined."""
    rng = np.random.default_rng(7)
    shape = (runs,) if runs else ()
    s = Stratum(50, 0.05, runs=runs)
    for _ in range(300):
        ends = s.grid[rng.integers(0, GRID + 1, size=(2, *shape))]
        ends = np.where(rng.random(ends.shape) < 0.5, ends, rng.random(ends.shape))
        ends += rng.choice([0.0, -1e-15, -4e-16, 4e-16, 1e-15, 3e-15], size=ends.shape)
        if rng.random() < 0.8:
            ends = np.sort(ends, axis=0)
        s.low, s.left_low, s.high, s.left_high = 50 * ends[0], 0 * ends[0], 0 * ends[1], \
            50 * ends[1]
        s._lin = np.where(rng.random((*shape, GRID + 1)) < rng.choice([0, 0.01, 0.3, 1]),
                          0.5, 50.0)
        got, want = s.bounds(), _bounds_by_cells(s)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_stratified_bounds_are_exact_when_every_stratum_is_drawn() -> None:
    a, b = Stratum(4, 0.05), Stratum(6, 0.05)
    for x in (1.0, 0.0, 1.0, 1.0):
        a.add(x, margin=0.1)
    for x in (0.0, 0.0, 1.0, 0.0, 0.0, 0.5):
        b.add(x, margin=0.1)
    iv = stratified_interval([a, b], [0.4, 0.6], 0.05)
    assert iv.lower == pytest.approx(0.4 * 0.75 + 0.6 * 0.25, abs=1e-9)
    assert iv.upper == pytest.approx(iv.lower, abs=1e-9)


def test_a_weight_zero_stratum_does_not_count() -> None:
    a, b = Stratum(2, 0.05), Stratum(2, 0.05)
    a.add(1.0, margin=0.1)
    a.add(1.0, margin=0.1)
    assert stratified_interval([a, b], [1.0, 0.0], 0.05) == Interval(1.0, 1.0)


def test_exact_stratified_coverage_by_enumeration() -> None:
    """Two strata (3 and 4 units, alternating draws), every pair of orders: the weighted
    mean leaves the running interval in at most α of them."""
    first, second = [1.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]
    weights = [0.5, 0.5]
    truth = 0.5 * np.mean(first) + 0.5 * np.mean(second)
    missed = total = 0
    for a_order in itertools.permutations(first):
        for b_order in itertools.permutations(second):
            a, b = Stratum(3, 0.4, grid=120), Stratum(4, 0.4, grid=120)
            running = Interval(0.0, 1.0)
            out = False
            for t in range(4):
                for s, order in ((a, a_order), (b, b_order)):
                    if t < len(order):
                        s.add(order[t], margin=0.1)
                running = running.meet(stratified_interval([a, b], weights, 0.4))
                out = out or truth not in running
            missed += out
            total += 1
    assert missed / total <= 0.4
