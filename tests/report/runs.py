"""Small metrics.jsonl files written directly, for report tests that need no real run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_run(path: Path, run_id: str, passed: list[bool], *, shard: list[int] | None = None,
              first: int = 0, **settings: Any) -> Path:
    """A metrics.jsonl of one run: `passed[i]` is task t<first+i>'s only trial."""
    key = {"benchmark": "tau2", "domain": "mock", "num_trials": 1, "seed": 300,
           "white_agent_url": "http://127.0.0.1:9", "shard": shard,
           "options": {"domain": "mock", "user_llm": "gpt-4.1", "max_steps": 200}}
    for name, value in settings.items():
        (key["options"] if name in key["options"] else key)[name] = value
    recs: list[dict[str, Any]] = [{
        "type": "run", "schema_version": 1, "run_id": run_id, "benchmark": "tau2",
        "domain": "mock", "compat_key": key, "shard": shard,
        "started_at": "2026-11-26T07:00:00+00:00"}]
    recs += [{"type": "task", "run_id": run_id, "benchmark": "tau2", "domain": "mock",
              "task_id": f"t{first + i}", "trial": 0, "status": "ok", "success": ok,
              "reward": 1.0 if ok else 0.0, "latency_ms": 10.0}
             for i, ok in enumerate(passed)]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def write_grid(path: Path, tasks: int, trials: int, *, categories: list[str] | None = None
               ) -> Path:
    """One run of `tasks` × `trials` task-trials with a deterministic mix of passes (task i
    passes a trial with probability about (i % 10) / 10), in `categories` round robin. Task
    lines are laid out as `run` writes them (compact, the transcript and timestamps last), so
    the HTML page reads them as it reads a real run's."""
    key = {"benchmark": "crmarena", "domain": "b2b", "num_trials": trials, "shard": None}
    lines = [json.dumps({"type": "run", "schema_version": 1, "run_id": "grid00000000",
                         "benchmark": "crmarena", "domain": "b2b", "compat_key": key,
                         "shard": None})]
    for i in range(tasks):
        for trial in range(trials):
            ok = (i * 7919 + trial * 104729) % 10 < i % 10
            lines.append(json.dumps({
                "type": "task", "run_id": "grid00000000", "benchmark": "crmarena",
                "domain": "b2b", "category": categories[i % len(categories)] if categories
                else None, "task_id": str(i), "trial": trial, "status": "ok", "success": ok,
                "reward": 1.0 if ok else 0.0, "latency_ms": 100.0 + (i * trial) % 900,
                "transcript": [], "started_at": "2026-11-26T07:00:00.000+00:00",
                "finished_at": "2026-11-26T07:00:01.000+00:00"}, separators=(",", ":")))
    path.write_text("\n".join(lines) + "\n")
    return path
