"""`report`: turn metrics.jsonl files into the report users and CI jobs read."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from a2abench.errors import ConfigError, RecordsError
from a2abench.report.aggregate import Report, build_report, record_problem
from a2abench.run.status import SCORED_STATUSES
from a2abench.run.writer import iter_records

BUILTIN_FORMATS = ("table", "json", "markdown", "html", "junit")

__all__ = ["BUILTIN_FORMATS", "Report", "build_report", "deduped_task_records", "render",
           "step_summary"]


def render(report: Report, fmt: str, paths: list[Path]) -> str:
    """Text of a report in `fmt` (`table` is rendered by the CLI with Rich)."""
    from a2abench.report import html, text

    if fmt == "json":
        return text.to_json(report)
    if fmt == "markdown":
        return text.to_markdown(report)
    if fmt == "html":
        return html.to_html(report, paths)
    if fmt == "junit":
        return text.to_junit(report)
    return _export(report, fmt, paths)


def _export(report: Report, fmt: str, paths: list[Path]) -> str:
    """Formats a benchmark contributes (e.g. tau2's results.json)."""
    from a2abench.run.registry import get_driver

    if not report.benchmark:
        raise ConfigError(f"unknown --format {fmt!r}")
    exporters = get_driver(report.benchmark).exporters()
    summary = (report.adaptive or {}).get("summary")
    if fmt in exporters and summary and summary["n"] < summary["N"]:
        raise ConfigError(f"--format {fmt}: this is a partial adaptive run ({summary['n']} of "
                          f"{summary['N']} task-trials) and {fmt} has no way to say so",
                          hint="Use --format json, markdown, html or junit, which state it; "
                               "for this format, run every task-trial (a new --output, "
                               "without --target-ci/--adaptive-gate).")
    if fmt in exporters and report.missing:
        raise ConfigError(f"--format {fmt}: the run recorded {report.task_trials} of the "
                          f"{report.planned} task-trials it planned and {fmt} has no way to "
                          "say so",
                          hint="Finish the run with --resume, or use --format json, markdown, "
                               "html or junit, which state it.")
    if fmt not in exporters:
        writers = [f.name for f in get_driver(report.benchmark).export_formats()]
        known = ", ".join([*BUILTIN_FORMATS, *exporters, *writers])
        raise ConfigError(f"unknown --format {fmt!r} for {report.benchmark} runs",
                          hint=f"Choose one of: {known}.")
    run = next(iter_records(paths, types=frozenset({"run"})), None)
    if run is None:
        raise RecordsError("no run record found", hint="Pass the files `a2abench run` wrote.")
    return exporters[fmt](deduped_task_records(paths), run)


def deduped_task_records(paths: list[Path]) -> Iterator[dict[str, Any]]:
    """Full task records (with transcripts), one per task-trial, by the report's rule.
    Invalid records (shown by the report itself) are left out of benchmark exports."""
    keep: dict[tuple[Any, ...], tuple[int, bool]] = {}
    primary = _primary(paths)
    for index, rec in enumerate(iter_records(paths, types=frozenset({"task"}))):
        if record_problem(rec) is not None or not _in_pairing(rec, primary):
            continue
        key = (rec.get("benchmark"), rec.get("domain"), rec["task_id"], rec["trial"])
        scored = rec.get("status") in SCORED_STATUSES
        old = keep.get(key)
        if old is None or scored or not old[1]:
            keep[key] = (index, scored)
    wanted = {index for index, _ in keep.values()}
    for index, rec in enumerate(iter_records(paths, types=frozenset({"task"}))):
        if index in wanted:
            yield rec


def _primary(paths: list[Path]) -> str | None:
    """A multi-party run's primary pairing (its run record's lineup), else None."""
    for run in iter_records(paths, types=frozenset({"run"})):
        lineup = run.get("lineup")
        primary = lineup.get("primary") if isinstance(lineup, dict) else None
        if isinstance(primary, str):
            return primary
    return None


def _in_pairing(rec: dict[str, Any], primary: str | None) -> bool:
    """Exports hold the task-trials of the primary pairing only (one per task-trial, as the
    report's headline): the others are the per-role view's."""
    match = rec.get("match")
    return not isinstance(match, dict) or match.get("pairing") == primary


def step_summary(markdown: str) -> Path | None:
    """Append to $GITHUB_STEP_SUMMARY when GitHub Actions provides it."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    path = Path(target)
    try:
        with path.open("a", encoding="utf-8") as f:
            f.write(markdown.rstrip() + "\n\n")
    except OSError as exc:
        from a2abench.errors import OutputError

        raise OutputError(f"cannot append to GITHUB_STEP_SUMMARY ({path}): "
                          f"{exc.strerror or exc}", hint="Unset it or point it at a writable "
                                                         "file.") from None
    return path
