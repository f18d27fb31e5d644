"""`run tau2 --domain mock` against a2a-sdk agents that offer only HTTP+JSON or only gRPC,
in A2A 1.0 and 0.3, blocking and streaming: the same scores as over JSON-RPC."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.run.config import trial_seed
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.sdk_agents import sdk_agent
from tests.servers import serve
from tests.tau2.gold_agent import GoldExecutor

pytest.importorskip("grpc")
TASKS = ["create_task_1", "update_task_with_history_and_env_assertions", "impossible_task_1"]
PLANS = {"update_task_with_history_and_env_assertions":
         [("update_task_status", {"task_id": "task_2", "status": "completed"})]}


@pytest.mark.parametrize(("binding", "version", "streaming"), [
    ("HTTP+JSON", "1.0", True), ("HTTP+JSON", "0.3", False),
    ("GRPC", "1.0", False), ("GRPC", "0.3", True)])
def test_mock_domain_over_one_binding(tmp_path: Path, binding: str, version: str,
                                      streaming: bool) -> None:
    data_dir = shared_data("tau2").parent
    tasks = {t.id: t for t in load_domain("mock", data_dir=data_dir).tasks(task_ids=TASKS)}
    seeds = {trial_seed(300, t, 0): t for t in tasks}

    def user(body: dict[str, Any]) -> dict[str, Any]:
        task_id = seeds[body["seed"]]
        mine = [m for m in body["messages"] if m["role"] == "assistant"]
        if body["messages"][-1]["role"] == "tool" or not any(
                (m.get("content") or "").startswith("TASK:") for m in mine):
            return completion(f"TASK:{task_id} please help.")
        return completion("###STOP###")

    out = tmp_path / "mock.jsonl"
    executor = GoldExecutor(tasks, "gold", PLANS)
    server = FakeLLMServer(handler=user)
    with server.running(), serve(lambda b: sdk_agent(b, bindings=(binding,), versions=(version,),
                                                     executor=executor)) as base:
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", "mock",
                    "--data-dir", str(data_dir), "--user-llm", "u", "--user-llm-base-url",
                    server.base_url, "--output", str(out),
                    *[a for t in TASKS for a in ("--task-ids", t)],
                    "--streaming" if streaming else "--no-streaming")
    assert r.code == 0, r.err
    records = [json.loads(x) for x in out.read_text().splitlines()]
    run = next(x for x in records if x["type"] == "run")
    assert run["interface"] == {"binding": binding, "dialect": version,
                                "url": run["interface"]["url"], "streaming": streaming}
    assert run["config"]["streaming"] is streaming
    rewards = {x["task_id"]: x["reward"] for x in records if x["type"] == "task"}
    assert rewards == dict.fromkeys(TASKS, 1.0)
    requests = [x for x in records if x["type"] == "request"]
    assert requests and {x["binding"] for x in requests} == {binding}
    assert all(x["error"] is None for x in requests)
    assert all((x["first_event_ms"] is not None) is streaming for x in requests)
    # one contextId per conversation: every request of a task-trial carries the same one
    for task_id in TASKS:
        contexts = {x["context_id"] for x in requests if x["task_id"] == task_id}
        assert len(contexts - {None}) == 1
    report = run_cli("report", str(out), "--format", "markdown")
    assert report.code == 0, report.err
    assert f"| A2A interface | {binding} A2A {version} " in report.out


def test_streaming_needs_the_cards_capability(tmp_path: Path) -> None:
    """--streaming against a card without capabilities.streaming: a usage error, exit 2,
    before anything is written (no silent fallback to blocking calls)."""
    data_dir = shared_data("tau2").parent
    out = tmp_path / "m.jsonl"
    with serve(lambda b: sdk_agent(b, bindings=("HTTP+JSON",), streaming=False)) as base:
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", "mock",
                    "--data-dir", str(data_dir), "--user-llm", "u", "--user-llm-base-url",
                    "http://127.0.0.1:9", "--output", str(out), "--streaming")
    assert r.code == 2, r.err
    assert "does not advertise streaming" in r.err
    assert not out.exists()
