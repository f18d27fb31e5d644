"""Scripted user participants of scenario dual (real a2a-sdk agents) for the pairing tests.

Modes: "faithful" does the task's own user-side gold actions one call at a time (DataPart
tool calls), then names the task (`TASK:<id>`, which the tests' gold agent reads), then
thanks the agent and stops once it answered; "hangs-up" says ###STOP### at once; "empty"
answers with no parts at all (a forfeit); "failing" fails its A2A task (a forfeit too).
The task is found from the scenario text of the first message's `user_scenario` DataPart.
"""

from __future__ import annotations

from typing import Any

from a2a.helpers import new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from google.protobuf.json_format import MessageToDict

from a2abench.benchmarks.tau2.models import Task
from a2abench.demo._app import jsonrpc_app


class ScriptedUser(AgentExecutor):
    def __init__(self, tasks: dict[str, Task], mode: str) -> None:
        self.by_scenario = {str(t.user_scenario): t for t in tasks.values()}
        self.mode = mode
        self.state: dict[str, tuple[Task, int, bool]] = {}  # context -> task, calls, named
        self.first: list[dict[str, Any]] = []  # the user_scenario parts received

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        ctx = str(context.context_id)
        data = [MessageToDict(p.data) for p in (context.message.parts if context.message
                                                 else []) if p.HasField("data")]
        scenario = next((d for d in data if "user_scenario" in d), None)
        if scenario is not None:
            self.first.append(scenario)
            self.state[ctx] = (self.by_scenario[scenario["scenario_text"]], 0, False)
        if self.mode == "failing":
            raise RuntimeError("this user participant crashed")
        parts = [] if self.mode == "empty" else self._turn(ctx)
        await event_queue.enqueue_event(new_message(parts, context_id=context.context_id))

    def _turn(self, ctx: str) -> list[Any]:
        if self.mode == "hangs-up":
            return [new_text_part("###STOP###")]
        task, calls, named = self.state[ctx]
        todo = [a for a in task.evaluation_criteria.actions or []  # type: ignore[union-attr]
                if a.requestor == "user"]
        if calls < len(todo):
            self.state[ctx] = (task, calls + 1, named)
            call = {"name": todo[calls].name, "arguments": todo[calls].arguments}
            return [new_data_part({"tool_call": call})]
        if not named:
            self.state[ctx] = (task, calls, True)
            return [new_text_part(f"TASK:{task.id} I need help with my booking.")]
        return [new_text_part("Thank you, that is all. ###STOP###")]

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def app(base: str, tasks: dict[str, Task], mode: str) -> tuple[Any, ScriptedUser]:
    user = ScriptedUser(tasks, mode)
    return jsonrpc_app(base, user, name=f"scripted-user-{mode}", description="test user",
                       skill={"id": "u", "name": "u", "description": "u", "tags": ["t"]}), user
