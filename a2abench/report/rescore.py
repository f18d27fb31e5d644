"""Re-score recorded task-trials without re-running the agent (changed judge or scoring)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from a2abench.errors import ConfigError, PluginError, RecordsError, foreign_errors_as
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
    name = run["benchmark"]
    if not inspect.iscoroutinefunction(driver.rescore):
        raise PluginError(f"the {name} benchmark's rescore hook is not async",
                          hint="Declare it `async def rescore(self, record)` (see the hook "
                               "table in docs/writing-a-benchmark.md).")
    if output.exists():
        raise ConfigError(f"{output} already exists", hint="Choose another --rescored-output.")
    await _hook(name, "setup", driver.setup())
    # Written beside the target and renamed at the end: a failure leaves no partial file
    # that would block the next attempt.
    partial = output.with_name(output.name + ".partial")
    writer = RecordWriter(partial)
    count = 0
    try:
        for rec in iter_records(paths):
            if rec["type"] == "task" and rec.get("status") in ("ok", "agent_error"):
                new = await _hook(name, "rescore", driver.rescore(TaskRecord.model_validate(rec)))
                if new is None:
                    raise ConfigError(f"the {name} benchmark cannot re-score recorded "
                                      "task-trials")
                rec = new.model_dump(mode="json")
                count += 1
            elif rec["type"] == "run":
                rec = {**rec, "rescored": {"from": [str(p) for p in paths],
                                           "overrides": sorted(overrides)}}
            writer.write(rec)
        await writer.durable()
        writer.close()
        partial.replace(output)
    finally:
        writer.close()
        partial.unlink(missing_ok=True)
        await _hook(name, "aclose", driver.aclose())
    return count


T = TypeVar("T")


async def _hook(benchmark: str, hook: str, call: Awaitable[T]) -> T:
    """Await a benchmark hook; its own bug becomes one line naming the benchmark."""
    with foreign_errors_as(lambda summary: PluginError(
            f"the {benchmark} benchmark's {hook} hook failed: {summary}",
            hint="A bug in the benchmark: tell its authors.")):
        return await call
