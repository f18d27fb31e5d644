"""Which files form one run: shards of a sharded run (same settings, different shards of the
same count) belong together; a resume appends to its own run's file, so it arrives with the run
it continues; two runs with the same settings are still two runs. Used by `report` (which
refuses to merge two runs) and `report --compare` (which puts them side by side).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def compat(run: dict[str, Any] | None) -> dict[str, Any]:
    raw = (run or {}).get("compat_key")
    return dict(raw) if isinstance(raw, dict) else {}


def _key(run: dict[str, Any]) -> str:
    key = compat(run)
    key.pop("shard", None)
    return json.dumps(key, sort_keys=True, default=str)


def _shard(run: dict[str, Any]) -> tuple[int, int] | None:
    value = run.get("shard")
    if isinstance(value, list | tuple) and len(value) == 2 \
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return (value[0], value[1])
    return None


@dataclass
class RunGroup:
    key: str
    shards: set[tuple[int, int]] = field(default_factory=set)
    paths: list[Path] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)


def place(groups: list[RunGroup], path: Path, runs: list[dict[str, Any]]) -> None:
    """Add a file to the run it belongs to: another shard of a sharded run with the same
    settings, else a run of its own (two runs with the same settings are still two runs;
    a resume appends to its own file, so it arrives with the run it continues)."""
    key = _key(runs[0]) if runs else f"file:{path}"
    shard = _shard(runs[0]) if runs else None
    for group in groups:
        if shard is not None and group.key == key and group.shards \
                and shard not in group.shards and shard[1] == next(iter(group.shards))[1]:
            group.shards.add(shard)
            group.paths.append(path)
            group.runs += runs
            return
    groups.append(RunGroup(key, {shard} if shard else set(), [path], list(runs)))
