"""Betting confidence sequences for a bounded mean sampled without replacement.

The method is Waudby-Smith & Ramdas' betting confidence sequence ("Confidence sequences for
sampling without replacement", NeurIPS 2020; "Estimating means of bounded random variables
by betting", JRSS-B 2023): for each candidate population mean m, a gambler bets on every new
draw against the mean of what is left, (N·m − sum so far) / (N − t), with a predictable bet.
Under the true m the capital is a non-negative martingale, so by Ville's inequality it
exceeds 1/α with probability at most α *ever*: the candidates whose capital stays below 1/α
form a confidence sequence, valid at every stopping time.

Unresolved draws (a task-trial an infrastructure or harness error left unscored) keep
counting. Each draw comes as a range [low, high] that holds its true value (a point when
scored; [0, 1] when not). A candidate betting that the mean is higher (λ > 0) sees the low
end and measures what is left against the lowest sum so far; one betting lower sees the high
ends. Each factor 1 + λ·(x̃ − left̃) is then at most the factor the true values would give,
1 + λ·(x − left), so the capital stays below a martingale of the true population and Ville's
inequality still holds at level α (no split of α between the two sides).

Strata (categories, domains) each keep their own capital; the product over strata is again
a (super)martingale when the stratum of the next draw is chosen from the past only, and a
weighted mean's bounds follow by Lagrangian weak duality: a valid (if slightly conservative)
bound for any multiplier, the best of a grid taken.

Candidates are a grid of `GRID` + 1 means; each cell between two grid points counts as
plausible when either end is (a one-cell slack, as in the authors' reference code).
numpy is imported here only: the module loads when an adaptive run starts, never at CLI start.

Why not a package: `confseq` 0.0.11 (the authors' library) is published as a source archive
only, built with CMake/scikit-build/pybind11, and requires matplotlib, pandas, scipy,
multiprocess and pytest at run time; `expectation`'s current releases need Python ≥ 3.12.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

GRID = 400
RENORM = 16  # draws between folds of the capital into its logarithm
TRUNCATION = 0.5  # bets capped at c/left (and c/(top − left)): the paper's default c = 1/2
PRIOR_MEAN, PRIOR_VAR = 0.5, 0.25  # the plug-in's one pseudo-observation
_EPS = 1e-9
_NU = np.geomspace(1e-4, 1e3, 40)  # Lagrange multipliers tried for stratified bounds

Array = npt.NDArray[np.float64]
Value = float | Array  # one run's value, or one per run (simulations)


@dataclass(frozen=True)
class Interval:
    lower: float
    upper: float

    @property
    def half_width(self) -> float:
        return (self.upper - self.lower) / 2

    def __contains__(self, value: float) -> bool:
        return self.lower - 1e-12 <= value <= self.upper + 1e-12

    def meet(self, other: Interval) -> Interval:
        """The intersection; when the two are disjoint (the sequence missed, chance ≤ α)
        `other`, the newer, is kept: an empty set says nothing a reader can use."""
        lower, upper = max(self.lower, other.lower), min(self.upper, other.upper)
        return Interval(lower, upper) if lower <= upper else other


class Stratum:
    """Betting capital, over a grid of candidate means, for the mean of one finite population
    of values in [0, 1] drawn without replacement in uniformly random order.

    `runs` > 0 keeps that many independent populations side by side (simulations: every
    quantity gains a leading axis); the engine keeps one (`runs` = 0, scalars)."""

    def __init__(self, size: int, alpha: float, grid: int = GRID,
                 bounds: tuple[float, float] | None = None, runs: int = 0) -> None:
        """`bounds`: the sums of the smallest and largest values the population's units can
        take (default 0 and `size`), for the logical bounds of what is not drawn yet."""
        if size < 1:
            raise ValueError("a stratum needs at least one unit")
        shape: tuple[int, ...] = (runs,) if runs else ()
        self.size, self.alpha = size, alpha
        self.grid: Array = np.linspace(0.0, 1.0, grid + 1)
        self._base: Array = size * self.grid
        self._high_slack: Array = self.grid[1:] + 1e-15  # bounds(): cells' high ends, slack
        self._cell_highs: list[float] = self._high_slack.tolist()  # ... as lists, for one run
        self._cell_lows: list[float] = self.grid[:-1].tolist()
        # The capital of each mean: exp(_log) · _lin. Factors lie in [1 − c, 1 + c·top/ε],
        # so RENORM of them fit a float: folding them into _log only then saves a logarithm
        # per mean per draw (most of a simulation's time).
        self._log: Array = np.zeros((*shape, grid + 1))
        self._lin: Array = np.ones((*shape, grid + 1))
        self._limit: Array = np.full((*shape, grid + 1), 1 / alpha)  # 1/α as a _lin value
        self.n = 0
        self.low: Array = np.zeros(shape)  # drawn values' sum, unresolved at their low end
        self.high: Array = np.zeros(shape)  # ... at their high end
        self.resolved: Array = np.zeros(shape)  # draws whose value is known
        self.total: Array = np.zeros(shape)  # the sum of the known values
        left = bounds if bounds is not None else (0.0, float(size))
        self.left_low: Array = np.full(shape, left[0])  # what the units left can sum to
        self.left_high: Array = np.full(shape, left[1])
        self._ysum: Array = np.zeros(shape)  # known draws as the bets see them (x·scale)
        self._sq: Array = np.full(shape, PRIOR_VAR)  # the plug-in's sum of squares
        self._exact = True  # every draw so far known in every run (then high == low)
        # Side-by-side runs that drew alike so far (values, margins) hold the same capital:
        # only the first row of _log/_lin/_limit is kept up to date (`_rows`) until they part.
        self._alike = runs > 1
        self._work: list[Array] | None = None  # add()'s scratch arrays (_work_arrays)
        self._buffers: list[Array] | None = None  # ... and the memory they view
        self.dual: tuple[tuple[int, float], DualTerms] | None = None  # stratified_interval
        self._window_rows: tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None = None

    def variance(self) -> Array:
        """The plug-in's variance of the known draws (one pseudo-observation of 1/4)."""
        return self._sq / (self.resolved + 1)

    def add(self, low: Value, high: Value | None = None, *, margin: Value,
            scale: float = 1.0, top: float = 1.0,
            unit: tuple[Value, Value] = (0.0, 1.0)) -> None:
        """One more draw whose value lies in [low, high] (high = low: known). Every candidate
        mean m bets on it against the mean of what is left under m, using only the draws
        before it (predictable bets):

        * direction: towards the running mean (the mean of what is left, estimated);
        * size: Kelly's, gap/(variance + gap²), for the gap between that estimate and m's
          mean left, but never for a gap wider than `margin`·N/(N − t): the precision the
          run stops at (the caller's: the target, the distance to a gate), scaled by how
          sampling without replacement sharpens each later draw. Candidates that far away
          are what the stop needs rejected; betting more on those further out buys nothing
          the stop needs and costs at every other time;
        * truncated to (−c/(top − left), c/left), c = 1/2, so capital never reaches 0.

        A draw that was not uniform among the units left (chosen with probability q among R
        of them) enters as x·scale with scale = 1/(q·R), whose expectation is still the mean
        left (Horvitz-Thompson); `top` is the largest value x·scale could have taken.
        `unit`: the smallest and largest value this unit could have had (for the logical
        bounds of what is left; [0, 1] unless the caller knows better).
        """
        lo = np.asarray(low, dtype=float)
        hi = lo if high is None else np.asarray(high, dtype=float)
        reach = np.asarray(margin, dtype=float)
        if lo.ndim == hi.ndim == reach.ndim == 0:  # one run: plain floats are quicker
            a, b = float(lo), float(hi)
            valid, known = float(reach) > 0 and 0 <= a <= b <= 1, a == b
        else:
            valid = bool((reach > 0).all() and ((lo >= 0) & (lo <= hi) & (hi <= 1)).all())
            known = hi is lo or bool((lo == hi).all())  # in every run
        if self.n >= self.size or scale <= 0 or top < 1.0 or not valid:
            raise ValueError(f"draw [{low!r}, {high!r}] outside [0, 1] or beyond the "
                             "population")
        if self._alike and not (_alike(lo) and _alike(hi) and _alike(reach)):
            self._part()
        rest = self.size - self.n
        rows = self._rows()
        variance = self.variance()[rows][..., None]
        estimate = ((PRIOR_MEAN + self._ysum) / (self.resolved + 1))[rows][..., None]
        reach = (reach * self.size / rest)[rows][..., None]
        lin = self._lin[rows]  # a view: updated in place
        low, high = self.low[rows], self.high[rows]
        start, stop = self._window(low, high, rest) if lin.ndim > 1 else (0, lin.shape[-1])
        base = self._base[start:stop]
        work = self._work_arrays((*lin.shape[:-1], stop - start))
        if known and self._exact:  # nothing unresolved: one mean left, one gap (fast path)
            left, floor, cap = self._left(low, rest, top, base, work[3:], work[:3])
            gap = np.subtract(estimate, left, out=work[0])
            np.maximum(gap, -reach, out=gap)
            np.minimum(gap, reach, out=gap)
            seen = np.subtract((lo * scale)[rows][..., None], left, out=work[1])
        else:  # also right where nothing is unresolved (then both lefts are one)
            # The mean left under each m, from the lowest and from the highest sum so far.
            up_left = np.subtract(base, low[..., None], out=work[3])
            up_left /= rest
            left = np.subtract(up_left, ((high - low) / rest)[..., None], out=work[4])
            _unit(left)  # down
            _unit(up_left)
            up_gap = np.subtract(estimate, up_left, out=work[5])
            np.minimum(up_gap, reach, out=up_gap)
            up = up_gap > 0  # down_left <= up_left, so at most one side bets
            gap = np.subtract(estimate, left, out=work[0])  # down
            np.maximum(gap, -reach, out=gap)
            np.minimum(gap, 0.0, out=gap)
            np.copyto(gap, up_gap, where=up)
            np.copyto(left, up_left, where=up)
            seen = np.subtract((hi * scale)[rows][..., None], left, out=work[1])
            np.subtract((lo * scale)[rows][..., None], left, out=seen, where=up)
            floor, cap = _truncation(left, top, work[3], work[5])
        # bet = gap / (variance + gap²), then truncated to (floor, cap)
        scratch = np.multiply(gap, gap, out=work[2])
        scratch += variance
        bet = np.divide(gap, scratch, out=gap)
        np.maximum(bet, floor, out=bet)
        np.minimum(bet, cap, out=bet)
        seen *= bet
        seen += 1.0
        lin[..., start:stop] *= seen
        if start:  # the columns outside the window bet as its first and last
            lin[..., :start] *= seen[..., :1]
        if stop < lin.shape[-1]:
            lin[..., stop:] *= seen[..., -1:]
        self.n += 1
        if self.n % RENORM == 0:
            log = self._log[rows]
            log += np.log(lin)
            lin[...] = 1.0
            with np.errstate(over="ignore"):
                self._limit[rows] = np.exp(math.log(1 / self.alpha) - log)
        self.low = self.low + lo
        self.high = self.high + hi
        self.left_low = self.left_low - np.asarray(unit[0])
        self.left_high = self.left_high - np.asarray(unit[1])
        self._exact = self._exact and known
        if known:  # the rest as below, where every value is known (fewer steps)
            y = lo * scale
            self.resolved = self.resolved + 1.0
            self.total = self.total + lo
            self._ysum = self._ysum + y
            self._sq = self._sq + (y - (PRIOR_MEAN + self._ysum) / (self.resolved + 1)) ** 2
            return
        is_known = lo == hi
        y = np.where(is_known, lo * scale, 0.0)
        self.resolved = self.resolved + is_known
        self.total = self.total + np.where(is_known, lo, 0.0)
        self._ysum = self._ysum + y
        self._sq = self._sq + np.where(
            is_known, (y - (PRIOR_MEAN + self._ysum) / (self.resolved + 1)) ** 2, 0.0)

    def _rows(self) -> slice | tuple[()]:
        """The runs whose capital add() computes: the first alone while all run alike."""
        return slice(0, 1) if self._alike else ()

    def _part(self) -> None:
        """The runs draw apart: every row takes the first one's capital so far."""
        for state in (self._log, self._lin, self._limit):
            state[1:] = state[0]
        self._alike = False

    def _work_arrays(self, shape: tuple[int, ...]) -> list[Array]:
        """Six arrays of `shape` (at most the capital's), kept for add()'s intermediate steps:
        200 runs' are 640 kB each, and fresh ones cost page faults on every draw."""
        if self._work is not None and self._work[0].shape == shape:
            return self._work  # one run's every time: the views as they were
        size = math.prod(shape)
        if self._buffers is None or self._buffers[0].size < size:
            self._buffers = [np.empty(size) for _ in range(6)]
        self._work = [w[:size].reshape(shape) for w in self._buffers]
        return self._work

    def _window(self, low: Array, high: Array, rest: int) -> tuple[int, int]:
        """Side-by-side runs: the grid columns [start, stop) add() computes. Before them every
        run's mean left is 0 (N·m <= every lowest sum), after them 1 (checked with add()'s
        own float steps), so those columns bet exactly as the window's first and last: late
        in a run, when few units are left, most of the grid."""
        base = self._base
        below = int(np.searchsorted(base, low.min(), side="right"))
        above = int(np.searchsorted(base, high.max() + rest, side="left"))
        drop = (high - low) / rest
        while above < len(base) and not (((base[above] - low) / rest - drop) >= 1.0).all():
            above += 1
        return max(below - 1, 0), min(above + 1, len(base))

    def _left(self, sums: Array, rest: int, top: float, base: Array, out: list[Array],
              scratch: list[Array]) -> tuple[Array, Array, Array]:
        """Where nothing is unresolved: the mean left under each m (`base`: N·m), (N·m − sum
        drawn)/rest clipped to [0, 1], and the bets' truncation there, in `out`'s three arrays. Runs
        that drew the same sum share one row (a paired run's ties draw 0.5 each time):
        computed once (in the first rows of `scratch`, arrays of `out`'s shape: fresh ones
        cost more in page faults than the rows saved), then repeated or broadcast."""
        rows = None
        if sums.ndim == 1 and len(sums) > 1:
            distinct, index = np.unique(sums, return_inverse=True)
            if len(distinct) == 1:  # one row, broadcast over the runs
                sums = distinct
            elif 2 * len(distinct) <= len(sums):
                sums, rows = distinct, index
        if rows is None and sums.shape + base.shape == out[0].shape:
            left = np.subtract(base, sums[..., None], out=out[0])
            left /= rest
            _unit(left)
            return (left, *_truncation(left, top, out[1], out[2]))
        if rows is None:  # one row, broadcast
            left = np.subtract(base, sums[..., None])
            left /= rest
            _unit(left)
            return (left, *_truncation(left, top, np.empty_like(left), np.empty_like(left)))
        k = len(sums)
        left = np.subtract(base, sums[..., None], out=scratch[0][:k])
        left /= rest
        _unit(left)
        floor, cap = _truncation(left, top, scratch[1][:k], scratch[2][:k])
        # mode="clip": the indices are valid, and "raise" would buffer `out` anew
        left, floor, cap = (np.take(part, rows, axis=0, out=into, mode="clip")
                            for part, into in zip((left, floor, cap), out, strict=True))
        return left, floor, cap

    @property
    def unresolved(self) -> Array:
        return self.n - self.resolved

    def mean(self) -> float | None:
        """The mean of the known draws (None before the first; one run only)."""
        return float(self.total / self.resolved) if self.resolved else None

    def logical_bounds(self) -> tuple[Array, Array]:
        """What the draws alone prove: every unit left lies in its own range ([0, 1])."""
        lower = (self.low + np.maximum(self.left_low, 0.0)) / self.size
        upper = np.minimum((self.high + self.left_high) / self.size, 1.0)
        return lower, upper

    def logical(self) -> Interval:
        lower, upper = self.logical_bounds()
        return Interval(float(lower), float(upper))

    def log_capital(self) -> Array:
        if self._alike:
            self._part()
        return self._log + np.log(self._lin)

    def _plausible(self, alpha: float | None, means: slice = slice(None)
                   ) -> npt.NDArray[np.bool_]:
        """Grid means (those of `means`) whose capital is below 1/α (never rejected at this
        level)."""
        if alpha is None or alpha == self.alpha:  # alike runs: the first row, broadcast
            rows = self._rows()
            return self._lin[rows][..., means] < self._limit[rows][..., means]
        return self.log_capital()[..., means] < math.log(1 / alpha)

    def cells(self) -> tuple[Array, Array, Array]:
        """Cells [low, high] of candidate means clipped to the logical bounds, each with the
        smaller log-capital of its two ends (the one-cell slack); cells outside the logical
        bounds get log-capital +inf (never plausible)."""
        capital = self.log_capital()
        lower, upper = self.logical_bounds()
        low = np.maximum(self.grid[:-1], lower[..., None])
        high = np.minimum(self.grid[1:], upper[..., None])
        proxy = np.minimum(capital[..., :-1], capital[..., 1:])
        proxy = np.where(low <= high + 1e-15, proxy, np.inf)
        return low, high, proxy

    def bounds(self, alpha: float | None = None) -> tuple[Array, Array]:
        """The confidence set's lower and upper ends (one per run): the cells within the
        logical bounds with a plausible end.

        Cell i is [max(g_i, lower), min(g_i+1, upper)], within the bounds when that is not
        empty (1e-15 slack). Both ends grow with i, so the set runs from the first such
        cell's low end to the last one's high end: found with two searches and a scan of
        booleans instead of the cells' floats (this runs after every result)."""
        lower, upper = self.logical_bounds()
        # max(g_i, lower) <= min(g_i+1, upper) + 1e-15, term by term: rounding is monotone,
        # so (min(a, b) + 1e-15) == min(a + 1e-15, b + 1e-15) exactly
        top = upper + 1e-15
        if lower.ndim == 0:  # one run: the same searches on lists (numpy's cost more here)
            point = self._plausible(alpha)
            ends = point[..., :-1] | point[..., 1:]
            start = bisect.bisect_left(self._cell_highs, lower)
            stop = bisect.bisect_right(self._cell_lows, top) if lower <= top else 0
            found = np.flatnonzero(ends[start:stop])
            if not len(found):  # every mean rejected (chance ≤ α): only what is proven
                return lower, upper
            first, last = start + found[0], start + found[-1]
            return (np.maximum(self.grid[first], lower),
                    np.minimum(self.grid[last + 1], upper))
        first_cell = np.searchsorted(self._high_slack, lower, side="left")
        end_cell = np.where(lower <= top, np.searchsorted(self.grid[:-1], top, side="right"),
                            0)
        # only the cells some run's window holds (late in a run, a few of the grid's)
        start, stop = int(first_cell.min()), int(end_cell.max())
        if stop <= start:
            return lower, upper
        point = self._plausible(alpha, slice(start, stop + 1))
        ends = point[..., :-1] | point[..., 1:]
        from_cell, before_cell = self._windows()
        inside = ends & from_cell[:, start:stop][first_cell] & before_cell[:, start:stop][end_cell]
        first = start + inside.argmax(axis=-1)
        last = stop - 1 - inside[..., ::-1].argmax(axis=-1)
        none = ~inside.any(axis=-1)
        return (np.where(none, lower, np.maximum(self.grid[first], lower)),
                np.where(none, upper, np.minimum(self.grid[last + 1], upper)))

    def _windows(self) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Row k: the cells from k on, and the cells before k (k = 0 … cells): bounds()
        picks each run's window by row, instead of comparing every cell per run."""
        if self._window_rows is None:
            cells, ks = np.arange(len(self.grid) - 1), np.arange(len(self.grid))[:, None]
            self._window_rows = (cells >= ks, cells < ks)
        return self._window_rows

    def interval(self, alpha: float | None = None) -> Interval:
        lower, upper = self.bounds(alpha)
        return Interval(float(lower), float(upper))


def _alike(values: Array) -> bool:
    """Every run's value is the first one's."""
    return bool((values == values[0]).all())


def _truncation(left: Array, top: float, floor: Array, cap: Array) -> tuple[Array, Array]:
    """The bets' bounds −c/(top − left) and c/left (each gap from ε on), c = `TRUNCATION`,
    written into `floor` and `cap` (either may be `left`'s own array no longer needed)."""
    np.subtract(top, left, out=floor)
    np.maximum(floor, _EPS, out=floor)
    np.divide(-TRUNCATION, floor, out=floor)
    np.maximum(left, _EPS, out=cap)
    np.divide(TRUNCATION, cap, out=cap)
    return floor, cap


def _unit(values: Array) -> Array:
    """Clip to [0, 1] in place."""
    np.maximum(values, 0.0, out=values)
    return np.minimum(values, 1.0, out=values)


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
    terms = [_dual_terms(s, w) for s, w in used]
    floors = [float(t.proxy[0]) if len(t.proxy) else math.inf for t in terms]
    total = sum(floors)
    lows, highs = np.zeros(len(_NU)), np.zeros(len(_NU))
    lower = upper = 0.0
    for t, floor in zip(terms, floors, strict=True):
        lower += t.logical[0]
        upper += t.logical[1]
        # A mean whose capital alone exceeds what the other strata can lose is impossible
        # in every feasible combination: leaving it out keeps the bound valid and tighter.
        kept = int(t.proxy.searchsorted(threshold - (total - floor), side="right"))
        if kept == 0:  # no candidate survives (chance ≤ α): only the logical bounds
            return _logical(used)
        low_min, high_max = t.first(kept)
        lows += low_min
        highs += high_max
    lows -= _NU * threshold
    highs += _NU * threshold
    return Interval(max(lower, float(lows.max())), min(upper, float(highs.min())))


class DualTerms:
    """A stratum's cells sorted by log-capital (`proxy`), their weighted ends w·low and
    w·high in that order, and its weighted logical bounds."""

    __slots__ = ("_at", "high", "logical", "low", "proxy")

    def __init__(self, proxy: Array, low: Array, high: Array,
                 logical: tuple[float, float]) -> None:
        self.proxy, self.low, self.high, self.logical = proxy, low, high, logical
        self._at: tuple[int, Array, Array] | None = None

    def first(self, kept: int) -> tuple[Array, Array]:
        """Per ν, the minimum of w·low + ν·log K and the maximum of w·high − ν·log K over
        the first `kept` cells; the last answer is kept (the other strata's next results
        seldom move where this one's pruning falls)."""
        if self._at is None or self._at[0] != kept:
            nu = _NU[:, None] * self.proxy[None, :kept]
            self._at = (kept, (self.low[None, :kept] + nu).min(axis=1),
                        (self.high[None, :kept] - nu).max(axis=1))
        return self._at[1], self._at[2]


def _dual_terms(s: Stratum, w: float) -> DualTerms:
    """A stratum's cells sorted by log-capital, for the dual bounds of every pruning. Kept
    until the stratum's next draw (a run changes one stratum at a time)."""
    key = (s.n, w)
    if s.dual is not None and s.dual[0] == key:
        return s.dual[1]
    low, high, proxy = s.cells()
    finite = np.isfinite(proxy)
    order = np.argsort(proxy[finite], kind="stable")
    logical = s.logical()
    terms = DualTerms(proxy[finite][order], w * low[finite][order], w * high[finite][order],
                      (w * logical.lower, w * logical.upper))
    s.dual = (key, terms)
    return terms


def _logical(used: list[tuple[Stratum, float]]) -> Interval:
    bounds = [(w, s.logical()) for s, w in used]
    return Interval(sum(w * b.lower for w, b in bounds), sum(w * b.upper for w, b in bounds))
