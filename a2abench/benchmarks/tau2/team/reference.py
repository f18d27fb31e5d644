"""The reference front agent of scenario team (`reference_agent`, offline): the dual
scenario's gold agent (dual/reference.py) that makes the gold read calls itself and
delegates each gold write, as a structured request the specialist can run exactly:

    Please run this call and tell me its result:
    {"tool_call": {"name": "cancel_reservation", "arguments": {"reservation_id": "..."}}}

So the write happens only if the specialist runs what it is asked, correctly: with a
faithful specialist the team scores the gold reward, and a specialist that fails is what
the score shows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.dual.reference import GoldAgent
from a2abench.benchmarks.tau2.models import AssistantMessage, Task, ToolCall
from a2abench.plugin.provisional import DELEGATE, SPECIALIST

ASK = "Please run this call and tell me its result:\n"


def request(name: str, arguments: dict[str, Any]) -> str:
    """A delegate message asking for one exact call."""
    return ASK + json.dumps({"tool_call": {"name": name, "arguments": arguments}},
                            ensure_ascii=False)


class DelegatingGoldAgent(GoldAgent):
    """The gold agent with its write calls delegated (see the module docstring)."""

    def __init__(self, task: Task, writes: set[str]) -> None:
        super().__init__(task)
        self.writes = writes

    async def respond(self, incoming: Any, calls: Sequence[ToolCall] = ()) -> AssistantMessage:
        message = await super().respond(incoming, calls)
        message.tool_calls = [self._delegated(c) for c in message.tool_calls or []] or None
        return message

    def _delegated(self, call: ToolCall) -> ToolCall:
        if call.name not in self.writes:
            return call
        return ToolCall(id=call.id, name=DELEGATE, arguments={
            "to": SPECIALIST, "message": request(call.name, dict(call.arguments))})
