"""A plugin written from the guide scores an agent's parser crash and its failed A2A task
as the agent's failures (reward 0, `agent_error`), like the built-in benchmarks do, against a
real a2a-sdk agent on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from a2a.helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, TaskState

from a2abench.plugin import register, unregister
from tests.clihelp import run_cli
from tests.plugin.guide_bench import GuideDriver
from tests.sdk_agents import sdk_agent
from tests.servers import serve

# What the agent does per task id: the right answer, a reply that crashes the plugin's
# parser (no "answer" key), and the right answer inside a task that ended failed.
ANSWERS = {"plain": '{"answer": 4}', "crash": '{"total": 4}', "failed": '{"answer": 4}'}


class Adder(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id = context.get_user_input().split(":")[0]
        await event_queue.enqueue_event(new_task(
            context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED,
            history=[context.message] if context.message else []))
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        words = updater.new_agent_message([Part(text=ANSWERS[task_id])])
        if task_id == "failed":
            await updater.failed(words)
        else:
            await updater.complete(words)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


@pytest.fixture
def guide() -> Iterator[str]:
    register("guide", GuideDriver)
    try:
        with serve(lambda base: sdk_agent(base, bindings=("JSONRPC",), versions=("1.0",),
                                          streaming=False, executor=Adder())) as base:
            yield base
    finally:
        unregister("guide")


def _run(url: str, out: Path, *extra: str) -> dict[str, dict[str, Any]]:
    result = run_cli("run", "guide", "--white-agent-url", url, "--output", str(out),
                     "--option", 'tasks=["plain", "crash", "failed"]', *extra)
    assert result.code in (0, 1), result.err  # 1: the run had failures, as it should
    records = [json.loads(line) for line in out.read_text().splitlines()]
    return {r["task_id"]: r for r in records if r["type"] == "task"}


def test_a_parser_crash_and_a_failed_task_are_the_agents_failures(
        guide: str, tmp_path: Path) -> None:
    tasks = _run(guide, tmp_path / "m.jsonl")
    assert tasks["plain"]["status"] == "ok" and tasks["plain"]["reward"] == 1.0
    crash, failed = tasks["crash"], tasks["failed"]
    assert (crash["status"], crash["reward"]) == ("agent_error", 0.0)
    assert "could not process the agent's answer (KeyError" in crash["error"]["message"]
    assert (failed["status"], failed["reward"]) == ("agent_error", 0.0)  # "4" not scored
    assert "ended failed" in failed["error"]["message"]


def test_without_agent_input_the_crash_would_escape_the_score(
        guide: str, tmp_path: Path) -> None:
    tasks = _run(guide, tmp_path / "m.jsonl", "--no-wrap")
    assert (tasks["crash"]["status"], tasks["crash"]["reward"]) == ("harness_error", None)
