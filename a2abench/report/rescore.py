"""Re-score recorded task-trials without re-running the agent (changed judge or scoring).

Only task-trials the benchmark's evaluator scored (status `ok`) go to the driver's `rescore`
hook: an agent or evaluator error is scored 0 by rule, not by a judgment a new judge could
redo, and an infrastructure or harness error was never scored. What the hook returns must be
the same task-trial with the same status and a valid score, else the rescore is refused, so
no plugin can turn an agent error into a pass or drop a failure from the score. Every error
names the record: its task id, trial, and file:line.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from a2abench.errors import (
    A2ABenchError,
    ConfigError,
    PluginError,
    RecordsError,
    foreign_errors_as,
)
from a2abench.report.aggregate import record_problem
from a2abench.run.driver import Driver
from a2abench.run.records import TaskRecord
from a2abench.run.registry import get_driver
from a2abench.run.writer import ReadStats, RecordWriter, iter_records

RESCORED = "ok"  # the one status whose reward came from the evaluator
# What makes a record this task-trial: a hook may not change it.
_IDENTITY = ("run_id", "benchmark", "domain", "task_id", "trial", "status")


async def rescore_files(paths: list[Path], output: Path, overrides: dict[str, Any]) -> int:
    """Write a copy of `paths` to `output` with every `ok` task record re-scored by its
    benchmark (the others copied as they are).

    `overrides` replace recorded benchmark options (e.g. {"judge_llm": "gpt-4.1"}).
    Returns the number of task records re-scored.
    """
    run = next(iter_records(paths, types=frozenset({"run"})), None)
    if run is None:
        raise RecordsError("no run record found", hint="Pass the files `a2abench run` wrote.")
    driver = _driver(run, overrides)
    name = run["benchmark"]
    if output.exists():
        raise ConfigError(f"{output} already exists", hint="Choose another --rescored-output.")
    await _hook(name, "setup", driver.setup())
    # Written beside the target and renamed at the end: a failure leaves no partial file
    # that would block the next attempt.
    partial = output.with_name(output.name + ".partial")
    writer = RecordWriter(partial)
    count = 0
    try:
        for where, rec in _numbered(paths):
            if rec["type"] == "task" and rec.get("status") == RESCORED:
                rec = await _rescored(driver, name, rec, where)
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


def _driver(run: dict[str, Any], overrides: dict[str, Any]) -> Driver[Any]:
    """The run's driver, built with its recorded options and `overrides`."""
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
    if not inspect.iscoroutinefunction(driver.rescore):
        raise PluginError(f"the {run['benchmark']} benchmark's rescore hook is not async",
                          hint="Declare it `async def rescore(self, record)` (see the hook "
                               "table in docs/writing-a-benchmark.md).")
    return driver


def _numbered(paths: list[Path]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each record with its "file:line" (the line of the file it was read from)."""
    stats = ReadStats()
    for path in paths:
        first = stats.lines
        for rec in iter_records([path], stats):
            yield f"{path}:{stats.lines - first}", rec


async def _rescored(driver: Driver[Any], name: str, rec: dict[str, Any],
                    where: str) -> dict[str, Any]:
    """The hook's new version of one `ok` task record, checked; errors name the record."""
    label = f"task {str(rec.get('task_id'))[:80]!r} trial {str(rec.get('trial'))[:20]} ({where})"
    try:
        try:
            record = TaskRecord.model_validate(rec)
        except ValidationError as exc:
            raise RecordsError(f"not a valid task record: {_first(exc)}",
                               hint="Re-score the files `a2abench run` wrote, undamaged."
                               ) from None
        new = await _hook(name, "rescore", driver.rescore(record))
        return _checked(name, rec, new)
    except A2ABenchError as exc:
        exc.message = f"{label}: {exc.message}"
        exc.args = (exc.message,)
        raise


def _checked(name: str, old: dict[str, Any], new: object) -> dict[str, Any]:
    """The hook's result as a record, if it is this task-trial with the same status and a
    valid score (validated again: `model_copy(update=...)` validates nothing)."""
    if new is None:
        raise PluginError(f"the {name} benchmark cannot re-score this task-trial (its rescore "
                          "hook returned None)",
                          hint="Re-run the task-trial, or report the files without --rescore.")
    if not isinstance(new, TaskRecord):
        raise PluginError(f"the {name} benchmark's rescore hook returned "
                          f"{type(new).__name__}, not a TaskRecord",
                          hint="A bug in the benchmark: tell its authors.")
    try:
        dumped = new.model_dump(mode="json", warnings=False)  # a wrong type is refused below
        out = TaskRecord.model_validate(dumped).model_dump(mode="json")
    except ValidationError as exc:
        raise PluginError(f"the {name} benchmark's rescore hook returned an invalid record: "
                          f"{_first(exc)}", hint="A bug in the benchmark: tell its authors."
                          ) from None
    changed = [key for key in _IDENTITY if out.get(key) != old.get(key)]
    problem = record_problem(out)
    if changed or problem:
        what = (f"changed its {', '.join(changed)} ({', '.join(_moves(old, out, changed))})"
                if changed else f"returned a record that cannot be true: {problem}")
        raise PluginError(f"the {name} benchmark's rescore hook {what}; re-scoring may change "
                          "a score, never which task-trial it is or its status",
                          hint="A bug in the benchmark: tell its authors.")
    return out


def _moves(old: dict[str, Any], new: dict[str, Any], keys: list[str]) -> Iterator[str]:
    for key in keys:
        yield f"{str(old.get(key))[:40]!r} -> {str(new.get(key))[:40]!r}"


def _first(exc: ValidationError) -> str:
    error = exc.errors()[0]
    return f"{'.'.join(map(str, error['loc'])) or 'record'}: {error['msg']}"


T = TypeVar("T")


async def _hook(benchmark: str, hook: str, call: Awaitable[T]) -> T:
    """Await a benchmark hook; its own bug becomes one line naming the benchmark."""
    with foreign_errors_as(lambda summary: PluginError(
            f"the {benchmark} benchmark's {hook} hook failed: {summary}",
            hint="A bug in the benchmark: tell its authors.")):
        return await call
