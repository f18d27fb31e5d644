"""serve-green narrows on the parsed value (issue 23 items 5 and 7): every operator-only key
in every JSON shape a request may send (string, object, list) is refused when it would widen
the operator's setting, and malformed shard values are rejected, never an internal error."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from pydantic import BaseModel

from a2abench.benchmarks.crmarena.driver import CRMArenaOptions
from a2abench.benchmarks.tau2.driver import Tau2Options
from a2abench.green import GreenSettings, RequestRejected, plan_run
from a2abench.green.request import AssessmentRequest, server_only
from tests.green.helpers import STATE, agentbeats, green_server, sdk_client, send

AGENT = "http://127.0.0.1:9"
MODELS: dict[str, type[BaseModel]] = {"tau2": Tau2Options, "crmarena": CRMArenaOptions}


def plan(benchmark: str, config: dict[str, Any], settings: GreenSettings) -> Any:
    return plan_run(AssessmentRequest("agentbeats", benchmark, AGENT, config,
                                      {"agent": AGENT}), settings, "t")


def widening(key: str) -> list[Any]:
    """A value that would widen `key`, in each shape a JSON request can carry it."""
    if key.endswith("_llm_args"):
        return [json.dumps({"n": 128}), {"n": 128}, [["n", 128]]]
    if key == "backend":
        return ["salesforce", {"backend": "salesforce"}, ["salesforce"]]
    if key.endswith("_llm"):
        return ["o1-pro", {"model": "o1-pro"}, ["o1-pro"]]
    return ["/etc", {"path": "/etc"}, ["/etc"]]  # server-only: paths and endpoints


CASES = [(bench, key, value) for bench, model in MODELS.items()
         for key in sorted(server_only(model) | {
             k for k in model.model_fields if k.endswith(("_llm", "_llm_args")) or
             k == "backend"})
         for value in widening(key)]


@pytest.mark.parametrize(("benchmark", "key", "value"), CASES,
                         ids=[f"{b}-{k}-{type(v).__name__}" for b, k, v in CASES])
def test_every_operator_only_key_is_refused_in_every_shape(
        benchmark: str, key: str, value: Any) -> None:
    with pytest.raises(RequestRejected, match=key.replace("_args", "")):
        plan(benchmark, {key: value}, GreenSettings())


def test_llm_args_as_a_string_meet_the_allow_list() -> None:
    opened = GreenSettings(allow_llm_args=("temperature",),
                           presets={"tau2": {"user_llm_args": '{"seed": 1}'}})
    # The operator's own arguments, repeated as an object, and an opened key, as a string.
    planned = plan("tau2", {"user_llm_args": '{"seed": 1, "temperature": 0.5}'}, opened)
    assert planned.config.options["user_llm_args"] == '{"seed": 1, "temperature": 0.5}'
    with pytest.raises(RequestRejected, match="user_llm_args: n can only be set"):
        plan("tau2", {"user_llm_args": '{"seed": 1, "n": 128}'}, opened)


async def test_a_string_cannot_widen_a_running_server(tmp_path: Any, white: str) -> None:
    settings = GreenSettings(output_dir=tmp_path, progress_interval_s=0)
    with green_server(settings) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            out = await send(client, agentbeats(white, benchmark="tau2",
                                                user_llm_args='{"n": 128}'))
    assert out.state == STATE.TASK_STATE_REJECTED
    assert "user_llm_args: n can only be set by the server operator" in out.final_text()


@pytest.mark.parametrize("shard", [{"index": 5, "count": 2}, {"index": 0, "count": 0},
                                   {"count": 0}, [1, 2], "5/2", "1/0", True, 3, "x"])
def test_malformed_shards_are_rejected(shard: Any) -> None:
    with pytest.raises(RequestRejected, match="shard"):
        plan("tau2", {"shard": shard}, GreenSettings())


def test_a_shard_object_within_bounds_is_accepted() -> None:
    planned = plan("tau2", {"shard": {"index": 2, "count": 3}}, GreenSettings())
    assert str(planned.config.shard) == "2/3"
    assert dataclasses.is_dataclass(planned)
