"""`a2abench demo`: offline, deterministic, through the real run pipeline."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clihelp import run_cli


def test_demo_runs_offline_and_is_deterministic(tmp_path: Path) -> None:
    first = run_cli("demo", "--output", str(tmp_path / "a"))
    assert first.code == 0, first.err
    assert "Score 0.8333" in first.out and "failed task-trials: 2" in first.out
    second = run_cli("demo", "--output", str(tmp_path / "b"), "--json")
    reports = [json.loads(line) for line in second.out.splitlines()
               if json.loads(line).get("kind") == "report"]
    assert [r["benchmark"] for r in reports] == ["tau2"]
    assert reports[0]["score"] == 10 / 12
    assert {f["task_id"] for f in reports[0]["failed"]} == {"create_5", "complete_5"}
    assert (tmp_path / "a" / "tau2" / "metrics.jsonl").exists()


def test_scripted_agent_rules() -> None:
    from a2abench.demo.agent import tau2_action

    assert tau2_action("Create a task titled 'X y' for user_2.") == {
        "name": "create_task", "arguments": {"user_id": "user_2", "title": "X y"}}
    assert tau2_action("Mark task_3 as completed.")["name"] == "update_task_status"
    assert tau2_action("Could you delete everything?")["name"] == "transfer_to_human_agents"
