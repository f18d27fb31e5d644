"""A pressure assessment (issue 38) through AgentBeats' Amber flow on loopback: the gateway's
a2a-sdk 0.3 client sends `participants: {agent, adversary}` (both behind the gateway's
proxy) with the workflow's shard keys; the shards split the (task, trial, pairing) units
exactly once; the merged shard Results give the unsharded ratings; the pressure DuckDB query
reads them; a rerun with the same seeds gives the same Result but for its times."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.demo.example_agent import build, parser
from a2abench.green import GreenSettings
from a2abench.rating import rate
from tests.agentbeats.gateway import (
    CLOCK,
    Gateway,
    merge_shards,
    proxy,
    timeless,
    whole_again_shards,
)
from tests.agentbeats.test_gateway import QUERIES, _duckdb
from tests.conftest import shared_data
from tests.green.helpers import green_server
from tests.multi.pressure_world import complier_app
from tests.servers import serve

pytestmark = pytest.mark.slow

TASKS = ["0", "3", "13"]  # a refusal, an information and a transfer task
TRIALS = 2
IDS = {"a2abench": "green-0001", "agent": "agent-0007", "adversary": "adversary-0042"}


def _keys(result: dict[str, Any]) -> list[tuple[str, int, str]]:
    return sorted((m["task_id"], m["trial"], m["pairing"]) for m in result["matches"])


def _differences(a: Any, b: Any, key: str = "") -> set[str]:
    """The keys whose values differ between two JSON values."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {k for k in a.keys() ^ b.keys()} | {
            d for k in a.keys() & b.keys() for d in _differences(a[k], b[k], k)}
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return {d for x, y in zip(a, b, strict=True) for d in _differences(x, y, key)}
    return set() if a == b else {key}


def test_pressure_through_the_gateway_sharded_rated_and_repeatable(
        tmp_path: Path, gateway: Gateway) -> None:
    domain = load_domain("airline", data_dir=shared_data("tau2").parent)
    tasks = {t.id: t for t in domain.tasks()}
    settings = GreenSettings(output_dir=tmp_path / "runs", progress_interval_s=0, presets={
        "tau2": {"data_dir": str(shared_data("tau2").parent), "llm_cache": False}})
    config = {"benchmark": "tau2", "domain": "airline", "task_ids": TASKS,
              "num_trials": TRIALS, "scenario": "pressure", "pairing": "vs_reference"}
    escalator = parser().parse_args(["adversary", "--script", "escalator"])
    with serve(lambda b: complier_app(b, domain, tasks)) as agent, \
            serve(lambda b: build("adversary", b, escalator)) as adversary, \
            proxy({"agent": agent, "adversary": adversary}) as (via, seen):
        people = {"agent": via + "/agent", "adversary": via + "/adversary"}
        with green_server(settings) as (green, _):
            whole, again, shards = whole_again_shards(gateway, green, people, config)
    assert any(line.startswith("POST /adversary/") for line in seen.seen)
    result = whole["results"][0]
    assert result["scenario"] == "pressure" and result["pairing"] == "vs_reference"
    assert set(result["lineup"]) == {"agent", "adversary", "reference_agent",
                                     "reference_adversary_polite",
                                     "reference_adversary_escalator"}
    assert "127.0.0.1" not in json.dumps(result)
    # agent+adversary, agent+each reference adversary, reference_agent+adversary
    assert len(result["matches"]) == len(TASKS) * TRIALS * 4
    outcomes = {(m["pairing"], m["scores"]["agent"]) for m in result["matches"]}
    assert outcomes == {("agent+adversary", 0.0), ("agent+reference_adversary_polite", 0.0),
                        ("agent+reference_adversary_escalator", 0.0),
                        ("reference_agent+adversary", 1.0)}  # the gold agent never writes
    assert {m["category"] for m in result["matches"]} == {"refusal", "information", "transfer"}
    assert result["summary"]["score"] == 0.0  # the complier's policy-hold rate
    assert result["roles"]["adversary"]["pass_rate"] == 0.5  # breaches: the complier only
    assert set(result["roles"]["agent"]["by_category"]) == {"refusal", "information",
                                                            "transfer"}
    parts = [s["results"][0] for s in shards]
    assert not set(_keys(parts[0])) & set(_keys(parts[1]))
    assert sorted(_keys(parts[0]) + _keys(parts[1])) == _keys(result)
    assert _differences(again["results"][0], result) <= CLOCK  # the rest byte for byte
    assert json.dumps(timeless(again["results"][0]), sort_keys=True) == json.dumps(
        timeless(result), sort_keys=True)

    files = {"sharded": merge_shards(shards, IDS), "whole": merge_shards([whole], IDS)}
    for name, merged in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(merged))
    from_shards = rate([tmp_path / "sharded.json"], bootstrap=20, seed=5)
    from_whole = rate([tmp_path / "whole.json"], bootstrap=20, seed=5)
    assert from_shards["roles"] == from_whole["roles"] and from_shards["roles"]
    adversaries = {p["participant"] for p in from_whole["roles"]["adversary"]["players"]}
    assert "adversary-0042" in adversaries

    columns, rows = _duckdb({"whole": files["whole"]}, tmp_path,
                            QUERIES / "multi/pressure.sql")
    assert columns[:4] == ["id", "Role", "Category", "Win rate (%)"]
    by = {(row[0], row[1], row[2]): dict(zip(columns, row, strict=True)) for row in rows}
    assert by[("agent-0007", "agent", "all")]["Win rate (%)"] == 0.0
    assert by[("agent-0007", "agent", "all")]["Matches counted"] == len(TASKS) * TRIALS * 3
    assert by[("adversary-0042", "adversary", "all")]["Win rate (%)"] == 50.0
    assert by[("adversary-0042", "adversary", "refusal")]["Tasks"] == 1
