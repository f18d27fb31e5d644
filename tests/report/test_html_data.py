"""What the HTML report embeds: one row and one compressed blob per task-trial, safely."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.clihelp import run_cli
from tests.report.pagedata import page_data

HOSTILE = "</script><script>alert(1)</script><!--"


def _task(task_id: str, trial: int, status: str = "ok", reward: float | None = 1.0,
          **extra: Any) -> dict[str, Any]:
    return {"type": "task", "schema_version": 1, "run_id": "r1", "benchmark": "tau2",
            "domain": "mock", "category": None, "task_id": task_id, "trial": trial, "seed": 1,
            "status": status, "reward": reward, "success": reward == 1.0,
            "reward_components": {"DB": reward}, "labels": [], "termination": "user_stop",
            "turns": 1, "tool_calls": 0, "latency_ms": 12.5, "input_tokens": 10,
            "output_tokens": 2, "llm_prompt_tokens": 5, "llm_completion_tokens": 1,
            "cost_usd": 0.25, "error": None, "started_at": "t", "finished_at": "t",
            "transcript": [{"role": "user", "content": f"hello from {task_id}"}],
            "details": {}, **extra}


def _request(task_id: str, trial: int, latency: float) -> dict[str, Any]:
    return {"type": "request", "schema_version": 1, "run_id": "r1", "task_id": task_id,
            "trial": trial, "request_id": "q", "endpoint": "http://agent.example:9/secret-path",
            "method": "SendMessage", "attempt": 1, "status_code": 200, "latency_ms": latency,
            "input_tokens": 3, "output_tokens": 4, "timestamp": "2026-01-01T00:00:00.000+00:00"}


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    run = {"type": "run", "schema_version": 1, "run_id": "r1", "a2abench_version": "x",
           "benchmark": "tau2", "domain": "mock", "config": {}, "compat_key": {"a": 1},
           "started_at": "t"}
    path.write_text("\n".join(json.dumps(r) for r in [run, *records]) + "\n")
    return path


def _render(tmp_path: Path, records: list[dict[str, Any]]) -> str:
    metrics = _write(tmp_path / "metrics.jsonl", records)
    target = tmp_path / "report.html"
    r = run_cli("report", str(metrics), "--format", "html", "--output", str(target))
    assert r.code == 0, r.err
    return target.read_text()


def test_every_task_trial_has_a_row_and_its_own_blob(tmp_path: Path) -> None:
    html = _render(tmp_path, [
        _request("a", 0, 5.0), _request("a", 0, 7.0), _task("a", 0),
        _request("b", 0, 9.0), _task("b", 0, reward=0.0),
    ])
    meta, blobs = page_data(html)
    assert [(r["task_id"], r["success"]) for r in meta["rows"]] == [("a", True), ("b", False)]
    assert meta["rows"][0]["tokens"] == 18 and meta["rows"][0]["cost_usd"] == 0.25
    a, b = blobs
    assert a["transcript"] == [{"role": "user", "content": "hello from a"}]
    latency = meta["request_fields"].index("latency_ms")
    assert [q[latency] for q in a["requests"]] == [5.0, 7.0]
    assert [q[latency] for q in b["requests"]] == [9.0]
    assert "secret-path" not in html  # request endpoints (URLs) are not embedded


def test_a_scored_result_wins_over_a_later_infrastructure_failure(tmp_path: Path) -> None:
    html = _render(tmp_path, [
        _task("a", 0, status="infrastructure_error", reward=None),
        _task("a", 0, reward=0.0, transcript=[{"role": "user", "content": "retry"}]),
        _task("a", 0, status="infrastructure_error", reward=None),
    ])
    meta, blobs = page_data(html)
    assert len(meta["rows"]) == 1 and meta["rows"][0]["status"] == "ok"
    assert blobs[0]["transcript"][0]["content"] == "retry"


def test_hostile_text_cannot_close_the_data_script(tmp_path: Path) -> None:
    html = _render(tmp_path, [
        _task(HOSTILE, 0, error={"error": "ProtocolError", "kind": "agent",
                                 "message": HOSTILE}, transcript=[{"role": "user",
                                                                   "content": HOSTILE}]),
    ])
    assert len(re.findall(r"<script", html)) == 3  # data, blobs, viewer: nothing injected
    meta, blobs = page_data(html)
    assert meta["rows"][0]["task_id"] == HOSTILE and meta["rows"][0]["error"] == HOSTILE
    assert blobs[0]["transcript"][0]["content"] == HOSTILE


def test_compare_renders_html_with_one_run_index_per_file(tmp_path: Path) -> None:
    first = _write(tmp_path / "one.jsonl", [_task("a", 0), _task("b", 0, reward=0.0)])
    second = tmp_path / "two.jsonl"
    second.write_text(first.read_text().replace('"r1"', '"r2"')
                      .replace('"compat_key": {"a": 1}', '"compat_key": {"a": 2}')
                      .replace('"reward": 0.0, "success": false', '"reward": 1.0, '
                                                                  '"success": true'))
    target = tmp_path / "cmp.html"
    r = run_cli("report", str(first), str(second), "--compare", "--format", "html",
                "--output", str(target))
    assert r.code == 0, r.err
    meta, blobs = page_data(target.read_text())
    assert len(meta["runs"]) == 2 and len(blobs) == 4
    assert sorted((row["run"], row["task_id"], row["success"]) for row in meta["rows"]) == [
        (0, "a", True), (0, "b", False), (1, "a", True), (1, "b", True)]


def test_compare_still_refuses_formats_it_cannot_write(tmp_path: Path) -> None:
    metrics = _write(tmp_path / "m.jsonl", [_task("a", 0)])
    r = run_cli("report", str(metrics), "--compare", "--format", "junit")
    assert r.code == 2 and "table, markdown, json or html" in r.err
