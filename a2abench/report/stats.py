"""Statistics for reports: pass^k, confidence intervals, and constant-memory percentiles."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import repeat
from operator import truediv

# Student-t 0.975 quantiles for df = 1..30 (beyond: interpolated in 1/df towards 1.96).
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
Z975 = 1.959964


def t975(df: int) -> float:
    if df < 1:
        return math.inf
    if df <= 30:
        return _T975[df - 1]
    return Z975 + (2.042 - Z975) * 30 / df


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau2's pass^k for one task: C(c, k) / C(n, k) (chance k random trials all pass)."""
    if k > n:
        raise ValueError(f"k={k} > n={n} trials")
    return math.comb(c, k) / math.comb(n, k)


def wilson(successes: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    z2 = Z975 * Z975
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z975 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: list[float]) -> tuple[float, float, float, str]:
    """Mean and 95% CI of per-task values: Wilson when every value is 0 or 1, else a
    Student-t interval (tasks are the unit; trials of one task are not independent)."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan, "none")
    mean = sum(values) / n
    if all(v in (0.0, 1.0) for v in values):
        low, high = wilson(int(sum(values)), n)
        return (mean, low, high, "wilson")
    if n == 1:
        return (mean, math.nan, math.nan, "t")
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = t975(n - 1) * math.sqrt(var / n)
    return (mean, max(0.0, mean - half), min(1.0, mean + half), "t")


@dataclass
class LogHistogram:
    """Counts in log-spaced buckets (1% wide): percentiles within ~0.5% in O(1) memory."""

    ratio: float = 1.01
    counts: dict[int, int] = field(default_factory=dict)
    n: int = 0
    total: float = 0.0
    low: float = math.inf
    high: float = 0.0
    _log_ratio: float = field(init=False)

    def __post_init__(self) -> None:
        self._log_ratio = math.log(self.ratio)

    def add(self, value: float) -> None:
        self.n += 1
        self.total += value
        if value < self.low:
            self.low = value
        if value > self.high:
            self.high = value
        bucket = int(math.log(value) / self._log_ratio) if value > 0 else -10**9
        counts = self.counts
        counts[bucket] = counts.get(bucket, 0) + 1

    def extend(self, values: Iterable[float]) -> None:
        """`add` each value in turn: the buckets counted at C speed (`map`), the total added
        in order as `add` adds it (500,000 calls of `add` cost ~0.4 s)."""
        values = values if isinstance(values, list) else list(values)
        if not values:
            return
        total = self.total
        for value in values:
            total += value
        self.n, self.total = self.n + len(values), total
        self.low, self.high = min(self.low, min(values)), max(self.high, max(values))
        positive = [value for value in values if value > 0]
        buckets = Counter(map(int, map(truediv, map(math.log, positive),
                                       repeat(self._log_ratio))))
        if len(positive) < len(values):
            buckets[-10**9] += len(values) - len(positive)
        counts = self.counts
        for bucket, n in buckets.items():
            counts[bucket] = counts.get(bucket, 0) + n

    def percentile(self, q: float) -> float | None:
        if self.n == 0:
            return None
        rank = max(1, math.ceil(q / 100 * self.n))
        seen = 0
        for bucket in sorted(self.counts):
            seen += self.counts[bucket]
            if seen >= rank:
                if bucket == -10**9:
                    return 0.0
                value = float(self.ratio ** (bucket + 0.5))
                return min(max(value, self.low), self.high)
        return self.high

    @property
    def mean(self) -> float | None:
        return self.total / self.n if self.n else None

    def bins(self, count: int = 20) -> list[tuple[float, float, int]]:
        """`count` log-spaced bins between min and max: (lower, upper, n) for charts."""
        if self.n == 0:
            return []
        lo, hi = max(self.low, 1e-3), max(self.high, 1e-3)
        if hi <= lo:
            return [(lo, hi, self.n)]
        step = (math.log(hi) - math.log(lo)) / count
        out = [[lo * math.exp(i * step), lo * math.exp((i + 1) * step), 0] for i in range(count)]
        for bucket, n in self.counts.items():
            value = 0.0 if bucket == -10**9 else self.ratio ** (bucket + 0.5)
            index = 0 if value <= lo else min(count - 1, int((math.log(value) - math.log(lo))
                                                             / step))
            out[index][2] += n
        return [(a, b, int(c)) for a, b, c in out]
