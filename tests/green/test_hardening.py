"""serve-green's attack surface (issue 17, items 3, 7, 9, 10, 11), against a running server:
hostile request text parses in linear time, limits hold whatever JSON type carries a value,
requests narrow but never widen the operator's settings, an empty token is refused."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2abench.green import GreenSettings, RequestRejected, parse_request
from tests.clihelp import run_cli
from tests.green.helpers import STATE, agentbeats, green_server, sdk_client, send
from tests.waits import HANG_S, cpu_s

BENCHMARKS = ["crmarena", "scripted", "tau2"]
# 900 KB of what froze 0.1.0 (a non-greedy regex retried from every opening tag).
HOSTILE = [
    "<white_agent_url>" * 50_000,
    "<white_agent_url>x</white_agent_url><env_config>" * 20_000,
    "```" + "```json " * 100_000,
    "<env_config>" + "<white_agent_url>" * 50_000,
]


@pytest.mark.parametrize("text", HOSTILE, ids=["open-tags", "env-open", "fences", "mixed"])
def test_hostile_text_parses_in_linear_time(text: str) -> None:
    with cpu_s() as took, pytest.raises(RequestRejected):
        parse_request([text], [], BENCHMARKS)
    assert took[0] < 2.0  # CPU seconds of this thread; quadratic parsing took minutes


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["<white_agent_url>", "</white_agent_url>", "<env_config>",
                                 "</env_config>", "```", "json", "{", "}", '"env"', ":",
                                 "http://a", " ", "[1]", '"task_ids"']), max_size=40))
def test_any_arrangement_of_tags_is_parsed_or_rejected(pieces: list[str]) -> None:
    try:
        request = parse_request(["".join(pieces)], [], BENCHMARKS)
    except RequestRejected:
        return
    assert request.white_agent_url is not None


async def test_a_hostile_request_does_not_stall_the_server(settings: GreenSettings) -> None:
    """The same text as a real request: rejected promptly, and the card keeps answering."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "kind": "message", "role": "user", "messageId": "m", "parts": [
            {"kind": "text", "text": HOSTILE[0]}]}}}
    with green_server(settings) as (base, _):
        # Parsing it is linear (above); here the server answers at all, and rejects it.
        task = httpx.post(base + "/", json=body, timeout=HANG_S).json()["result"]
        assert task["status"]["state"] == "rejected"
        assert httpx.get(base + "/.well-known/agent-card.json").status_code == 200


@pytest.mark.parametrize(("config", "problem"), [
    ({"concurrency": "10000"}, "concurrency 10000 is outside 1..64"),
    ({"concurrency": 10000.0}, "concurrency 10000 is outside 1..64"),
    ({"concurrency": 10000}, "concurrency 10000 is outside 1..64"),
    ({"num_trials": "100000"}, "num_trials 100000 is outside 1..3 (--max-trials)"),
    ({"num_trials": 4}, "num_trials 4 is outside 1..3 (--max-trials)"),
    ({"retries": "-1"}, "retries: Input should be greater than or equal to 0 (this server's "
                        "range: 0..10)"),
    ({"retries": "11"}, "retries 11 is outside 0..10"),
    ({"user_llm": "o1-pro"}, "user_llm 'o1-pro' is not this server's model ('gpt-4.1')"),
    ({"user_llm_args": {"max_tokens": 100000, "n": 50}},
     "user_llm_args: max_tokens, n can only be set by the server operator"),
])
async def test_values_are_limited_after_coercion_and_never_widen(
        settings: GreenSettings, white: str, config: dict[str, Any], problem: str) -> None:
    import dataclasses

    strict = dataclasses.replace(settings, max_trials=3, presets={"tau2": {"user_llm":
                                                                           "gpt-4.1"}})
    with green_server(strict) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            out = await send(client, agentbeats(white, benchmark="tau2", **config))
    assert out.state == STATE.TASK_STATE_REJECTED
    assert problem in out.final_text()


async def test_crm_backend_can_narrow_but_not_widen(settings: GreenSettings,
                                                    white: str) -> None:
    import dataclasses

    from a2abench.green import plan_run
    from a2abench.green.request import AssessmentRequest

    with green_server(settings) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            widened = await send(client, agentbeats(white, benchmark="crmarena",
                                                    backend="salesforce"))
    assert widened.state == STATE.TASK_STATE_REJECTED
    assert "backend 'salesforce' can only be chosen by the server operator" in \
        widened.final_text()
    # Repeating the operator's own choice, or narrowing it to the sandbox, is allowed
    # (planned only: the Salesforce backend would log in when the run starts).
    operator = dataclasses.replace(settings, presets={"crmarena": {"backend": "salesforce"}})
    for backend in ("salesforce", "sandbox"):
        request = AssessmentRequest("agentbeats", "crmarena", white, {"backend": backend},
                                    {"agent": white})
        assert plan_run(request, operator, "t").config.options["backend"] == backend


async def test_models_listed_by_the_operator_may_be_chosen(settings: GreenSettings,
                                                           white: str) -> None:
    import dataclasses

    from a2abench.green import plan_run
    from a2abench.green.request import AssessmentRequest

    open_models = dataclasses.replace(settings, allow_models=("gpt-4o-mini",),
                                      allow_llm_args=("temperature",))
    request = AssessmentRequest("agentbeats", "tau2", white, {
        "user_llm": "gpt-4o-mini", "user_llm_args": {"temperature": 0.5}}, {"agent": white})
    planned = plan_run(request, open_models, "t")
    assert planned.config.options["user_llm"] == "gpt-4o-mini"
    assert json.dumps(planned.config.options["user_llm_args"]) == '{"temperature": 0.5}'


def test_an_empty_auth_token_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    r = run_cli("serve-green", "--auth-token", "", "--port", "0")
    assert r.code == 2 and "Error: --auth-token is empty" in r.err
    monkeypatch.setenv("A2ABENCH_AUTH_TOKEN", "")
    r = run_cli("serve-green", "--port", "0")
    assert r.code == 2 and "Error: --auth-token is empty" in r.err


def _redirect_to_forbidden(base: str) -> Any:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse, RedirectResponse
    from starlette.routing import Route

    async def card(_: Any) -> Any:
        return RedirectResponse(base + "/sso/login?next=card", status_code=302)

    async def login(_: Any) -> Any:
        return PlainTextResponse("forbidden", status_code=403)

    return Starlette(routes=[Route("/.well-known/agent-card.json", card),
                             Route("/.well-known/agent.json", card),
                             Route("/sso/login", login)])


def test_a_redirect_that_ends_in_403_names_where_the_403_came_from() -> None:
    """Issue 17 item 18: the error named the card URL asked for, as if it answered 403."""
    from tests.servers import serve

    with serve(_redirect_to_forbidden) as base:
        r = run_cli("discover", base, "--json")
    message = r.json()["error"]["message"]
    assert r.code == 1 and r.json()["error"]["error"] == "AgentHTTPError"
    assert message.startswith(f"HTTP 403 from {base}/sso/login?next=card (redirected from "
                              f"{base}/.well-known/agent-card.json)"), message


async def test_server_paths_never_reach_the_client(settings: GreenSettings, white: str,
                                                   tmp_path: Any) -> None:
    """Issue 17 item 18: a data error quoted the operator's --option path to the client."""
    import dataclasses

    hidden = tmp_path / "operator-only" / "tau2-data"
    operator = dataclasses.replace(settings, presets={"tau2": {
        "data_dir": str(hidden), "user_llm": "m"}})
    with green_server(operator) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            out = await send(client, agentbeats(white, benchmark="tau2", domain="mock"))
    assert out.state == STATE.TASK_STATE_FAILED
    text = out.final_text()
    assert "tau2 data file <server setting>/tau2/domains/mock/" in text, text
    assert "operator-only" not in text and str(tmp_path) not in text


async def test_the_plan_of_one_request_is_bounded(settings: GreenSettings, white: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 17 item 10: tasks × trials per assessment is capped before anything is planned."""
    from a2abench.green import request as request_module

    monkeypatch.setattr(request_module, "MAX_TASK_TRIALS", 5)
    with green_server(settings) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            out = await send(client, agentbeats(white, benchmark="scripted", tasks=3,
                                                num_trials=2))
            fits = await send(client, agentbeats(white, benchmark="scripted", tasks=3,
                                                 num_trials=2, max_tasks=2))
    assert out.state == STATE.TASK_STATE_REJECTED
    assert "3 tasks × 2 trials is over this server's limit of 5 task-trials" in \
        out.final_text()
    assert fits.state == STATE.TASK_STATE_COMPLETED
