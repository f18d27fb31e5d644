"""A deterministic, rule-based A2A white agent (a2a-sdk 1.x) for the demo and for tests.

It is not clever on purpose: it understands two request shapes of the demo's task tracker
(tau2 wire format: tool calls as DataParts) and a few CRMArena task categories (SOQL it builds
from the task text), and says so plainly otherwise. Scores are therefore a realistic mix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from a2abench.demo import crm_rules

TRANSFER = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."


@dataclass
class _State:
    mode: str = ""  # "tau2" | "crm"
    pending: str | None = None
    memory: dict[str, Any] = field(default_factory=dict)


def tau2_action(words: str) -> dict[str, Any]:
    """The tool call for a task-tracker request, or a transfer when it is not understood."""
    create = re.search(r"[Cc]reate a task titled '([^']+)' for (user_\d+)", words)
    if create:
        return {"name": "create_task", "arguments": {"user_id": create[2], "title": create[1]}}
    mark = re.search(r"[Mm]ark (task_\d+) as (completed|pending)", words)
    if mark:
        return {"name": "update_task_status", "arguments": {"task_id": mark[1],
                                                            "status": mark[2]}}
    return {"name": "transfer_to_human_agents", "arguments": {"summary": words[:200]}}


class ScriptedAgent:
    """Holds one state per A2A context; `answer` maps incoming parts to reply parts."""

    def __init__(self) -> None:
        self.states: dict[str, _State] = {}

    def answer(self, context_id: str, texts: list[str],
               data: list[Any]) -> list[tuple[str, Any]]:
        state = self.states.setdefault(context_id, _State())
        if any(isinstance(d, dict) and "tools" in d for d in data):
            state.mode = "tau2"
        elif not state.mode:
            state.mode = "crm"
        if state.mode == "crm":
            return [("text", crm_rules.next_action(state.memory, "\n".join(texts)))]
        if any(isinstance(d, dict) and "tool_results" in d for d in data):
            done, state.pending = state.pending, None
            if done == "transfer_to_human_agents":
                return [("text", TRANSFER)]
            return [("text", "Done. " + (texts[-1].split(": ", 1)[-1] if texts else ""))]
        words = texts[-1] if texts else ""
        call = tau2_action(words)
        state.pending = call["name"]
        return [("data", {"tool_call": call})]


def build_app(base_url: str) -> Any:
    """The Starlette app serving the scripted agent whose public URL is `base_url`."""
    from a2a.helpers import new_data_part, new_message, new_text_part
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
    from google.protobuf.json_format import MessageToDict
    from starlette.applications import Starlette

    from a2abench.green import sdk_checks

    sdk_checks.install()
    brain = ScriptedAgent()

    class Executor(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            texts, data = [], []
            for part in context.message.parts if context.message else []:
                if part.HasField("text"):
                    texts.append(part.text)
                elif part.HasField("data"):
                    data.append(MessageToDict(part.data))
            parts = [new_text_part(v) if kind == "text" else new_data_part(v)
                     for kind, v in brain.answer(context.context_id or "", texts, data)]
            await event_queue.enqueue_event(new_message(parts, context_id=context.context_id))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            return None

    rpc = base_url.rstrip("/") + "/a2a"
    card = AgentCard(
        name="a2abench scripted agent",
        description="Deterministic rule-based agent for the a2abench demo and tests.",
        version="1.0.0", capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[AgentSkill(id="tau2", name="Task tracker", description="tau2-style tools",
                           tags=["tau2", "demo"]),
                AgentSkill(id="crmarena", name="CRM queries",
                           description="SOQL for a few CRMArena categories",
                           tags=["crmarena", "demo"])],
        supported_interfaces=[
            AgentInterface(url=rpc, protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=rpc, protocol_binding="JSONRPC", protocol_version="0.3")])
    handler = DefaultRequestHandler(agent_executor=Executor(), task_store=InMemoryTaskStore(),
                                    agent_card=card)
    return Starlette(routes=[
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, rpc_url="/a2a", enable_v0_3_compat=True),
        *create_jsonrpc_routes(handler, rpc_url="/a2a/", enable_v0_3_compat=True)])
