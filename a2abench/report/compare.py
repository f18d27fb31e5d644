"""`report --compare`: several different runs side by side (b2b vs b2c, single-turn vs
interactive, two agents, two models).

Files are grouped into runs by their configuration (shards and resumes of one run stay one
column); each column is a full Report, and the rows are the headline, pass^1, the groups
scored apart, and every category / domain.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from a2abench.report.aggregate import Report, build_report
from a2abench.run.plan import diff
from a2abench.run.writer import iter_records


class Comparison(BaseModel):
    columns: list[str]  # a label per run: what sets it apart
    reports: list[Report]
    rows: list[tuple[str, list[float | None]]]


def _compat(run: dict[str, Any] | None) -> dict[str, Any]:
    raw = (run or {}).get("compat_key")
    return dict(raw) if isinstance(raw, dict) else {}


def _key(run: dict[str, Any]) -> str:
    key = _compat(run)
    key.pop("shard", None)
    return json.dumps(key, sort_keys=True, default=str)


def group_runs(paths: list[Path]) -> list[list[Path]]:
    """Files grouped by run identity, in the order the runs first appear."""
    groups: dict[str, list[Path]] = {}
    for path in paths:
        run = next(iter_records([path], types=frozenset({"run"})), None)
        groups.setdefault(_key(run) if run else str(path), []).append(path)
    return list(groups.values())


def _labels(paths: list[list[Path]]) -> list[str]:
    """A short label per run: the settings where it differs from the first run."""
    keys = []
    for group in paths:
        run = next(iter_records(group, types=frozenset({"run"})), None)
        keys.append(_compat(run))
    out = []
    for index, key in enumerate(keys):
        changes = [d.split(": recorded")[0] + "=" + d.rsplit("now ", 1)[-1]
                   for d in diff(keys[0], key) if not d.startswith("shard")]
        label = f"{key.get('benchmark', '?')} {key.get('domain') or ''}".strip()
        out.append(f"{index + 1}: {label}" + (f" ({', '.join(changes)})" if changes else ""))
    return out


def compare(paths: list[Path]) -> Comparison:
    groups = group_runs(paths)
    reports = [build_report(group) for group in groups]
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
    return Comparison(columns=_labels(groups), reports=reports, rows=rows)


def to_markdown(comparison: Comparison) -> str:
    def cell(value: float | None) -> str:
        return "—" if value is None else f"{value:.3f}"

    head = "| | " + " | ".join(comparison.columns) + " |"
    out = ["## a2abench comparison", "", head, "|---" * (len(comparison.columns) + 1) + "|"]
    out += ["| " + name + " | " + " | ".join(cell(v) for v in values) + " |"
            for name, values in comparison.rows]
    return "\n".join(out) + "\n"
