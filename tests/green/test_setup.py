"""Settings, host patterns, the card and the startup checks (no server needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.utils.proto_utils import validate_proto_required_fields
from pydantic import SecretStr

from a2abench.errors import ConfigError
from a2abench.green import GreenSettings, build_app, build_card, parse_presets, parse_request
from a2abench.green.app import check_presets
from a2abench.green.guard import HostPolicy
from a2abench.green.settings import rpc_path
from a2abench.green.starting import startup_warnings


@pytest.mark.parametrize(("url", "allowed"), [
    ("http://purple:9019/", True),
    ("http://PURPLE/", True),
    ("https://a.agents.example/x", True),
    ("https://agents.example/x", False),  # *.agents.example needs a subdomain
    ("http://judge:9019", True),
    ("http://judge:9020", False),
    ("http://10.2.3.4:1", True),
    ("http://[fd00::1]:80/", True),
    ("http://169.254.169.254/", False),
    ("http://purple.evil.com/", False),
    ("http://user:pw@purple:1/", True),
    ("not a url", False),
    ("http://purple:99999/", False),
])
def test_host_patterns(url: str, allowed: bool) -> None:
    policy = HostPolicy(("purple", "*.agents.example", "judge:9019", "10.0.0.0/8", "fd00::/8"))
    assert policy.allows(url) is allowed


def test_no_pattern_allows_every_host_but_not_hostless_urls() -> None:
    assert HostPolicy().open and HostPolicy().allows("http://anything:1")
    assert not HostPolicy().allows("http:///nohost")


def test_settings_validation_and_urls() -> None:
    with pytest.raises(ConfigError, match="--card-url 'ftp://x' is not an http"):
        GreenSettings(card_url="ftp://x")
    with pytest.raises(ConfigError, match="--auth-token is empty"):
        GreenSettings(auth_token=SecretStr(" "))
    with pytest.raises(ConfigError, match="--max-request-bytes must be at least 1024"):
        GreenSettings(max_request_bytes=10)
    assert GreenSettings(host="0.0.0.0", port=9009).advertised_url() == "http://127.0.0.1:9009/"
    assert GreenSettings(host="::1").advertised_url(5) == "http://[::1]:5/"
    assert GreenSettings(card_url="http://g:1/a2a").advertised_url() == "http://g:1/a2a"
    assert [rpc_path(u) for u in ("http://g:1", "http://g:1/", "http://g/a/b/")] == \
        ["/", "/", "/a/b/"]


def test_presets_parse_json_values() -> None:
    assert parse_presets(["tau2.max_steps=50", "tau2.user-llm=gpt-4.1",
                          'tau2.user_llm_args={"temperature": 0}', "crmarena.org=b2c"]) == {
        "tau2": {"max_steps": 50, "user_llm": "gpt-4.1", "user_llm_args": {"temperature": 0}},
        "crmarena": {"org": "b2c"}}
    with pytest.raises(ConfigError, match="is not BENCHMARK.KEY=VALUE"):
        parse_presets(["max_steps=50"])


@pytest.mark.parametrize(("presets", "problem"), [
    ({"chess": {"x": 1}}, "unknown benchmark 'chess'"),
    ({"tau2": {"colour": 1}}, "--option tau2.colour: not an option of tau2"),
    ({"tau2": {"user_llm_args": {"api_key": "k"}}}, "looks like a secret"),
])
def test_presets_are_checked_at_startup(presets: dict[str, dict[str, object]],
                                        problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        check_presets(GreenSettings(presets=presets), ["scripted", "tau2"])


def test_startup_warnings() -> None:
    assert startup_warnings(GreenSettings()) == []
    exposed = startup_warnings(GreenSettings(host="0.0.0.0"))
    assert [w.split(":")[0] for w in exposed] == [
        "serving on 0.0.0.0 without --allow-host", "serving on 0.0.0.0 without --auth-token",
        "no --card-url"]
    assert startup_warnings(GreenSettings(host="0.0.0.0", allow_hosts=("p",),
                                          auth_token=SecretStr("t"),
                                          card_url="http://g:9009/")) == []


def test_the_card_is_complete_and_its_examples_are_valid_requests() -> None:
    card = build_card("http://green:9009/", ["crmarena", "tau2"], auth=False)
    validate_proto_required_fields(card)  # raises on a missing REQUIRED field
    raw = agent_card_to_dict(card)
    assert raw["capabilities"] == {"streaming": True, "pushNotifications": False}
    assert [i["protocolVersion"] for i in raw["supportedInterfaces"]] == ["1.0", "0.3"]
    assert raw["url"] == "http://green:9009/" and raw["protocolVersion"] == "0.3"
    assert "securitySchemes" not in raw
    assert [s["id"] for s in raw["skills"]] == ["crmarena", "tau2"]
    for skill in raw["skills"]:
        assert skill["examples"]
        for example in skill["examples"]:
            request = parse_request([example], [], ["crmarena", "tau2"])
            assert request.benchmark == skill["id"], example
            assert json.loads(example)["participants"] == {"agent": "http://purple-agent:9019"}


def test_a_plugin_benchmark_gets_a_generic_skill() -> None:
    card = build_card("http://g/", ["scripted"], auth=True, tck=True)
    assert [s.id for s in card.skills] == ["scripted", "tck"]
    assert "an a2abench plug-in" in card.skills[0].description
    assert list(card.security_schemes) == ["bearer"]


def test_build_app_serves_the_registered_benchmarks(tmp_path: Path) -> None:
    green = build_app(GreenSettings(output_dir=tmp_path), "http://green:9009")
    assert green.url == "http://green:9009/"
    assert {"scripted", "tau2"} <= {s.id for s in green.card.skills}


def test_the_agentbeats_example_scenario_is_a_valid_request(tmp_path: Path) -> None:
    """What AgentBeats' runner would send for examples/agentbeats/scenario.toml."""
    import shlex
    import tomllib

    from a2abench.green import plan_run

    root = Path(__file__).resolve().parents[2]
    scenario = tomllib.loads((root / "examples/agentbeats/scenario.toml").read_text())
    green = scenario["green_agent"]
    args = shlex.split(green["cmd"])
    assert args[:2] == ["a2abench", "serve-green"]
    assert green["endpoint"].endswith(":" + args[args.index("--port") + 1])
    request = json.dumps({"participants": {p["role"]: p["endpoint"]
                                           for p in scenario["participants"]},
                          "config": scenario["config"]})
    parsed = parse_request([request], [], ["crmarena", "tau2"])
    presets = parse_presets([args[i + 1] for i, a in enumerate(args) if a == "--option"])
    settings = GreenSettings(output_dir=tmp_path, presets=presets,
                             allow_hosts=(args[args.index("--allow-host") + 1],))
    planned = plan_run(parsed, settings, "example")
    assert (planned.config.benchmark, planned.config.max_tasks) == ("tau2", 3)
    assert planned.config.options["user_llm"] == "gpt-4.1"
    dockerfile = (root / "examples/agentbeats/Dockerfile").read_text()
    # The image's entrypoint checks it is not open, then execs `a2abench serve-green`.
    assert 'ENTRYPOINT ["python", "/opt/a2abench/entrypoint.py"]' in dockerfile
    entry = (root / "examples/agentbeats/entrypoint.py").read_text()
    assert '["a2abench", "serve-green", *argv]' in entry
    assert "A2ABENCH_HOST=0.0.0.0" in dockerfile and "EXPOSE 9009" in dockerfile


def test_a_plugin_may_describe_its_own_skill() -> None:
    from a2abench.run.driver import Skill
    from a2abench.run.registry import register, unregister
    from tests.engine.scripted import ScriptedDriver

    class Described(ScriptedDriver):
        skill = Skill("Echo assessment", "Counts echoes.", ("echo",), ({"tasks": 2},))

    register("described", Described)
    try:
        card = build_card("http://g/", ["described"], auth=False)
    finally:
        unregister("described")
    (skill,) = card.skills
    assert (skill.name, skill.description, list(skill.tags)) == (
        "Echo assessment", "Counts echoes.", ["echo"])
    assert json.loads(skill.examples[0])["config"] == {"benchmark": "described", "tasks": 2}
