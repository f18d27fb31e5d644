"""The score over every task-trial a run planned (docs/run-semantics.md, "Incomplete
scores"): an unscored task-trial (infrastructure or harness error, an invalid record) and one
that never got a record (an interrupted or aborted run, a canceled assessment) count as
reward 0, so nothing an agent breaks can leave the score. The score over the scored
task-trials alone is kept beside it (`score_scored_only`), never in its place.

What a run planned comes from its run records: `planned` and `plan_counts` (by domain and
category) of each shard, once per shard (a resume repeats its shard's run record).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Protocol

from a2abench.run.status import SCORED_STATUSES


class _Line(Protocol):
    @property
    def domain(self) -> str | None: ...
    @property
    def category(self) -> str | None: ...
    @property
    def status(self) -> str: ...
    @property
    def reward(self) -> float | None: ...


Group = tuple[str | None, str | None]  # (domain, category)
_GROUP = attrgetter("domain", "category")
_SCORED = frozenset(SCORED_STATUSES)


@dataclass
class Plan:
    """What the run planned: in all, and by (domain, category) when its records say so."""

    total: int = 0
    groups: dict[Group, int] = field(default_factory=dict)

    def rows(self) -> list[dict[str, Any]]:
        return [{"domain": d, "category": c, "task_trials": n}
                for (d, c), n in sorted(self.groups.items(), key=lambda kv: str(kv[0]))]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
        else None


def _groups(raw: Any) -> dict[Group, int] | None:
    if not isinstance(raw, list):
        return None
    out: dict[Group, int] = {}
    for row in raw:
        if not isinstance(row, dict):
            return None
        domain, category, n = row.get("domain"), row.get("category"), _count(row.get("task_trials"))
        if n is None or not all(v is None or isinstance(v, str) for v in (domain, category)):
            return None
        out[(domain, category)] = out.get((domain, category), 0) + n
    return out


def planned(runs: Iterable[dict[str, Any]]) -> Plan:
    """The plan of one run's records (shards and resumes of one run: `report` refuses two)."""
    latest: dict[str, dict[str, Any]] = {}
    for run in runs:  # one per shard: a resume's run record repeats its shard's plan
        latest[json.dumps(run.get("shard"), default=str)] = run
    plan, known = Plan(), True
    for run in latest.values():
        lineup = run.get("lineup")
        if isinstance(lineup, dict) and "planned" in lineup:
            run = lineup  # a multi-party run: the headline's pairing (run/match.py)
        plan.total += _count(run.get("planned")) or 0
        groups = _groups(run.get("plan_counts"))
        known = known and groups is not None
        for key, n in (groups or {}).items():
            plan.groups[key] = plan.groups.get(key, 0) + n
    if not known:  # records from before plan_counts: the total alone
        plan.groups = {}
    return plan


def score_over_plan(lines: Sequence[_Line], how: str, plan: Plan,
                    keep: Iterable[str | None] | None = None) -> float | None:
    """The headline (`how`) over every planned task-trial of the categories in `keep` (all
    when None), an unscored or unrecorded one counting 0. None when nothing was scored."""
    wanted = None if keep is None else set(keep)
    mine = lines if wanted is None else [i for i in lines if i.category in wanted]
    scored = [i for i in mine if i.status in _SCORED]
    if not scored:
        return None
    recorded: Counter[Group] = Counter(map(_GROUP, mine))
    totals = Counter({key: max(n, recorded[key]) for key, n in plan.groups.items()
                      if wanted is None or key[1] in wanted})
    totals.update({key: n for key, n in recorded.items() if key not in totals})
    if how == "macro_category_mean":
        per: dict[str, int] = defaultdict(int)
        for (_, category), n in totals.items():
            per[category or "-"] += n
        sums: dict[str, float] = defaultdict(float)
        for i in scored:
            sums[i.category or "-"] += i.reward or 0.0
        return sum(sums[c] / n for c, n in per.items() if n) / len(per)
    total = sum(totals.values())
    if not plan.groups and wanted is None:
        total = max(total, plan.total)  # records from before plan_counts: the total alone
    return sum([i.reward or 0.0 for i in scored]) / total
