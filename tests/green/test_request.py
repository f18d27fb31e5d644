"""Request formats -> AssessmentRequest -> RunConfig, and every way a request is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2.options import Tau2Options
from a2abench.errors import ConfigError
from a2abench.green import GreenSettings, RequestRejected, parse_request, plan_run
from a2abench.green.request import AssessmentRequest, secret_keys, server_only

BENCHES = ["crmarena", "scripted", "tau2"]
AGENT = "http://purple:9019"


def parse(payload: str | dict[str, Any], benches: list[str] = BENCHES) -> AssessmentRequest:
    if isinstance(payload, str):
        return parse_request([payload], [], benches)
    return parse_request([], [payload], benches)


def rejected(payload: str | dict[str, Any], benches: list[str] = BENCHES) -> str:
    with pytest.raises(RequestRejected) as info:
        parse(payload, benches)
    return info.value.problem


def test_agentbeats_as_text_and_as_data() -> None:
    obj = {"participants": {"agent": AGENT}, "config": {"benchmark": "tau2", "domain": "retail",
                                                        "--max-tasks": 3, "num-trials": 2}}
    for payload in (json.dumps(obj), obj, f"Assess this:\n```json\n{json.dumps(obj)}\n```",
                    "Please run " + json.dumps(obj) + " thanks"):
        request = parse(payload)
        assert request == AssessmentRequest(
            "agentbeats", "tau2", AGENT, {"domain": "retail", "max_tasks": 3, "num_trials": 2},
            {"agent": AGENT})


def test_a_data_part_wins_over_text() -> None:
    data = {"white_agent_url": AGENT, "task_category": "handle_time"}
    request = parse_request(["some words"], ["not an object", data], BENCHES)
    assert request.format == "seed" and request.benchmark == "crmarena"


def test_agentbeats_roles() -> None:
    many = {"participants": {"agent": AGENT, "judge": "http://j"}, "config": {"domain": "x"}}
    assert parse(many).white_agent_url == AGENT
    one = {"participants": {"purple": AGENT}, "config": {"domain": "x"}}
    assert parse(one).white_agent_url == AGENT
    two = {"participants": {"a": AGENT, "b": AGENT}, "config": {"domain": "x"}}
    assert "with the role `agent` (got roles: a, b)" in rejected(two)


@pytest.mark.parametrize(("config", "benchmark"), [
    ({"domain": "airline", "num_tasks": 4}, "tau2"),  # AgentBeats' stock tau2 scenario
    ({"task_category": "handle_time"}, "crmarena"),
    ({"org": "b2c", "interactive": True}, "crmarena"),
    ({"benchmark": "scripted", "domain": "x"}, "scripted"),
])
def test_benchmark_inferred_when_missing(config: dict[str, Any], benchmark: str) -> None:
    request = parse({"participants": {"agent": AGENT}, "config": config})
    assert request.benchmark == benchmark and "benchmark" not in request.config


def test_benchmark_required_when_not_inferable() -> None:
    assert rejected({"participants": {"agent": AGENT}, "config": {"max_tasks": 2}}) == \
        "`config.benchmark` is missing (one of: crmarena, scripted, tau2)"
    only = parse({"participants": {"agent": AGENT}}, ["tau2"])
    assert only.benchmark == "tau2" and only.config == {}


def test_num_tasks_is_an_alias_of_max_tasks() -> None:
    request = parse({"participants": {"agent": AGENT}, "config": {"domain": "a", "num_tasks": 4}})
    assert request.config == {"domain": "a", "max_tasks": 4}


def test_crmarena_seed_format() -> None:
    seed = {"white_agent_url": AGENT, "task_category": "all", "max_tasks": 5,
            "interactive": False, "max_turns": 20, "max_user_turns": 10}
    request = parse(json.dumps(seed))
    assert request == AssessmentRequest(
        "seed", "crmarena", AGENT, {"task_category": "all", "max_tasks": 5, "interactive": False,
                                    "max_turns": 20, "max_user_turns": 10}, {"agent": AGENT})


def test_tau2_agentify_format() -> None:
    text = f"""Your task is to instantiate tau-bench to test the agent located at:
<white_agent_url>
{AGENT}/
</white_agent_url>
You should use the following env configuration:
<env_config>
{{"env": "retail", "user_strategy": "llm", "user_model": "gpt-4o", "user_provider": "openai",
  "task_split": "test", "task_ids": [1]}}
</env_config>"""
    request = parse(text)
    assert request == AssessmentRequest(
        "agentify", "tau2", AGENT + "/",
        {"task_indexes": [1], "domain": "retail", "user_llm": "gpt-4o", "split": "test",
         "prompt_style": "agentify"},
        {"agent": AGENT + "/"})


def test_tau2s_own_agentify_dialect_runs_base_ids_with_upstreams_max_steps() -> None:
    request = parse(f'<white_agent_url>{AGENT}</white_agent_url><env_config>{{"domain": '
                    '"mock", "task_ids": ["create_task_1"], "user_llm": "m"}</env_config>')
    assert request.config == {"domain": "mock", "task_ids": ["create_task_1"], "user_llm": "m",
                              "split": "base", "max_steps": 100, "prompt_style": "agentify"}


@pytest.mark.parametrize(("payload", "problem"), [
    (f"<white_agent_url>{AGENT}</white_agent_url>", "<env_config>{...}</env_config> is missing"),
    (f'<white_agent_url>{AGENT}</white_agent_url><env_config>{{"env": "retail"}}</env_config>',
     "`task_ids` is missing: tau-bench's agentify format names the task positions"),
])
def test_agentify_requests_that_would_run_everything_are_rejected(payload: str,
                                                                  problem: str) -> None:
    assert rejected(payload).startswith(problem)


@pytest.mark.parametrize(("payload", "problem"), [
    ("", "the message holds no text and no JSON object"),
    ("[1, 2]", "the text is not a JSON object and has no <white_agent_url> tag"),
    ('{"participants": ', "the text is not valid JSON"),
    ({"participants": []}, "`participants` must map roles to agent URLs"),
    ({"participants": {"agent": AGENT}, "config": [1]}, "`config` must be a JSON object"),
    ({"participants": {"agent": AGENT}, "config": {"benchmark": 3}}, "unknown benchmark 3"),
    ({"white_agent_url": 5}, "`white_agent_url` must be a URL string"),
    ("<env_config>{}</env_config>", "<white_agent_url>...</white_agent_url> is missing"),
    ("<white_agent_url>u</white_agent_url><env_config>[1]</env_config>",
     "<env_config> must hold a JSON object"),
    ('<white_agent_url>u</white_agent_url><env_config>{"user_strategy": "human"}</env_config>',
     "user_strategy 'human' is not supported (only `llm`)"),
])
def test_malformed_requests(payload: str | dict[str, Any], problem: str) -> None:
    assert rejected(payload).startswith(problem)


def test_the_rejection_lists_every_accepted_format() -> None:
    with pytest.raises(RequestRejected) as info:
        parse("hello")
    text = info.value.render()
    assert "AgentBeats: {\"participants\"" in text and "CRMArena seed:" in text
    assert "tau2 agentify: <white_agent_url>" in text


def test_secret_keys() -> None:
    config = {"api_key": 1, "apiKey": 2, "authToken": 3, "password": 4, "max_tokens": 5,
              "user_llm_args": {"temperature": 0, "max_tokens": 9, "x-api-key": "k"},
              "keys_seen": 1, "OPENAI_API_KEY": "k", "token_budget": 1, "list": [{"secret": 1}]}
    assert secret_keys(config) == ["api_key", "apiKey", "authToken", "password",
                                   "user_llm_args.x-api-key", "OPENAI_API_KEY",
                                   "token_budget", "list.secret"]


def test_server_only_options_of_tau2() -> None:
    assert server_only(Tau2Options) == {"data_dir", "user_llm_base_url", "judge_llm_base_url",
                                        "embedding_llm_base_url", "reranker_llm_base_url",
                                        "mcp_host", "mcp_port", "mcp_public_url"}


# --- plan_run: the request against the server's settings ----------------------------------

def plan(config: dict[str, Any], settings: GreenSettings, benchmark: str = "tau2",
         agent: str = AGENT) -> Any:
    return plan_run(AssessmentRequest("agentbeats", benchmark, agent, config, {"agent": agent}),
                    settings, "0123456789abcdef")


def test_plan_run_merges_presets_under_the_request(tmp_path: Path) -> None:
    settings = GreenSettings(output_dir=tmp_path, allow_models=("gpt-4o",), presets={"tau2": {
        "data_dir": "/srv/tau2", "user_llm": "gpt-4.1", "max_steps": 50, "num_trials": 3}})
    planned = plan({"domain": "retail", "max_tasks": 2.0, "task_ids": [3.0, "7", 11],
                    "user_llm": "gpt-4o", "shard": "1/2"}, settings)
    config = planned.config
    assert (config.max_tasks, config.num_trials, config.task_ids) == (2, 3, ["3", "7", "11"])
    assert str(config.shard) == "1/2"
    assert config.options == {"data_dir": "/srv/tau2", "user_llm": "gpt-4o", "max_steps": 50,
                              "domain": "retail"}
    assert planned.driver.options.data_dir == Path("/srv/tau2")
    assert config.output.parent.parent == tmp_path
    assert config.output.parent.name.endswith("_tau2_retail_01234567")


@pytest.mark.parametrize(("config", "problem"), [
    ({"data_dir": "/etc"}, "data_dir can only be set by the server operator "
                           "(serve-green --option tau2.data_dir=...)"),
    ({"user_llm_base_url": "http://evil"}, "user_llm_base_url can only be set by the server"),
    ({"colour": "red", "output": "/tmp/x"}, "unknown config key(s) for tau2: colour, output "
                                            "(accepted: adaptive_gate, allocate, "),
    ({"domain": "chess"}, "invalid tau2 options: domain: Input should be 'airline'"),
    ({"num_trials": 0}, "invalid config: num_trials: Input should be greater than or equal to "
                        "1 (this server's range: 1..8)"),
    ({"concurrency": 65}, "concurrency 65 is outside 1..64"),
    ({"concurrency": "10000"}, "concurrency 10000 is outside 1..64"),
    ({"concurrency": 1e4}, "concurrency 10000 is outside 1..64"),
    ({"num_trials": "9"}, "num_trials 9 is outside 1..8 (--max-trials)"),
    ({"num_trials": 100000}, "num_trials 100000 is outside 1..8 (--max-trials)"),
    ({"retries": -1}, "invalid config: retries: Input should be greater than or equal to 0 "
                      "(this server's range: 0..10)"),
    ({"retries": 11}, "retries 11 is outside 0..10"),
    ({"timeout": "-5"}, "invalid config: timeout: Input should be greater than 0 (this "
                        "server's range: 0.001..3600)"),
    ({"timeout": 7200}, "timeout 7200 is outside 0.001..3600"),
    ({"max_tasks": 0}, "invalid config: max_tasks: Input should be greater than or equal to 1 "
                       "(this server's range: 1..1e+06)"),
    ({"user_llm": "o1-pro"}, "user_llm 'o1-pro' is not this server's model (None); models a "
                             "request may choose (serve-green --allow-model): none"),
    ({"judge_llm": "gpt-4o"}, "judge_llm 'gpt-4o' is not this server's model"),
    ({"user_llm_args": {"n": 100, "max_tokens": 100000}},
     "user_llm_args: max_tokens, n can only be set by the server operator"),
    ({"shard": "3/2"}, "--shard 3/2: I must be between 1 and N"),
    ({"user_llm_args": {"api_key": "x"}}, "config keys that look like secrets are refused: "
                                          "user_llm_args.api_key"),
])
def test_plan_run_refusals(tmp_path: Path, config: dict[str, Any], problem: str) -> None:
    with pytest.raises(RequestRejected) as info:
        plan(config, GreenSettings(output_dir=tmp_path))
    assert info.value.problem.startswith(problem)


@pytest.mark.parametrize(("agent", "allowed"), [
    ("http://purple:9019", True), ("http://purple.agents.internal/", True),
    ("http://10.1.2.3:80", True), ("http://169.254.169.254/latest", False),
    ("http://localhost:9019", False), ("file:///etc/passwd", False),
])
def test_plan_run_checks_the_white_agent_host(tmp_path: Path, agent: str,
                                              allowed: bool) -> None:
    settings = GreenSettings(output_dir=tmp_path,
                             allow_hosts=("purple", "*.agents.internal", "10.0.0.0/8"))
    if allowed:
        assert plan({}, settings, agent=agent).config.white_agent_url == agent
        return
    with pytest.raises(RequestRejected, match="allowed hosts|not an http"):
        plan({}, settings, agent=agent)


@pytest.mark.parametrize(("participant", "proxy", "reached"), [
    # AgentBeats' gateway: its own loopback proxy, seen through the green agent's proxy slot
    ("http://127.0.0.1:8080/agent", "http://127.0.0.1:31001", "http://127.0.0.1:31001/agent"),
    ("http://localhost:8080/agent/?x=1", "https://gw.internal/base/",
     "https://gw.internal/base/agent/?x=1"),
    ("http://[::1]:8080/agent", "http://gw:8080", "http://gw:8080/agent"),
    ("http://0.0.0.0:8080/agent", "http://gw:8080", "http://gw:8080/agent"),
    ("http://purple:9019", "http://gw:8080", "http://purple:9019"),  # not loopback: as given
    ("http://127.0.0.1:8080/agent", None, "http://127.0.0.1:8080/agent"),  # no proxy set
])
def test_loopback_participants_go_through_the_participant_proxy(
        tmp_path: Path, participant: str, proxy: str | None, reached: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, participant_proxy=proxy)
    assert plan({}, settings, agent=participant).config.white_agent_url == reached


def test_the_allowed_hosts_apply_to_the_participant_as_reached(tmp_path: Path) -> None:
    settings = GreenSettings(output_dir=tmp_path, participant_proxy="http://gw:8080",
                             allow_hosts=("gw",))
    assert plan({}, settings, agent="http://127.0.0.1:8080/agent").config.white_agent_url == \
        "http://gw:8080/agent"
    with pytest.raises(RequestRejected, match="allowed hosts"):
        plan({}, GreenSettings(output_dir=tmp_path, participant_proxy="http://gw:8080",
                               allow_hosts=("purple",)), agent="http://127.0.0.1:8080/a")
    with pytest.raises(ConfigError, match="--participant-proxy"):
        GreenSettings(participant_proxy="gw:8080")


# --- the AgentBeats leaderboard workflow's shard keys ---------------------------------------

@pytest.mark.parametrize("payload", [
    {"participants": {"agent": AGENT}, "config": {"domain": "airline", "shard_index": 1,
                                                  "num_shards": 3, "num_instances": 7}},
    {"participants": {"purple": AGENT}, "config": {"task_category": "all", "shard_index": 1.0,
                                                   "num_shards": 3.0, "num_instances": 7.0}},
    {"white_agent_url": AGENT, "shard_index": "1", "num_shards": "3", "num_instances": 7},
    f'<white_agent_url>{AGENT}</white_agent_url><env_config>{{"domain": "mock", '
    '"shard_index": 1, "num_shards": 3, "num_instances": 7}</env_config>',
])
def test_shard_keys_in_every_dialect(tmp_path: Path, payload: str | dict[str, Any]) -> None:
    request = parse(payload)
    planned = plan_run(request, GreenSettings(output_dir=tmp_path, allow_hosts=("purple",)),
                       "0123456789abcdef")
    assert str(planned.config.shard) == "2/3"  # 0-based shard_index 1 is --shard 2/3
    assert planned.config.max_tasks == 7


def test_num_instances_caps_max_tasks_and_one_shard_is_the_whole_run(tmp_path: Path) -> None:
    settings = GreenSettings(output_dir=tmp_path)
    assert plan({"max_tasks": 4, "num_instances": 9}, settings).config.max_tasks == 4
    assert plan({"max_tasks": 9, "num_instances": 4}, settings).config.max_tasks == 4
    whole = plan({"shard_index": 0, "num_shards": 1}, settings).config
    assert whole.shard is None and whole.max_tasks is None


@pytest.mark.parametrize(("config", "problem"), [
    ({"shard_index": 2, "num_shards": 2}, "`shard_index` 2 is not below `num_shards` 2"),
    ({"shard_index": -1, "num_shards": 2}, "`shard_index` must be a whole number >= 0"),
    ({"shard_index": 0, "num_shards": 0}, "`num_shards` must be a whole number >= 1"),
    ({"shard_index": 0.5, "num_shards": 2}, "`shard_index` must be a whole number >= 0"),
    ({"shard_index": True, "num_shards": 2}, "`shard_index` must be a whole number >= 0"),
    ({"num_instances": 0}, "`num_instances` must be a whole number >= 1"),
    ({"shard": "1/2", "shard_index": 0, "num_shards": 2}, "send either `shard`"),
])
def test_shard_key_refusals(tmp_path: Path, config: dict[str, Any], problem: str) -> None:
    with pytest.raises(RequestRejected) as info:
        plan(config, GreenSettings(output_dir=tmp_path))
    assert info.value.problem.startswith(problem)


@pytest.mark.parametrize("shards", [1, 2, 3, 7])
def test_shards_hold_every_task_trial_exactly_once(shards: int) -> None:
    from a2abench.green.request import shard_config
    from a2abench.run.driver import TaskSpec
    from a2abench.run.plan import Plan

    tasks = tuple(TaskSpec(task_id=f"t{i}") for i in range(5))
    seen = [item.key for index in range(shards) for item in Plan(
        tasks, 3, 300, shard_config({"shard_index": index, "num_shards": shards}).get("shard"))]
    assert sorted(seen) == sorted((f"t{i}", trial) for i in range(5) for trial in range(3))


def test_every_participant_and_its_allowed_host_go_through_the_participant_proxy(
        tmp_path: Path) -> None:
    """With the image's @participants and the gateway's loopback URLs, the hosts allowed are
    those reached (the proxy's), and a second participant (scenario dual's user) goes
    through the proxy too (issue 35)."""
    settings = GreenSettings(output_dir=tmp_path, participant_proxy="http://gw:8080",
                             allow_hosts=("@participants",))
    config = plan({}, settings, agent="http://127.0.0.1:8080/agent").config
    assert config.white_agent_url == "http://gw:8080/agent"
    assert config.allowed_hosts == ["gw"]
    request = AssessmentRequest("agentbeats", "tau2", "http://127.0.0.1:8080/agent",
                                {"scenario": "dual"},
                                {"agent": "http://127.0.0.1:8080/agent",
                                 "user": "http://127.0.0.1:8080/user"})
    dual = plan_run(request, settings, "0123456789abcdef").config
    assert dual.participant == ["user=http://gw:8080/user"]
    assert dual.allowed_hosts == ["gw", "gw"]
