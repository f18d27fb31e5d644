"""Re-score recorded task-trials without re-running the agent (changed judge or scoring)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from a2abench.errors import ConfigError, RecordsError
from a2abench.run.records import TaskRecord
from a2abench.run.registry import get_driver
from a2abench.run.writer import RecordWriter, iter_records


async def rescore_files(paths: list[Path], output: Path, overrides: dict[str, Any]) -> int:
    """Write a copy of `paths` to `output` with every task record re-scored by its benchmark.

    `overrides` replace recorded benchmark options (e.g. {"judge_llm": "gpt-4.1"}).
    Returns the number of task records re-scored.
    """
    run = next(iter_records(paths, types=frozenset({"run"})), None)
    if run is None:
        raise RecordsError("no run record found", hint="Pass the files `a2abench run` wrote.")
    driver_cls = get_driver(run["benchmark"])
    fields = driver_cls.options_model.model_fields
    unknown = sorted(set(overrides) - set(fields))
    if unknown:
        raise ConfigError(f"--scoring: unknown {run['benchmark']} option(s) "
                          f"{', '.join(unknown)}", hint=f"Options: {', '.join(sorted(fields))}")
    try:
        options = driver_cls.options_model.model_validate(
            {**(run.get("config", {}).get("options") or {}), **overrides})
    except ValidationError as exc:
        raise ConfigError(f"invalid rescoring option: {exc.errors()[0]['msg']}") from None
    driver = driver_cls(options)
    await driver.setup()
    if output.exists():
        raise ConfigError(f"{output} already exists", hint="Choose another --rescored-output.")
    writer = RecordWriter(output)
    count = 0
    try:
        for rec in iter_records(paths):
            if rec["type"] == "task" and rec.get("status") in ("ok", "agent_error"):
                new = await driver.rescore(TaskRecord.model_validate(rec))
                if new is None:
                    raise ConfigError(f"the {run['benchmark']} benchmark cannot re-score "
                                      "recorded task-trials")
                rec = new.model_dump(mode="json")
                count += 1
            elif rec["type"] == "run":
                rec = {**rec, "rescored": {"from": [str(p) for p in paths],
                                           "overrides": sorted(overrides)}}
            writer.write(rec)
        await writer.durable()
    finally:
        writer.close()
        await driver.aclose()
    return count
