"""Betting confidence sequences for a bounded mean sampled without replacement.

The method is Waudby-Smith & Ramdas' hedged capital process ("Estimating means of bounded
random variables by betting", JRSS-B 2023, §4 and §6; "Confidence sequences for sampling
without replacement", NeurIPS 2020): for each candidate population mean m, a gambler bets
on every new draw against the mean of what is left, (N·m − sum so far) / (N − t), with a
predictable plug-in bet. Under the true m the capital is a non-negative martingale, so by
Ville's inequality it exceeds 1/α with probability at most α *ever*: the candidates whose
capital stays below 1/α form a confidence sequence, valid at every stopping time.

Strata (categories, domains) each keep their own capital; the product over strata is again
a martingale when the stratum of the next draw is chosen from the past only (proportional or
Neyman allocation), and a weighted mean's bounds follow by Lagrangian weak duality: a valid
(if slightly conservative) bound for any multiplier, the best of a grid taken.

Candidates are a grid of `GRID` + 1 means; each cell between two grid points counts as
plausible when either end is (a one-cell slack, as in the authors' reference code).
numpy is imported here only: the module loads when an adaptive run starts, never at CLI start.
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
_NU = np.geomspace(1e-4, 1e3, 48)  # Lagrange multipliers tried for stratified bounds

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
    """Hedged betting capital for the mean of one finite population of values in [0, 1],
    drawn without replacement in uniformly random order."""

    def __init__(self, size: int, alpha: float, grid: int = GRID) -> None:
        if size < 1:
            raise ValueError("a stratum needs at least one unit")
        self.size, self.alpha = size, alpha
        self.grid: Array = np.linspace(0.0, 1.0, grid + 1)
        self.log_pos: Array = np.zeros(grid + 1)
        self.log_neg: Array = np.zeros(grid + 1)
        self.n = 0
        self.total = 0.0
        self._sq = PRIOR_VAR  # the plug-in's sum of squares (regularised running variance)
        self._log_bet = 2 * math.log(2 / alpha)  # each side of the hedge at level alpha/2

    def variance(self) -> float:
        """The plug-in's variance of the draws so far (one pseudo-observation of 1/4)."""
        return self._sq / (self.n + 1)

    def add(self, x: float, horizon: float | None = None) -> None:
        """One more draw. The bet uses the draws before it only (predictable); `horizon`,
        the number of draws by which the caller hopes to stop (itself computed from past
        draws), tunes the bet for that time: max(horizon, t) in place of the paper's
        t·log(1 + t), which spreads power over every t (about 1.7x the draws at W = 0.05)."""
        if not 0.0 <= x <= 1.0 or self.n >= self.size:
            raise ValueError(f"draw {x!r} outside [0, 1] or beyond the population")
        t = self.n + 1
        spread = max(horizon, t) if horizon else t * math.log1p(t)
        bet = math.sqrt(self._log_bet / (self.variance() * spread))
        # The mean of the units still to draw if the population mean were m.
        left = (self.size * self.grid - self.total) / (self.size - self.n)
        left = np.clip(left, _EPS, 1 - _EPS)  # impossible m: any finite capital will do
        self.log_pos += np.log1p(np.minimum(bet, TRUNCATION / left) * (x - left))
        self.log_neg += np.log1p(-np.minimum(bet, TRUNCATION / (1 - left)) * (x - left))
        self.n, self.total = t, self.total + x
        self._sq += (x - (PRIOR_MEAN + self.total) / (t + 1)) ** 2

    def logical(self) -> Interval:
        """What the draws alone prove: the undrawn units are somewhere in [0, 1]."""
        return Interval(self.total / self.size,
                        (self.total + self.size - self.n) / self.size)

    def log_capital(self) -> Array:
        """log of the hedged (½ up, ½ down) capital at every grid mean."""
        return np.logaddexp(self.log_pos, self.log_neg) + math.log(0.5)

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
    lower = upper = 0.0
    lows = np.zeros(len(_NU))
    highs = np.zeros(len(_NU))
    for s, w in used:
        low, high, proxy = s.cells()
        finite = np.where(np.isfinite(proxy), proxy, 1e300)
        lows += np.min(w * low[None, :] + _NU[:, None] * finite[None, :], axis=1)
        highs += np.max(w * high[None, :] - _NU[:, None] * finite[None, :], axis=1)
        logical = s.logical()
        lower += w * logical.lower
        upper += w * logical.upper
    lows -= _NU * threshold
    highs += _NU * threshold
    return Interval(max(lower, float(lows.max())), min(upper, float(highs.min())))


def draws_for(variance: float, size: int, half_width: float, z: float = 1.96) -> float:
    """Draws after which a fixed-time interval of a population of `size` with this variance
    would be ±half_width (finite-population correction): where the bets aim (power only)."""
    zv = z * z * variance
    return zv * size / (half_width * half_width * size + zv)
