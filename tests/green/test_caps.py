"""Operator caps (serve-green --cap, issue 34): a request may ask for at most what the
operator allows, in every format and JSON type, whichever benchmark it names; a default over
a cap drops to it; a bad cap or a default over its cap fails at startup."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from a2abench.errors import ConfigError
from a2abench.green import GreenSettings, plan_run
from a2abench.green.app import check_presets
from a2abench.green.caps import parse_caps
from a2abench.green.request import AssessmentRequest, RequestRejected
from tests.clihelp import run_cli
from tests.green.helpers import STATE, agentbeats, green_server, result_of, sdk_client, send

CAPS = ["concurrency=2", "timeout=30", "scripted.tasks=3", "scripted.strict=false",
        "tau2.llm_cache=false", "tau2.domain=\"airline\""]


@pytest.fixture
def capped(settings: GreenSettings) -> GreenSettings:
    return dataclasses.replace(settings, caps=parse_caps(CAPS),
                               presets={"tau2": {"user_llm": "gpt-4.1"}})


@pytest.mark.parametrize(("benchmark", "config", "problem"), [
    ("scripted", {"concurrency": 64},
     "concurrency 64 is over this server's cap of 2 (serve-green --cap concurrency=2)"),
    ("scripted", {"concurrency": "64"}, "concurrency 64 is over this server's cap of 2"),
    ("scripted", {"concurrency": 3.0}, "concurrency 3 is over this server's cap of 2"),
    ("scripted", {"timeout": 3600}, "timeout 3600 is over this server's cap of 30"),
    ("scripted", {"tasks": 10},
     "tasks 10 is over this server's cap of 3 (serve-green --cap scripted.tasks=3)"),
    ("scripted", {"strict": "true"}, "strict true is over this server's cap: the operator "
                                     "keeps it off (serve-green --cap scripted.strict=false)"),
    # A bare cap binds every benchmark: naming another one does not escape it.
    ("tau2", {"concurrency": 64, "domain": "airline"},
     "concurrency 64 is over this server's cap of 2"),
    ("tau2", {"llm_cache": True, "domain": "airline"},
     "llm_cache true is over this server's cap: the operator keeps it off"),
    ("tau2", {"domain": "retail"}, "domain 'retail' is not the one value this server allows, "
                                   "'airline' (serve-green --cap tau2.domain=\"airline\")"),
])
async def test_a_request_over_a_cap_is_rejected_naming_key_and_cap(
        capped: GreenSettings, white: str, benchmark: str, config: dict[str, Any],
        problem: str) -> None:
    with green_server(capped) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            out = await send(client, agentbeats(white, benchmark=benchmark, **config))
    assert out.state == STATE.TASK_STATE_REJECTED
    assert problem in out.final_text()


async def test_defaults_over_a_cap_drop_to_it_and_the_run_keeps_to_it(
        capped: GreenSettings, white: str) -> None:
    """No `tasks` or `concurrency` in the request: the model's defaults (10, 4) are over the
    caps (3, 2), so the run uses the caps; a request within the caps runs as asked."""
    with green_server(capped) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            out = await send(client, agentbeats(white, benchmark="scripted", turns=1))
            within = await send(client, agentbeats(white, benchmark="scripted", turns=1,
                                                   tasks=2, concurrency=1))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    _, data = result_of(out.task)  # type: ignore[arg-type]
    assert data["summary"]["task_trials"] == 3
    assert within.state == STATE.TASK_STATE_COMPLETED
    assert result_of(within.task)[1]["summary"]["task_trials"] == 2  # type: ignore[arg-type]
    planned = plan_run(AssessmentRequest("agentbeats", "scripted", white, {}, {"agent": white}),
                       capped, "t")
    assert planned.config.concurrency == 2 and planned.config.timeout == 30
    assert planned.driver.options.tasks == 3  # type: ignore[attr-defined]
    assert planned.driver.options.strict is False  # type: ignore[attr-defined]


@pytest.mark.parametrize(("caps", "config", "problem"), [
    (["task_ids=[\"t000\", \"t001\"]"], {"task_ids": ["t001", "t002"]},
     "task_ids t002 is outside this server's cap: only t000, t001"),
    (["max_tasks=2"], {"max_tasks": None}, "max_tasks unbounded is over this server's cap of 2"),
    (["max_tasks=2"], {"num_instances": 5}, "max_tasks 5 is over this server's cap of 2"),
    (["num_trials=1"], {"num_trials": 2}, "num_trials 2 is over this server's cap of 1"),
    (["rate_limit=5"], {"rate_limit": 500}, "rate_limit 500 is over this server's cap of 5"),
    (["concurrency=2"], {"concurrency": float("nan")}, "concurrency"),
])
def test_lists_unbounded_values_and_shard_keys_are_judged_as_the_run_uses_them(
        settings: GreenSettings, white: str, caps: list[str], config: dict[str, Any],
        problem: str) -> None:
    server = dataclasses.replace(settings, caps=parse_caps(caps))
    request = AssessmentRequest("agentbeats", "scripted", white, config, {"agent": white})
    with pytest.raises(RequestRejected) as info:
        plan_run(request, server, "t")
    assert problem in info.value.problem


def test_a_list_cap_is_the_default_selection(settings: GreenSettings, white: str) -> None:
    server = dataclasses.replace(settings, caps=parse_caps(['task_ids=["t000", "t001"]']))
    request = AssessmentRequest("agentbeats", "scripted", white, {}, {"agent": white})
    assert plan_run(request, server, "t").config.task_ids == ["t000", "t001"]
    narrower = dataclasses.replace(request, config={"task_ids": ["t001"]})
    assert plan_run(narrower, server, "t").config.task_ids == ["t001"]
    unbounded = dataclasses.replace(settings, caps=parse_caps(["max_tasks=2", "rate_limit=5"]))
    config = plan_run(request, unbounded, "t").config  # "all tasks", "no limit": over the caps
    assert (config.max_tasks, config.rate_limit) == (2, 5)


async def test_every_request_format_is_capped(settings: GreenSettings, white: str) -> None:
    server = dataclasses.replace(settings, caps=parse_caps(["crmarena.max_turns=10"]))
    seed = {"white_agent_url": white, "task_category": "all", "max_turns": 50}
    with green_server(server) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            out = await send(client, json.dumps(seed))
    assert out.state == STATE.TASK_STATE_REJECTED
    assert "max_turns 50 is over this server's cap of 10 (serve-green --cap " \
           "crmarena.max_turns=10)" in out.final_text()


def test_an_option_default_is_a_default_until_capped(settings: GreenSettings,
                                                      white: str) -> None:
    """`--option` alone still lets a request raise the value; `--cap` is what bounds it."""
    request = AssessmentRequest("agentbeats", "scripted", white, {"concurrency": 64},
                                {"agent": white})
    preset = dataclasses.replace(settings, presets={"scripted": {"concurrency": 2}})
    assert plan_run(request, preset, "t").config.concurrency == 64
    with pytest.raises(RequestRejected, match="cap of 2"):
        plan_run(request, dataclasses.replace(preset, caps=parse_caps(["concurrency=2"])), "t")


@pytest.mark.parametrize(("caps", "presets", "message"), [
    (["concurrency=abc"], {}, "--cap concurrency=\"abc\": Input should be a valid integer"),
    (["colour=1"], {}, "--cap colour: not a key requests may set"),
    (["tau2.data_dir=\"/x\""], {}, "--cap tau2.data_dir: not a key requests may set"),
    (["nosuch.tasks=1"], {}, "--cap nosuch.…: unknown benchmark 'nosuch'"),
    (["concurrency=2"], {"scripted": {"concurrency": 8}},
     "--option scripted.concurrency=8 is over --cap concurrency=2"),
    (["scripted.strict=false"], {"scripted": {"strict": True}},
     "--option scripted.strict=true is over --cap scripted.strict=false"),
])
def test_bad_caps_fail_at_startup(settings: GreenSettings, caps: list[str],
                                  presets: dict[str, Any], message: str) -> None:
    server = dataclasses.replace(settings, caps=parse_caps(caps), presets=presets)
    with pytest.raises(ConfigError) as info:
        check_presets(server, ["crmarena", "scripted", "tau2"])
    assert message in info.value.message


def test_the_cap_flag_parses_and_refuses_like_option() -> None:
    assert parse_caps(["concurrency=4", "tau2.max-steps=30", "strict=false"]) == {
        "*": {"concurrency": 4, "strict": False}, "tau2": {"max_steps": 30}}
    with pytest.raises(ConfigError, match="--cap 'concurrency' is not"):
        parse_caps(["concurrency"])
    with pytest.raises(ConfigError, match="name a key"):
        parse_caps([".x=1"])
    r = run_cli("serve-green", "--cap", "colour=1", "--port", "0")
    assert r.code == 2 and "--cap colour: not a key requests may set" in r.err, r.err
    assert json.dumps(GreenSettings(caps=["timeout=30"]).caps) == '{"*": {"timeout": 30}}'
