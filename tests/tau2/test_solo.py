"""Issue 18 item 5: solo mode (`run tau2 --solo`) as upstream defines it (tau2/solo.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.evaluator import evaluate_offline
from a2abench.benchmarks.tau2.models import AssistantMessage, Task, ToolCall
from a2abench.benchmarks.tau2.solo import STOP, is_solo_task
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.servers import serve
from tests.tau2 import gold_agent
from tests.tau2.solo_corpus import SOLO_MOCK, trajectories
from tests.tau2.tau2_harness import GOLDEN

# Rewards of the corpus' solo trajectories, scored by upstream in solo mode.
UPSTREAM = json.loads((GOLDEN / "solo.json").read_text())
TELECOM = ["[mobile_data_issue]data_mode_off|data_usage_exceeded[PERSONA:None]",
           "[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]"]


def tasks(name: str, ids: list[str] | None = None) -> dict[str, Task]:
    domain = load_domain(name, data_dir=shared_data("tau2").parent)
    return {t.id: t for t in domain.tasks(task_ids=ids)}


def run(agent_url: str, out: Path, domain: str, *extra: str) -> Any:
    return run_cli("run", "tau2", "--solo", "--white-agent-url", agent_url, "--domain", domain,
                   "--data-dir", str(shared_data("tau2").parent), "--output", str(out),
                   "--retry-delay", "0.01", *extra)


def records(path: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    return recs[0], {r["task_id"]: r for r in recs if r["type"] == "task"}


def test_solo_tasks_are_upstreams_valid_ones() -> None:
    mock = tasks("mock")
    assert [i for i, t in mock.items() if is_solo_task(t)] == SOLO_MOCK
    assert all(is_solo_task(t) for t in tasks("telecom").values())


def test_gold_solo_agent_passes_mock_without_a_user_simulator(tmp_path: Path) -> None:
    mock = tasks("mock")
    holder: dict[str, Any] = {}

    def factory(base: str) -> Any:
        app, holder["executor"] = gold_agent.app(base, mock, "solo")
        return app

    out = tmp_path / "solo.jsonl"
    with serve(factory) as base:
        r = run(base, out, "mock")  # no --user-llm: solo mode has no user simulator
    assert r.code == 0, r.err
    run_record, recs = records(out)
    # tasks run concurrently, so records arrive in any order: compare by task id
    assert sorted(recs) == sorted(SOLO_MOCK) and len(recs) == len(SOLO_MOCK)
    assert {k: v["reward"] for k, v in recs.items()} == {
        i: UPSTREAM[f"mock:{i}:gold"]["reward"] for i in SOLO_MOCK}
    # two gold solutions fail upstream too: no user says the notification was read, and
    # nobody is told the outcome (COMMUNICATE)
    assert recs["update_task_with_user_tools"]["reward"] == 0.0
    assert all(v["termination"] == "agent_stop" for v in recs.values())
    assert run_record["data"]["solo"]["excluded_tasks"] == [
        "create_task_1_nl_eval", "update_task_with_message_history",
        "update_task_with_history_and_env_assertions"]
    assert run_record["models"]["user_simulator"] is None
    transcript = recs["update_task_with_user_tools"]["transcript"]
    assert transcript[0]["role"] == "assistant" and transcript[0]["tool_calls"]  # no greeting
    # the report viewer ties every A2A reply to its message: here every assistant message
    turns = recs["update_task_with_user_tools"]["details"]["a2a_turns"]
    assert [t["message"] for t in turns] == [i for i, m in enumerate(transcript)
                                             if m["role"] == "assistant"]
    assert [m["role"] for m in transcript].count("user") == 0
    assert transcript[-1] == {**transcript[-1], "content": "###STOP###", "tool_calls": None}
    firsts = holder["executor"].first_messages  # one per task, in the order tasks started
    assert len(firsts) == len(SOLO_MOCK)
    policy = (shared_data("tau2") / "domains" / "mock" / "policy_solo.md").read_text()
    for first in firsts:
        assert "<ticket>\n" in first and '"name": "done"' in first
        assert '"name": "check_notifications"' in first  # the user's tools are the agent's
        assert policy.strip() in first


def test_a_text_reply_ends_a_solo_run_as_agent_error(tmp_path: Path) -> None:
    out = tmp_path / "text.jsonl"
    with serve(lambda base: gold_agent.app(base, tasks("mock"), "solo-text")[0]) as base:
        r = run(base, out, "mock", "--task-ids", "create_task_1")
    assert r.code == 0, r.err
    _, recs = records(out)
    rec = recs["create_task_1"]
    assert (rec["termination"], rec["reward"]) == ("agent_error", 0.0)
    assert rec["transcript"][-1]["content"] == "I have solved the ticket."


def test_done_drops_the_calls_sent_with_it(tmp_path: Path) -> None:
    out = tmp_path / "mixed.jsonl"
    with serve(lambda base: gold_agent.app(base, tasks("mock"), "solo-mixed")[0]) as base:
        r = run(base, out, "mock", "--task-ids", "create_task_1")
    assert r.code == 0, r.err
    _, recs = records(out)
    rec = recs["create_task_1"]
    assert (rec["termination"], rec["tool_calls"], rec["reward"]) == ("agent_stop", 0, 0.0)
    assert rec["transcript"] == [{**rec["transcript"][0], "content": "###STOP###",
                                  "tool_calls": None}]


@pytest.mark.parametrize("task_id", TELECOM)
def test_gold_solo_agent_passes_telecom(tmp_path: Path, task_id: str) -> None:
    # telecom has five distinct tickets for 114 tasks: the agent is given one task per run
    out = tmp_path / "telecom.jsonl"
    with serve(lambda base: gold_agent.app(base, tasks("telecom", [task_id]), "solo")[0]
               ) as base:
        r = run(base, out, "telecom", "--task-ids", task_id)
    assert r.code == 0, r.err
    _, recs = records(out)
    assert recs[task_id]["reward"] == UPSTREAM[f"telecom:{task_id}:gold"]["reward"] == 1.0
    transcript = recs[task_id]["transcript"]
    assert {m["name"] for m in transcript[0]["tool_calls"]} <= {"toggle_airplane_mode",
                                                                "toggle_data"}
    assert all(m["requestor"] == "assistant" for m in transcript if m["role"] == "tool")


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_airline_and_retail_have_no_solo_mode(tmp_path: Path, domain: str) -> None:
    r = run("http://127.0.0.1:1", tmp_path / "x.jsonl", domain)
    assert r.code == 2
    assert f"tau2 {domain} has no solo mode" in r.err


def test_the_solo_corpus_is_the_one_upstream_scored() -> None:
    assert sorted(t["id"] for t in trajectories(shared_data("tau2").parent)) == sorted(UPSTREAM)


# Parametrized by the golden file's ids, not the data: collection must not read reference data.
@pytest.mark.parametrize("traj_id", sorted(UPSTREAM))
def test_solo_scoring_equals_upstream(traj_id: str) -> None:
    data_dir = shared_data("tau2").parent
    traj = next(t for t in trajectories(data_dir) if t["id"] == traj_id)
    domain = load_domain(traj["domain"], data_dir=data_dir)
    task = next(t for t in domain.tasks() if t.id == traj["task"])
    env = domain.new_environment(task)
    env.set_solo()
    messages: list[Any] = list(task.initial_state.message_history or []) \
        if task.initial_state else []
    for i, c in enumerate(traj["calls"]):
        call = ToolCall(id=f"c{i}", name=c["name"], arguments=c["arguments"])
        messages += [AssistantMessage(tool_calls=[call]), env.execute(call)]
    messages.append(AssistantMessage(content=STOP))
    want = UPSTREAM[traj["id"]]
    try:
        info = evaluate_offline(task, messages, "agent_stop", domain=domain, solo=True)
    except Exception as exc:  # upstream's evaluator raises for these too
        assert "exception" in want and want["exception"] == f"{type(exc).__name__}: {exc}"
        return
    assert {"reward": info.reward,
            "breakdown": {k.value: v for k, v in (info.reward_breakdown or {}).items()},
            "db_match": info.db_check.db_match if info.db_check else None} == want


def test_solo_export_names_the_dummy_user_and_the_solo_policy(tmp_path: Path) -> None:
    out = tmp_path / "solo.jsonl"
    with serve(lambda base: gold_agent.app(base, tasks("mock"), "solo")[0]) as base:
        assert run(base, out, "mock", "--task-ids", "create_task_1").code == 0
    target = tmp_path / "results.json"
    assert run_cli("report", str(out), "--format", "tau2", "--output", str(target)).code == 0
    results = json.loads(target.read_text())
    assert results["info"]["user_info"]["implementation"] == "dummy_user"
    policy = (shared_data("tau2") / "domains" / "mock" / "policy_solo.md").read_text()
    assert results["info"]["environment_info"]["policy"] == policy
    sim = results["simulations"][0]
    assert (sim["termination_reason"], sim["reward_info"]["reward"]) == ("agent_stop", 1.0)


@pytest.mark.skipif(not os.environ.get("TAU2_UPSTREAM_PYTHON"),
                    reason="set TAU2_UPSTREAM_PYTHON to a Python with upstream tau2-bench "
                           "(and TAU2_UPSTREAM_CHECKOUT) to re-record solo.json upstream")
def test_golden_solo_rerecorded_by_upstream_is_unchanged(tmp_path: Path) -> None:
    data = Path(os.environ.get("TAU2_UPSTREAM_CHECKOUT", "")) / "data"
    out = tmp_path / "solo.json"
    env = {**os.environ, "TAU2_DATA_DIR": str(data), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    root = Path(__file__).resolve().parents[2]
    subprocess.run([os.environ["TAU2_UPSTREAM_PYTHON"],
                    str(root / "scripts" / "tau2_solo_golden.py"), str(out), str(data)],
                   check=True, env=env, capture_output=True, timeout=600)
    assert json.loads(out.read_text()) == UPSTREAM


def test_solo_policy_files_are_needed_only_for_solo_runs(tmp_path: Path) -> None:
    import shutil

    from a2abench.errors import DataMissing

    src = shared_data("tau2")
    shutil.copytree(src / "domains" / "mock", tmp_path / "tau2" / "domains" / "mock")
    shutil.copytree(src / "user_simulator", tmp_path / "tau2" / "user_simulator")
    (tmp_path / "tau2" / "domains" / "mock" / "policy_solo.md").unlink()
    assert load_domain("mock", data_dir=tmp_path).solo_policy is None
    with pytest.raises(DataMissing, match="policy_solo.md is missing"):
        load_domain("mock", data_dir=tmp_path, solo=True)
