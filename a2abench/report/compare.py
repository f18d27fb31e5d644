"""`report --compare`: several different runs side by side (b2b vs b2c, single-turn vs
interactive, two agents, two models).

Files are grouped into runs: shards of one run (same settings, different shards) and resumes
(appended to their run's file) stay one column; two runs with the same settings are two
columns, and a run given twice is refused. Each column is a full Report; the rows are the
headline, pass^1, the groups scored apart, and every category / domain.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from a2abench.errors import ConfigError
from a2abench.report.aggregate import Report, Tap, build_report
from a2abench.report.runs import RunGroup, compat, place
from a2abench.run.writer import iter_records


class Comparison(BaseModel):
    columns: list[str]  # a label per run: what sets it apart
    files: list[list[str]] = []  # the files of each column
    reports: list[Report]
    rows: list[tuple[str, list[float | None]]]


def _groups(paths: list[Path]) -> list[RunGroup]:
    groups: list[RunGroup] = []
    seen: dict[str, Path] = {}
    for path in paths:
        runs = list(iter_records([path], types=frozenset({"run"})))
        for run in runs:
            earlier = seen.get(str(run.get("run_id")))
            if earlier is not None:
                raise ConfigError(
                    f"{path} and {earlier} hold the same run ({run.get('run_id')}): a run "
                    "cannot be compared with itself",
                    hint="Pass each run once (a run's shards and resumes together are fine).")
        seen.update({str(run.get("run_id")): path for run in runs})
        place(groups, path, runs)
    return groups


def group_runs(paths: list[Path]) -> list[list[Path]]:
    """Files grouped into runs (shards of one run together), in the order they appear."""
    return [g.paths for g in _groups(paths)]


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, Any] = {}
    for k, v in value.items():
        out.update(_flat(v, f"{k}." if not prefix else f"{prefix}{k}."))
    return {k.rstrip("."): v for k, v in out.items()}


def _short(value: Any) -> str:
    """At most 25 characters, keeping both ends (a URL's port, a model's version)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 25 else text[:10] + "…" + text[-14:]


def _labels(groups: list[RunGroup]) -> list[str]:
    """A short label per run: the settings that differ between the runs ("num_trials=4"),
    else (same settings) the run's id and start time."""
    keys = []
    for g in groups:
        key = _flat(compat(g.runs[0] if g.runs else None))
        key.pop("shard", None)
        key.pop("options.domain", None)  # the same as `domain`
        keys.append(key)
    names = sorted({n for k in keys for n in k})
    differ = [n for n in names if len({json.dumps(k.get(n), default=str) for k in keys}) > 1]
    out = []
    for g, key in zip(groups, keys, strict=True):
        parts = [f"{n.removeprefix('options.')}={_short(key.get(n))}" for n in differ[:3]]
        if len(differ) > 3:
            parts.append(f"+{len(differ) - 3} more")
        if not parts:
            run = g.runs[0] if g.runs else {}
            parts = [f"run {str(run.get('run_id', '?'))[:8]}"
                     + (f" {str(run.get('started_at'))[:16]}" if run.get("started_at") else "")]
        out.append(", ".join(parts))
    alike = {label for label in out if out.count(label) > 1}
    for index, (label, g) in enumerate(zip(list(out), groups, strict=True)):
        if label in alike:  # runs alike in what sets the others apart
            run_id = str((g.runs[0] if g.runs else {}).get("run_id", index + 1))[:8]
            out[index] = f"{label} (run {run_id})"
    return out


def compare(paths: list[Path], tap_for: Callable[[int], Tap] | None = None) -> Comparison:
    """`tap_for(index)`: a tap for the index-th run's records (see `build_report`)."""
    groups = _groups(paths)
    reports = [build_report(group.paths, tap=tap_for(index) if tap_for else None)
               for index, group in enumerate(groups)]
    rows: list[tuple[str, list[float | None]]] = [
        ("score", [r.score for r in reports]),
        ("pass^1", [r.pass_k[0].value if r.pass_k else None for r in reports])]
    for name in sorted({n for r in reports for n in r.group_scores}):
        rows.append((f"{name} (apart)", [r.group_scores.get(name) for r in reports]))
    for attr in ("by_category", "by_domain"):
        names = sorted({g.name for r in reports for g in getattr(r, attr)} - {"-"})
        for name in names:
            rows.append((name, [next((g.mean_reward for g in getattr(r, attr)
                                      if g.name == name), None) for r in reports]))
    return Comparison(columns=_labels(groups), files=[[str(p) for p in g.paths] for g in groups],
                      reports=reports, rows=rows)


def to_markdown(comparison: Comparison) -> str:
    def cell(value: float | None) -> str:
        return "—" if value is None else f"{value:.3f}"

    head = "| | " + " | ".join(comparison.columns) + " |"
    out = ["## a2abench comparison", "", head, "|---" * (len(comparison.columns) + 1) + "|"]
    out += ["| " + name + " | " + " | ".join(cell(v) for v in values) + " |"
            for name, values in comparison.rows]
    return "\n".join(out) + "\n"
