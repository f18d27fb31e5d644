"""The Amber kit and the leaderboard template (examples/agentbeats/leaderboard/): every file
parses as JSON5, and every key in it is one the product (or the platform's gateway and
workflow) reads: serve-green's flags and environment variables, benchmark options, request
config keys, component config schemas, slots and exports."""

from __future__ import annotations

import copy
import re
import shlex
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import json5
import pytest

from a2abench.green import GreenSettings, parse_request, plan_run
from a2abench.run.registry import names
from tests.agentbeats.image import argv_of, image_env, start
from tests.clihelp import run_cli
from tests.kept import kept

KIT = Path(__file__).parents[2] / "examples/agentbeats/leaderboard"
SCENARIOS = [KIT / "scenario.json5", KIT / "crmarena/scenario.json5"]
# The gateway's manifest (agentbeats-gateway v0.3): its config keys, slots and exports.
GATEWAY = {"config": {"assessment_config", "participant_roles"},
           "slots": {"green", "green_mcp", "purple1", "purple2", "purple3", "purple4",
                     "purple5"},
           "exports": {"proxy", "results"}}
# Variables a2abench reads besides its flags' A2ABENCH_<FLAG>.
# A2ABENCH_ALLOW_OPEN is the image entrypoint's (examples/agentbeats/entrypoint.py).
OTHER_ENV = {"OPENAI_API_KEY", "A2ABENCH_LLM_API_KEY", "A2ABENCH_CACHE_DIR", "A2ABENCH_ALLOW_OPEN"}
PLACEHOLDER = re.compile(r"\$\{config\.([a-z_]+)\}")


def load(path: Path) -> dict[str, Any]:
    """A manifest, parsed once per process and kept on disk by its text (json5's parser is
    pure Python: ~35 ms a file, and every worker collects the Amber tests, which read each
    file many times). A copy, so a test may change what it gets."""
    value = _parse(path.read_bytes())
    assert isinstance(value, dict), path
    return copy.deepcopy(value)


@cache
def _parse(text: bytes) -> Any:
    return kept("json5-v1", text, lambda t: json5.loads(t.decode("utf-8")))


def test_every_file_parses_as_json5() -> None:
    files = sorted(KIT.rglob("*.json5"))
    assert {str(p.relative_to(KIT)) for p in files} == {
        "a2abench.json5", "example-agent.json5", "scenario.json5", "crmarena/a2abench.json5",
        "crmarena/scenario.json5"}
    for path in files:
        assert load(path)["manifest_version"] == "0.1.0", path


PROXY_SLOT = "http://127.0.0.1:31001"  # what Amber puts in ${slots.proxy.url}, say


def _filled(value: str, config: dict[str, Any]) -> str:
    """Amber's ${config.x} and ${slots.proxy.url} interpolation, with the scenario's values
    (and the schema's defaults for the keys the scenario leaves out)."""
    value = value.replace("${slots.proxy.url}", PROXY_SLOT)
    return PLACEHOLDER.sub(lambda m: str(config[m[1]]), value)


def _with_defaults(manifest: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    props = manifest["config_schema"]["properties"]
    return {**{k: v["default"] for k, v in props.items() if "default" in v}, **config}


def _serve_green_settings(monkeypatch: pytest.MonkeyPatch, config: dict[str, Any],
                          manifest_path: Path = KIT / "a2abench.json5") -> GreenSettings:
    """Run the manifest's command as the image runs it (the Dockerfile's ENV under the
    manifest's env, the image's entrypoint, then the `a2abench serve-green` it execs),
    capturing the settings instead of serving."""
    manifest = load(manifest_path)
    program = manifest["program"]
    config = _with_defaults(manifest, config)
    env = {**image_env(), **{k: _filled(v, config) for k, v in program["env"].items()}}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with tempfile.TemporaryDirectory() as folder:
        _, execed = start(argv_of(program), env, Path(folder) / "port", monkeypatch)
    assert execed[:2] == ["a2abench", "serve-green"]
    captured: list[GreenSettings] = []
    monkeypatch.setattr("a2abench.green.serve", lambda settings, **_: captured.append(settings))
    result = run_cli(*execed[1:])
    assert result.code == 0, result.err
    return captured[0]


def test_the_green_manifest_starts_serve_green_with_what_it_declares(
        monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = load(KIT / "a2abench.json5")
    program = manifest["program"]
    schema = manifest["config_schema"]["properties"]
    used = {m for v in program["env"].values() for m in PLACEHOLDER.findall(v)}
    assert used == set(schema)
    # Quick Submit gives a green agent its secrets only: the one required key is the secret.
    assert manifest["config_schema"]["required"] == ["openai_api_key"]
    assert schema["openai_api_key"]["secret"] is True
    assert program["env"]["OPENAI_API_KEY"] == "${config.openai_api_key}"
    flags = {p.envvar for p in _serve_green_params()} | OTHER_ENV
    assert set(program["env"]) <= flags
    assert program["network"]["endpoints"] == [{"name": "a2a_endpoint", "port": 9009}]
    assert manifest["provides"]["a2a"]["endpoint"] == "a2a_endpoint"
    assert manifest["slots"] == {"proxy": {"kind": "a2a"}}

    config = load(KIT / "scenario.json5")["components"]["a2abench"]["config"]
    settings = _serve_green_settings(monkeypatch, {**config, "openai_api_key": "sk-test"})
    assert (settings.host, settings.port, settings.grpc) == ("0.0.0.0", 9009, False)
    assert settings.allow_hosts == ("@participants",)  # the image's, kept by the manifest
    assert settings.heartbeat_s == 30 and settings.max_trials == config["max_trials"]
    assert settings.presets["tau2"] == {"user_llm": "gpt-4.1",
                                        "user_llm_base_url": config["llm_base_url"]}
    assert settings.presets["crmarena"]["judge_llm"] == config["judge_llm"]
    assert settings.participant_proxy == PROXY_SLOT
    # Quick Submit: the secret alone; the schema's defaults fill in the rest.
    quick = _serve_green_settings(monkeypatch, {"openai_api_key": "sk-test"})
    assert quick.max_trials == schema["max_trials"]["default"]
    assert quick.presets["tau2"]["user_llm"] == schema["user_llm"]["default"]


@pytest.mark.parametrize("manifest", [KIT / "a2abench.json5", KIT / "crmarena/a2abench.json5"],
                         ids=lambda p: p.parent.name)
def test_the_gateways_loopback_participants_go_through_the_proxy_slot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, manifest: Path) -> None:
    # Issue 35: the gateway names participants at its own loopback proxy, which the green
    # agent's container cannot reach; the manifest points serve-green at its proxy slot.
    settings = _serve_green_settings(monkeypatch, {"openai_api_key": "sk-test"}, manifest)
    config = load(manifest)["metadata"]["assessment_config"]
    request = parse_request([], [{"participants": {"agent": "http://127.0.0.1:8080/agent"},
                                  "config": {**config, "shard_index": 0, "num_shards": 1}}],
                            names())
    planned = plan_run(request, GreenSettings(
        output_dir=tmp_path, presets=settings.presets, max_trials=settings.max_trials,
        participant_proxy=settings.participant_proxy), "0123456789abcdef")
    assert planned.config.white_agent_url == PROXY_SLOT + "/agent"
    assert planned.config.benchmark == config["benchmark"]


def _serve_green_params() -> list[Any]:
    import typer

    from a2abench.cli import app

    command = typer.main.get_command(app)
    return list(command.commands["serve-green"].params)  # type: ignore[attr-defined]


def _plans(tmp_path: Path, config: dict[str, Any], presets: dict[str, Any]) -> None:
    """The request the gateway would send, with the workflow's shard keys, plans cleanly."""
    payload = {"participants": {"agent": "http://127.0.0.1:8080/agent"},
               "config": {**config, "shard_index": 0, "num_shards": 2}}
    request = parse_request([], [payload], names())
    plan_run(request, GreenSettings(output_dir=tmp_path, presets=presets, max_trials=8),
             "0123456789abcdef")


def check_wiring(data: dict[str, Any], root: Path) -> dict[str, dict[str, Any]]:
    """Every component's config fits its manifest's schema and every binding joins a slot
    and an export that exist; the manifests by component name."""
    components = data["components"]
    manifests = {name: load((root / c["manifest"]).resolve())
                 for name, c in components.items() if name != "gateway"}
    for name, manifest in manifests.items():
        schema = manifest.get("config_schema", {"properties": {}, "required": []})
        given = components[name].get("config", {})
        assert set(given) <= set(schema["properties"]), name
        assert set(schema.get("required", [])) <= set(given), name
    for binding in data["bindings"]:
        to_name, to_slot = binding["to"][1:].split(".")
        from_name, from_export = binding["from"][1:].split(".")
        to_slots = GATEWAY["slots"] if to_name == "gateway" else set(
            manifests[to_name].get("slots", {}))
        exports = GATEWAY["exports"] if from_name == "gateway" else set(
            manifests[from_name]["exports"])
        assert to_slot in to_slots and from_export in exports, binding
    return manifests


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.parent.name)
def test_scenarios_wire_only_what_exists(tmp_path: Path, scenario: Path) -> None:
    data = load(scenario)
    components = data["components"]
    gateway = components["gateway"]
    assert set(gateway["config"]) == GATEWAY["config"]
    roles = gateway["config"]["participant_roles"]
    assert set(roles) <= GATEWAY["slots"] and roles["green"] == "a2abench"
    assert set(roles.values()) == set(components) - {"gateway"}
    assert "agent" in roles.values()  # serve-green assesses the participant named `agent`
    assert set(data["metadata"]["agentbeats_ids"]) == set(components) - {"gateway"}
    assert data["exports"] == {"results": "#gateway.results"}
    manifests = check_wiring(data, scenario.parent)
    green = components["a2abench"]["config"]
    presets = {"tau2": {"user_llm": green["user_llm"]},
               "crmarena": {"user_llm": green["user_llm"], "judge_llm": green["judge_llm"]}}
    _plans(tmp_path, gateway["config"]["assessment_config"], presets)
    _plans(tmp_path, manifests["a2abench"]["metadata"]["assessment_config"], presets)
    assert manifests["a2abench"]["metadata"]["assessment_config"]["benchmark"] == \
        gateway["config"]["assessment_config"]["benchmark"]
    assert manifests["a2abench"]["metadata"]["participant_roles"] == ["agent"]


def test_the_example_agent_manifest_runs_the_console_script(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from a2abench.demo import example_agent

    program = load(KIT / "example-agent.json5")["program"]
    argv = shlex.split(program["entrypoint"])
    assert argv[0] == "a2abench-example-agent"
    served: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(kw))
    example_agent.main(argv[1:])
    port = program["network"]["endpoints"][0]["port"]
    assert served == [{"host": "0.0.0.0", "port": port, "log_level": "warning"}]
