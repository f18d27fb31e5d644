"""The adaptive plan the engine consults: which task-trial runs next, and when to stop.

Task-trials are split into strata (category, else domain; one stratum with `--allocate
uniform`). Each stratum's task-trials get one random order from the run's order seed (fresh
per run and recorded; derived from `--seed` when one is given), so a stratum's draws are a
uniformly random sample without replacement whatever the interleaving. The next stratum is
chosen from what is already known (predictable): `proportional` keeps every prefix
representative (each stratum within two task-trials of its share), `neyman` gives strata
shares ∝ weight × estimated spread; a stratum whose last results were all unscored is no
longer picked. Results are counted by the Tracker (tracker.py) in pick order.

Everything the bounds depend on is in the records (each task record's stratum, rank and pick;
the run record's plan), so `--resume` and `report` rebuild exactly the same sequence.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from a2abench.errors import ConfigError, ResumeMismatch
from a2abench.run.adaptive.baseline import Baseline
from a2abench.run.adaptive.baseline import load as load_baseline
from a2abench.run.adaptive.tracker import Settings, Tracker
from a2abench.run.config import trial_seed
from a2abench.run.driver import TaskSpec
from a2abench.run.plan import Item
from a2abench.run.status import SCORED_STATUSES, is_success

MAX_UNITS = 100_000  # the plan lists every task-trial (the full-run Plan streams them)
UNIFORM = "all"  # the one stratum of `--allocate uniform`


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


def uniform_problem(scoring: dict[str, Any]) -> str | None:
    """Why one unstratified order cannot give this benchmark's headline (None: it can)."""
    if scoring.get("headline") == "macro_category_mean":
        return "the headline is a macro average over categories"
    if any(scoring.get("separate") or {}):
        return "some categories are scored apart from the headline"
    return None


def units_of(tasks: Iterable[TaskSpec], num_trials: int, seed: int) -> list[Item]:
    """Every task-trial of a run, with its per-trial seed."""
    return [Item(task, trial, trial_seed(seed, task.task_id, trial))
            for task in tasks for trial in range(num_trials)]


def _stratum_seed(seed: int, name: str) -> int:
    digest = hashlib.sha256(f"{seed}|adaptive|{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Sequence:
    """The engine's adaptive plan: `next_item()` for workers, `observe(record)` after each
    task-trial, `replay()` for `--resume`."""

    def __init__(self, units: list[Item], order_seed: int, scoring: dict[str, Any],
                 settings: Settings, baseline: Baseline | None = None) -> None:
        settings = replace(settings, paired=baseline is not None)
        strata: dict[str, list[Item]] = {}
        for item in units:
            name = UNIFORM if settings.allocate == "uniform" else stratum_of(item.task)
            strata.setdefault(name, []).append(item)
        for name, items in strata.items():  # one seeded order per stratum
            random.Random(_stratum_seed(order_seed, name)).shuffle(items)
        self.units = dict(sorted(strata.items()))
        self.where = {item.key: (name, rank) for name, items in self.units.items()
                      for rank, item in enumerate(items)}
        sizes = {name: len(items) for name, items in self.units.items()}
        weights = headline_weights(sizes, scoring)
        self.baseline = baseline
        self.tracker = Tracker(sizes, weights, settings, **_paired(self.units, weights,
                                                                   baseline))
        self.order_seed = order_seed
        self.picked = dict.fromkeys(self.units, 0)
        self.pick_of: dict[tuple[str, int], int] = {}
        self.picks = 0
        self.gaps: list[Item] = []
        self.obey_stop = True  # simulations switch it off to follow the sequence to the end
        # pass^k under Neyman: within a stratum, tasks whose trials so far disagree are twice
        # as likely to be drawn (weighted draws, Horvitz-Thompson in the bets).
        self.weighted = (settings.allocate == "neyman" and baseline is None
                         and len(units) > len({i.task.task_id for i in units}))
        self.left = {name: list(items) for name, items in self.units.items()} \
            if self.weighted else {}  # weighted draws only: the task-trials not drawn yet
        self.outcomes: dict[str, set[bool]] = {}  # task id -> the outcomes of its trials
        self.draws: dict[tuple[str, int], tuple[float, float]] = {}  # key -> (scale, top)
        self.notes: list[str] = []  # warnings for the engine to show

    def header(self) -> dict[str, Any]:
        """The run record's `adaptive` plan."""
        out = self.tracker.header() | {"order_seed": self.order_seed}
        if self.baseline is not None:
            out["baseline"] = self.baseline.describe() | {
                "score": self.tracker.baseline_score}
        return out

    def __len__(self) -> int:
        return len(self.where)

    def items(self) -> Iterable[Item]:
        """Every task-trial of the plan (any order)."""
        return (item for items in self.units.values() for item in items)

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
        point = random.Random(_stratum_seed(self.order_seed, f"draw {self.picks}")).random() \
            * total
        index = 0
        while index < len(left) - 1 and point >= weights[index]:
            point -= weights[index]
            index += 1
        q = weights[index] / total
        self.draws[left[index].key] = (1 / (q * len(left)), total / (min(weights) * len(left)))
        return left[index]

    def _choose(self) -> str | None:
        """The stratum furthest behind its share, among those with task-trials left and not
        stalled; None when none is left (a stalled run stops: `stalled`)."""
        open_ = [n for n, items in self.units.items() if self.picked[n] < len(items)]
        ready = [n for n in open_ if n not in self.tracker.stalled]
        if open_ and not ready:
            self.tracker.stop("stalled")
            if self.obey_stop:
                return None
            ready = open_  # simulations follow the sequence to the end all the same
        if not ready:
            return None
        t = self.tracker
        shares = {n: t.share(n) for n in ready}
        total, picked = sum(shares.values()), sum(self.picked[n] for n in ready)
        return max(ready, key=lambda n: shares[n] / total * (picked + 1) - self.picked[n])

    def observe(self, record: Any) -> None:
        """Tag a finished task record with its stratum, rank and pick, and count it."""
        key = (record.task_id, record.trial)
        name, rank = self.where[key]
        pick = self.pick_of[key]
        record.adaptive = {"stratum": name, "rank": rank, "pick": pick}
        draw = self.draws.get(key)
        if draw is not None:
            record.adaptive |= {"rank": -1, "scale": draw[0], "top": draw[1]}
        base = self.baseline.units[key] if self.baseline is not None else None
        if base is not None:
            record.adaptive |= {"baseline": base.reward, "baseline_success": base.success}
        scored = record.status in SCORED_STATUSES
        if scored:
            self.outcomes.setdefault(record.task_id, set()).add(is_success(record.reward))
        self.tracker.record(name, record.adaptive["rank"],
                            (record.reward or 0.0) if scored else None, pick, draw,
                            base.reward if base is not None else None)

    def _baseline_of(self, key: tuple[str, int]) -> float | None:
        return self.baseline.units[key].reward if self.baseline is not None else None

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
                name, rank, value = done[pick]
                self.tracker.record(name, rank, value, pick,
                                    baseline=self._baseline_of(self.units[name][rank].key))
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


def _paired(units: dict[str, list[Item]], weights: dict[str, float],
            baseline: Baseline | None) -> dict[str, Any]:
    """The Tracker's paired arguments: each stratum's value-space bounds, the baseline's
    headline score over the run's task-trials."""
    if baseline is None:
        return {}
    bounds, score = {}, 0.0
    for name, items in units.items():
        rewards = [baseline.units[i.key].reward for i in items]
        bounds[name] = (sum((1 - b) / 2 for b in rewards), sum((2 - b) / 2 for b in rewards))
        score += weights[name] * sum(rewards) / len(rewards)
    return {"bounds": bounds, "baseline_score": score}


def start(config: Any, tasks: list[TaskSpec], scoring: dict[str, Any],
          previous: Iterable[dict[str, Any]] | None) -> Sequence:
    """The adaptive plan of a run, continued from an earlier session's records."""
    records = list(previous) if previous is not None else None
    header = next((r["adaptive"] for r in records or () if r.get("type") == "run"
                   and isinstance(r.get("adaptive"), dict)), None)
    settings = Settings.of(config)
    baseline = None
    if config.baseline is not None:
        baseline = load_baseline(config.baseline, config.benchmark)
        recorded = (header or {}).get("baseline")
        if records is not None and (not isinstance(recorded, dict)
                                    or recorded.get("fingerprint") != baseline.fingerprint):
            raise ResumeMismatch(f"cannot resume: the baseline {config.baseline} holds other "
                                 "results than when this run started",
                                 hint="Resume with the baseline as it was, or start a new "
                                      "--output.")
        units = paired_units(baseline, tasks, config.num_trials)
    else:  # checked before the plan is listed: it may be far too large to hold
        _check_plan(len(tasks) * config.num_trials, settings, scoring)
        units = units_of(tasks, config.num_trials, config.seed)
    _check_plan(len(units), settings, scoring)
    sequence = Sequence(units, order_seed(config, header), scoring, settings, baseline)
    if baseline is not None and len(units) < len(baseline.units):
        sequence.notes.append(f"{len(baseline.units) - len(units)} of the baseline's "
                              f"{len(baseline.units)} scored task-trials are not in this "
                              "run's task selection: compared on the other "
                              f"{len(units)}")
    if records is not None:
        try:
            sequence.replay(records, config.retry_errors)
        except ValueError as exc:
            raise ResumeMismatch(f"cannot resume: the adaptive records disagree with the plan "
                                 f"({exc})", hint="The file was edited or written by another "
                                 "version; choose a new --output.") from None
    return sequence


def order_seed(config: Any, header: dict[str, Any] | None) -> int:
    """The order's seed: the one recorded (resume; a run recorded before order seeds were
    recorded used --seed), --seed when given, else a fresh one (an agent tuned to the
    first task-trials of one fixed order must not look better than it is)."""
    recorded = (header or {}).get("order_seed")
    if isinstance(recorded, int) and not isinstance(recorded, bool):
        return recorded
    if header is not None or "seed" in config.model_fields_set:
        return int(config.seed)
    return secrets.randbits(63)


def paired_units(baseline: Baseline, tasks: list[TaskSpec], num_trials: int) -> list[Item]:
    """The baseline's scored task-trials among `tasks`, each with the baseline's seed."""
    if num_trials > 1 and num_trials != baseline.trials:
        raise ConfigError(f"--num-trials {num_trials}: the baseline ran {baseline.trials} "
                          "trial(s) per task, and an A/B run replays the baseline's "
                          "task-trials", hint="Drop --num-trials.")
    order = {t.task_id: (i, t) for i, t in enumerate(tasks)}
    keys = sorted((k for k in baseline.units if k[0] in order),
                  key=lambda k: (order[k[0]][0], k[1]))
    if not keys:
        raise ConfigError(f"--baseline {baseline.path}: none of its scored task-trials is "
                          "among this run's tasks",
                          hint="Select the baseline's tasks (domain, split, --task-ids).")
    return [Item(order[k[0]][1], k[1], baseline.units[k].seed) for k in keys]


def _check_plan(count: int, settings: Settings, scoring: dict[str, Any]) -> None:
    if count > MAX_UNITS:
        raise ConfigError(f"an adaptive run holds its plan in memory: at most {MAX_UNITS:,} "
                          f"task-trials, not {count:,}",
                          hint="Select fewer tasks or trials (--task-ids, --max-tasks, "
                               "--num-trials), or run without --target-ci/--adaptive-gate/"
                               "--allocate/--baseline.")
    problem = uniform_problem(scoring) if settings.allocate == "uniform" else None
    if problem is not None:
        raise ConfigError(f"--allocate uniform: {problem}, so one unstratified order does not "
                          "estimate it", hint="Use --allocate proportional (the default).")
