"""The matches of multi-party runs, as rows every per-role figure is computed from: read from
task records (their `match` block, run/match.py) or from serve-green Results (`matches`),
checked (records may be forged) and deduplicated like the report's task-trials.

A row is one match: task, trial, seed, pairing, who sat in each role, each role's score
(None: not counted for that role), the role that forfeited, the violation kinds per role,
and each participant's requests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2abench.run.writer import ReadStats, iter_records

_ROLE_ID = 80  # longest role or participant id kept (longer ones are forged)


@dataclass(frozen=True)
class MatchRow:
    task: str
    trial: int
    seed: int | None
    pairing: str
    roles: dict[str, str]  # role -> participant id
    scores: dict[str, float | None]
    status: str = "ok"
    reward: float | None = None
    forfeit: str | None = None
    violations: dict[str, list[str]] = field(default_factory=dict)  # role -> kinds
    messages: dict[str, list[str]] = field(default_factory=dict)  # role -> what each was
    usage: dict[str, dict[str, float]] = field(default_factory=dict)  # participant -> sums
    domain: str | None = None
    delegation: dict[str, float] = field(default_factory=dict)  # scenario team's traffic

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.task, self.trial, self.pairing)

    def as_dict(self) -> dict[str, Any]:
        """The row as serve-green's Result lists it (`matches`)."""
        return {"task_id": self.task, "trial": self.trial, "seed": self.seed,
                "domain": self.domain, "pairing": self.pairing, "roles": self.roles,
                "scores": self.scores, "status": self.status, "reward": self.reward,
                "forfeit": self.forfeit,
                "violations": {r: list(v) for r, v in self.violations.items()},
                "usage": self.usage,
                **({"delegation": self.delegation} if self.delegation else {})}


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= _ROLE_ID else None


def _score(value: Any) -> float | None:
    if value.__class__ in (int, float) and math.isfinite(value) and 0.0 <= value <= 1.0:
        return float(value)
    return None


def _count(value: Any) -> float:
    return float(value) if value.__class__ in (int, float) and 0 <= value < 2**62 else 0.0


def row_of(task: Any, trial: Any, seed: Any, match: Any, *, status: Any = "ok",
           reward: Any = None, domain: Any = None) -> MatchRow | None:
    """A checked row, or None when the values cannot be a match (forged or damaged)."""
    if not isinstance(match, dict) or not isinstance(task, str) or len(task) > 500:
        return None
    if trial.__class__ is not int or not 0 <= trial < 2**31:
        return None
    pairing, roles, scores = _name(match.get("pairing")), match.get("roles"), match.get("scores")
    if pairing is None or not isinstance(roles, dict) or not isinstance(scores, dict):
        return None
    seated = {str(r): str(p) for r, p in roles.items() if _name(r) and _name(p)}
    if not seated or len(seated) != len(roles) or len(seated) > 8:
        return None
    violations, messages = _violations(match.get("violations"))
    usage = match.get("usage")
    return MatchRow(
        task=task, trial=trial, seed=seed if seed.__class__ is int else None,
        pairing=pairing, roles=seated, scores={r: _score(scores.get(r)) for r in seated},
        status=str(status)[:40], reward=_score(reward),
        forfeit=match.get("forfeit") if match.get("forfeit") in seated else None,
        violations=violations, messages=messages,
        usage={str(p): {k: _count(v) for k, v in u.items()
                        if k in ("requests", "latency_ms", "input_tokens", "output_tokens")}
               for p, u in (usage.items() if isinstance(usage, dict) else ())
               if _name(p) and isinstance(u, dict)},
        domain=domain if isinstance(domain, str) else None,
        delegation=_traffic(match.get("delegation")))


_TRAFFIC = ("delegations", "refused", "specialist_turns", "specialist_tool_calls",
            "bytes_to_specialist", "bytes_from_specialist", "time_ms")


def _traffic(raw: Any) -> dict[str, float]:
    """A team match's delegation counts (run/delegation.py), checked; {} otherwise."""
    if not isinstance(raw, dict):
        return {}
    return {k: _count(raw[k]) for k in _TRAFFIC if k in raw}


def _violations(raw: Any) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Kinds per role, from records' `{role: [{"kind", "message"}]}` or Results'
    `{role: [kind]}`; the messages beside, for the viewer."""
    kinds: dict[str, list[str]] = {}
    messages: dict[str, list[str]] = {}
    for role, items in (raw.items() if isinstance(raw, dict) else ()):
        if not _name(role) or not isinstance(items, list):
            continue
        for item in items[:50]:
            kind = _name(item.get("kind") if isinstance(item, dict) else item)
            if kind is not None:
                kinds.setdefault(role, []).append(kind)
                text = item.get("message") if isinstance(item, dict) else None
                messages.setdefault(role, []).append(str(text)[:500] if text else kind)
    return kinds, messages


@dataclass
class MatchSet:
    """The rows of one set of files, with the lineup their run records describe."""

    rows: list[MatchRow] = field(default_factory=list)
    lineups: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0  # task records whose match block cannot be true

    def lineup(self) -> dict[str, Any]:
        return self.lineups[0] if self.lineups else {}


class Collector:
    """Gathers the rows of the task records it is shown (any order): for each (task, trial,
    pairing) a counted result wins over one that counts for nobody, and the later of two
    equal kinds wins (as `report` keeps task-trials). It knows the primary pairing (the
    submitted participants facing each other), whose task-trials `report`'s headline
    covers."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, int, str], MatchRow] = {}
        self.lineups: list[dict[str, Any]] = []
        self.skipped = 0
        self.primary: str | None = None

    def run(self, rec: dict[str, Any]) -> None:
        lineup = rec.get("lineup")
        if isinstance(lineup, dict):
            self.lineups.append(lineup)
            if self.primary is None and isinstance(lineup.get("primary"), str):
                self.primary = lineup["primary"]

    def task(self, rec: dict[str, Any]) -> bool:
        """Take a record with a match block; whether it belongs to the primary pairing."""
        match = rec.get("match")
        row = row_of(rec.get("task_id"), rec.get("trial"), rec.get("seed"), match,
                     status=rec.get("status", "ok"), reward=rec.get("reward"),
                     domain=rec.get("domain"))
        if row is None:
            self.skipped += 1
        else:
            old = self.kept.get(row.key)
            if old is None or _counted(row) or not _counted(old):
                self.kept[row.key] = row
        pairing = match.get("pairing") if match.__class__ is dict else None
        return pairing is None or pairing == self.primary

    def view(self) -> dict[str, Any] | None:
        """The per-role view (report/roles.py); None when no record had a match."""
        found = self.result()
        if not found.rows:
            return None
        from a2abench.report.roles import roles_view

        return roles_view(found.rows, found.lineup())

    def result(self) -> MatchSet:
        rows = sorted(self.kept.values(), key=lambda r: (r.task, r.trial, r.pairing))
        return MatchSet(rows, self.lineups, self.skipped)


def from_records(paths: Iterable[Path], stats: ReadStats | None = None) -> MatchSet:
    """The matches in metrics.jsonl files (a Collector over their run and task records)."""
    collect = Collector()
    for rec in iter_records(list(paths), stats, frozenset({"run", "task"})):
        if rec["type"] == "run":
            collect.run(rec)
        elif "match" in rec:
            collect.task(rec)
    return collect.result()


def _counted(row: MatchRow) -> bool:
    return any(s is not None for s in row.scores.values())


def from_result(result: dict[str, Any]) -> Iterator[MatchRow]:
    """The rows of one serve-green Result's `matches`."""
    for raw in result.get("matches") or []:
        if not isinstance(raw, dict):
            continue
        row = row_of(raw.get("task_id"), raw.get("trial"), raw.get("seed"), raw,
                     status=raw.get("status", "ok"), reward=raw.get("reward"),
                     domain=raw.get("domain"))
        if row is not None:
            yield row
