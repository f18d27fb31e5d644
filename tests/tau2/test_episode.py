"""The conversation loop's limits and routing, with in-process fakes for agent and user."""

from __future__ import annotations

from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.episode import Orchestrator
from a2abench.benchmarks.tau2.models import (
    AssistantMessage,
    TerminationReason,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from a2abench.errors import AgentUnreachable, ProtocolError
from tests.conftest import shared_data


class FakeUser:
    def __init__(self, script: list[str]) -> None:
        self.script, self.seen = list(script), []  # type: ignore[var-annotated]

    async def respond(self, incoming: Any) -> UserMessage:
        self.seen.append(incoming)
        return UserMessage(content=self.script.pop(0) if self.script else "more please")


class FakeAgent:
    def __init__(self, replies: list[AssistantMessage | Exception]) -> None:
        self.replies, self.turns, self.seen = list(replies), 0, []  # type: ignore[var-annotated]

    async def respond(self, incoming: Any, calls: Any = ()) -> AssistantMessage:
        self.turns += 1
        self.seen.append((incoming, list(calls)))
        reply = self.replies.pop(0) if self.replies else AssistantMessage(content="ok")
        if isinstance(reply, Exception):
            raise reply
        return reply

    def is_stop(self, message: AssistantMessage) -> bool:
        return False  # as AgentLink's default (a2abench) profile


@pytest.fixture(scope="module")
def mock() -> Any:
    return load_domain("mock", data_dir=shared_data("tau2").parent)


def env(mock: Any) -> Any:
    return mock.new_environment(mock.tasks(task_ids=["create_task_1"])[0])


def bad_call() -> AssistantMessage:
    return AssistantMessage(tool_calls=[ToolCall(id="c", name="update_task_status",
                                                 arguments={"task_id": "nope",
                                                            "status": "completed"})])


async def test_user_stop_ends_the_run(mock: Any) -> None:
    out = await Orchestrator(env(mock), FakeUser(["hi", "bye ###STOP###"]),  # type: ignore[arg-type]
                             FakeAgent([])).run()  # type: ignore[arg-type]
    assert out.termination is TerminationReason.USER_STOP
    assert [m.role for m in out.messages] == ["assistant", "user", "assistant", "user"]
    assert out.steps == 3


async def test_tool_results_go_back_to_the_agent_with_their_calls(mock: Any) -> None:
    agent = FakeAgent([AssistantMessage(tool_calls=[ToolCall(id="c1", name="get_users",
                                                             arguments={})])])
    out = await Orchestrator(env(mock), FakeUser(["hi", "###STOP###"]),  # type: ignore[arg-type]
                             agent).run()  # type: ignore[arg-type]
    incoming, calls = agent.seen[1]
    assert isinstance(incoming, list) and isinstance(incoming[0], ToolMessage)
    assert [c.id for c in calls] == ["c1"] and incoming[0].id == "c1"
    assert out.termination is TerminationReason.USER_STOP


async def test_too_many_tool_errors(mock: Any) -> None:
    out = await Orchestrator(env(mock), FakeUser(["hi"]),  # type: ignore[arg-type]
                             FakeAgent([bad_call()] * 20), max_errors=3).run()  # type: ignore[arg-type]
    assert out.termination is TerminationReason.TOO_MANY_ERRORS and out.errors == 3


async def test_max_steps_wins_even_over_a_stop_on_the_last_step(mock: Any) -> None:
    out = await Orchestrator(env(mock), FakeUser(["hi", "###STOP###"]),  # type: ignore[arg-type]
                             FakeAgent([]), max_steps=3).run()  # type: ignore[arg-type]
    assert out.termination is TerminationReason.MAX_STEPS  # upstream checks after the stop


async def test_agent_protocol_error_is_an_agent_error(mock: Any) -> None:
    out = await Orchestrator(env(mock), FakeUser(["hi"]),  # type: ignore[arg-type]
                             FakeAgent([ProtocolError("bad")])).run()  # type: ignore[arg-type]
    assert out.termination is TerminationReason.AGENT_ERROR and out.status == "agent_error"
    assert out.error is not None and out.error.error == "ProtocolError"


async def test_unreachable_agent_is_an_infrastructure_error(mock: Any) -> None:
    out = await Orchestrator(env(mock), FakeUser(["hi"]),  # type: ignore[arg-type]
                             FakeAgent([AgentUnreachable("gone")])).run()  # type: ignore[arg-type]
    assert out.status == "infrastructure_error"
    assert out.termination is TerminationReason.INFRASTRUCTURE_ERROR
    assert [m.role for m in out.messages] == ["assistant", "user"]  # kept, not dropped
