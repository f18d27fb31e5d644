"""serve-green with `tool_channel: "mcp"`: the tools are served on the green agent's own
port under /mcp, at a public URL derived from the card URL, so they work through the
AgentBeats controller's prefix-stripping proxy; the operator's bearer token guards the A2A
side, each task-trial's own token the MCP side; /metrics counts the calls. The agent's MCP
client speaks only 2026-07-28 (the 2.x SDK pinned to it)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.models import Task
from a2abench.green import GreenSettings, build_app
from tests.conftest import shared_data
from tests.crmarena import crm_agent
from tests.crmarena.test_run_e2e import org, shaped_texts
from tests.fakes.llm_server import FakeLLMServer
from tests.green.controller import controller
from tests.green.helpers import STATE, agentbeats, metrics_of, result_of, sdk_client, send
from tests.green.test_monitoring import scrape, value
from tests.servers import serve
from tests.tau2 import gold_agent
from tests.tau2.test_run_e2e import TASKS

__all__ = ["org", "shaped_texts"]  # fixtures used here
AGENT_ID = "green-mcp"
TOKEN = "operator-token-25"


@pytest.fixture(scope="module")
def airline() -> dict[str, Task]:
    domain = load_domain("airline", data_dir=shared_data("tau2").parent)
    return {t.id: t for t in domain.tasks(task_ids=TASKS)}


@pytest.fixture
def proxied() -> Iterator[Any]:
    """Start serve-green (in-process) behind the controller proxy: a function of the
    settings yielding (the card URL /to_agent/<id>, the GreenApp)."""
    import contextlib

    @contextlib.contextmanager
    def start(settings: GreenSettings) -> Iterator[tuple[str, Any]]:
        ports: dict[str, int] = {}
        holder: dict[str, Any] = {}
        with controller(ports) as ctrl:
            card_url = f"{ctrl}/to_agent/{AGENT_ID}"

            def factory(_base: str) -> Any:
                holder["green"] = build_app(settings, card_url)
                return holder["green"].app

            with serve(factory) as base:
                ports[AGENT_ID] = int(base.rsplit(":", 1)[1])
                yield card_url, holder["green"]

    yield start


@pytest.mark.slow
async def test_tau2_over_mcp_through_the_prefix_stripping_proxy(
        tmp_path: Path, airline: dict[str, Task], proxied: Any) -> None:
    user = FakeLLMServer(handler=gold_agent.gold_user(airline))
    settings = GreenSettings(output_dir=tmp_path, metrics=True, auth_token=SecretStr(TOKEN),
                             presets={"tau2": {"data_dir": str(shared_data("tau2").parent),
                                               "user_llm": "fake-user"}})
    holder: dict[str, Any] = {}

    def agent(base: str) -> Any:
        app, holder["agent"] = gold_agent.app(base, airline, "mcp@2026-07-28")
        return app

    with user.running(), serve(agent) as white, proxied(dataclasses.replace(
            settings, presets={"tau2": {**settings.presets["tau2"],
                                        "user_llm_base_url": user.base_url}})) as (url, green):
        assert green.mcp_url == f"{url}/mcp"
        async with sdk_client(url, token=TOKEN) as client:
            out = await send(client, agentbeats(white, benchmark="tau2", domain="airline",
                                                task_ids=TASKS, user_llm="fake-user",
                                                tool_channel="mcp"))
        samples = scrape(url, TOKEN)
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    data = result_of(out.task)[1]  # type: ignore[arg-type]
    assert data["tasks"] == {"3": 1.0, "14": 1.0, "19": 1.0}
    executor = holder["agent"]
    assert set(executor.mcp.protocols.values()) == {"2026-07-28"}
    pointers = list(executor.mcp.pointers.values())
    assert pointers and all(p["url"] == f"{url}/mcp" for p in pointers)
    assert all(p["headers"]["Authorization"] != f"Bearer {TOKEN}" for p in pointers)
    made = [c for calls in executor.mcp.calls.values() for c in calls]
    assert made and all(not c.is_error for c in made)
    assert sum(value(samples, "a2abench_mcp_calls_total", tool=c.name, outcome="ok")
               for c in {c.name: c for c in made}.values()) == len(made)
    metrics = Path(metrics_of(tmp_path, out.task))  # type: ignore[arg-type]
    records = [json.loads(x) for x in metrics.read_text().splitlines()]
    run = next(r for r in records if r["type"] == "run")
    assert run["compat_key"]["options"]["tool_channel"] == "mcp"
    assert run["data"]["mcp_url"] == f"{url}/mcp" and run["tool_channel"] == "mcp"


@pytest.mark.slow
async def test_crmarena_over_mcp_through_the_prefix_stripping_proxy(
        tmp_path: Path, org: dict[str, Any], proxied: Any) -> None:
    settings = GreenSettings(output_dir=tmp_path, presets={"crmarena": {
        "tasks_file": str(org["file"]), "crm_db": str(org["db"]), "judge_llm": "offline"}})
    holder: dict[str, Any] = {}

    def agent(base: str) -> Any:
        app, holder["agent"] = crm_agent.app(base, org["tasks"], "mcp-sql@2026-07-28")
        return app

    with serve(agent) as white, proxied(settings) as (url, _green):
        async with sdk_client(url) as client:
            out = await send(client, agentbeats(white, benchmark="crmarena",
                                                tool_channel="mcp"))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    data = result_of(out.task)[1]  # type: ignore[arg-type]
    assert data["tasks"] and set(data["tasks"].values()) == {1.0}
    assert sum(len(v) for v in holder["agent"].mcp_results.values()) >= len(data["tasks"])
    assert set(holder["agent"].mcp_protocols.values()) == {"2026-07-28"}


@pytest.fixture
def over_a2a(domain: str, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[dict[str, Task], dict[str, float]]:
    """The domain's tasks and their rewards over the A2A channel: the session's A2A runs of
    them, test_tau2_gold's (made outside the test's event loop: `run` starts its own)."""
    from tests.mcp.test_tau2_gold import (
        CASES,
        domain_tasks,
        gold_over_a2a,
        solo_over_a2a,
        solo_tasks,
    )

    if domain == "telecom":
        tasks, records = solo_tasks(domain, 3), solo_over_a2a(domain, tmp_path_factory)
    else:
        ids, count, _ = CASES[domain]
        tasks = domain_tasks(domain, ids, count, ("--retrieval-variant", "bm25"))
        records = gold_over_a2a(domain, tmp_path_factory)
    return tasks, {task_id: records[task_id]["reward"] for task_id in tasks}


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["banking_knowledge", "telecom"])
async def test_banking_and_solo_telecom_over_mcp_score_as_over_a2a_in_serve_green(
        tmp_path: Path, proxied: Any, domain: str,
        over_a2a: tuple[dict[str, Task], dict[str, float]]) -> None:
    """Through serve-green, a client speaking only 2026-07-28 plays banking (its unlocked
    tools by name) and telecom in solo mode (the user's tools too) with the scores the A2A
    channel's gold agent gets (the session's A2A runs of the same tasks: serve-green runs
    the engine `run` does). The controller buffers whole responses, so a listen stream
    delivers nothing through it: the agent sees unlocked tools on its next tools/list."""
    tasks, a2a_scores = over_a2a
    if domain == "telecom":
        config: dict[str, Any] = {"solo": True}
        mode = "mcp-solo@2026-07-28"
    else:
        config, mode = {"retrieval_variant": "bm25"}, "mcp-alias@2026-07-28"
    user = FakeLLMServer(handler=gold_agent.gold_user(tasks))
    holder: dict[str, Any] = {}
    with user.running():
        settings = GreenSettings(output_dir=tmp_path, presets={"tau2": {
            "data_dir": str(shared_data("tau2").parent), "user_llm": "fake-user",
            "user_llm_base_url": user.base_url}})

        def agent(base: str) -> Any:
            app, holder["agent"] = gold_agent.app(base, tasks, mode)
            holder["agent"].mcp.listen = False
            return app

        with proxied(settings) as (url, _green), serve(agent) as white:
            async with sdk_client(url) as client:
                out = await send(client, agentbeats(
                    white, benchmark="tau2", domain=domain, task_ids=list(tasks),
                    user_llm="fake-user", tool_channel="mcp", **config))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    over_mcp = result_of(out.task)[1]["tasks"]  # type: ignore[arg-type]
    assert over_mcp == a2a_scores and set(a2a_scores) == set(tasks)
    assert any(a2a_scores.values())
    mcp = holder["agent"].mcp
    assert set(mcp.protocols.values()) == {"2026-07-28"}
    if domain == "banking_knowledge":
        for task_id, calls in mcp.calls.items():
            unlocked = {c.arguments["agent_tool_name"] for c in calls
                        if c.name == "unlock_discoverable_agent_tool"}
            assert unlocked <= set(mcp.tool_lists[task_id][-1]), task_id
            assert unlocked & {c.name for c in calls}, task_id
