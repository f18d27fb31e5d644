"""The team Amber scenario (examples/agentbeats/scenario-team.json5): the gateway maps
purple1 to `agent` and purple2 to `specialist`, every binding joins what exists, the
specialist's manifest starts the example specialist with flags it has, and the request the
gateway would send (with the workflow's shard keys) plans as a team assessment."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from a2abench.green import GreenSettings, parse_request, plan_run
from a2abench.run.registry import names
from tests.agentbeats.test_kit import check_wiring, load

ROOT = Path(__file__).parents[2] / "examples/agentbeats"


def test_the_scenario_seats_a_front_agent_and_a_specialist(tmp_path: Path) -> None:
    data = load(ROOT / "scenario-team.json5")
    components = data["components"]
    gateway = components["gateway"]["config"]
    assert gateway["participant_roles"] == {"green": "a2abench", "purple1": "agent",
                                            "purple2": "specialist"}
    assert set(data["metadata"]["agentbeats_ids"]) == set(components) - {"gateway"}
    manifests = check_wiring(data, ROOT)
    assert set(manifests) == {"a2abench", "agent", "specialist"}
    payload = {"participants": {"agent": "http://127.0.0.1:8080/agent",
                                "specialist": "http://127.0.0.1:8080/specialist"},
               "config": {**gateway["assessment_config"], "shard_index": 1, "num_shards": 2}}
    planned = plan_run(parse_request([], [payload], names()),
                       GreenSettings(output_dir=tmp_path, max_trials=8,
                                     presets={"tau2": {"user_llm": "gpt-4.1"}}),
                       "0123456789abcdef")
    assert planned.config.scenario == "team" and planned.config.pairing == "vs_reference"
    assert set(planned.config.participant_urls()) == {"agent", "specialist"}
    assert str(planned.config.shard) == "2/2"


def test_the_specialist_manifest_runs_the_example_specialist(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from a2abench.demo import example_agent

    program = load(ROOT / "specialist-participant.json5")["program"]
    argv = shlex.split(program["entrypoint"])
    assert argv[:2] == ["a2abench-example-agent", "specialist"]
    served: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(kw))
    example_agent.main(argv[1:])
    port = program["network"]["endpoints"][0]["port"]
    assert served == [{"host": "0.0.0.0", "port": port, "log_level": "warning"}]
