"""A team assessment (scenario team, issue 38) through AgentBeats' Amber flow on loopback:
the gateway's a2a-sdk 0.3 client sends `participants: {agent, specialist}` (both behind the
gateway's proxy) with the workflow's shard keys; the shards split the (task, trial, pairing)
units exactly once; the same request twice gives the same Result but for its clock
readings; the merged Results load in the team and headline DuckDB queries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.demo.specialist_agent import build_app
from a2abench.green import GreenSettings
from tests.agentbeats.gateway import Gateway, merge_shards, proxy, timeless, whole_again_shards
from tests.agentbeats.test_gateway import QUERIES, _duckdb
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer
from tests.green.helpers import green_server
from tests.multi.dual_world import tasks_of, user_llm
from tests.servers import serve
from tests.tau2 import gold_agent

pytestmark = pytest.mark.slow

TASKS = ["8", "11"]  # each with gold writes; two: the shards split tasks too
TRIALS = 2
PAIRINGS = {"agent+specialist", "agent+no_specialist", "agent+reference_specialist",
            "reference_agent+specialist"}


def _keys(result: dict[str, Any]) -> list[tuple[str, int, str]]:
    return sorted((m["task_id"], m["trial"], m["pairing"]) for m in result["matches"])





def test_a_team_through_the_gateway_sharded_and_queried(
        tmp_path: Path, gateway: Gateway) -> None:
    tasks = tasks_of("airline", TASKS)
    llm = FakeLLMServer(handler=user_llm(tasks, TRIALS))
    settings = GreenSettings(output_dir=tmp_path / "runs", progress_interval_s=0, presets={
        "tau2": {"data_dir": str(shared_data("tau2").parent), "user_llm": "fake-user",
                 "user_llm_base_url": "", "llm_cache": False}})
    config = {"benchmark": "tau2", "domain": "airline", "task_ids": TASKS,
              "num_trials": TRIALS, "scenario": "team", "pairing": "vs_reference"}
    with llm.running(), serve(lambda b: gold_agent.app(b, tasks, "team")[0]) as agent, \
            serve(lambda b: build_app(b, "wrong-arguments")) as broken, \
            proxy({"agent": agent, "specialist": broken}) as (via, seen):
        settings.presets["tau2"]["user_llm_base_url"] = llm.base_url
        people = {"agent": via + "/agent", "specialist": via + "/specialist"}
        with green_server(settings) as (green, _):
            whole, again, shards = whole_again_shards(gateway, green, people, config)
    assert any(line.startswith("POST /specialist/") for line in seen.seen)
    result = whole["results"][0]
    assert result["scenario"] == "team" and result["pairing"] == "vs_reference"
    assert set(result["lineup"]) == {"agent", "specialist", "no_specialist",
                                     "reference_agent", "reference_specialist"}
    assert "127.0.0.1" not in json.dumps(result)
    assert {m["pairing"] for m in result["matches"]} == PAIRINGS
    assert len(result["matches"]) == len(TASKS) * TRIALS * len(PAIRINGS)
    assert result["summary"]["score"] == 0.0  # the team, with a broken specialist
    assert result["roles"]["agent"]["vs_reference"]["rate"] == 1.0
    assert result["roles"]["specialist"]["vs_reference"]["rate"] == 0.0
    # the same request again: the same Result, but for when it ran and how long things took
    assert json.dumps(timeless(again["results"])) == json.dumps(timeless(whole["results"]))
    parts = [s["results"][0] for s in shards]
    assert not set(_keys(parts[0])) & set(_keys(parts[1]))
    assert sorted(_keys(parts[0]) + _keys(parts[1])) == _keys(result)

    ids = {"a2abench": "green-0001", "agent": "agent-0007", "specialist": "spec-0042"}
    files = {"sharded": merge_shards(shards, ids), "whole": merge_shards([whole], ids)}
    columns, rows = _duckdb(files, tmp_path, QUERIES / "multi/team.sql")
    assert columns[:3] == ["agent", "specialist", "Team score (%)"]
    assert len(rows) == 2
    for row in rows:
        got = dict(zip(columns, row, strict=True))
        assert (got["agent"], got["specialist"]) == ("agent-0007", "spec-0042")
        assert got["Team score (%)"] == 0.0 and got["Solo baseline (%)"] == 100.0
        assert got["Front vs reference (%)"] == 100.0
        assert got["Specialist vs reference (%)"] == 0.0
        assert got["Delegations per task-trial"] >= 1 and got["Tasks"] == len(TASKS)
    columns, rows = _duckdb(files, tmp_path, QUERIES / "overall.sql")  # the headline: the team
    assert columns[0] == "id" and {r[0] for r in rows} == {"agent-0007"}
