"""The adaptive plan the engine consults: which task-trial runs next, and when to stop.

Task-trials are split into strata (category, else domain). Each stratum's task-trials get
one seeded random order, fixed by `--seed`, so a stratum's draws are a uniformly random
sample without replacement whatever the interleaving. The next stratum is chosen from what is
already known (predictable): `proportional` keeps every prefix representative (each stratum
within two task-trials of its share), `neyman` gives strata shares ∝ weight × estimated spread.
Each stratum feeds its contiguous prefix of results, in its own order, to a betting capital
(confseq.py); the headline's bounds combine them. A run stops starting task-trials once the
half-width is ≤ `--target-ci` or a `--fail-under` gate is decided (`--adaptive-gate`).

Everything the bounds depend on is in the records (each task record's stratum and rank, the
run record's strata), so `--resume` and `report` rebuild exactly the same sequence.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from a2abench.run.adaptive import CONFIDENCE
from a2abench.run.adaptive.confseq import Interval, Stratum, draws_for, stratified_interval
from a2abench.run.config import trial_seed
from a2abench.run.driver import TaskSpec
from a2abench.run.plan import Item
from a2abench.run.status import SCORED_STATUSES, is_success

GATE_FLOOR = 0.02  # bets aim at a margin of at least this around a gate
MIN_SPREAD = 0.05  # Neyman shares: a stratum that looks constant still gets some draws
MAX_UNITS = 100_000  # the plan lists every task-trial (the full-run Plan streams them)
METHOD = ("betting confidence sequence for sampling without replacement (Waudby-Smith & "
          "Ramdas; aGRAPA bets capped by a predictable plug-in), product over strata")


@dataclass(frozen=True)
class Settings:
    target_ci: float | None = None
    fail_under: float | None = None
    gate: bool = False  # stop once fail_under is decided
    allocate: str = "proportional"
    confidence: float = CONFIDENCE

    @classmethod
    def of(cls, config: Any) -> Settings:
        return cls(config.target_ci, config.fail_under, bool(config.adaptive_gate),
                   config.allocate)

    @property
    def mode(self) -> str:
        parts = [f"target ±{self.target_ci:g}" if self.target_ci is not None else "",
                 f"gate {self.fail_under:g}" if self.gate and self.fail_under is not None
                 else "", "neyman allocation" if self.allocate == "neyman" else ""]
        return "adaptive (" + ", ".join(p for p in parts if p) + ")"


def stratum_of(task: TaskSpec) -> str:
    return task.category or task.domain or "all"


def headline_weights(sizes: dict[str, int], scoring: dict[str, Any]) -> dict[str, float]:
    """Each stratum's weight in the headline score (report/aggregate.py `_score`): its
    share of task-trials for a mean reward, 1/S for a macro average over categories, 0 for
    categories scored apart (CRMArena-Pro's confidentiality)."""
    separate = scoring.get("separate") or {}
    apart = {c for cats in separate.values() for c in cats} if isinstance(separate, dict) \
        else set()
    main = {s: n for s, n in sizes.items() if s not in apart}
    total = sum(main.values())
    if scoring.get("headline") == "macro_category_mean":
        return {s: (1 / len(main) if s in main else 0.0) for s in sizes}
    return {s: (main[s] / total if s in main else 0.0) for s in sizes}


class Tracker:
    """The statistics of one adaptive run: results fed in the order they were *picked*, the
    confidence sequence, the stop rule. Shared by the engine (live) and `report` (rebuilt
    from the records).

    Results arrive out of order (concurrency); they are fed in pick order, waiting for the
    earliest one still running, so the bounds are always those of a prefix of the picks: the
    path along which the product of the strata's capitals is a martingale (the stratum of
    each pick was chosen before its result was known). An unscored result (infrastructure or
    harness error) stalls its stratum: its later results are not fed, the others go on.
    """

    def __init__(self, sizes: dict[str, int], weights: dict[str, float],
                 settings: Settings) -> None:
        self.sizes, self.weights, self.settings = dict(sizes), dict(weights), settings
        self.alpha = 1 - settings.confidence
        self.strata = {name: Stratum(size, self.alpha) for name, size in sizes.items()}
        # pick -> (stratum, rank, value, draw); None: a void pick
        self.pending: dict[int, tuple[str, int, float | None, tuple[float, float] | None]
                           | None] = {}
        self.next_pick = 0  # the first pick not fed yet
        self.stalled: set[str] = set()
        self.interval = Interval(0.0, 1.0)
        self.stop_reason: str | None = None
        self.decided_at: int | None = None
        self.voids: list[int] = []  # picks a resumed session left empty (in its run record)

    @classmethod
    def from_header(cls, header: dict[str, Any]) -> Tracker:
        settings = Settings(**header["settings"])
        return cls({str(k): int(v) for k, v in header["strata"].items()},
                   {str(k): float(v) for k, v in header["weights"].items()}, settings)

    def header(self) -> dict[str, Any]:
        return {"mode": self.settings.mode, "confidence": self.settings.confidence,
                "method": METHOD, "settings": asdict(self.settings), "strata": self.sizes,
                "weights": self.weights, "units": sum(self.sizes.values()),
                "void_picks": self.voids}

    @property
    def fed(self) -> int:
        return sum(s.n for s in self.strata.values())

    @property
    def units(self) -> int:
        return sum(self.sizes.values())

    def record(self, stratum: str, rank: int, value: float | None, pick: int,
               draw: tuple[float, float] | None = None) -> None:
        """The result (None: not scored) of the `pick`-th pick, rank `rank` of `stratum`.
        `draw`: (scale, top) of a weighted draw (Stratum.add); then `rank` is -1."""
        if stratum not in self.strata or not (0 <= rank < self.sizes[stratum]
                                              or (rank == -1 and draw is not None)):
            raise ValueError(f"rank {rank} of stratum {stratum!r} is not in this plan")
        if pick < self.next_pick or pick in self.pending:
            raise ValueError(f"pick {pick} was recorded twice")
        self.pending[pick] = (stratum, rank, value, draw)
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
            if entry is None:
                continue
            name, rank, value, draw = entry
            if name in self.stalled:
                continue
            if value is None:  # unscored: this stratum's prefix ends here
                self.stalled.add(name)
                continue
            stratum_ = self.strata[name]
            if draw is None and rank != stratum_.n:
                raise ValueError(f"stratum {name!r}: pick {self.next_pick - 1} has rank "
                                 f"{rank}, expected {stratum_.n}")
            scale, top = draw or (1.0, 1.0)
            stratum_.add(value, horizon=self._horizon(name), scale=scale, top=top)
        self._check()

    def _horizon(self, name: str) -> float | None:
        """Where the stratum's bets aim: the draws a fixed-time interval would need for the
        precision that stops the run (from this stratum's own past only, so the report's
        rebuild is exact)."""
        s, stratum = self.settings, self.strata[name]
        margins = []
        if s.target_ci is not None:
            margins.append(s.target_ci)
        if s.gate and s.fail_under is not None:
            mean = stratum.total / stratum.n if stratum.n else 0.5
            margins.append(max(abs(mean - s.fail_under), GATE_FLOOR))
        if not margins:
            return None
        # This stratum's share of the draws after which the whole run would stop.
        total = self.units
        return stratum.size / total * draws_for(stratum.variance(), total, max(margins))

    def _check(self) -> None:
        self.interval = stratified_interval(
            list(self.strata.values()), [self.weights[n] for n in self.strata], self.alpha)
        if self.stop_reason is not None:
            return
        s, iv = self.settings, self.interval
        if self.fed == self.units:
            reason: str | None = "exhausted"
        elif s.gate and s.fail_under is not None and iv.lower >= s.fail_under:
            reason = "gate_pass"
        elif s.gate and s.fail_under is not None and iv.upper < s.fail_under:
            reason = "gate_fail"
        elif s.target_ci is not None and iv.half_width <= s.target_ci:
            reason = "target_ci"
        else:
            reason = None
        if reason is not None:
            self.stop_reason, self.decided_at = reason, self.fed

    def estimate(self) -> float | None:
        """The stratified mean of the results fed so far (None until every weighted stratum
        has one)."""
        parts = [(self.weights[n], s) for n, s in self.strata.items() if self.weights[n] > 0]
        if any(s.n == 0 for _, s in parts):
            return None
        return min(1.0, max(0.0, sum(w * s.total / s.n for w, s in parts)))  # float sums

    def decision(self) -> str | None:
        s = self.settings
        if s.fail_under is None:
            return None
        if self.interval.lower >= s.fail_under:
            return "pass"
        if self.interval.upper < s.fail_under:
            return "fail"
        return None

    def summary(self) -> dict[str, Any]:
        iv = self.interval
        return {"stop_reason": self.stop_reason, "decided_at": self.decided_at,
                "n": self.fed, "N": self.units, "lower": round(iv.lower, 6),
                "upper": round(iv.upper, 6), "half_width": round(iv.half_width, 6),
                "estimate": self.estimate(), "decision": self.decision(),
                "stalled": sorted(self.stalled)}


def _stratum_seed(seed: int, name: str) -> int:
    digest = hashlib.sha256(f"{seed}|adaptive|{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Sequence:
    """The engine's adaptive plan: `next_item()` for workers, `observe(record)` after each
    task-trial, `replay()` for `--resume`."""

    def __init__(self, tasks: Iterable[TaskSpec], num_trials: int, seed: int,
                 scoring: dict[str, Any], settings: Settings) -> None:
        units: dict[str, list[Item]] = {}
        for task in tasks:
            for trial in range(num_trials):
                units.setdefault(stratum_of(task), []).append(
                    Item(task, trial, trial_seed(seed, task.task_id, trial)))
        for name, items in units.items():  # one seeded order per stratum
            random.Random(_stratum_seed(seed, name)).shuffle(items)
        self.units = dict(sorted(units.items()))
        self.where = {item.key: (name, rank) for name, items in self.units.items()
                      for rank, item in enumerate(items)}
        sizes = {name: len(items) for name, items in self.units.items()}
        self.tracker = Tracker(sizes, headline_weights(sizes, scoring), settings)
        self.picked = dict.fromkeys(self.units, 0)
        self.pick_of: dict[tuple[str, int], int] = {}
        self.picks = 0
        self.gaps: list[Item] = []
        self.obey_stop = True  # simulations switch it off to follow the sequence to the end
        # pass^k under Neyman: within a stratum, tasks whose trials so far disagree are twice
        # as likely to be drawn (weighted draws, Horvitz-Thompson in the bets).
        self.weighted = settings.allocate == "neyman" and num_trials > 1
        self.seed = seed
        self.left = {name: list(items) for name, items in self.units.items()} \
            if self.weighted else {}  # weighted draws only: the task-trials not drawn yet
        self.outcomes: dict[str, set[bool]] = {}  # task id -> the outcomes of its trials
        self.draws: dict[tuple[str, int], tuple[float, float]] = {}  # key -> (scale, top)

    def __len__(self) -> int:
        return len(self.where)

    def __iter__(self) -> Sequence:
        return self

    def __next__(self) -> Item:
        item = self.next_item()
        if item is None:
            raise StopIteration
        return item

    def next_item(self) -> Item | None:
        """The next task-trial to start, or None once the run should start no more."""
        if self.tracker.stop_reason is not None and self.obey_stop:
            return None
        if self.gaps:
            return self.gaps.pop(0)
        name = self._choose()
        if name is None:
            return None
        rank = self.picked[name]
        self.picked[name] = rank + 1
        if self.weighted:
            item = self._draw(name)
            self.left[name].remove(item)
        else:
            item = self.units[name][rank]
        self.pick_of[item.key] = self.picks
        self.picks += 1
        return item

    def _draw(self, name: str) -> Item:
        """A weighted draw among the stratum's task-trials left: a task whose trials so far
        both passed and failed weighs 2, any other 1 (a task that passed or failed every
        trial so far informs pass^k least). Seeded by the pick's number."""
        left = self.left[name]
        weights = [2.0 if len(self.outcomes.get(i.task.task_id, ())) == 2 else 1.0
                   for i in left]
        total = sum(weights)
        point = random.Random(_stratum_seed(self.seed, f"draw {self.picks}")).random() * total
        index = 0
        while index < len(left) - 1 and point >= weights[index]:
            point -= weights[index]
            index += 1
        q = weights[index] / total
        self.draws[left[index].key] = (1 / (q * len(left)), total / (min(weights) * len(left)))
        return left[index]

    def _choose(self) -> str | None:
        open_ = [n for n, items in self.units.items() if self.picked[n] < len(items)]
        if not open_:
            return None
        shares = {n: self._share(n) for n in open_}
        total, picked = sum(shares.values()), sum(self.picked.values())
        return max(open_, key=lambda n: shares[n] / total * (picked + 1) - self.picked[n])

    def _share(self, name: str) -> float:
        t = self.tracker
        size = t.sizes[name]
        if t.settings.allocate != "neyman":
            return float(size)
        weight = t.weights[name] or size / t.units  # scored-apart strata: by size
        return weight * max(math.sqrt(t.strata[name].variance()), MIN_SPREAD)

    def observe(self, record: Any) -> None:
        """Tag a finished task record with its stratum, rank and pick, and count it."""
        key = (record.task_id, record.trial)
        name, rank = self.where[key]
        pick = self.pick_of[key]
        record.adaptive = {"stratum": name, "rank": rank, "pick": pick}
        draw = self.draws.get(key)
        if draw is not None:
            record.adaptive |= {"rank": -1, "scale": draw[0], "top": draw[1]}
        scored = record.status in SCORED_STATUSES
        if scored:
            self.outcomes.setdefault(record.task_id, set()).add(is_success(record.reward))
        self.tracker.record(name, record.adaptive["rank"],
                            (record.reward or 0.0) if scored else None, pick, draw)

    def replay(self, records: Iterable[dict[str, Any]], retry_errors: bool) -> None:
        """Rebuild the state from an earlier session's task records (`--resume`). The picks
        it started but did not record (in flight when it stopped), and infrastructure
        failures with --retry-errors, run first, in their places in the pick order."""
        if self.weighted:
            self._replay_weighted(records, retry_errors)
            return
        done: dict[int, tuple[str, int, float | None]] = {}
        voids: set[int] = set()
        for rec in records:
            tag = rec.get("adaptive")
            if rec.get("type") == "run":  # picks an earlier resume left void stay void
                voids |= {p for p in (tag or {}).get("void_picks") or [] if isinstance(p, int)}
                continue
            # A forged trial (None, a string) is looked up as it is: it finds no entry.
            where = self.where.get((str(rec.get("task_id")), rec.get("trial")))  # type: ignore[arg-type]
            if where is None or not isinstance(tag, dict) or not isinstance(tag.get("pick"), int):
                continue
            name, rank = where
            pick = tag["pick"]
            self.pick_of[(self.units[name][rank].key)] = pick
            self.picked[name] = max(self.picked[name], rank + 1)
            self.picks = max(self.picks, pick + 1)
            status = rec.get("status")
            if status in SCORED_STATUSES:
                done[pick] = (name, rank, float(rec.get("reward") or 0.0))
            elif (status != "infrastructure_error" or not retry_errors) and pick not in done:
                done[pick] = (name, rank, None)
        self.picks = max([self.picks, *(p + 1 for p in voids)])
        for pick in sorted(done.keys() | voids):
            if pick in done:
                self.tracker.record(*done[pick], pick=pick)
            else:
                self.tracker.void(pick)
                self.tracker.voids.append(pick)
        self._place_gaps(done, voids)

    def _replay_weighted(self, records: Iterable[dict[str, Any]], retry_errors: bool) -> None:
        """Weighted draws have no fixed order to put picks back into: every pick without a
        kept result is void and its task-trial goes back among those left (never seen)."""
        done: dict[int, tuple[str, float | None, tuple[float, float], Item]] = {}
        for rec in records:
            tag = rec.get("adaptive")
            key = (str(rec.get("task_id")), rec.get("trial"))
            if not isinstance(tag, dict) or key not in self.where:
                continue
            pick = tag.get("pick")
            if rec.get("type") == "run" or not isinstance(pick, int):
                continue
            self.picks = max(self.picks, pick + 1)
            status = rec.get("status")
            name, rank = self.where[key]
            draw = (float(tag.get("scale", 1.0)), float(tag.get("top", 1.0)))
            item = self.units[name][rank]
            if status in SCORED_STATUSES:
                reward = float(rec.get("reward") or 0.0)
                done[pick] = (name, reward, draw, item)
                self.outcomes.setdefault(item.task.task_id, set()).add(is_success(reward))
            elif (status != "infrastructure_error" or not retry_errors) and pick not in done:
                done[pick] = (name, None, draw, item)
        for pick in range(self.picks):
            if pick in done:
                name, value, draw, item = done[pick]
                self.tracker.record(name, -1, value, pick, draw)
                self.left[name].remove(item)
                self.picked[name] += 1
                self.pick_of[item.key] = pick
            else:
                self.tracker.void(pick)
                self.tracker.voids.append(pick)

    def _place_gaps(self, done: dict[int, tuple[str, int, float | None]],
                    voids: set[int]) -> None:
        """Give every pick below the last recorded one a task-trial, or leave it void.

        Known places: infrastructure failures re-run with --retry-errors. Unknown: picks an
        earlier session had in flight when it stopped (never recorded, never seen). Any
        placement that keeps each stratum's order is a valid path, since none of their
        results was seen: earliest deadline first; a pick left over is void (its
        task-trial, the next of some stratum, is picked again later)."""
        at = {(n, r): pick for pick, (n, r, _) in done.items()}
        known: dict[int, tuple[str, int]] = {}
        waiting: list[tuple[str, int]] = []
        for name, items in self.units.items():
            for rank in range(self.picked[name]):
                if (name, rank) in at:
                    continue
                pick = self.pick_of.get(items[rank].key)
                if pick is not None:
                    known[pick] = (name, rank)
                else:
                    waiting.append((name, rank))
        free = [i for i in range(self.picks) if i not in done and i not in known
                and i not in voids]
        placed = dict(known)
        for index in free:
            unit = self._earliest(waiting, at, index)
            if unit is None:
                self.tracker.void(index)
                self.tracker.voids.append(index)
            else:
                waiting.remove(unit)
                placed[index] = unit
        if waiting:
            raise ValueError(f"no place for {len(waiting)} unrecorded pick(s)")
        for index in sorted(placed):
            item = self.units[placed[index][0]][placed[index][1]]
            self.pick_of[item.key] = index
            self.gaps.append(item)

    @staticmethod
    def _earliest(waiting: list[tuple[str, int]], at: dict[tuple[str, int], int],
                  index: int) -> tuple[str, int] | None:
        """The waiting pick that may sit at `index` (after its stratum's earlier ranks) and
        must come soonest (before its stratum's next recorded rank)."""
        def window(unit: tuple[str, int]) -> tuple[int, int]:
            name, rank = unit
            before = [p for (n, r), p in at.items() if n == name and r < rank]
            after = [p for (n, r), p in at.items() if n == name and r > rank]
            return max(before, default=-1), min(after, default=1 << 62)

        first: dict[str, int] = {}  # only a stratum's lowest waiting rank may go next
        for name, rank in waiting:
            first[name] = min(rank, first.get(name, rank))
        ready = [(window(u)[1], u) for u in waiting if first[u[0]] == u[1]
                 and window(u)[0] < index < window(u)[1]]
        return min(ready)[1] if ready else None


def start(config: Any, tasks: list[TaskSpec], scoring: dict[str, Any],
          previous: Iterable[dict[str, Any]] | None) -> Sequence:
    """The adaptive plan of a run, continued from an earlier session's task records."""
    if len(tasks) * config.num_trials > MAX_UNITS:
        from a2abench.errors import ConfigError

        raise ConfigError(f"an adaptive run holds its plan in memory: at most {MAX_UNITS:,} "
                          f"task-trials, not {len(tasks) * config.num_trials:,}",
                          hint="Select fewer tasks or trials (--task-ids, --max-tasks, "
                               "--num-trials), or run without --target-ci/--adaptive-gate/"
                               "--allocate neyman.")
    sequence = Sequence(tasks, config.num_trials, config.seed, scoring, Settings.of(config))
    if previous is not None:
        try:
            sequence.replay(previous, config.retry_errors)
        except ValueError as exc:
            from a2abench.errors import ResumeMismatch

            raise ResumeMismatch(f"cannot resume: the adaptive records disagree with the plan "
                                 f"({exc})", hint="The file was edited or written by another "
                                 "version; choose a new --output.") from None
    return sequence
