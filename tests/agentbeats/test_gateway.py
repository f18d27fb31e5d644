"""serve-green as AgentBeats' Amber flow drives it, on loopback: the gateway's a2a-sdk 0.3
streaming client (in its own venv) sends one TextPart with `participants` pointing at the
gateway's proxy and a `config` holding the workflow's shard keys; results are collected as the
gateway collects them; two shards are merged as the leaderboard workflow merges them; then the
shipped DuckDB queries run over the merged files in a real DuckDB."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.models import Task
from a2abench.green import GreenSettings
from a2abench.run.config import trial_seed
from tests.agentbeats.gateway import Gateway, merge_shards, proxy
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.green.helpers import green_server
from tests.servers import free_port, serve
from tests.tau2 import gold_agent

pytestmark = pytest.mark.slow

QUERIES = Path(__file__).parents[2] / "examples/agentbeats/leaderboard/queries"
TASKS = ["3", "14", "19"]
TRIALS = 2
SPOILED = ("14", 1)  # this task-trial's user hangs up at once: it fails, so pass^k is not 1
IDS = {"a2abench": "green-0001"}


@pytest.fixture(scope="module")
def airline() -> dict[str, Task]:
    domain = load_domain("airline", data_dir=shared_data("tau2").parent)
    return {t.id: t for t in domain.tasks(task_ids=TASKS)}


def _user(seeds: dict[int, tuple[str, int]], delay_s: float = 0.0) -> FakeLLMServer:
    """First turn (answered after `delay_s`) names the task (the gold agent then acts); next
    turn stops."""

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        task_id, trial = seeds[body["seed"]]
        if (task_id, trial) == SPOILED:
            return completion("###STOP###")
        if not [m for m in body["messages"][1:] if m["role"] == "assistant"]:
            time.sleep(delay_s)
            return completion(f"TASK:{task_id} I need help with my booking.")
        return completion("Thanks, that is all. ###STOP###")

    return FakeLLMServer(handler=handler)


@pytest.fixture(scope="module")
def tau2_world(airline: dict[str, Task]) -> Iterator[tuple[str, FakeLLMServer]]:
    """(the gateway proxy's URL for role `agent`, the user LLM): the gold agent behind it."""
    seeds = {trial_seed(300, t, trial): (t, trial) for t in TASKS for trial in range(TRIALS)}
    user = _user(seeds)
    with user.running(), serve(lambda b: gold_agent.app(b, airline, "gold")[0]) as gold, \
            proxy({"agent": gold}) as (via, _):
        yield via + "/agent", user


def _tau2_settings(tmp_path: Path, llm: FakeLLMServer, cache: bool = True,
                   **extra: Any) -> GreenSettings:
    return GreenSettings(output_dir=tmp_path, progress_interval_s=0, presets={"tau2": {
        "data_dir": str(shared_data("tau2").parent), "user_llm_base_url": llm.base_url,
        "user_llm": "fake-user", "llm_cache": cache}}, **extra)


def _duckdb(files: dict[str, dict[str, Any]], tmp_path: Path, query: Path) -> tuple[
        list[str], list[tuple[Any, ...]]]:
    """Write results/<name>.json as the workflow commits them; run `query` over them as a
    table `results` (one row per file) in a real DuckDB."""
    import duckdb

    folder = tmp_path / "results"
    folder.mkdir(exist_ok=True)
    for name, merged in files.items():
        (folder / f"{name}.json").write_text(json.dumps(merged))
    con = duckdb.connect()
    con.execute(f"CREATE TABLE results AS SELECT * FROM read_json_auto('{folder}/*.json')")
    relation = con.sql(query.read_text())
    return list(relation.columns), relation.fetchall()


def _three_runs(gateway: Gateway, green: str, agent: str,
                config: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The unsharded run (num_shards 1, as the workflow always patches) and shards 0, 1 of 2."""
    whole = gateway.run(green, {"agent": agent},
                        {**config, "shard_index": 0, "num_shards": 1}, 300)
    shards = [gateway.run(green, {"agent": agent},
                          {**config, "shard_index": i, "num_shards": 2}, 300) for i in (0, 1)]
    for outcome in (whole, *shards):
        assert outcome["status"] == "completed", outcome["log"][-2000:]
        assert len(outcome["results"]) == 1  # one Result per shard, nothing else parsed
    return whole, shards


def _keys(result: dict[str, Any]) -> list[tuple[str, int]]:
    return [(r["task_id"], r["trial"]) for r in result["task_results"]]


def test_tau2_two_shards_through_the_gateway_then_the_leaderboard_queries(
        tmp_path: Path, gateway: Gateway, tau2_world: tuple[str, FakeLLMServer]) -> None:
    agent, user = tau2_world
    config = {"benchmark": "tau2", "domain": "airline", "task_ids": TASKS,
              "num_trials": TRIALS, "num_instances": len(TASKS)}
    with green_server(_tau2_settings(tmp_path / "runs", user)) as (green, _):
        whole, shards = _three_runs(gateway, green, agent, config)
    result = whole["results"][0]
    assert result["participant"] == "agent" and "127.0.0.1" not in json.dumps(result)
    assert result["split"] == "base" and result["shard"] == {"index": 0, "count": 1}
    assert isinstance(result["summary"]["total_tasks"], int) and result["num_trials"] == 2
    assert result["by_category"] == result["by_domain"] and set(result["by_domain"]) == {"airline"}
    assert result["time_used"] > 0 and 0 < result["pass_rate_pct"] < 100
    assert set(result["task_rewards"]) == set(TASKS)
    spoiled = next(r for r in result["task_results"] if (r["task_id"], r["trial"]) == SPOILED)
    assert spoiled["success"] is False and spoiled["reward"] == 0.0
    parts = [s["results"][0] for s in shards]
    assert [p["shard"] for p in parts] == [{"index": 0, "count": 2}, {"index": 1, "count": 2}]
    assert not set(_keys(parts[0])) & set(_keys(parts[1]))
    assert sorted(_keys(parts[0]) + _keys(parts[1])) == sorted(_keys(result))

    files = {"sharded": merge_shards(shards, {**IDS, "agent": "agent-sharded"}),
             "whole": merge_shards([whole], {**IDS, "agent": "agent-whole"})}
    assert files["sharded"]["status"] == "completed"
    columns, rows = _duckdb(files, tmp_path, QUERIES / "pass_k.sql")
    assert columns[:3] == ["id", "pass^1", "pass^2"] and len(rows) == 2
    by_id = {row[0]: row[1:] for row in rows}
    expected = [round(result["pass_k"][k], 4) for k in ("1", "2")]
    assert list(by_id["agent-sharded"][:2]) == list(by_id["agent-whole"][:2]) == expected
    assert by_id["agent-whole"][2:] == (None, None)  # 2 trials: no pass^3
    columns, rows = _duckdb(files, tmp_path, QUERIES / "overall.sql")
    assert columns[0] == "id" and len(rows) == 2
    overall = {row[0]: dict(zip(columns, row, strict=True)) for row in rows}
    for name in ("agent-sharded", "agent-whole"):
        assert overall[name]["Pass rate (%)"] == round(result["pass_rate_pct"], 1)
        assert overall[name]["Tasks"] == 3 and overall[name]["Task-trials"] == 6
    columns, rows = _duckdb(files, tmp_path, QUERIES / "tau2/by_domain.sql")
    assert columns[0] == "id" and sorted(r[0] for r in rows) == ["agent-sharded", "agent-whole"]
    assert {r[1] for r in rows} == {round(result["pass_rate_pct"], 1)}


def test_heartbeats_carry_a_slow_task_trial_past_the_gateways_timeout(
        tmp_path: Path, gateway: Gateway, airline: dict[str, Task]) -> None:
    """The gateway's client gives up after its read timeout (300 s there, 2 s here) without a
    byte; the user simulator's first answer takes 3 s. With heartbeats every 0.5 s the assessment
    completes; without them the same shard fails with no results."""
    seeds = {trial_seed(300, "3", 0): ("3", 0)}
    user = _user(seeds, delay_s=3.0)
    config = {"benchmark": "tau2", "domain": "airline", "task_ids": ["3"], "shard_index": 0,
              "num_shards": 1}
    with user.running(), serve(lambda b: gold_agent.app(b, airline, "gold")[0]) as gold, \
            proxy({"agent": gold}) as (via, _):
        for beat, status in ((0.5, "completed"), (0.0, "failed")):
            # No LLM cache: the second run must wait for the slow user as the first did.
            settings = _tau2_settings(tmp_path / f"runs-{beat}", user, cache=False,
                                      heartbeat_s=beat)
            with green_server(settings) as (green, _):
                outcome = gateway.run(green, {"agent": via + "/agent"}, config, 2.0)
            assert outcome["status"] == status, outcome["log"][-2000:]
            assert bool(outcome["results"]) is (status == "completed")


def test_participants_at_the_gateways_loopback_go_through_the_proxy_slot(
        tmp_path: Path, gateway: Gateway, tau2_world: tuple[str, FakeLLMServer]) -> None:
    """The gateway names the participant at its own loopback proxy, which the green agent's
    container cannot reach (here: a loopback port nobody listens on). With the proxy slot's
    URL as --participant-proxy, the same request completes through that proxy; without it,
    the shard fails."""
    agent, user = tau2_world
    proxy_base = agent.removesuffix("/agent")
    unreachable = f"http://127.0.0.1:{free_port()}/agent"
    config = {"benchmark": "tau2", "domain": "airline", "task_ids": ["3"], "shard_index": 0,
              "num_shards": 1}
    for via, status in ((proxy_base, "completed"), (None, "failed")):
        settings = _tau2_settings(tmp_path / f"runs-{status}", user, participant_proxy=via)
        with green_server(settings) as (green, _):
            outcome = gateway.run(green, {"agent": unreachable}, config, 120)
        assert outcome["status"] == status, outcome["log"][-2000:]
        assert bool(outcome["results"]) is (status == "completed")


# --- CRMArena ---------------------------------------------------------------------------------

def _crm_gold(answers: dict[str, list[str]], wrong: set[str]) -> Any:
    """An a2a-sdk white agent answering each task with its gold answer (or a wrong one)."""
    from a2a.helpers import new_text_message
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue

    class Gold(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            text = context.get_user_input()
            query = next((q for q in answers if q in text), None)
            answer = ["None"] if query is None or query in wrong else answers[query]
            reply = json.dumps({"action": "respond", "answer": ", ".join(map(str, answer))})
            await event_queue.enqueue_event(new_text_message(reply,
                                                             context_id=context.context_id))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            return None

    return Gold()


def test_crmarena_two_shards_through_the_gateway_then_the_leaderboard_queries(
        tmp_path: Path, gateway: Gateway) -> None:
    from a2abench.benchmarks.crmarena.synthetic import generate_org, generate_tasks
    from tests.agents import load_example
    from tests.green.test_e2e import _sdk_app

    db = tmp_path / "b2b.db"
    generate_org(db, org="b2b", scale="tiny")
    rows = generate_tasks(db, org="b2b", per_category=1)
    tasks_file = tmp_path / "tasks.json"
    tasks_file.write_text(json.dumps(rows))
    exact = [r for r in rows if r.get("reward_metric") == "exact_match"]
    wrong = {exact[0]["query"]} if exact else set()
    settings = GreenSettings(output_dir=tmp_path / "runs", progress_interval_s=0, presets={
        "crmarena": {"tasks_file": str(tasks_file), "crm_db": str(db), "org": "b2b",
                     "judge_llm": "offline"}})
    executor = _crm_gold({r["query"]: r["answer"] for r in rows}, wrong)
    echo = load_example("echo_agent.py")
    config = {"benchmark": "crmarena", "task_category": "all", "interactive": False}
    with serve(lambda b: _sdk_app(echo, b, executor)) as white, \
            proxy({"agent": white}) as (via, seen), green_server(settings) as (green, _):
        whole, shards = _three_runs(gateway, green, via + "/agent", config)
    assert any(line.startswith("POST /agent/") for line in seen.seen)  # through the proxy
    result = whole["results"][0]
    assert result["benchmark"] == "crmarena" and result["participant"] == "agent"
    assert len(result["by_category"]) == len({r["task"] for r in rows})
    assert not any(result["summary"]["errors"].values())  # every answer was read
    assert result["summary"]["score_method"] == "macro_category_mean"
    parts = [s["results"][0] for s in shards]
    assert sorted(_keys(parts[0]) + _keys(parts[1])) == sorted(_keys(result))

    files = {"sharded": merge_shards(shards, {**IDS, "agent": "agent-sharded"}),
             "whole": merge_shards([whole], {**IDS, "agent": "agent-whole"})}
    columns, table = _duckdb(files, tmp_path, QUERIES / "crmarena/by_category.sql")
    assert columns[:3] == ["id", "Macro average (%)", "Categories"] and len(table) == 2
    macro = {row[0]: row[1] for row in table}
    assert macro["agent-sharded"] == macro["agent-whole"] == round(
        100 * result["summary"]["score"], 1)
    assert {row[3] for row in table} == {
        round(100 * result["summary"]["scored_apart"]["confidentiality"], 1)}
    if wrong:
        assert macro["agent-whole"] < 100
    columns, table = _duckdb(files, tmp_path, QUERIES / "overall.sql")
    assert columns[0] == "id" and len(table) == 2
