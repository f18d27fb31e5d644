"""Issue 18 item 2: a task whose upstream evaluator raises is the agent's failure, not ours.

mock `create_task_1_with_env_assertions` asserts on `task_2`; an agent that never creates it
makes the env assertion raise `ValueError: Task task_2 not found` (upstream raises too).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from a2abench.benchmarks.tau2 import load_domain
from a2abench.report import build_report, render
from a2abench.run.config import trial_seed
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve
from tests.tau2 import gold_agent

TASKS = ["create_task_1_with_env_assertions", "create_task_1"]


def test_evaluator_error_is_its_own_status_scored_zero(tmp_path: Path) -> None:
    data_dir = shared_data("tau2").parent
    tasks = {t.id: t for t in load_domain("mock", data_dir=data_dir).tasks(task_ids=TASKS)}
    seeds = {trial_seed(300, t, 0): t for t in tasks}

    def user(body: dict[str, Any]) -> dict[str, Any]:
        mine = [m for m in body["messages"] if m["role"] == "assistant"]
        if len(mine) < 2:
            return completion(f"TASK:{seeds[body['seed']]} please create my task.")
        return completion("###STOP###")

    server = FakeLLMServer(handler=user)
    out = tmp_path / "mock.jsonl"
    with server.running(), serve(lambda b: gold_agent.app(b, tasks, "silent")[0]) as base:
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", "mock",
                    "--data-dir", str(data_dir), "--user-llm", "u", "--user-llm-base-url",
                    server.base_url, "--output", str(out), "--task-ids", TASKS[0],
                    "--task-ids", TASKS[1])
    assert r.code == 0, r.err
    records = {json.loads(x)["task_id"]: json.loads(x) for x in out.read_text().splitlines()
               if '"type":"task"' in x}
    rec = records["create_task_1_with_env_assertions"]
    assert rec["status"] == "evaluator_error"
    assert rec["reward"] == 0.0 and rec["success"] is False
    assert rec["turns"] >= 2 and rec["transcript"]  # the conversation is kept
    assert "task_2" in rec["error"]["message"] and "upstream" in rec["error"]["message"]
    assert rec["error"]["traceback"]
    report = build_report([out])
    # Scored as 0 in the headline, counted in the errors with an explanation.
    assert report.scored == 2 and report.score == 0.0
    assert report.errors["evaluator"] == 1
    assert any("evaluator" in w and "scored 0" in w for w in report.warnings)
    assert "evaluator: 1" in render(report, "markdown", [out])
