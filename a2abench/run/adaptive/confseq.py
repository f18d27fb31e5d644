"""Betting confidence sequences for a bounded mean sampled without replacement.

The method is Waudby-Smith & Ramdas' betting confidence sequence ("Estimating means of
bounded random variables by betting", JRSS-B 2023; "Confidence sequences for sampling
without replacement", NeurIPS 2020): for each candidate population mean m, a gambler bets
on every new draw against the mean of what is left, (N·m − sum so far) / (N − t), with a
predictable bet (`Stratum.add` says which). Under the true m the capital is a non-negative
martingale, so by Ville's inequality it exceeds 1/α with probability at most α *ever*: the
candidates whose capital stays below 1/α form a confidence sequence, valid at every stopping
time.

Strata (categories, domains) each keep their own capital; the product over strata is again
a martingale when the stratum of the next draw is chosen from the past only (proportional or
Neyman allocation), and a weighted mean's bounds follow by Lagrangian weak duality: a valid
(if slightly conservative) bound for any multiplier, the best of a grid taken.

Candidates are a grid of `GRID` + 1 means; each cell between two grid points counts as
plausible when either end is (a one-cell slack, as in the authors' reference code).
numpy is imported here only: the module loads when an adaptive run starts, never at CLI start.

Why not a package: `confseq` 0.0.11 (the authors' library) is published as a source archive
only, built with CMake/scikit-build/pybind11, and requires matplotlib, pandas, scipy,
multiprocess and pytest at run time; `expectation`'s current releases need Python ≥ 3.12.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

GRID = 400
TRUNCATION = 0.5  # bets capped at c/m (and c/(1-m)): the paper's default c = 1/2
PRIOR_MEAN, PRIOR_VAR = 0.5, 0.25  # the plug-in's one pseudo-observation
_EPS = 1e-9
_NU = np.geomspace(1e-4, 1e3, 40)  # Lagrange multipliers tried for stratified bounds

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Interval:
    lower: float
    upper: float

    @property
    def half_width(self) -> float:
        return (self.upper - self.lower) / 2

    def __contains__(self, value: float) -> bool:
        return self.lower - 1e-12 <= value <= self.upper + 1e-12


class Stratum:
    """Betting capital, over a grid of candidate means, for the mean of one finite population
    of values in [0, 1] drawn without replacement in uniformly random order."""

    def __init__(self, size: int, alpha: float, grid: int = GRID) -> None:
        if size < 1:
            raise ValueError("a stratum needs at least one unit")
        self.size, self.alpha = size, alpha
        self.grid: Array = np.linspace(0.0, 1.0, grid + 1)
        self.log_capital_: Array = np.zeros(grid + 1)  # log capital of every grid mean
        self.n = 0
        self.total = 0.0
        self._ysum = 0.0  # the draws as the bets see them (x·scale; = total when uniform)
        self._sq = PRIOR_VAR  # the plug-in's sum of squares (regularised running variance)
        self._log_bet = 2 * math.log(2 / alpha)

    def variance(self) -> float:
        """The plug-in's variance of the draws so far (one pseudo-observation of 1/4)."""
        return self._sq / (self.n + 1)

    def add(self, x: float, horizon: float | None = None, scale: float = 1.0,
            top: float = 1.0) -> None:
        """One more draw. Every candidate mean m bets on it against the mean of what is
        left under m, using only the draws before it (predictable bets):

        * direction and size: aGRAPA, (mean − left)/(variance + (mean − left)²) with the
          running mean and variance (the betting paper's approximate growth-rate adaptive
          bet), so a candidate near the estimate bets almost nothing and keeps its capital
          near 1;
        * capped at the predictable plug-in sqrt(2·log(2/α) / (variance·s)), with s =
          max(horizon, t): `horizon`, the draws by which the caller expects to stop
          (itself from past draws only), aims the bets at that time; without it the
          paper's t·log(1 + t), which spreads power over every t;
        * truncated to (−c/(top − left), c/left), c = 1/2, so capital never reaches 0.

        A draw that was not uniform among the units left (chosen with probability q among
        R of them) enters as x·scale with scale = 1/(q·R), whose expectation is still the
        mean left (Horvitz-Thompson); `top` is the largest value x·scale could have taken.
        """
        if not 0.0 <= x <= 1.0 or self.n >= self.size or scale <= 0 or top < 1.0:
            raise ValueError(f"draw {x!r} outside [0, 1] or beyond the population")
        t = self.n + 1
        y = x * scale
        variance = self.variance()
        spread = max(horizon, t) if horizon else t * math.log1p(t)
        cap = math.sqrt(self._log_bet / (variance * spread))
        # The mean of the units still to draw if the population mean were m.
        left = (self.size * self.grid - self.total) / (self.size - self.n)
        left = np.clip(left, _EPS, 1 - _EPS)  # impossible m: any finite capital will do
        gap = (PRIOR_MEAN + self._ysum) / t - left
        bet = np.clip(gap / (variance + gap * gap), -cap, cap)
        bet = np.clip(bet, -TRUNCATION / (top - left), TRUNCATION / left)
        self.log_capital_ += np.log1p(bet * (y - left))
        self.n, self.total, self._ysum = t, self.total + x, self._ysum + y
        self._sq += (y - (PRIOR_MEAN + self._ysum) / (t + 1)) ** 2

    def logical(self) -> Interval:
        """What the draws alone prove: the undrawn units are somewhere in [0, 1]."""
        return Interval(self.total / self.size,
                        (self.total + self.size - self.n) / self.size)

    def log_capital(self) -> Array:
        return self.log_capital_

    def cells(self) -> tuple[Array, Array, Array]:
        """Cells [low, high] of candidate means within the logical bounds, each with the
        smaller log-capital of its two ends (the one-cell slack)."""
        capital = self.log_capital()
        logical = self.logical()
        low = np.maximum(self.grid[:-1], logical.lower)
        high = np.minimum(self.grid[1:], logical.upper)
        keep = low <= high + 1e-15
        proxy = np.minimum(capital[:-1], capital[1:])
        return low[keep], high[keep], proxy[keep]

    def interval(self, alpha: float | None = None) -> Interval:
        low, high, proxy = self.cells()
        inside = proxy < math.log(1 / (alpha or self.alpha))
        if not inside.any():  # every mean rejected (chance ≤ α): say only what is proven
            return self.logical()
        return Interval(float(low[inside].min()), float(high[inside].max()))


def stratified_interval(strata: list[Stratum], weights: list[float],
                        alpha: float) -> Interval:
    """Bounds on Σ w_s·mean_s from independent-bettor strata, valid at level α.

    With one weighted stratum the capital's own set is used. With several, any multiplier ν
    gives a lower bound Σ_s min_m [w_s·m + ν·log K_s(m)] − ν·log(1/α) of every weighted mean
    whose total log-capital stays below log(1/α) (weak duality); the best ν is kept.
    """
    used = [(s, w) for s, w in zip(strata, weights, strict=True) if w > 0]
    if not used:
        return Interval(0.0, 0.0)
    if len(used) == 1:
        s, w = used[0]
        one = s.interval(alpha)
        return Interval(w * one.lower, w * one.upper)
    threshold = math.log(1 / alpha)
    cells = [(s.cells(), w, s.logical()) for s, w in used]
    floors = [float(proxy.min()) if len(proxy) else math.inf for (_, _, proxy), _, _ in cells]
    lows, highs = np.zeros(len(_NU)), np.zeros(len(_NU))
    lower = upper = 0.0
    for index, ((low, high, proxy), w, logical) in enumerate(cells):
        lower += w * logical.lower
        upper += w * logical.upper
        # A mean whose capital alone exceeds what the other strata can lose is impossible
        # in every feasible combination: leaving it out keeps the bound valid and tighter.
        room = threshold - (sum(floors) - floors[index])
        keep = proxy <= room
        if not keep.any():  # no candidate survives (chance ≤ α): only the logical bounds
            return _logical(used)
        low, high, proxy = low[keep], high[keep], proxy[keep]
        lows += np.min(w * low[None, :] + _NU[:, None] * proxy[None, :], axis=1)
        highs += np.max(w * high[None, :] - _NU[:, None] * proxy[None, :], axis=1)
    lows -= _NU * threshold
    highs += _NU * threshold
    return Interval(max(lower, float(lows.max())), min(upper, float(highs.min())))


def _logical(used: list[tuple[Stratum, float]]) -> Interval:
    bounds = [(w, s.logical()) for s, w in used]
    return Interval(sum(w * b.lower for w, b in bounds), sum(w * b.upper for w, b in bounds))


def draws_for(variance: float, size: int, half_width: float, z: float = 1.96) -> float:
    """Draws after which a fixed-time interval of a population of `size` with this variance
    would be ±half_width (finite-population correction): where the bets aim (power only)."""
    zv = z * z * variance
    return zv * size / (half_width * half_width * size + zv)
