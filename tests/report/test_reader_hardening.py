"""Issue 23 (hardening), in the reader of issue 27: forged records whose names are lists or
objects are skipped and counted, never a traceback; lines are read with a byte bound."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from a2abench.report import build_report
from a2abench.run import writer
from a2abench.run.records import TaskRecord
from a2abench.run.writer import ReadStats, iter_records
from tests.clihelp import run_cli

RUN = {"type": "run", "run_id": "r", "schema_version": 1, "a2abench_version": "0",
       "benchmark": "b", "config": {}, "compat_key": {}, "started_at": ""}


def _task(**over: Any) -> dict[str, Any]:
    rec = {"type": "task", "run_id": "r", "schema_version": 1, "benchmark": "b",
           "domain": "d", "category": "c", "task_id": "t", "trial": 0, "seed": 1,
           "status": "ok", "reward": 1.0, "success": True, "transcript": [],
           "started_at": "", "finished_at": ""}
    return {**rec, **over}


FORGED = {"status_list": {"status": ["ok"]}, "status_dict": {"status": {"a": 1}},
          "type_list": {"type": ["task"]}, "type_dict": {"type": {"t": 1}},
          "benchmark_dict": {"benchmark": {"a": 1}}, "benchmark_list": {"benchmark": [1]},
          "domain_list": {"domain": [1]}, "domain_dict": {"domain": {}}}


@pytest.mark.parametrize("forged", sorted(FORGED))
@pytest.mark.parametrize("fmt", ["json", "markdown", "junit", "html", "table"])
def test_forged_names_are_skipped_and_counted_in_every_format(tmp_path: Path, forged: str,
                                                              fmt: str) -> None:
    path = tmp_path / "m.jsonl"
    lines = [RUN, _task(), _task(task_id="forged", **FORGED[forged])]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = run_cli("report", str(path), "--format", fmt, "--output", str(tmp_path / "out"))
    assert r.code == 0 and "Traceback" not in r.err, r.err
    assert "skipped" in r.err and r.err.count("\n") <= 2  # one warning line (+ the path)
    report = build_report([path])
    assert report.task_trials == 1 and report.score == 1.0
    assert report.read["malformed"] + report.read["foreign"] == 1


def test_a_line_over_the_bound_is_a_corrupt_record_and_reading_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "MAX_LINE_BYTES", 3_000_000, raising=False)
    path = tmp_path / "m.jsonl"
    huge = json.dumps(_task(task_id="huge", transcript=["x" * 4_000_000]))
    path.write_text("\n".join([json.dumps(RUN), huge, json.dumps(_task()), ""]))
    stats = ReadStats()
    tasks = [r["task_id"] for r in iter_records([path], stats, types=frozenset({"task"}))]
    assert tasks == ["t"] and stats.corrupt == 1 and stats.lines == 3
    report = build_report([path])
    assert report.task_trials == 1 and "skipped 1 corrupt" in " ".join(report.warnings)


def test_a_file_without_newlines_is_not_held_in_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "MAX_LINE_BYTES", 4_000_000, raising=False)
    path = tmp_path / "one-line.jsonl"
    with path.open("wb") as f:
        f.write(json.dumps(RUN).encode() + b"\n")
        for _ in range(40):  # 40 MB and no newline: a torn (or hostile) last line
            f.write(b"x" * 1_000_000)
    stats = ReadStats()
    tracemalloc.start()
    try:
        records = list(iter_records([path], stats))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [r["type"] for r in records] == ["run"] and stats.torn_tail == 1
    assert peak < 12_000_000, f"peak {peak / 1e6:.0f} MB for a 40 MB line"


def test_reader_keeps_lines_across_blocks_and_a_complete_last_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "_BLOCK", 7, raising=False)  # every line spans blocks
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps(RUN) + "\n\n" + json.dumps(_task()) + "\n{\"type\": \"ta")
    stats = ReadStats()
    got = list(iter_records([path], stats))
    assert [r["type"] for r in got] == ["run", "task"]
    assert stats.corrupt == 1 and stats.torn_tail == 1 and stats.lines == 4
    path.write_text(json.dumps(RUN) + "\n" + json.dumps(_task()))  # no final newline
    stats = ReadStats()
    assert len(list(iter_records([path], stats))) == 2 and stats.torn_tail == 0


def test_summary_read_leaves_out_the_transcript_only_for_the_writers_layout(
        tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    out = writer.RecordWriter(path, fsync=False)
    out.write(TaskRecord(run_id="r", benchmark="b", task_id="t", trial=0, seed=1,
                         status="ok", reward=1.0, success=True, started_at="s",
                         finished_at="2026-11-26T07:00:00.000+00:00", details={"x": 1},
                         transcript=[{"role": "user",
                                      "content": '"status": "harness_error"}'}]))
    out.close()
    reordered = {"transcript": [], **_task(task_id="t2")}  # another writer's key order
    nested = _task(task_id="t3", details={"transcript": [1]}, transcript=None)
    cut = path.read_text().rstrip("\n")[:-40]  # a torn last line: never read by its prefix
    with path.open("a") as f:
        f.write("".join(json.dumps(x, separators=(",", ":")) + "\n"
                        for x in (reordered, nested)) + cut)
    full = list(iter_records([path]))
    stats = ReadStats()
    summary = list(iter_records([path], stats, summary=True))
    assert [r["task_id"] for r in summary] == ["t", "t2", "t3"] and stats.torn_tail == 1
    assert "transcript" not in summary[0] and "details" not in summary[0]
    assert "transcript" in summary[1] and "transcript" in summary[2]
    for a, b in zip(full, summary, strict=True):
        assert {k: v for k, v in a.items() if k in b} == b


def test_absent_keys_read_as_their_defaults_and_null_stays_null(tmp_path: Path) -> None:
    """The reader keeps a task record's fields as a tuple with a marker for absent keys:
    an absent status is "ok" (scored), an explicit null status is not a status."""
    path = tmp_path / "m.jsonl"
    bare = {k: v for k, v in _task(task_id="bare").items() if k not in ("status", "success")}
    lines = [RUN, bare, _task(task_id="null", status=None), _task(task_id="tok",
                                                                 input_tokens=7, cost_usd=0.5)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = build_report([path])
    by_id = {line.task_id: line for line in report.lines}
    assert by_id["bare"].status == "ok" and by_id["bare"].reward == 1.0
    assert by_id["null"].status == "invalid_record"
    assert report.scored == 2 and report.tokens["a2a_input"] == 7 and report.cost_usd == 0.5
