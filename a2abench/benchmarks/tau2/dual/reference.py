"""a2abench's offline reference agent (`reference_agent` of `--pairing vs_reference`, unless
`--reference-agent-url` names another): it knows the task's gold solution, as upstream's
`LLMGTAgent` does, and needs no model, so the user role's score (user fidelity) has a fixed
partner that cannot drift.

After the user's first words it makes the task's gold agent-side calls, one per turn, in
order; then it tells the user what the task says the agent must communicate and, where the
gold solution has user-side actions (telecom), asks the user to take them; after that it
only asks whether there is anything else. It never ends the conversation itself: the user
does (or the step limit). A user that hangs up before the calls are made fails the task.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.models import Action, AssistantMessage, Task, ToolCall

ANYTHING_ELSE = "Is there anything else I can help you with?"


class GoldAgent:
    """The reference agent as a tau2 participant, with `AgentLink`'s interface."""

    def __init__(self, task: Task) -> None:
        actions = (task.evaluation_criteria.actions if task.evaluation_criteria else None) or []
        self.calls = [a for a in actions if a.requestor == "assistant"]
        self.theirs = [a for a in actions if a.requestor == "user"]
        self.info = list((task.evaluation_criteria.communicate_info
                          if task.evaluation_criteria else None) or [])
        self.step = 0
        self.spoke = False
        self.turns = 0

    async def respond(self, incoming: Any, calls: Sequence[ToolCall] = ()) -> AssistantMessage:
        """Its next move after the user's words or its own tool results."""
        self.turns += 1
        if self.step < len(self.calls):
            action = self.calls[self.step]
            self.step += 1
            return AssistantMessage(content=None, tool_calls=[ToolCall(
                id=f"gold_{self.step}", name=action.name, arguments=dict(action.arguments))])
        if self.spoke:
            return AssistantMessage(content=ANYTHING_ELSE)
        self.spoke = True
        return AssistantMessage(content=self.closing())

    def closing(self) -> str:
        """What it says once its calls are made: the facts to communicate, the user's part."""
        lines = ["Thank you. I have taken care of your request."]
        if self.info:
            lines.append("Here is what you need to know: " + "; ".join(self.info) + ".")
        if self.theirs:
            lines.append("On your side, please do the following, in order:")
            lines += [f"- {_call_text(a)}" for a in self.theirs]
        return "\n".join(lines)

    def is_stop(self, message: AssistantMessage) -> bool:
        return False


def _call_text(action: Action) -> str:
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}"
                     for k, v in action.arguments.items())
    return f"{action.name}({args})"
