"""A white agent written for the stock AgentBeats tau2 green agent, the way purple agents such
as VlaTz/tau2-agentbeats-base-purple are: text only, it recognises the benchmark's first
message by two of that green agent's lines, reads the tools and the user's words from it, and
answers every turn with one JSON action `{"name", "arguments"}` as bare text.

It replays the task's gold actions, calling only tools the first message listed. A first
message it does not recognise gets what such agents do then: a clarifying question.
The task is named by the user's first words ("TASK:<id>"), as in gold_agent.
"""

from __future__ import annotations

import json
import re
from typing import Any

from a2a.helpers import new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette

from a2abench.benchmarks.tau2.models import Task

TOOLS_MARKER = "Here's a list of tools you can use"
JSON_FORMAT_MARKER = "Please respond in JSON format."
AGENTIFY_MARKER = "Please wrap the JSON part with <json>...</json> tags."
USER_MESSAGES_MARKER = "Now here are the user messages:"
CLARIFY = "I need one more detail before I can safely proceed."


def _first_json(text: str) -> Any:
    decoder = json.JSONDecoder()
    for index, char in enumerate(text):
        if char in "[{":
            try:
                return decoder.raw_decode(text[index:])[0]
            except ValueError:
                continue
    return None


class MarkerExecutor(AgentExecutor):
    """style "agentbeats": bare JSON actions; "agentify": actions in <json> tags, as an agent
    written for tau2's agentify green agent answers."""

    def __init__(self, tasks: dict[str, Task], style: str = "agentbeats") -> None:
        self.tasks, self.style = tasks, style
        self.state: dict[str, dict[str, Any]] = {}  # context -> task id, step, tools
        self.recognised: list[bool] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input() if context.message else ""
        ctx = context.context_id
        if ctx not in self.state:
            self.state[ctx] = self._contract(text)
            self.recognised.append(bool(self.state[ctx]["tools"]))
        action = self._act(ctx)
        if self.style == "agentify":
            action = f"Here is my action.\n<json>\n{action}\n</json>"
        await event_queue.enqueue_event(new_message([new_text_part(action)], context_id=ctx))

    def _contract(self, text: str) -> dict[str, Any]:
        marker = AGENTIFY_MARKER if self.style == "agentify" else JSON_FORMAT_MARKER
        if TOOLS_MARKER not in text or marker not in text:
            return {"task": None, "step": 0, "tools": set()}
        tools = _first_json(text.split(TOOLS_MARKER, 1)[1]) or []
        names = {t["function"]["name"] for t in tools if isinstance(t, dict)}
        users = text.split(USER_MESSAGES_MARKER, 1)[-1]
        match = re.search(r"TASK:(\S+)", users)
        return {"task": match.group(1) if match else None, "step": 0, "tools": names}

    def _act(self, ctx: str) -> str:
        state = self.state[ctx]
        if state["task"] is None:
            return json.dumps({"name": "respond", "arguments": {"content": CLARIFY}})
        task = self.tasks[state["task"]]
        actions = [a for a in task.evaluation_criteria.actions or []  # type: ignore[union-attr]
                   if a.requestor == "assistant" and a.name in state["tools"]]
        step = state["step"]
        state["step"] += 1
        if step < len(actions):
            return json.dumps({"name": actions[step].name, "arguments": actions[step].arguments})
        said = " ".join(task.evaluation_criteria.communicate_info or [])  # type: ignore[union-attr]
        return json.dumps({"name": "respond", "arguments": {"content": f"All done. {said}"}})

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def app(base: str, tasks: dict[str, Task],
        style: str = "agentbeats") -> tuple[Starlette, MarkerExecutor]:
    card = AgentCard(
        name="stock-green purple", description="test agent", version="1.0",
        capabilities=AgentCapabilities(streaming=False), default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="t", name="t", description="t", tags=["t"])],
        supported_interfaces=[AgentInterface(url=base + "/", protocol_binding="JSONRPC",
                                             protocol_version="1.0")])
    executor = MarkerExecutor(tasks, style)
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(),
                                    agent_card=card)
    return Starlette(routes=[*create_agent_card_routes(card),
                             *create_jsonrpc_routes(handler, rpc_url="/")]), executor
