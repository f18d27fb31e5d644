"""The report's rows hold what a validated TaskLine would (issue 39: rows for every
task-trial, TaskLines only for the lines shown)."""

from __future__ import annotations

import json
import typing
from pathlib import Path

from a2abench.report import build_report
from a2abench.report.aggregate import Row, TaskLine
from tests.report.runs import write_run


def test_a_row_has_a_tasklines_fields_in_its_order() -> None:
    hints = typing.get_type_hints(Row)
    assert list(hints) == list(TaskLine.model_fields)
    assert all(hints[name] == field.annotation for name, field in TaskLine.model_fields.items())


def test_rows_read_odd_values_as_a_validated_taskline_would(tmp_path: Path) -> None:
    path = write_run(tmp_path / "m.jsonl", "run000000001", [True])
    odd = [
        # an integer reward (TaskLine holds 1.0), -0.0 latency (0.0), a long id, odd labels
        {"task_id": "x" * 600, "reward": 1, "success": True, "latency_ms": -0.0,
         "labels": [5, "l" * 150], "turns": 3.0, "termination": 7,
         "error": {"error": "E", "message": "m"}, "status": "ok"},
        # an invalid record: kept, shown, never scored
        {"task_id": "bad", "reward": 2.0, "status": "ok", "latency_ms": 1e400},
        {"task_id": "infra", "reward": None, "status": "infrastructure_error",
         "error": "not a dict", "labels": "nope", "latency_ms": float("nan")},
    ]
    with path.open("a") as f:
        for rec in odd:
            f.write(json.dumps({"type": "task", "run_id": "run000000001", "benchmark": "tau2",
                                "domain": "mock", "trial": 0, **rec}) + "\n")
    report = build_report([path])
    lines = {line.task_id[:5]: line for line in report.lines}
    long = lines["xxxxx"]
    assert (len(long.task_id), long.reward, long.latency_ms, long.turns) == (500, 1.0, 0.0, 3)
    assert long.labels == ["5", "l" * 100] and long.termination == "7" and long.error == "E: m"
    assert isinstance(long.reward, float)
    assert lines["bad"].status == "invalid_record" and lines["bad"].reward is None
    assert lines["bad"].latency_ms == 0.0
    infra = lines["infra"]
    assert (infra.error, infra.labels, infra.latency_ms) == (None, [], 0.0)
    assert [TaskLine.model_validate(line.model_dump()) for line in report.lines] == report.lines
    shown = json.loads(report.model_dump_json())
    assert {line["task_id"][:5] for line in shown["failed"]} == {"bad", "infra"}
