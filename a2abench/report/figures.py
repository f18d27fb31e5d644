"""The report's figures over its rows: task order, tallies, groups, pass^k, the headline.

Each is computed over 500,000 rows at most a few times, so the rows' columns are taken with
C-level `map(attrgetter(...))` rather than a Python loop per row; sums of rewards add the
same floats in the same (line) order as `Counts.add` would, so every figure is the same.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any, NamedTuple, TypeVar

from a2abench.report.stats import mean_ci, pass_hat_k
from a2abench.run.status import SCORED_STATUSES, Counts

_SCORED = frozenset(SCORED_STATUSES)
_STATUS, _SUCCESS, _REWARD = attrgetter("status"), attrgetter("success"), attrgetter("reward")
_TASK = attrgetter("benchmark", "domain", "task_id")
_INT_COUNTS = tuple(f.name for f in dataclasses.fields(Counts) if f.type in ("int", int))
R = TypeVar("R", bound=NamedTuple)


def task_order(by_key: dict[tuple[Any, ...], R], natural: Callable[[str], Any]) -> list[R]:
    """The rows sorted as `sorted(rows, key=(benchmark, str(domain), natural(task_id),
    trial))` sorts them (stable: ties in the dict's order), with `natural` taken once per
    task and the rows sorted on integer keys (the task's rank, then the trial). `by_key`'s
    keys are (benchmark, domain, task_id, trial), its values the rows with those values."""
    tasks: dict[tuple[Any, ...], int] = {}
    setdefault = tasks.setdefault
    task_of = [setdefault((b, str(d), t), len(tasks)) for b, d, t, _ in by_key]
    sort_keys = [(b, d, natural(t)) for b, d, t in tasks]
    rank = [0] * len(sort_keys)
    last, value = None, -1
    for task in sorted(range(len(sort_keys)), key=sort_keys.__getitem__):
        if sort_keys[task] != last:  # equal sort keys (e.g. "t1", "t01") share a rank
            last, value = sort_keys[task], value + 1
        rank[task] = value
    order = [rank[task] << 31 | key[3] for task, key in zip(task_of, by_key, strict=True)]
    rows = list(by_key.values())
    return [rows[i] for i in sorted(range(len(rows)), key=order.__getitem__)]


def tally(rows: list[Any]) -> Counts:
    """`Counts.add` over `rows`, with its counts taken once per distinct (status, success)
    and multiplied (they depend on those alone), and the reward sum added in line order, as
    `add` adds it: the same Counts at a fraction of the cost for 500,000 task-trials."""
    counts = Counts()
    statuses = list(map(_STATUS, rows))
    pairs = Counter(zip(statuses, map(_SUCCESS, rows), strict=True))
    for (status, success), n in pairs.items():
        one = Counts()
        one.add(status, success, None)
        for name in _INT_COUNTS:
            setattr(counts, name, getattr(counts, name) + n * getattr(one, name))
    counts.reward_sum = sum([reward or 0.0 for status, reward
                             in zip(statuses, map(_REWARD, rows), strict=True)
                             if status in _SCORED], 0.0)
    return counts


def buckets(rows: list[R], attr: str) -> list[tuple[str, list[R]]]:
    """The rows by `str(row.<attr> or "-")`, sorted by that name (`rows` itself when they
    all have one)."""
    values = list(map(attrgetter(attr), rows))
    if len(set(values)) == 1:  # one domain or category, the usual case: no copy
        return [(str(values[0] or "-"), rows)]
    out: dict[str, list[R]] = defaultdict(list)
    for value, row in zip(values, rows, strict=True):
        out[str(value or "-")].append(row)
    return sorted(out.items())


def scored_rows(rows: Iterable[R]) -> list[R]:
    return [row for row in rows if _STATUS(row) in _SCORED]


def pass_k(scored: list[Any]) -> list[tuple[int, float, float, float, str]]:
    """(k, mean, low, high, method) of pass^k for k = 1 .. the fewest trials of any task,
    over the tasks' values in task order (pass_hat_k taken once per (n, c, k))."""
    per_task: dict[tuple[Any, ...], list[bool]] = defaultdict(list)
    for task, success in zip(map(_TASK, scored), map(_SUCCESS, scored), strict=True):
        per_task[task].append(success)
    if not per_task:
        return []
    counts = [(len(v), sum(v)) for v in per_task.values()]
    out = []
    for k in range(1, min(n for n, _ in counts) + 1):
        memo = {pair: pass_hat_k(pair[0], pair[1], k) for pair in set(counts)}
        out.append((k, *mean_ci(list(map(memo.__getitem__, counts)))))
    return out


def nan_none(value: float) -> float | None:
    return None if math.isnan(value) else value
