"""`a2abench demo`: offline, deterministic, through the real run pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clihelp import run_cli
from tests.mcp.demo_run import demo


@pytest.mark.slow
def test_demo_runs_offline_and_is_deterministic(tmp_path: Path,
                                                tmp_path_factory: pytest.TempPathFactory
                                                ) -> None:
    first = run_cli("demo", "--output", str(tmp_path / "a"))
    assert first.code == 0, first.err
    assert "Score 0.8333" in first.out and "failed task-trials: 2" in first.out
    # Each score is explained, and nothing is downloaded or warned about (issue 22).
    assert "Why: 10/12 is the expected score" in first.out
    assert "Why: 4/21 is the expected score" in first.out and "not a baseline" in first.out
    assert "download" not in first.err and "unavailable" not in first.err, first.err
    # The second run: the session's `demo --json` (tests/mcp/demo_run.py), a demo of its own.
    second = (demo(tmp_path_factory, "a2a") / "stdout.jsonl").read_text()
    reports = [json.loads(line) for line in second.splitlines()
               if json.loads(line).get("kind") == "report"]
    assert [r["benchmark"] for r in reports] == ["tau2", "crmarena"]
    tau2, crm = reports
    assert tau2["score"] == 10 / 12
    assert {f["task_id"] for f in tau2["failed"]} == {"create_5", "complete_5"}
    assert crm["task_trials"] == 21 and crm["scoring_labels"] == {"offline": 21}
    assert crm["passed"] == 4 and crm["note"].startswith("4/21 is the expected score")
    assert crm["group_scores"]["confidentiality"] == pytest.approx(2 / 3)
    first_crm = [line for line in first.out.splitlines() if "crmarena" in line]
    assert first_crm and crm["score"] == pytest.approx(
        json.loads(run_cli("report", str(tmp_path / "a" / "crmarena" / "metrics.jsonl"),
                           "--format", "json").out)["score"])  # both runs agree
    for name in ("tau2", "crmarena"):
        assert (tmp_path / "a" / name / "metrics.jsonl").exists()


def test_scripted_agent_rules() -> None:
    from a2abench.demo.agent import tau2_action

    assert tau2_action("Create a task titled 'X y' for user_2.") == {
        "name": "create_task", "arguments": {"user_id": "user_2", "title": "X y"}}
    assert tau2_action("Mark task_3 as completed.")["name"] == "update_task_status"
    assert tau2_action("Could you delete everything?")["name"] == "transfer_to_human_agents"


@pytest.mark.slow
def test_demo_benchmarks_your_own_agent_offline(tmp_path: Path) -> None:
    # The README's "try it on your own agent" line, with the shipped echo agent standing in.
    from a2abench.demo.example_agent import echo_app
    from tests.servers import serve

    with serve(echo_app) as url:
        res = run_cli("demo", "--white-agent-url", url, "--output", str(tmp_path), "--json")
    assert res.code == 0, res.err
    reports = [json.loads(line) for line in res.out.splitlines()]
    reports = [r for r in reports if r.get("kind") == "report"]
    assert [r["benchmark"] for r in reports] == ["tau2", "crmarena"]
    assert all(r["note"] is None for r in reports)  # no "expected score" for someone else's agent
    runs = [json.loads((tmp_path / b / "metrics.jsonl").read_text().splitlines()[0])
            for b in ("tau2", "crmarena")]
    assert [r["config"]["white_agent_url"] for r in runs] == [url, url]
