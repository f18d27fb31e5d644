"""The failed-state rule lives on the reply: a task that ended failed, rejected, canceled or
auth-required is the agent's protocol failure, never text to parse or score. The
conversation applies it to every reply unless opened with `raise_for_state=False`."""

from __future__ import annotations

from typing import Any

import pytest

from a2abench.a2a.client import FAILED_STATES, AgentReply, Conversation
from a2abench.a2a.models import Message, Task, TaskState, TaskStatus, TextPart
from a2abench.errors import ProtocolError


def _reply(state: TaskState, text: str = "I give up") -> AgentReply:
    words = Message(role="agent", parts=[TextPart(text=text)], message_id="m")
    return AgentReply(task=Task(id="t", context_id="c",
                                status=TaskStatus(state=state, message=words)))


@pytest.mark.parametrize("state", sorted(FAILED_STATES))
def test_a_failed_task_raises_naming_its_state(state: TaskState) -> None:
    with pytest.raises(ProtocolError, match=f"ended {state.value}: I give up"):
        _reply(state).raise_for_state()


@pytest.mark.parametrize("state", [TaskState.COMPLETED, TaskState.INPUT_REQUIRED])
def test_a_settled_answer_passes(state: TaskState) -> None:
    reply = _reply(state)
    assert reply.raise_for_state() is reply
    plain = AgentReply(message=Message(role="agent", parts=[TextPart(text="hi")],
                                       message_id="m"))
    assert plain.raise_for_state() is plain


class _Client:
    """Answers every message with one scripted reply."""

    def __init__(self, reply: AgentReply) -> None:
        self.reply = reply

    async def send_message(self, message: Message, **_: Any) -> AgentReply:
        return self.reply


async def test_the_conversation_applies_the_rule_after_logging_the_reply() -> None:
    chat = Conversation(_Client(_reply(TaskState.FAILED)))  # type: ignore[arg-type]
    with pytest.raises(ProtocolError, match="ended failed"):
        await chat.send("hello")
    assert chat.log[-1]["state"] == "failed" and chat.context_id == "c"


async def test_a_probe_may_opt_out_and_see_the_failed_reply() -> None:
    failed = _reply(TaskState.REJECTED)
    chat = Conversation(_Client(failed), raise_for_state=False)  # type: ignore[arg-type]
    assert await chat.send("hello") is failed
