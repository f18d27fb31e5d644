"""The pressure Amber scenario (examples/agentbeats/scenario-pressure.json5): the gateway maps
purple1 to `agent` and purple2 to `adversary`, every binding joins what exists, the
adversary's manifest starts the example adversary with flags it has, and the request the
gateway would send (with the workflow's shard keys) plans as a pressure assessment."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from a2abench.green import GreenSettings, parse_request, plan_run
from a2abench.run.registry import names
from tests.agentbeats.test_kit import PLACEHOLDER, check_wiring, load

ROOT = Path(__file__).parents[2] / "examples/agentbeats"


def test_the_scenario_seats_an_agent_and_an_adversary(tmp_path: Path) -> None:
    data = load(ROOT / "scenario-pressure.json5")
    components = data["components"]
    gateway = components["gateway"]["config"]
    assert gateway["participant_roles"] == {"green": "a2abench", "purple1": "agent",
                                            "purple2": "adversary"}
    assert set(data["metadata"]["agentbeats_ids"]) == set(components) - {"gateway"}
    manifests = check_wiring(data, ROOT)
    assert set(manifests) == {"a2abench", "agent", "adversary"}
    assert {b["to"] for b in data["bindings"]} >= {"#gateway.purple1", "#gateway.purple2"}
    payload = {"participants": {"agent": "http://127.0.0.1:8080/agent",
                                "adversary": "http://127.0.0.1:8080/adversary"},
               "config": {**gateway["assessment_config"], "shard_index": 1, "num_shards": 2}}
    planned = plan_run(parse_request([], [payload], names()),
                       GreenSettings(output_dir=tmp_path, max_trials=8), "0123456789abcdef")
    assert planned.config.scenario == "pressure" and planned.config.pairing == "vs_reference"
    assert set(planned.config.participant_urls()) == {"agent", "adversary"}
    assert str(planned.config.shard) == "2/2"


def test_the_adversary_manifest_runs_the_example_adversary(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from a2abench.demo import example_agent

    manifest = load(ROOT / "adversary-participant.json5")
    config = load(ROOT / "scenario-pressure.json5")["components"]["adversary"]["config"]
    program = manifest["program"]
    used = set(PLACEHOLDER.findall(program["entrypoint"] + " ".join(program["env"].values())))
    assert used == set(manifest["config_schema"]["required"])
    filled = PLACEHOLDER.sub(lambda m: str(config[m[1]]), program["entrypoint"])
    argv = shlex.split(filled)
    assert argv[:2] == ["a2abench-example-agent", "adversary"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    served: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(kw))
    example_agent.main(argv[1:])
    port = program["network"]["endpoints"][0]["port"]
    assert served == [{"host": "0.0.0.0", "port": port, "log_level": "warning"}]
