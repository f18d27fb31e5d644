"""`--baseline RUN`: the earlier run an adaptive A/B run is compared with.

The A/B run replays the baseline's scored task-trials (same task, trial and seed) in a fresh
random order and bets on the paired differences. What is read here: each task-trial's reward,
success and seed, deduplicated as `report` does (a scored result wins over an unscored one,
else the later record), every record checked as `report` checks it (records may be forged).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a2abench.errors import ConfigError
from a2abench.run.adaptive.tracker import clamp
from a2abench.run.status import SCORED_STATUSES


@dataclass(frozen=True)
class Unit:
    seed: int
    reward: float
    success: bool


@dataclass(frozen=True)
class Baseline:
    path: str
    run_id: str | None
    units: dict[tuple[str, int], Unit]  # (task id, trial) -> the baseline's result
    fingerprint: str  # of the units: a resume must pair with the same results

    @property
    def trials(self) -> int:
        return 1 + max(trial for _, trial in self.units)

    def describe(self) -> dict[str, Any]:
        return {"path": self.path, "run_id": self.run_id, "fingerprint": self.fingerprint}


def metrics_file(path: Path) -> Path:
    """RUN as given: a metrics file, or a run directory holding metrics.jsonl."""
    candidate = path / "metrics.jsonl" if path.is_dir() else path
    if not candidate.is_file():
        raise ConfigError(f"--baseline {path}: no metrics file there",
                          hint="Give a run's metrics.jsonl or the directory holding it.")
    return candidate


def load(path: Path, benchmark: str) -> Baseline:
    """The baseline run's scored task-trials. ConfigError when it is not a run of
    `benchmark` or holds no scored task-trial."""
    from a2abench.run.status import record_problem
    from a2abench.run.writer import iter_records

    source = metrics_file(path)
    runs: list[dict[str, Any]] = []
    kept: dict[tuple[str, int], tuple[bool, dict[str, Any]]] = {}
    for rec in iter_records([source], types=frozenset({"run", "task"})):
        if rec["type"] == "run":
            runs.append(rec)
            continue
        if record_problem(rec) is not None or not _is_seed(rec.get("seed")):
            continue
        key = (rec["task_id"], rec["trial"])
        scored = rec.get("status", "ok") in SCORED_STATUSES
        if key in kept and kept[key][0] and not scored:
            continue  # a scored result wins over a later unscored one
        kept[key] = (scored, rec)
    if not runs:
        raise ConfigError(f"--baseline {path}: not an a2abench run (no run record)",
                          hint="Give the metrics.jsonl (or directory) of an earlier run.")
    other = {str(r.get("benchmark")) for r in runs} - {benchmark}
    if other:
        raise ConfigError(f"--baseline {path}: a {', '.join(sorted(other))} run, not "
                          f"{benchmark}", hint="Compare runs of the same benchmark.")
    units = {key: Unit(int(rec["seed"]), reward, rec.get("success") is True)
             for key, (scored, rec) in kept.items()
             if scored and (reward := clamp(_number(rec.get("reward")))) is not None}
    if not units:
        raise ConfigError(f"--baseline {path}: no scored task-trial to compare with",
                          hint="Choose a baseline run that scored task-trials.")
    digest = hashlib.sha256(json.dumps(
        sorted([k[0], k[1], u.seed, u.reward] for k, u in units.items())).encode())
    return Baseline(str(path), str(runs[0].get("run_id")), units, digest.hexdigest()[:16])


def _number(value: Any) -> float | None:
    if value is None:  # a scored record without a reward scored 0 (report's rule)
        return 0.0
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


def _is_seed(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -2**63 <= value < 2**63
