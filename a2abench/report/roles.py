"""Scores per role of a multi-party run (docs/multi-agent.md, "Scores per role"): what
`report` shows beside the headline, what serve-green's Result carries.

For each participant: its matches, the ones counted for its role (a partner's forfeit is
not), its forfeits, its mean score and pass rate with a 95% interval clustered by task (the
tasks are the unit: each task's mean over its matches, Wilson or Student-t as `report`'s
pass^k intervals), its violations by kind, its A2A cost (requests, tokens, time). Its rate
against the reference partners only (`vs_reference`) compares across runs; a user's is its
**fidelity** (its success with the reference agent). Per pairing: the matches,
mean reward, passes, forfeits and violations. Paired comparisons: two participants of a
role that faced the same partner on the same task-trials, their per-task mean differences
with a Student-t interval, and how often each did better. Violations are the benchmark's
(each record says what it found); the view counts them by kind, with one example each.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any

from a2abench.report.matches import MatchRow
from a2abench.report.stats import mean_ci, t975
from a2abench.run.status import is_success


def _interval(per_task: dict[str, list[float]]) -> dict[str, Any]:
    values = [sum(v) / len(v) for v in per_task.values() if v]
    mean, low, high, method = mean_ci(values)
    return {"rate": None if math.isnan(mean) else mean,
            "ci_low": None if math.isnan(low) else low,
            "ci_high": None if math.isnan(high) else high, "ci_method": method,
            "tasks": len(values)}


def _stats(rows: Sequence[MatchRow], role: str, pid: str) -> dict[str, Any]:
    mine = [r for r in rows if r.roles.get(role) == pid]
    counted = [r for r in mine if r.scores.get(role) is not None]
    per_task: dict[str, list[float]] = defaultdict(list)
    passes: dict[str, list[float]] = defaultdict(list)
    for r in counted:
        score = r.scores[role] or 0.0
        per_task[r.task].append(score)
        passes[r.task].append(1.0 if is_success(score) else 0.0)
    kinds = Counter(k for r in mine for k in r.violations.get(role, []))
    return {"participant": pid, "role": role, "matches": len(mine), "counted": len(counted),
            "forfeits": sum(r.forfeit == role for r in mine),
            "not_counted": len(mine) - len(counted), **_interval(per_task),
            "pass_rate": _interval(passes)["rate"], "violations": dict(sorted(kinds.items())),
            "usage": _usage(mine, pid)}


def _usage(rows: Iterable[MatchRow], pid: str) -> dict[str, float]:
    total: Counter[str] = Counter()
    for r in rows:
        total.update(r.usage.get(pid, {}))
    return {k: round(total[k], 3) for k in ("requests", "input_tokens", "output_tokens",
                                             "latency_ms")}


def _vs_reference(rows: Sequence[MatchRow], role: str, pid: str, references: set[str]
                  ) -> dict[str, Any] | None:
    """A participant's rate against the reference partners only (every other seat a
    reference): what compares across runs. A user's is its fidelity."""
    with_ref = [r for r in rows if r.roles.get(role) == pid
                and all(p in references for other, p in r.roles.items() if other != role)]
    if not with_ref:
        return None
    stats = _stats(with_ref, role, pid)
    return {"against": sorted({p for r in with_ref for other, p in r.roles.items()
                               if other != role}),
            **{k: stats[k] for k in ("matches", "counted", "rate", "ci_low", "ci_high",
                                     "ci_method", "tasks")}}


def _pairing(rows: Sequence[MatchRow], pairing: str) -> dict[str, Any]:
    mine = [r for r in rows if r.pairing == pairing]
    scored = [r for r in mine if r.reward is not None]
    return {"id": pairing, "roles": mine[0].roles if mine else {}, "matches": len(mine),
            "scored": len(scored),
            "mean_reward": sum(r.reward or 0.0 for r in scored) / len(scored) if scored else None,
            "passed": sum(is_success(r.reward) for r in scored),
            "forfeits": dict(sorted(Counter(r.forfeit for r in mine if r.forfeit).items())),
            "violations": dict(sorted(Counter(
                k for r in mine for kinds in r.violations.values() for k in kinds).items())),
            **_overhead(mine)}


def _overhead(rows: Sequence[MatchRow]) -> dict[str, Any]:
    """Scenario team: the traffic between the agents per match (its mean), and the
    specialist's A2A tokens per match; {} for matches without delegation."""
    found = [r for r in rows if r.delegation]
    if not found:
        return {}
    n = len(found)
    mean = {k: round(sum(r.delegation.get(k, 0.0) for r in found) / n, 3)
            for k in ("delegations", "refused", "specialist_turns", "specialist_tool_calls",
                      "bytes_to_specialist", "bytes_from_specialist", "time_ms")}
    tokens = sum(u.get("input_tokens", 0.0) + u.get("output_tokens", 0.0)
                 for r in found for pid, u in r.usage.items()
                 if r.roles.get("specialist") == pid)
    return {"delegation": {"matches": n, **mean,
                           "messages": round(mean["delegations"] + mean["specialist_turns"], 3),
                           "specialist_tokens": round(tokens / n, 3)}}


def _partner(row: MatchRow, role: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((r, p) for r, p in row.roles.items() if r != role))


def comparisons(rows: Sequence[MatchRow], role: str) -> list[dict[str, Any]]:
    """Paired comparisons of the participants of `role` (see the module docstring)."""
    units: dict[tuple[Any, ...], dict[str, float]] = defaultdict(dict)
    for r in rows:
        pid, score = r.roles.get(role), r.scores.get(role)
        if pid is not None and score is not None:
            units[(r.task, r.trial, _partner(r, role))][pid] = score
    players = sorted({p for u in units.values() for p in u})
    out = []
    for a, b in combinations(players, 2):
        diffs: dict[str, list[float]] = defaultdict(list)
        for (task, _, _), scores in units.items():
            if a in scores and b in scores:
                diffs[task].append(scores[a] - scores[b])
        flat = [d for v in diffs.values() for d in v]
        if flat:
            out.append({"role": role, "a": a, "b": b, "units": len(flat),
                        "a_better": sum(d > 0 for d in flat), "b_better": sum(d < 0 for d in flat),
                        "ties": sum(d == 0 for d in flat), **_difference(diffs)})
    return out


def _difference(diffs: dict[str, list[float]]) -> dict[str, Any]:
    """Mean per-task difference with a Student-t interval over tasks."""
    values = [sum(v) / len(v) for v in diffs.values()]
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return {"mean_diff": mean, "ci_low": None, "ci_high": None, "tasks": n}
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return {"mean_diff": mean, "ci_low": max(-1.0, mean - half),
            "ci_high": min(1.0, mean + half), "tasks": n}


def roles_view(rows: Sequence[MatchRow], lineup: dict[str, Any]) -> dict[str, Any]:
    """The per-role view of a multi-party run (see the module docstring)."""
    raw = lineup.get("participants")
    people: dict[str, Any] = raw if isinstance(raw, dict) else {}
    seen = sorted({(role, pid) for r in rows for role, pid in r.roles.items()})
    references = {pid for pid, p in people.items() if isinstance(p, dict) and p.get("reference")}
    roles: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for role, pid in seen:
        entry = _stats(rows, role, pid)
        entry["reference"] = pid in references
        entry["vs_reference"] = None if pid in references else _vs_reference(
            rows, role, pid, references)
        if role == "user":  # tau2's user fidelity: its success with the reference agent
            entry["fidelity"] = entry["vs_reference"]
        roles[role].append(entry)
    pairings = sorted({r.pairing for r in rows})
    primary = lineup.get("primary")
    return {"scenario": lineup.get("scenario"), "pairing": lineup.get("pairing"),
            "primary": primary, "participants": people,
            "roles": dict(roles), "pairings": [_pairing(rows, p) for p in pairings],
            "comparisons": [c for role in roles for c in comparisons(rows, role)],
            "violation_kinds": _examples(rows), "matches": len(rows)}


def _examples(rows: Iterable[MatchRow]) -> dict[str, str]:
    """Each violation kind found, with the first message that explains one (the benchmark
    words its violations; the report only shows them)."""
    out: dict[str, str] = {}
    for r in rows:
        for role, kinds in r.violations.items():
            for kind, text in zip(kinds, r.messages.get(role, kinds), strict=False):
                out.setdefault(kind, text)
    return dict(sorted(out.items()))
