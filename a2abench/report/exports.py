"""`report --format NAME` for a benchmark's export formats (`Driver.export_formats`): find
the format through the registry, validate its options, run its writer (sync or async)."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

from a2abench.errors import ConfigError
from a2abench.run.driver import ExportFormat, ExportResult
from a2abench.run.registry import get_driver
from a2abench.run.writer import iter_records


def find_format(name: str, paths: list[Path], benchmark: str | None = None) -> ExportFormat | None:
    """The export format `name` of `benchmark` (a built-in's, known from the flag table) or
    of the benchmark that wrote `paths` (its run record); None if it declares none."""
    if benchmark is None:
        run = next(iter_records(paths, types=frozenset({"run"})), None)
        benchmark = run.get("benchmark") if run else None
    if not isinstance(benchmark, str):
        return None
    return next((f for f in get_driver(benchmark).export_formats() if f.name == name), None)


def write_export(fmt: ExportFormat, paths: list[Path], output: Path | None,
                 options: dict[str, Any]) -> ExportResult:
    """Validate `options` against the format's model, then write (awaiting an async writer)."""
    from pydantic import ValidationError

    try:
        model = fmt.options.model_validate(options)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(map(str, error["loc"]))
        message = error["msg"].removeprefix("Value error, ")
        raise ConfigError(f"--format {fmt.name}: invalid option {where}: {message}",
                          hint="Set it with its report flag (see --help) or "
                               "--format-option KEY=VALUE.") from None
    result = fmt.write(paths, output, model)
    if inspect.isawaitable(result):
        result = asyncio.run(_awaited(result))
    return result or ExportResult()


async def _awaited(result: Any) -> Any:
    return await result
