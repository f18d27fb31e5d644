"""An agent error is never a pass, whatever a plugin's rescore hook or driver says (issue 36).

`report --rescore` hands only task-trials the evaluator scored (`ok`) to the hook, refuses a
result that changes which task-trial it is or its status, and names the record (task id,
trial, file:line) in every error; the report counts passes among `ok` task-trials only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2abench.errors import LLMError
from a2abench.run.records import RunRecord, TaskRecord
from tests.clihelp import run_cli
from tests.engine.conftest import agent
from tests.engine.scripted import ScriptedDriver

# (task id, status, reward): two scored ok (failed), three agent errors (scored 0).
TRIALS = [("t000", "ok", 0.5), ("t001", "ok", 0.0), ("t002", "agent_error", 0.0),
          ("t003", "agent_error", 0.0), ("t004", "agent_error", 0.0)]


def _metrics(path: Path, forged: dict[str, dict[str, Any]] | None = None) -> Path:
    forged = forged or {}
    run = RunRecord(run_id="r1", a2abench_version="0", benchmark="scripted",
                    config={"options": {"tasks": 5}}, compat_key={}, started_at="t")
    lines = [run.model_dump_json()]
    for task_id, status, reward in TRIALS:
        rec = TaskRecord(run_id="r1", benchmark="scripted", domain="scripted", task_id=task_id,
                         trial=0, seed=1, status=status,  # type: ignore[arg-type]
                         reward=reward, success=False, started_at="t", finished_at="t",
                         transcript=[{"sent": "x", "reply": "y"}])
        lines.append(json.dumps({**rec.model_dump(mode="json"), **forged.get(task_id, {})}))
    path.write_text("\n".join(lines) + "\n")
    return path


def _hook(change: Callable[[TaskRecord], object]) -> Any:
    async def rescore(self: object, record: TaskRecord) -> object:
        return change(record)
    return rescore


def _pass_everything(record: TaskRecord) -> TaskRecord:
    return record.model_copy(update={"reward": 1.0, "success": True})


def _rescore(src: Path, target: Path, monkeypatch: pytest.MonkeyPatch,
             change: Callable[[TaskRecord], object]) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(ScriptedDriver, "rescore", _hook(change))
        return run_cli("report", str(src), "--rescore", "--rescored-output", str(target),
                       "--format", "json")


def test_a_hook_that_passes_everything_cannot_pass_an_agent_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _metrics(tmp_path / "m.jsonl")
    target = tmp_path / "rescored.jsonl"
    seen: list[str] = []

    def change(record: TaskRecord) -> TaskRecord:
        seen.append(record.status)
        return _pass_everything(record)

    r = _rescore(src, target, monkeypatch, change)
    assert r.code == 0, r.err
    data = json.loads(r.out)
    # Before issue 36: "5/5 passed, agent errors 3".
    assert (data["passed"], data["errors"]["agent"], data["scored"]) == (2, 3, 5)
    assert data["score"] == pytest.approx(2 / 5)
    assert seen == ["ok", "ok"]  # the hook never sees an agent error
    kept = [json.loads(line) for line in target.read_text().splitlines()[1:]]
    assert kept[2:] == [json.loads(line) for line in src.read_text().splitlines()[3:]]


@pytest.mark.parametrize("change, message", [
    (lambda r: r.model_copy(update={"status": "infrastructure_error", "reward": None}),
     "changed its status ('ok' -> 'infrastructure_error')"),
    (lambda r: r.model_copy(update={"status": "agent_error", "reward": 1.0, "success": True}),
     "changed its status ('ok' -> 'agent_error')"),
    (lambda r: r.model_copy(update={"task_id": "t004"}), "changed its task_id ('t000' -> 't004')"),
    (lambda r: r.model_copy(update={"reward": 7.0}), "returned a record that cannot be true: "
                                                     "reward '7.0' is not a number between 0"),
    (lambda r: None, "the scripted benchmark cannot re-score this task-trial (its rescore "
                     "hook returned None)"),
    (lambda r: {"reward": 1.0}, "the scripted benchmark's rescore hook returned dict, not a "
                                "TaskRecord"),
    (lambda r: r.model_copy(update={"trial": "zero"}), "returned an invalid record: trial"),
])
def test_a_hook_result_that_changes_the_task_trial_is_refused_with_the_record_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[TaskRecord], object],
        message: str) -> None:
    src = _metrics(tmp_path / "m.jsonl")
    target = tmp_path / "rescored.jsonl"
    r = _rescore(src, target, monkeypatch, change)
    assert r.code == 1 and "Traceback" not in r.err, r.err
    assert f"task 't000' trial 0 ({src}:2): " in r.err and message in r.err, r.err
    assert not target.exists() and not target.with_name(target.name + ".partial").exists()


def test_a_hook_error_of_ours_keeps_its_kind_and_names_the_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _metrics(tmp_path / "m.jsonl")

    def fail(record: TaskRecord) -> object:
        if record.task_id == "t001":
            raise LLMError("judge unreachable", hint="Check --judge-llm.")
        return record

    r = _rescore(src, tmp_path / "out.jsonl", monkeypatch, fail)
    assert r.code == 1 and f"task 't001' trial 0 ({src}:3): judge unreachable" in r.err, r.err


def test_a_damaged_task_record_is_named(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    src = _metrics(tmp_path / "m.jsonl", forged={"t001": {"seed": "not a seed"}})
    r = _rescore(src, tmp_path / "out.jsonl", monkeypatch, _pass_everything)
    assert r.code == 1 and "Traceback" not in r.err, r.err
    assert f"task 't001' trial 0 ({src}:3): not a valid task record: seed" in r.err, r.err


def test_a_forged_agent_error_that_claims_a_pass_is_never_counted(tmp_path: Path) -> None:
    src = _metrics(tmp_path / "m.jsonl", forged={
        "t002": {"reward": 1.0, "success": True}, "t003": {"success": True},
        "t004": {"reward": 0.5}})
    r = run_cli("report", str(src), "--format", "json")
    data = json.loads(r.out)
    assert (data["passed"], data["scored"], data["errors"]["invalid"]) == (0, 2, 3), data
    assert not data["score_complete"]
    assert "invalid record: a agent_error record claims a pass" in json.dumps(data["failed"])


def test_a_driver_cannot_record_an_agent_error_as_a_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from a2abench.run import TaskOutcome

    async def run_task(self: object, ctx: Any) -> TaskOutcome:
        status = "agent_error" if ctx.task.task_id == "t001" else "evaluator_error"
        return TaskOutcome(status=status, reward=1.0, success=True)  # type: ignore[arg-type]

    out = tmp_path / "m.jsonl"
    monkeypatch.setattr(ScriptedDriver, "run_task", run_task)
    with agent() as (_, base):
        r = run_cli("run", "scripted", "--white-agent-url", base, "--output", str(out),
                    "--option", "tasks=2")
    assert out.exists(), r.err
    tasks = [json.loads(x) for x in out.read_text().splitlines() if '"type":"task"' in x]
    assert [(t["status"], t["reward"], t["success"]) for t in tasks] == [
        ("evaluator_error", 0.0, False), ("agent_error", 0.0, False)], tasks
    assert r.code == 0 and "0/2 passed" in r.out + r.err, r.out + r.err
