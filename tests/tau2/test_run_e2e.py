"""`a2abench run tau2` end to end: a real a2a-sdk white agent and a real fake user LLM."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.models import Task
from a2abench.run.config import trial_seed
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve
from tests.tau2 import gold_agent

TASKS = ["3", "14", "19"]


@pytest.fixture(scope="module")
def airline() -> dict[str, Task]:
    root = shared_data("tau2")
    domain = load_domain("airline", data_dir=root.parent)
    return {t.id: t for t in domain.tasks(task_ids=TASKS)}


def scripted_user(tasks: dict[str, Task]) -> FakeLLMServer:
    """First turn: name the task; then stop once the agent has said anything."""
    seeds = {trial_seed(300, t.id, 0): t.id for t in tasks.values()}

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        task_id = seeds[body["seed"]]
        assert body["temperature"] == 0.0
        turns = [m for m in body["messages"][1:] if m["role"] == "assistant"]
        if not turns:
            return completion(f"TASK:{task_id} I need help with my booking.")
        return completion("Thanks, that is all. ###STOP###")

    return FakeLLMServer(handler=handler)


@pytest.fixture(scope="module")
def user_llm(airline: dict[str, Task]) -> Iterator[FakeLLMServer]:
    server = scripted_user(airline)
    with server.running():
        yield server


def run(agent_url: str, llm: FakeLLMServer, out: Path, *extra: str) -> Any:
    return run_cli("run", "tau2", "--white-agent-url", agent_url, "--domain", "airline",
                   "--data-dir", str(shared_data("tau2").parent), "--user-llm", "fake-user",
                   "--user-llm-base-url", llm.base_url, "--output", str(out),
                   "--task-ids", *TASKS[:1], *[a for t in TASKS[1:] for a in ("--task-ids", t)],
                   "--retry-delay", "0.01", *extra)


def tasks_of(path: Path) -> dict[str, dict[str, Any]]:
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["task_id"]: r for r in recs if r["type"] == "task"}


def test_gold_agent_passes_every_task(tmp_path: Path, airline: dict[str, Task],
                                      user_llm: FakeLLMServer) -> None:
    holder: dict[str, Any] = {}

    def factory(base: str) -> Any:
        app, holder["executor"] = gold_agent.app(base, airline, "gold")
        return app

    out = tmp_path / "gold.jsonl"
    with serve(factory) as base:
        r = run(base, user_llm, out)
    assert r.code == 0, r.err
    records = tasks_of(out)
    assert {k: v["reward"] for k, v in records.items()} == {"3": 1.0, "14": 1.0, "19": 1.0}
    assert all(v["termination"] == "user_stop" for v in records.values())
    assert records["14"]["reward_components"] == {"DB": 1.0, "COMMUNICATE": 1.0}
    first = holder["executor"].first_messages[0]
    assert "<policy>" in first and "book_reservation" in first and "TASK:" in first
    transcript = records["19"]["transcript"]
    assert transcript[0] == {**transcript[0], "role": "assistant",
                             "content": "Hi! How can I help you today?"}
    tool = next(m for m in transcript if m["role"] == "tool")
    assert tool["requestor"] == "assistant" and not tool["error"]
    assert "Score 1.0000" in r.out


def test_silent_agent_fails(tmp_path: Path, airline: dict[str, Task],
                            user_llm: FakeLLMServer) -> None:
    out = tmp_path / "silent.jsonl"
    with serve(lambda base: gold_agent.app(base, airline, "silent")[0]) as base:
        r = run(base, user_llm, out)
    assert r.code == 0, r.err
    records = tasks_of(out)
    assert all(v["reward"] == 0.0 and v["status"] == "ok" for v in records.values())
    assert records["3"]["reward_components"]["COMMUNICATE"] == 0.0
    assert records["19"]["reward_components"]["DB"] == 0.0


@pytest.mark.parametrize("mode", ["malformed", "empty"])
def test_malformed_replies_are_agent_errors(tmp_path: Path, airline: dict[str, Task],
                                            user_llm: FakeLLMServer, mode: str) -> None:
    out = tmp_path / f"{mode}.jsonl"
    with serve(lambda base: gold_agent.app(base, airline, mode)[0]) as base:
        r = run(base, user_llm, out, "--fail-under", "0.5")
    assert r.code == 3
    records = tasks_of(out)
    assert all(v["status"] == "agent_error" and v["reward"] == 0.0
               and v["termination"] == "agent_error" for v in records.values())
    assert all(v["error"]["error"] == {"malformed": "ProtocolError", "empty": "EmptyReply"}[mode]
               for v in records.values())
    if mode == "empty":  # issue 18 item 4: the empty reply stays in the transcript
        assert all(v["transcript"][-1]["role"] == "assistant"
                   and v["transcript"][-1]["content"] is None
                   and v["transcript"][-1]["tool_calls"] is None for v in records.values())


def test_user_llm_is_required(tmp_path: Path) -> None:
    r = run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:1", "--domain", "mock",
                "--data-dir", str(shared_data("tau2").parent), "--output",
                str(tmp_path / "x.jsonl"))
    assert r.code == 2 and "--user-llm" in r.err


@pytest.mark.parametrize(("mode", "fmt", "executed"), [
    ("text", "any", True), ("text", "datapart", False),
    ("tags", "tags", True), ("tags", "any", False), ("gold", "datapart", True),
])
def test_tool_call_format_decides_what_is_a_call(tmp_path: Path, airline: dict[str, Task],
                                                 user_llm: FakeLLMServer, mode: str, fmt: str,
                                                 executed: bool) -> None:
    # Issue 18 item 3: --tool-call-format; text that is not a call reaches the user as written.
    out = tmp_path / f"{mode}-{fmt}.jsonl"
    with serve(lambda base: gold_agent.app(base, airline, mode)[0]) as base:
        r = run(base, user_llm, out, "--tool-call-format", fmt)
    assert r.code == 0, r.err
    records = tasks_of(out)
    assert all(v["status"] == "ok" for v in records.values())
    if executed:
        assert {k: v["reward"] for k, v in records.items()} == {"3": 1.0, "14": 1.0, "19": 1.0}
    else:
        assert all(v["tool_calls"] == 0 for v in records.values())
        first = records["14"]["transcript"][2]  # greeting, user, then the agent's prose
        assert first["role"] == "assistant" and first["tool_calls"] is None
        assert '{"name": "cancel_reservation", "arguments": ' in first["content"]
        assert records["14"]["reward"] == 0.0
    run_record = json.loads(out.read_text().splitlines()[0])
    assert run_record["config"]["options"]["tool_call_format"] == fmt


@pytest.mark.skipif(not os.environ.get("TAU2_UPSTREAM_PYTHON"),
                    reason="set TAU2_UPSTREAM_PYTHON to a Python with upstream tau2-bench to "
                           "load the export in upstream's Results model")
@pytest.mark.parametrize("mode", ["tags", "empty"])
def test_tau2_export_loads_in_upstreams_results_model(tmp_path: Path, airline: dict[str, Task],
                                                      user_llm: FakeLLMServer,
                                                      mode: str) -> None:
    # Issue 18 item 4: byte-exact content (null, "", the empty last reply) stays loadable.
    out = tmp_path / f"{mode}.jsonl"
    with serve(lambda base: gold_agent.app(base, airline, mode)[0]) as base:
        run(base, user_llm, out, "--tool-call-format", "tags" if mode == "tags" else "any")
    target = tmp_path / "results.json"
    assert run_cli("report", str(out), "--format", "tau2", "--output", str(target)).code == 0
    check = ("import sys; from tau2.data_model.simulation import Results; "
             "r = Results.model_validate_json(open(sys.argv[1]).read()); "
             "print(len(r.simulations), r.simulations[0].messages[-1].content)")
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    if os.environ.get("TAU2_UPSTREAM_CHECKOUT"):
        env["TAU2_DATA_DIR"] = str(Path(os.environ["TAU2_UPSTREAM_CHECKOUT"]) / "data")
    done = subprocess.run([os.environ["TAU2_UPSTREAM_PYTHON"], "-c", check, str(target)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("3 ")
