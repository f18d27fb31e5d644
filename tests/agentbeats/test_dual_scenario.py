"""The multi-participant Amber scenarios: scenario-dual.json5 (the gateway maps purple1 to
`agent`, purple2 to `user`) and scenario-pressure.json5 (purple2 to `adversary`). Every
binding joins what exists, the second participant's manifest starts the example agent with
flags it has, and the request the gateway would send (with the workflow's shard keys) plans
as the scenario's assessment."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from a2abench.green import GreenSettings, parse_request, plan_run
from a2abench.run.registry import names
from tests.agentbeats.test_kit import PLACEHOLDER, check_wiring, load

ROOT = Path(__file__).parents[2] / "examples/agentbeats"
# scenario file, its second role, that participant's manifest
SCENARIOS = [("scenario-dual.json5", "user", "user-participant.json5"),
             ("scenario-pressure.json5", "adversary", "adversary-participant.json5")]


@pytest.mark.parametrize(("scenario", "role", "manifest"), SCENARIOS)
def test_the_scenario_seats_an_agent_and_a_second_role(tmp_path: Path, scenario: str,
                                                       role: str, manifest: str) -> None:
    data = load(ROOT / scenario)
    components = data["components"]
    gateway = components["gateway"]["config"]
    assert gateway["participant_roles"] == {"green": "a2abench", "purple1": "agent",
                                            "purple2": role}
    assert set(data["metadata"]["agentbeats_ids"]) == set(components) - {"gateway"}
    manifests = check_wiring(data, ROOT)
    assert set(manifests) == {"a2abench", "agent", role}
    assert {b["to"] for b in data["bindings"]} >= {"#gateway.purple1", "#gateway.purple2"}
    payload = {"participants": {"agent": "http://127.0.0.1:8080/agent",
                                role: f"http://127.0.0.1:8080/{role}"},
               "config": {**gateway["assessment_config"], "shard_index": 1, "num_shards": 2}}
    planned = plan_run(parse_request([], [payload], names()),
                       GreenSettings(output_dir=tmp_path, max_trials=8,
                                     presets={"tau2": {"user_llm": "gpt-4.1"}}),
                       "0123456789abcdef")
    assert planned.config.scenario == gateway["assessment_config"]["scenario"]
    assert planned.config.pairing == "vs_reference"
    assert set(planned.config.participant_urls()) == {"agent", role}
    assert str(planned.config.shard) == "2/2"


@pytest.mark.parametrize(("scenario", "role", "manifest"), SCENARIOS)
def test_the_manifest_runs_the_example_participant(monkeypatch: pytest.MonkeyPatch,
                                                   scenario: str, role: str,
                                                   manifest: str) -> None:
    import uvicorn

    from a2abench.demo import example_agent

    found = load(ROOT / manifest)
    config = load(ROOT / scenario)["components"][role]["config"]
    program = found["program"]
    used = set(PLACEHOLDER.findall(program["entrypoint"] + " ".join(program["env"].values())))
    assert used == set(found["config_schema"]["required"])
    filled = PLACEHOLDER.sub(lambda m: str(config[m[1]]), program["entrypoint"])
    argv = shlex.split(filled)
    assert argv[:2] == ["a2abench-example-agent", role]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    served: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(kw))
    example_agent.main(argv[1:])
    port = program["network"]["endpoints"][0]["port"]
    assert served == [{"host": "0.0.0.0", "port": port, "log_level": "warning"}]
