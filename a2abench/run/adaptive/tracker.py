"""The statistics of one adaptive run: results fed in the order they were picked, the
confidence sequence (a running intersection, so nothing it said is ever undone), the stop
rule. Shared by the engine (live), `report` (rebuilt from the records) and the simulations.

Values live in [0, 1]. A score is its own value. A paired A/B run (`--baseline`) bets on the
difference d = new − baseline of each task-trial, in [−1, 1], as the value (d + 1)/2: its
bounds map back to the difference, and, since the baseline's mean over the run's task-trials
is known, to the new score too.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from a2abench.run.adaptive import CONFIDENCE
from a2abench.run.adaptive.confseq import Interval, Stratum, stratified_interval
from a2abench.run.status import SUCCESS_EPS

GATE_FLOOR = 0.02  # bets aim at a margin of at least this around a gate
MIN_MARGIN = 0.005  # ... and never at less than this
MIN_SPREAD = 0.05  # Neyman shares: a stratum that looks constant still gets some draws
STALL_RUN = 5  # a stratum whose last results were all unscored stops being picked
METHOD = ("betting confidence sequence for sampling without replacement (Waudby-Smith & "
          "Ramdas; Kelly bets capped at the stop's margin), product over strata; unscored "
          "task-trials count at their worst for each bet")


@dataclass(frozen=True)
class Settings:
    target_ci: float | None = None
    fail_under: float | None = None
    gate: bool = False  # stop once decided (fail_under; against the baseline when paired)
    allocate: str = "proportional"
    confidence: float = CONFIDENCE
    paired: bool = False  # a difference against a baseline run's results

    @classmethod
    def of(cls, config: Any) -> Settings:
        return cls(config.target_ci, config.fail_under, bool(config.adaptive_gate),
                   config.allocate, paired=getattr(config, "baseline", None) is not None)

    @property
    def mode(self) -> str:
        gate = ""
        if self.gate and self.paired:
            gate = f"gate against the baseline, margin {self.margin:g}"
        elif self.gate and self.fail_under is not None:
            gate = f"gate {self.fail_under:g}"
        parts = ["paired difference against a baseline run" if self.paired else "",
                 f"target ±{self.target_ci:g}" if self.target_ci is not None else "", gate,
                 {"neyman": "neyman allocation", "uniform": "uniform order"}.get(
                     self.allocate, "")]
        return "adaptive (" + ", ".join(p for p in parts if p) + ")"

    @property
    def margin(self) -> float:
        """A paired gate's margin: a difference above −margin counts as equal or better."""
        return self.target_ci or 0.0

    def gate_lines(self) -> tuple[float, float] | None:
        """(pass at, fail below) in the displayed unit: the gate passes once the lower bound
        is at or above the first, fails once the upper bound is below the second."""
        if not self.gate:
            return None
        if self.paired:
            return (-self.margin, 0.0)
        return None if self.fail_under is None else (self.fail_under, self.fail_under)


def clamp(reward: float | None) -> float | None:
    """A reward as a value: within 1e-6 of [0, 1] it is clamped (float noise, e.g. a product
    of rewards); anything else (NaN, out of range) is not a score: unresolved."""
    if reward is None or not -SUCCESS_EPS <= reward <= 1 + SUCCESS_EPS:
        return None
    return min(1.0, max(0.0, float(reward)))


class Tracker:
    """Results arrive out of order (concurrency); they are fed in pick order, waiting for the
    earliest one still running, so the bounds are always those of a prefix of the picks: the
    path along which the product of the strata's capitals is a martingale (the stratum of
    each pick was chosen before its result was known). An unscored result (infrastructure or
    harness error) counts at its worst for each bet ([0, 1]; for a pair [−baseline,
    1 − baseline]): it widens the interval but never stops the counting.
    """

    def __init__(self, sizes: dict[str, int], weights: dict[str, float], settings: Settings,
                 *, bounds: dict[str, tuple[float, float]] | None = None,
                 baseline_score: float | None = None) -> None:
        self.sizes, self.weights, self.settings = dict(sizes), dict(weights), settings
        self._units = sum(self.sizes.values())
        self.alpha = 1 - settings.confidence
        # paired: the value-space sums of each stratum's smallest and largest differences
        self.bounds = dict(bounds or {})
        self.baseline_score = baseline_score
        if settings.paired and (baseline_score is None or set(self.bounds) != set(sizes)):
            raise ValueError("a paired plan needs the baseline's score and bounds")
        self.strata = {name: Stratum(size, self.alpha, bounds=self.bounds.get(name))
                       for name, size in sizes.items()}
        # pick -> (stratum, rank, value, draw, baseline); None: a void pick
        self.pending: dict[int, tuple[Any, ...] | None] = {}
        self.next_pick = 0  # the first pick not fed yet
        self.streak = dict.fromkeys(sizes, 0)  # unscored results in a row, per stratum
        self.stalled: set[str] = set()
        self.interval = Interval(0.0, 1.0)  # value space; the running intersection
        self.stop_reason: str | None = None
        self.decided_at: int | None = None
        self.voids: list[int] = []  # picks a resumed session left empty (in its run record)
        self.errors = 0  # unscored results counted (at their worst)
        self._shares: dict[str, float] = {}  # share(), until the next result is fed

    @classmethod
    def from_header(cls, header: dict[str, Any]) -> Tracker:
        settings = Settings(**header["settings"])
        bounds = {str(k): (float(v[0]), float(v[1]))
                  for k, v in (header.get("bounds") or {}).items()}
        baseline = header.get("baseline") or {}
        score = baseline.get("score") if isinstance(baseline, dict) else None
        return cls({str(k): int(v) for k, v in header["strata"].items()},
                   {str(k): float(v) for k, v in header["weights"].items()}, settings,
                   bounds=bounds, baseline_score=None if score is None else float(score))

    def header(self) -> dict[str, Any]:
        out = {"mode": self.settings.mode, "confidence": self.settings.confidence,
               "method": METHOD, "settings": asdict(self.settings), "strata": self.sizes,
               "weights": self.weights, "units": sum(self.sizes.values()),
               "void_picks": self.voids}
        if self.settings.paired:
            out["bounds"] = {k: list(v) for k, v in self.bounds.items()}
        return out

    @property
    def fed(self) -> int:
        return sum(s.n for s in self.strata.values())

    @property
    def units(self) -> int:
        return self._units

    def record(self, stratum: str, rank: int, value: float | None, pick: int,
               draw: tuple[float, float] | None = None,
               baseline: float | None = None) -> None:
        """The result (None: not scored) of the `pick`-th pick, rank `rank` of `stratum`.
        `draw`: (scale, top) of a weighted draw (Stratum.add); then `rank` is -1.
        `baseline`: the baseline's reward of this task-trial (paired runs)."""
        if stratum not in self.strata or not (0 <= rank < self.sizes[stratum]
                                              or (rank == -1 and draw is not None)):
            raise ValueError(f"rank {rank} of stratum {stratum!r} is not in this plan")
        if self.settings.paired and (baseline is None or clamp(baseline) is None):
            raise ValueError(f"pick {pick}: a paired result needs its baseline reward")
        if pick < self.next_pick or pick in self.pending:
            raise ValueError(f"pick {pick} was recorded twice")
        self.pending[pick] = (stratum, rank, value, draw, baseline)
        self._advance()

    def void(self, pick: int) -> None:
        """A pick a resumed run leaves empty: an earlier session started a task-trial there
        whose identity it never recorded; its task-trial is simply picked again later."""
        if pick < self.next_pick or pick in self.pending:
            raise ValueError(f"pick {pick} was recorded twice")
        self.pending[pick] = None
        self._advance()

    def _advance(self) -> None:
        while self.next_pick in self.pending:
            entry = self.pending.pop(self.next_pick)
            self.next_pick += 1
            if entry is not None:
                self._feed(*entry)
        self._check()

    def _feed(self, name: str, rank: int, value: float | None,
              draw: tuple[float, float] | None, baseline: float | None) -> None:
        stratum = self.strata[name]
        if draw is None and rank != stratum.n:
            raise ValueError(f"stratum {name!r}: pick {self.next_pick - 1} has rank {rank}, "
                             f"expected {stratum.n}")
        x = clamp(value)
        low, high, unit = self._range(x, baseline)
        if x is None:
            self.errors += 1
            self.streak[name] += 1
            if self.streak[name] >= STALL_RUN:
                self.stalled.add(name)
        else:
            self.streak[name] = 0
            self.stalled.discard(name)
        scale, top = draw or (1.0, 1.0)
        stratum.add(low, high, margin=self.margin(name), scale=scale, top=top, unit=unit)
        self._shares.clear()  # the stratum's variance changed

    def _range(self, x: float | None,
               baseline: float | None) -> tuple[float, float, tuple[float, float]]:
        """The value's range (a point when scored) and the unit's whole range."""
        if not self.settings.paired:
            return (0.0, 1.0, (0.0, 1.0)) if x is None else (x, x, (0.0, 1.0))
        b = clamp(baseline) or 0.0
        unit = ((1 - b) / 2, (2 - b) / 2)  # d = x − b with x anywhere in [0, 1]
        return (*unit, unit) if x is None else ((x - b + 1) / 2, (x - b + 1) / 2, unit)

    def _stop_margin(self) -> float:
        """The precision at which the run stops, in value space: the target, the distance
        from the estimate to the gate's line it can still reach, or (no stop rule) the
        current half-width. From past results only."""
        s, unit = self.settings, 2.0 if self.settings.paired else 1.0
        margins = []
        if s.target_ci is not None:
            margins.append(s.target_ci / unit)
        lines = s.gate_lines()
        if lines is not None:
            guess = self.estimate()
            at = (0.0 if s.paired else 0.5) if guess is None else guess
            distance = max(at - lines[0], lines[1] - at) / unit
            margins.append(max(distance, GATE_FLOOR / unit))
        if not margins:
            margins.append(self.interval.half_width)
        return max(max(margins), MIN_MARGIN)

    def margin(self, name: str) -> float:
        """Where this stratum's bets aim: its part of the stop's margin. Bounding
        Σ w_s·mean_s at margin M is cheapest when stratum s is held to
        M·(w_s·v_s/π_s) / Σ_r (w_r²·v_r/π_r) (v: variance, π: share of draws), which is M
        itself for one stratum."""
        total = self._stop_margin()
        parts = {n: self.weights[n] ** 2 * self.strata[n].variance() / self.share(n)
                 for n in self.strata if self.weights[n] > 0}
        if name not in parts or len(parts) == 1:
            return total
        weight = self.weights[name]
        ratio = weight * float(self.strata[name].variance()) / self.share(name)
        return max(total * ratio / float(sum(parts.values())), MIN_MARGIN)

    def share(self, name: str) -> float:
        """The stratum's expected share of the draws under the allocation (kept until the
        next result: the stratum choice and each bet's margin ask for it many times)."""
        share = self._shares.get(name)
        if share is None:
            if self.settings.allocate != "neyman":
                share = self._shares[name] = self.sizes[name] / self.units
            else:  # every stratum's at once: each needs all the spreads
                spread = {n: (self.weights[n] or self.sizes[n] / self.units)  # apart: by size
                          * max(math.sqrt(float(s.variance())), MIN_SPREAD)
                          for n, s in self.strata.items()}
                total = sum(spread.values())
                self._shares.update((n, own / total) for n, own in spread.items())
                share = self._shares[name]
        return share

    def _check(self) -> None:
        now = stratified_interval(list(self.strata.values()),
                                  [self.weights[n] for n in self.strata], self.alpha)
        self.interval = self.interval.meet(now)
        if self.stop_reason is not None:
            return
        s, iv = self.settings, self.shown()
        lines = s.gate_lines()
        if self.fed == self.units:
            reason: str | None = "exhausted"
        elif lines is not None and iv.lower >= lines[0]:
            reason = "gate_pass"
        elif lines is not None and iv.upper < lines[1]:
            reason = "gate_fail"
        elif s.target_ci is not None and iv.half_width <= s.target_ci and \
                not (s.paired and s.gate):  # there W is the gate's margin: the gate stops
            reason = "target_ci"
        else:
            reason = None
        if reason is not None:
            self.stop(reason)

    def stop(self, reason: str) -> None:
        """Stop here (the rule fired, or the run cannot go on: every stratum left stalled)."""
        if self.stop_reason is None:
            self.stop_reason, self.decided_at = reason, self.fed

    def shown(self) -> Interval:
        """The running interval in the displayed unit: the score, or the difference."""
        if not self.settings.paired:
            return self.interval
        return Interval(2 * self.interval.lower - 1, 2 * self.interval.upper - 1)

    def estimate(self) -> float | None:
        """The stratified mean of the scored results fed so far, in the displayed unit
        (None until every weighted stratum has one)."""
        parts = [(self.weights[n], s) for n, s in self.strata.items() if self.weights[n] > 0]
        if any(s.mean() is None for _, s in parts):
            return None
        value = sum(w * (s.mean() or 0.0) for w, s in parts)
        if self.settings.paired:
            return min(1.0, max(-1.0, 2 * value - 1))
        return min(1.0, max(0.0, value))  # float sums

    def decision(self) -> str | None:
        """The gate's verdict so far: "pass", "fail" or None (undecided, or no gate). A
        paired gate decides on the difference, --fail-under on the score."""
        s = self.settings
        lines = s.gate_lines()
        if lines is None and s.fail_under is not None:
            lines = (s.fail_under, s.fail_under)
        if lines is None:
            return None
        iv = self.shown()
        if s.paired and not s.gate:  # --fail-under: the score is baseline + difference
            base = self.baseline_score or 0.0
            iv = Interval(base + iv.lower, base + iv.upper)
        if iv.lower >= lines[0]:
            return "pass"
        if iv.upper < lines[1]:
            return "fail"
        return None

    def summary(self) -> dict[str, Any]:
        iv = self.shown()
        estimate = self.estimate()
        out: dict[str, Any] = {
            "stop_reason": self.stop_reason, "decided_at": self.decided_at, "n": self.fed,
            "N": self.units, "lower": round(iv.lower, 6), "upper": round(iv.upper, 6),
            "half_width": round(iv.half_width, 6), "estimate": estimate,
            "decision": self.decision(), "errors": self.errors,
            "stalled": sorted(self.stalled)}
        if self.settings.paired:  # the headline is the new score: baseline + difference
            base = self.baseline_score or 0.0
            paired = {k: out[k] for k in ("lower", "upper", "half_width", "estimate")}
            out["paired"] = paired | {"baseline_score": round(base, 6)}
            out |= {"lower": round(min(1.0, max(0.0, base + iv.lower)), 6),
                    "upper": round(min(1.0, max(0.0, base + iv.upper)), 6),
                    "estimate": None if estimate is None
                    else min(1.0, max(0.0, base + estimate))}
        return out
