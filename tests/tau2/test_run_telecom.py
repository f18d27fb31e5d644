"""Telecom end to end: the user simulator fixes its own phone with tool calls the white agent
never sees, the agent works on the carrier side, and env assertions score the result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from a2abench.benchmarks.tau2 import load_domain
from a2abench.run.config import trial_seed
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve
from tests.tau2 import gold_agent

COUNT = 8


def test_telecom_user_tools_and_env_assertions(tmp_path: Path) -> None:
    data_dir = shared_data("tau2").parent
    domain = load_domain("telecom", data_dir=data_dir)
    tasks = {t.id: t for t in domain.tasks(max_tasks=COUNT)}
    seeds = {trial_seed(300, i, 0): i for i in tasks}
    seen_by_agent: list[str] = []

    def user(body: dict[str, Any]) -> dict[str, Any]:
        task = tasks[seeds[body["seed"]]]
        assert "telecom" in body["messages"][0]["content"].lower()
        assert len(body["tools"]) == len(domain.user_tool_schemas())
        mine = [m for m in body["messages"] if m["role"] == "assistant"]
        done = sum(len(m.get("tool_calls") or []) for m in mine)
        todo = [a for a in task.evaluation_criteria.actions or []  # type: ignore[union-attr]
                if a.requestor == "user"]
        if done < len(todo):  # the user's own phone fixes, one call at a time
            return completion(None, [{"name": todo[done].name,
                                      "arguments": todo[done].arguments}])
        if not any((m.get("content") or "").startswith("TASK:") for m in mine):
            return completion(f"TASK:{task.id} my phone has no service.")
        return completion("It works now, thanks. ###STOP###")

    def agent(base: str) -> Any:
        app, executor = gold_agent.app(base, tasks, "gold")
        seen_by_agent.append(executor)  # type: ignore[arg-type]
        return app

    server = FakeLLMServer(handler=user)
    out = tmp_path / "telecom.jsonl"
    with server.running(), serve(agent) as base:
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", "telecom",
                    "--data-dir", str(data_dir), "--user-llm", "u", "--user-llm-base-url",
                    server.base_url, "--max-tasks", str(COUNT), "--output", str(out))
    assert r.code == 0, r.err
    records = [json.loads(x) for x in out.read_text().splitlines() if '"type":"task"' in x]
    assert len(records) == COUNT
    assert all(r["reward"] == 1.0 for r in records), [
        (r["task_id"], r["reward_components"]) for r in records if r["reward"] != 1.0]
    user_calls = [m for r in records for m in r["transcript"]
                  if m["role"] == "tool" and m["requestor"] == "user"]
    assert user_calls, "the user simulator made no tool calls"
    executor = seen_by_agent[0]
    # The agent only ever saw the user's words: no phone tool names, no tool results of theirs.
    phone_tools = {s["function"]["name"] for s in domain.user_tool_schemas()}
    for text in executor.first_messages:  # type: ignore[attr-defined]
        said = text.split("</reply_format>")[-1]
        assert not any(name in said for name in phone_tools)
