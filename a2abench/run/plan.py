"""Which task-trials a run executes: selection, trials, shards, and what resume skips."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a2abench.errors import ConfigError, ResumeMismatch
from a2abench.run.adaptive import is_adaptive
from a2abench.run.compat import diff
from a2abench.run.config import RunConfig, Shard, trial_seed
from a2abench.run.driver import TaskSpec
from a2abench.run.roles import Pairing
from a2abench.run.writer import ReadStats, iter_records

# (task, trial), or (task, trial, pairing) in a multi-party run (Item.unit).
Key = tuple[str, int] | tuple[str, int, str]


@dataclass(frozen=True)
class Item:
    task: TaskSpec
    trial: int
    seed: int
    pairing: Pairing | None = None  # a multi-party run's match (run/roles.py)

    @property
    def key(self) -> tuple[str, int]:
        return (self.task.task_id, self.trial)

    @property
    def unit(self) -> Key:
        """What resume keys on: the task-trial, and a multi-party run's pairing."""
        if self.pairing is None:
            return self.key
        return (self.task.task_id, self.trial, self.pairing.id)


def select(tasks: list[TaskSpec], task_ids: list[str] | None,
           max_tasks: int | None,
           explain: Callable[[list[str]], ConfigError | None] | None = None
           ) -> list[TaskSpec]:
    """--task-ids then --max-tasks, keeping the benchmark's order. `explain` (the driver's
    `unknown_tasks`) may say better why ids are missing (outside a scenario's selection)."""
    if task_ids:
        wanted = list(dict.fromkeys(task_ids))
        by_id = {t.task_id: t for t in tasks}
        missing = [t for t in wanted if t not in by_id]
        if missing:
            better = explain(missing) if explain is not None else None
            if better is not None:
                raise better
            sample = ", ".join(t.task_id for t in tasks[:5])
            raise ConfigError(f"unknown task id(s): {', '.join(missing)}",
                              hint=f"Task ids look like: {sample}.")
        keep = set(wanted)
        tasks = [t for t in tasks if t.task_id in keep]
    if max_tasks is not None:
        tasks = tasks[:max_tasks]
    return tasks


@dataclass(frozen=True)
class Plan:
    """This run's share of task-trials in canonical (task order, trial) order, generated on
    demand: never held as a list, since tasks × trials can be millions (50 tasks × 100,000
    trials took 840 MB as a list). Shards take every `count`-th task-trial, round-robin:
    stable on every machine and balanced to within one. A multi-party run plays each of
    its `pairings` on every task-trial, with the task-trial's seed: shards split the
    (task, trial, pairing) units."""

    tasks: tuple[TaskSpec, ...]
    num_trials: int
    seed: int
    shard: Shard | None = None
    pairings: tuple[Pairing, ...] = ()

    def __iter__(self) -> Iterator[Item]:
        step, first = (self.shard.count, self.shard.index - 1) if self.shard else (1, 0)
        position = 0
        matches: tuple[Pairing | None, ...] = self.pairings or (None,)
        for task in self.tasks:
            for trial in range(self.num_trials):
                for pairing in matches:
                    if position % step == first:
                        yield Item(task, trial, trial_seed(self.seed, task.task_id, trial),
                                   pairing)
                    position += 1

    def __len__(self) -> int:
        total = len(self.tasks) * self.num_trials * max(1, len(self.pairings))
        if self.shard is None:
            return total
        return len(range(self.shard.index - 1, total, self.shard.count))

    def counts(self, domain: str | None = None, pairing: int = 0) -> list[dict[str, Any]]:
        """This share's task-trials by (domain, category), counted without iterating: what
        `report` needs to score a task-trial that never got a record (docs/run-semantics.md,
        "Incomplete scores"). `domain` stands for a task's own, as in its task record. In a
        multi-party run, the task-trials of pairing number `pairing` (the report's headline
        covers the primary one, 0)."""
        step, first = (self.shard.count, self.shard.index - 1) if self.shard else (1, 0)
        width = max(1, len(self.pairings))
        counts: dict[tuple[str | None, str | None], int] = {}
        for index, task in enumerate(self.tasks):
            mine = _in_share(index * self.num_trials * width + pairing, width,
                             self.num_trials, step, first)
            if mine:
                key = (task.domain or domain, task.category)
                counts[key] = counts.get(key, 0) + mine
        return [{"domain": domain, "category": category, "task_trials": n}
                for (domain, category), n in counts.items()]


def _in_share(start: int, stride: int, count: int, step: int, first: int) -> int:
    """How many of the positions start, start + stride, ... (`count` of them) are in the
    share of the positions p with p % step == first: k * stride = first - start (mod step)
    has solutions k = k0 (mod step / g) when g = gcd(stride, step) divides the right side."""
    g = math.gcd(stride, step)
    need = (first - start) % step
    if need % g:
        return 0
    period = step // g
    k0 = (need // g) * pow(stride // g, -1, period) % period if period > 1 else 0
    return len(range(k0, count, period))


def expand(tasks: list[TaskSpec], num_trials: int, seed: int) -> list[Item]:
    """Every task-trial as a list (small selections and tests; runs iterate a `Plan`)."""
    return list(Plan(tuple(tasks), num_trials, seed))


def shard_items(items: list[Item], shard: Shard | None) -> list[Item]:
    """The shard's share of a list from `expand`, as `Plan` takes it."""
    if shard is None:
        return items
    return items[shard.index - 1::shard.count]


def compat_key(config: RunConfig, driver_compat: dict[str, Any],
               domain: str | None) -> dict[str, Any]:
    """What must be equal between runs that share an output (resume) or form one run
    (shards). Concurrency, timeouts and the output path may change. An adaptive run's
    settings are part of it: its bets depend on them, and changing them after seeing results
    would void the confidence sequence."""
    key = {"benchmark": config.benchmark, "domain": domain, "options": driver_compat,
           "white_agent_url": config.white_agent_url, "task_ids": config.task_ids,
           "max_tasks": config.max_tasks, "num_trials": config.num_trials, "seed": config.seed,
           "shard": str(config.shard) if config.shard else None}
    if is_adaptive(config):
        adaptive: dict[str, Any] = {
            "target_ci": config.target_ci, "adaptive_gate": config.adaptive_gate,
            "fail_under": config.fail_under if config.adaptive_gate else None,
            "allocate": config.allocate}
        if config.baseline is not None:  # the results themselves: checked on resume
            adaptive["baseline"] = True
        key["adaptive"] = adaptive
    return key


@dataclass
class Previous:
    """What an existing output file already holds."""

    run_ids: list[str]
    done: set[Key]
    infra_failed: set[Key]
    stats: ReadStats


def read_previous(path: Path, key: dict[str, Any]) -> Previous:
    """Task-trials recorded in `path`; refuses when its configuration is incompatible."""
    stats = ReadStats()
    run_ids: list[str] = []
    outcome: dict[Key, str] = {}
    for rec in iter_records([path], stats, frozenset({"run", "task"})):
        if rec["type"] == "run":
            recorded = rec.get("compat_key")
            problems = (diff(recorded, key) if isinstance(recorded, dict)
                        else [f"compat_key: recorded {str(recorded)[:60]!r}, not an object"])
            if problems:
                raise ResumeMismatch(
                    f"cannot resume {path}: its run was configured differently:\n  "
                    + "\n  ".join(problems),
                    hint="Use the same flags as the first run, or a new --output.")
            run_ids.append(rec["run_id"])
        else:
            trial = rec.get("trial")
            if not isinstance(trial, int) or isinstance(trial, bool) or \
                    not isinstance(rec.get("task_id"), str):
                raise ResumeMismatch(f"cannot resume {path}: a task record has task_id "
                                     f"{str(rec.get('task_id'))[:40]!r} and trial "
                                     f"{str(trial)[:40]!r}",
                                     hint="The file was not written by `a2abench run` or was "
                                          "edited; nothing was changed. Choose a new --output.")
            k = _record_key(rec, trial)
            # A later non-infrastructure result wins over an earlier infrastructure failure.
            if rec.get("status") != "infrastructure_error" or k not in outcome:
                outcome[k] = rec.get("status", "ok")
    if not run_ids:  # refuse before anything touches the file (the writer trims torn tails)
        what = ("has task records but no run record" if outcome else
                f"is not an a2abench run ({stats.lines} line(s), none of them a run record)")
        raise ResumeMismatch(f"cannot resume {path}: it {what}",
                             hint="It was not written by `a2abench run`; nothing was changed. "
                                  "Choose a new --output.")
    infra = {k for k, s in outcome.items() if s == "infrastructure_error"}
    return Previous(run_ids, set(outcome) - infra, infra, stats)


def _record_key(rec: dict[str, Any], trial: int) -> Key:
    """A task record's Item.key: a multi-party record names its pairing in `match`."""
    match = rec.get("match")
    pairing = match.get("pairing") if isinstance(match, dict) else None
    if isinstance(pairing, str):
        return (rec["task_id"], trial, pairing)
    return (rec["task_id"], trial)


def _skip(previous: Previous | None, retry_errors: bool) -> set[Key]:
    if previous is None:
        return set()
    return previous.done if retry_errors else previous.done | previous.infra_failed


def pending(items: Iterable[Item], previous: Previous | None,
            retry_errors: bool) -> Iterator[Item]:
    """The task-trials still to run, lazily (resume skips what is recorded)."""
    skip = _skip(previous, retry_errors)
    return (i for i in items if i.unit not in skip)


def skipped(items: Iterable[Item], previous: Previous | None, retry_errors: bool) -> int:
    """How many of `items` resume skips (counted without holding them)."""
    skip = _skip(previous, retry_errors)
    return sum(1 for i in items if i.unit in skip) if skip else 0
