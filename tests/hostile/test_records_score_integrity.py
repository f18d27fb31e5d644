"""Issue 17 item 1 (and 16): an agent must not improve its score by breaking the harness, and
every record `run` writes stays readable by `report` (bounded values, marked cuts)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from a2abench.report import build_report
from a2abench.run.bounds import MAX_STRING_CHARS, bound
from a2abench.run.registry import unregister
from a2abench.run.writer import RecordWriter, iter_records
from tests.agents import LegacyAgent
from tests.clihelp import run_cli
from tests.engine.conftest import agent
from tests.engine.scripted import install as install_scripted
from tests.hostile.drivers import install
from tests.servers import serve


@pytest.fixture(autouse=True)
def hostile_benchmark() -> Iterator[None]:
    install()
    install_scripted()
    yield
    unregister("hostile")
    unregister("scripted")


def run(base: str, out: Path, plan: dict[str, str], *extra: str) -> Any:
    return run_cli("run", "hostile", "--white-agent-url", base, "--output", str(out),
                   "--option", "plan=" + json.dumps(plan), "--retry-delay", "0.01", *extra)


def tasks(path: Path) -> dict[str, dict[str, Any]]:
    return {r["task_id"]: r for r in iter_records([path], types=frozenset({"task"}))}


def test_unreadable_values_are_bounded_and_no_record_is_dropped(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    plan = {"t0": "bigint", "t1": "deep", "t2": "huge", "t3": "fail"}
    with agent() as (_, base):
        r = run(base, out, plan)
    assert r.code == 0, r.err
    for line in out.read_bytes().splitlines():
        orjson.loads(line)  # every line is readable by the fast reader
    recs = tasks(out)
    assert set(recs) == set(plan)
    assert recs["t0"]["transcript"][1]["tool_call"]["amount"] == \
        "[a2abench: 4,001-digit integer not stored]"
    assert "nested deeper than 64 levels" in json.dumps(recs["t1"]["transcript"])
    huge = recs["t2"]["transcript"][1]["text"]
    assert len(huge) < MAX_STRING_CHARS + 100 and huge.endswith("characters truncated]")
    assert out.stat().st_size < 2_000_000
    report = build_report([out])
    assert report.task_trials == 4 and report.score == 0.75


def test_reply_the_harness_cannot_process_is_an_agent_error_scored_zero(
        tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    with agent() as (_, base):
        r = run(base, out, {"t0": "agent_raises", "t1": "pass"}, "--fail-under", "0.6")
    assert r.code == 3, r.err  # 0.5: the failure counts, it is not left out
    rec = tasks(out)["t0"]
    assert rec["status"] == "agent_error" and rec["reward"] == 0.0
    assert "could not process the agent's reply" in rec["error"]["message"]
    assert "ValueError" in rec["error"]["traceback"]
    assert build_report([out]).score == 0.5


def test_harness_errors_make_the_score_incomplete_and_fail_the_gate(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    with agent() as (_, base):
        r = run(base, out, {"t0": "harness_bug", "t1": "pass"}, "--fail-under", "0.5")
    assert r.code == 3, r.err
    # the harness error counts 0: the score is over both planned task-trials
    assert "score 0.5000 is incomplete: 1 of 2 task-trials not scored (1 harness)" in r.err
    assert "--allow-incomplete" in r.err
    report = build_report([out])
    assert not report.score_complete and report.unscored == 1
    assert any("score incomplete" in w for w in report.warnings)
    gate = run_cli("report", str(out), "--fail-under", "0.5")
    assert gate.code == 3 and "(incomplete)" in gate.out
    allowed = run_cli("report", str(out), "--fail-under", "0.5", "--allow-incomplete")
    assert allowed.code == 0, allowed.err


def _task(**over: Any) -> dict[str, Any]:
    rec = {"type": "task", "run_id": "r", "schema_version": 1, "benchmark": "b",
           "domain": "d", "category": "c", "task_id": "t", "trial": 0, "seed": 1,
           "status": "ok", "reward": 1.0, "success": True, "started_at": "",
           "finished_at": ""}
    return {**rec, **over}


def test_forged_rewards_are_validated_when_reading(tmp_path: Path) -> None:
    path = tmp_path / "forged.jsonl"
    lines = [_task(task_id="ok"), _task(task_id="big", reward=5.0),
             _task(task_id="neg", reward=-1), _task(task_id="text", reward="1"),
             _task(task_id="status", status="passed"), _task(task_id="trial", trial="x"),
             _task(task_id="infra", status="infrastructure_error", reward=1.0)]
    text = "\n".join(json.dumps(x) for x in lines) + "\n"
    text += json.dumps(_task(task_id="nan")).replace('"reward": 1.0', '"reward": NaN') + "\n"
    text += json.dumps(_task(task_id="huge")).replace('"reward": 1.0',
                                                      '"reward": ' + "9" * 5000) + "\n"
    path.write_text(text)
    report = build_report([path])
    assert report.task_trials == 9  # nothing dropped
    assert report.score_scored_only == 1.0 and report.scored == 1
    assert report.score == pytest.approx(1 / 9)  # the invalid records count 0
    assert report.errors["invalid"] == 8 and not report.score_complete
    invalid = {x.task_id: x.error for x in report.lines if x.status == "invalid_record"}
    assert "reward '5.0' is not a number between 0 and 1" in invalid["big"]
    assert "unknown status 'passed'" in invalid["status"]
    r = run_cli("report", str(path), "--fail-under", "0.5")
    assert r.code == 3 and "Traceback" not in r.err
    r = run_cli("report", str(path), "--format", "markdown")
    assert r.code == 0 and "invalid record" in r.out


def test_writer_bound_and_tolerant_reader_units(tmp_path: Path) -> None:
    assert bound({"a": math.nan, 1: 2**70, "s": ("x",)}) == {
        "a": None, "1": "[a2abench: 22-digit integer not stored]", "s": ["x"]}
    path = tmp_path / "w.jsonl"
    writer = RecordWriter(path, fsync=False)
    writer.write({"type": "task", "run_id": "r", "v": 10 ** 30})
    writer.close()
    # A line from another writer with an integer orjson refuses is read, not dropped.
    with path.open("a") as f:
        f.write('{"type": "request", "run_id": "r", "n": ' + "7" * 5000 + '}\n')
    got = list(iter_records([path]))
    assert len(got) == 2 and got[1]["n"] == "[a2abench: 5,000-digit integer]"


class BreakingAgent(LegacyAgent):
    """Answers t001 with a reply a2abench cannot take apart (a list where the role
    belongs, JSON nested 900 deep in its data), the issue's way of dropping a failure."""

    def _reply(self, params: dict[str, Any]) -> dict[str, Any]:
        answer = super()._reply(params)
        text = " ".join(p.get("text", "") for p in params["message"].get("parts", []))
        if text.startswith("t001"):
            answer["role"] = ["agent", {"x": 1}]
            deep: Any = "x"
            for _ in range(900):
                deep = [deep]
            answer["parts"].append({"kind": "data", "data": {"d": deep}})
        return answer


def test_an_agent_that_breaks_the_harness_cannot_pass_the_gate(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    with serve(lambda b: BreakingAgent(b).app()) as base:
        r = run_cli("run", "scripted", "--white-agent-url", base, "--output", str(out),
                    "--option", "tasks=2", "--option", "turns=1", "--retries", "0",
                    "--fail-under", "0.6")
    # Whether the reply is classified as the agent's error (scored 0) or not at all (the
    # score is then incomplete), the failure cannot lift the agent over the gate.
    assert r.code == 3, (r.out, r.err)
    failed = tasks(out)["t001"]
    assert failed["status"] in ("agent_error", "harness_error")
    assert len(list(iter_records([out], types=frozenset({"task"})))) == 2
