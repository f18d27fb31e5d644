"""End to end over loopback, per benchmark: an a2a-sdk client -> serve-green -> a real white
agent, with a scripted fake user LLM (the same set-up as tests/tau2/test_run_e2e.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.models import Task
from a2abench.green import GreenSettings
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer
from tests.green.helpers import (
    STATE,
    agentbeats,
    green_server,
    metrics_of,
    result_of,
    sdk_client,
    send,
)
from tests.servers import serve
from tests.tau2 import gold_agent
from tests.tau2.test_run_e2e import TASKS, scripted_user

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def airline() -> dict[str, Task]:
    domain = load_domain("airline", data_dir=shared_data("tau2").parent)
    return {t.id: t for t in domain.tasks(task_ids=TASKS)}


@pytest.fixture(scope="module")
def user_llm(airline: dict[str, Task]) -> Iterator[FakeLLMServer]:
    server = scripted_user(airline)
    with server.running():
        yield server


@pytest.fixture(scope="module")
def gold(airline: dict[str, Task]) -> Iterator[str]:
    with serve(lambda base: gold_agent.app(base, airline, "gold")[0]) as base:
        yield base


def tau2_settings(tmp_path: Path, llm: FakeLLMServer) -> GreenSettings:
    """What an operator passes: data and the LLM endpoint are the server's business."""
    return GreenSettings(output_dir=tmp_path, presets={"tau2": {
        "data_dir": str(shared_data("tau2").parent), "user_llm_base_url": llm.base_url,
        "user_llm": "fake-user"}})


async def test_tau2_assessment_agentbeats_format(tmp_path: Path, gold: str,
                                                 user_llm: FakeLLMServer) -> None:
    with green_server(tau2_settings(tmp_path, user_llm)) as (base, _):
        async with sdk_client(base) as client:
            out = await send(client, agentbeats(gold, benchmark="tau2", domain="airline",
                                                task_ids=TASKS, user_llm="fake-user"))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    assert out.status_texts()[-2] == "3/3 done, pass rate 100.0%"
    text, data = result_of(out.task)  # type: ignore[arg-type]
    assert text.startswith(f"tau2 (airline) against {gold}: completed. 3/3 passed over "
                           "3 task-trials (3 tasks × 1 trial)")
    assert data["tasks"] == {"3": 1.0, "14": 1.0, "19": 1.0}
    assert data["summary"] == {**data["summary"], "pass_rate": 1.0, "score": 1.0,
                               "total_tasks": 3, "task_trials": 3}
    assert data["by_domain"] == {"airline": {"count": 3, "passed": 3, "pass_rate": 1.0,
                                             "mean_reward": 1.0}}
    assert data["config"]["options"]["user_llm"] == "fake-user"
    metrics = Path(metrics_of(tmp_path, out.task))  # type: ignore[arg-type]
    tasks = [json.loads(x) for x in metrics.read_text().splitlines() if '"type":"task"' in x]
    assert sorted(t["task_id"] for t in tasks) == sorted(TASKS)
    assert all(t["termination"] == "user_stop" for t in tasks)


def _base_positions() -> list[int]:
    """Positions in tau2's task list of the split (tasks.json order, as upstream's get_tasks)."""
    domain = load_domain("airline", data_dir=shared_data("tau2").parent, split="base")
    ids = [t.id for t in domain.tasks()]
    return [ids.index(t) for t in TASKS]


@pytest.mark.parametrize("dialect", ["tau-bench", "tau2"])
async def test_tau2_assessment_agentify_format(tmp_path: Path, gold: str,
                                               user_llm: FakeLLMServer, dialect: str) -> None:
    """tau-bench's dialect counts positions in `task_split`; tau2's names base-split ids."""
    env: dict[str, Any] = (
        {"env": "airline", "user_strategy": "llm", "user_model": "fake-user",
         "user_provider": "openai", "task_split": "base", "task_ids": _base_positions()}
        if dialect == "tau-bench" else
        {"domain": "airline", "user_llm": "fake-user", "task_ids": TASKS})
    env["prompt_style"] = "a2abench"  # the gold agent speaks a2abench's format
    text = (f"Test the agent at <white_agent_url>{gold}/</white_agent_url> with\n"
            f"<env_config>{json.dumps(env)}</env_config>")
    with green_server(tau2_settings(tmp_path, user_llm)) as (base, _):
        async with sdk_client(base, streaming=False) as client:
            out = await send(client, text)
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    data = result_of(out.task)[1]  # type: ignore[arg-type]
    assert data["format"] == "agentify" and data["summary"]["pass_rate"] == 1.0
    assert sorted(data["config"]["task_ids"]) == sorted(TASKS)
    assert data["split"] == "base"


def _crm_agent(answers: dict[str, list[str]]) -> Any:
    """An a2a-sdk white agent that answers each CRMArena task with its gold answer."""
    from a2a.helpers import new_text_message
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue

    class Gold(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            text = context.get_user_input()
            answer = next((a for q, a in answers.items() if q in text), ["None"])
            reply = json.dumps({"action": "respond", "answer": ", ".join(answer)})
            await event_queue.enqueue_event(new_text_message(reply,
                                                             context_id=context.context_id))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            return None

    return Gold()


async def test_crmarena_assessment_seed_format(tmp_path: Path) -> None:
    from a2abench.benchmarks.crmarena.synthetic import generate_org, generate_tasks
    from tests.agents import load_example

    db = tmp_path / "b2b.db"
    generate_org(db, org="b2b", scale="tiny")
    rows = generate_tasks(db, org="b2b", per_category=1)
    tasks_file = tmp_path / "tasks.json"
    tasks_file.write_text(json.dumps(rows))
    handle_time = [r for r in rows if r["task"] == "handle_time"]
    settings = GreenSettings(output_dir=tmp_path / "runs", presets={"crmarena": {
        "tasks_file": str(tasks_file), "crm_db": str(db), "org": "b2b",
        "judge_llm": "offline"}})
    executor = _crm_agent({r["query"]: r["answer"] for r in rows})
    echo = load_example("echo_agent.py")
    with serve(lambda b: _sdk_app(echo, b, executor)) as white, \
            green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            out = await send(client, json.dumps({
                "white_agent_url": white, "task_category": "handle_time", "max_tasks": 1,
                "interactive": False, "max_turns": 20, "max_user_turns": 10}))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    data = result_of(out.task)[1]  # type: ignore[arg-type]
    assert data["format"] == "seed" and data["benchmark"] == "crmarena"
    assert data["summary"]["task_trials"] == 1 and data["summary"]["scored"] == 1
    assert set(data["by_category"]) == {"handle_time"} and handle_time
    assert data["summary"]["pass_rate"] == 1.0  # the gold answer, through the fast path


def _sdk_app(echo: Any, base: str, executor: Any) -> Any:
    """The echo example's server shape with another executor."""
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from starlette.applications import Starlette

    card = echo.agent_card(base)
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(),
                                    agent_card=card)
    return Starlette(routes=[*create_agent_card_routes(card),
                             *create_jsonrpc_routes(handler, rpc_url="/a2a")])
