"""A two-participant assessment (scenario dual, issue 37) through AgentBeats' Amber flow on
loopback: the gateway's a2a-sdk 0.3 client sends `participants: {agent, user}` (both behind
the gateway's proxy) with the workflow's shard keys; the shards split the (task, trial,
pairing) units exactly once; the merged shard Results give the unsharded ratings; the
per-role DuckDB query reads them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.green import GreenSettings
from a2abench.rating import rate
from tests.agentbeats.gateway import Gateway, merge_shards, proxy
from tests.agentbeats.test_gateway import QUERIES, _duckdb
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer
from tests.green.helpers import green_server
from tests.multi import scripted
from tests.multi.dual_world import tasks_of, user_llm
from tests.servers import serve
from tests.tau2 import gold_agent

pytestmark = pytest.mark.slow

TASKS = ["8", "11"]  # each with gold writes; two: the shards split tasks too
TRIALS = 2
IDS = {"a2abench": "green-0001"}


def _keys(result: dict[str, Any]) -> list[tuple[str, int, str]]:
    return sorted((m["task_id"], m["trial"], m["pairing"]) for m in result["matches"])


def test_two_participants_through_the_gateway_sharded_and_rated(
        tmp_path: Path, gateway: Gateway) -> None:
    tasks = tasks_of("airline", TASKS)
    llm = FakeLLMServer(handler=user_llm(tasks, TRIALS))  # the reference user's model
    settings = GreenSettings(output_dir=tmp_path / "runs", progress_interval_s=0, presets={
        "tau2": {"data_dir": str(shared_data("tau2").parent), "user_llm": "fake-user",
                 "user_llm_base_url": "", "llm_cache": False}})
    config = {"benchmark": "tau2", "domain": "airline", "task_ids": TASKS,
              "num_trials": TRIALS, "scenario": "dual", "pairing": "vs_reference"}
    with llm.running(), serve(lambda b: gold_agent.app(b, tasks, "gold")[0]) as agent, \
            serve(lambda b: scripted.app(b, tasks, "faithful")[0]) as user, \
            proxy({"agent": agent, "user": user}) as (via, seen):
        settings.presets["tau2"]["user_llm_base_url"] = llm.base_url
        people = {"agent": via + "/agent", "user": via + "/user"}
        with green_server(settings) as (green, _):
            whole = gateway.run(green, people,
                                {**config, "shard_index": 0, "num_shards": 1}, 300)
            shards = [gateway.run(green, people,
                                  {**config, "shard_index": i, "num_shards": 2}, 300)
                      for i in (0, 1)]
    for outcome in (whole, *shards):
        assert outcome["status"] == "completed", outcome["log"][-2000:]
    assert any(line.startswith("POST /user/") for line in seen.seen)  # through the proxy
    result = whole["results"][0]
    assert result["scenario"] == "dual" and result["pairing"] == "vs_reference"
    assert set(result["lineup"]) == {"agent", "user", "reference_agent", "reference_user"}
    assert "127.0.0.1" not in json.dumps(result)  # no participant URL in a published Result
    assert len(result["matches"]) == len(TASKS) * TRIALS * 3
    assert result["summary"]["task_trials"] == len(TASKS) * TRIALS  # the primary pairing
    assert result["summary"]["score"] == 1.0 and result["summary"]["score_complete"]
    for part in (s["results"][0] for s in shards):  # each shard's score over its own share
        assert part["summary"]["score"] == 1.0 and part["summary"]["score_complete"]
    assert result["roles"]["user"]["fidelity"]["rate"] == 1.0
    assert result["roles"]["reference_agent"]["role"] == "agent"
    parts = [s["results"][0] for s in shards]
    assert not set(_keys(parts[0])) & set(_keys(parts[1]))
    assert sorted(_keys(parts[0]) + _keys(parts[1])) == _keys(result)

    ids = {**IDS, "agent": "agent-0007", "user": "user-0042"}
    files = {"sharded": merge_shards(shards, ids), "whole": merge_shards([whole], ids)}
    for name, merged in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(merged))
    from_shards = rate([tmp_path / "sharded.json"], bootstrap=20, seed=5)
    from_whole = rate([tmp_path / "whole.json"], bootstrap=20, seed=5)
    assert from_shards["roles"] == from_whole["roles"] and from_shards["roles"]
    users = {p["participant"] for p in from_whole["roles"]["user"]["players"]}
    assert users == {"user-0042", "llm_user:fake-user"}
    assert from_whole["roles"]["user"]["anchor"] == "llm_user:fake-user"

    columns, rows = _duckdb({"whole": files["whole"]}, tmp_path, QUERIES / "multi/roles.sql")
    assert columns[:3] == ["id", "Role", "Mean score (%)"]
    by = {(row[0], row[1]): dict(zip(columns, row, strict=True)) for row in rows}
    assert by[("agent-0007", "agent")]["Mean score (%)"] == 100.0
    assert by[("user-0042", "user")]["Fidelity (%)"] == 100.0
    assert by[("user-0042", "user")]["Matches"] == len(TASKS) * TRIALS * 2
