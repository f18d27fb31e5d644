"""Scenario pressure on loopback: a white agent that complies with everything (a real a2a-sdk
agent), and the task selection's expected figures.

The complier finds the task from the customer's first words (the scripted adversaries quote
its reason for call and known info), finds the customer in the database as a service agent
would (its user id, else its name and zip code), and makes the write the customer asks for:
airline: cancels the reservation named in the request, else the customer's first one; retail:
cancels the customer's first pending order, else returns an item of its first delivered
order, else changes its address. Then it says it is done. Its plan is computed on a fresh
environment of the task, so every call it makes succeeds in the match.
"""

from __future__ import annotations

import json
import re
from typing import Any

from a2a.helpers import new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue

from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.benchmarks.tau2.models import Task, ToolCall
from a2abench.benchmarks.tau2.pressure.brief import asked, known
from a2abench.demo._app import jsonrpc_app

DONE = "Done: I have processed your request exactly as you asked."


def _call(env: Any, name: str, **arguments: Any) -> Any:
    found = env.execute(ToolCall(id="plan", name=name, arguments=arguments))
    assert not found.error, (name, arguments, found.content)
    text = found.content or ""
    return json.loads(text) if text[:1] in "{[" else text


def _user_id(env: Any, who: str) -> str:
    found = re.search(r"\b[a-z]+_[a-z]+_\d{4}\b", who)
    if found:
        return found.group(0)
    name = re.search(r"(?:You are|You're) (\w+) (\w+)", who)
    zipcode = re.search(r"\b\d{5}\b", who)
    assert name and zipcode, who
    return str(_call(env, "find_user_id_by_name_zip", first_name=name.group(1),
                     last_name=name.group(2), zip=zipcode.group(0)))


def plan(domain: Tau2Domain, task: Task) -> tuple[str, dict[str, Any]]:
    """The write the complier makes for `task` (see the module docstring)."""
    env = domain.new_environment(task)
    user = _call(env, "get_user_details", user_id=_user_id(env, known(task)))
    if domain.name == "airline":
        named = [r for r in user["reservations"] if r in asked(task)]
        return "cancel_reservation", {"reservation_id": (named or user["reservations"])[0]}
    orders = [_call(env, "get_order_details", order_id=o) for o in user["orders"]]
    pending = [o for o in orders if o["status"] == "pending"]
    if pending:
        return "cancel_pending_order", {"order_id": pending[0]["order_id"],
                                        "reason": "no longer needed"}
    delivered = [o for o in orders if o["status"] == "delivered"]
    if delivered:
        order = delivered[0]
        return "return_delivered_order_items", {
            "order_id": order["order_id"], "item_ids": [order["items"][0]["item_id"]],
            "payment_method_id": order["payment_history"][0]["payment_method_id"]}
    return "modify_user_address", {"user_id": user["user_id"], "address1": "1 Main St",
                                   "address2": "", "city": "Austin", "state": "TX",
                                   "country": "USA", "zip": "78701"}


class Complier(AgentExecutor):
    def __init__(self, domain: Tau2Domain, tasks: dict[str, Task]) -> None:
        self.domain = domain
        self.tasks = tasks
        self.steps: dict[str, tuple[str, int]] = {}  # context -> (task id, turns)

    def _task(self, text: str) -> str:
        found = [i for i, t in self.tasks.items() if asked(t) in text and known(t) in text]
        assert found, text[:300]  # retail 68's known info is a prefix of 67's: the longest
        return max(found, key=lambda i: len(known(self.tasks[i])))

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        ctx = str(context.context_id)
        if ctx not in self.steps:
            self.steps[ctx] = (self._task(context.get_user_input()), 0)
        task_id, turn = self.steps[ctx]
        self.steps[ctx] = (task_id, turn + 1)
        if turn == 0:
            name, arguments = plan(self.domain, self.tasks[task_id])
            part = new_data_part({"tool_call": {"name": name, "arguments": arguments}})
        else:
            part = new_text_part(DONE)
        await event_queue.enqueue_event(new_message([part], context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def complier_app(base: str, domain: Tau2Domain, tasks: dict[str, Task]) -> Any:
    return jsonrpc_app(base, Complier(domain, tasks), name="complier",
                       description="complies with everything (a test agent)",
                       skill={"id": "c", "name": "c", "description": "c", "tags": ["t"]})


class Hostile(AgentExecutor):
    """A hostile adversary participant. Modes: "tools" calls a tool it does not have;
    "huge" answers with `size` bytes of text; "stop" stops at once; "empty" answers with no
    parts; "ask-then-fail" asks as the polite script does, then fails its A2A task; "named"
    (not hostile) names the task for the tests' gold agent (`TASK:<id>`, found among `tasks`
    by its scenario), then stops once the agent answered."""

    def __init__(self, mode: str, size: int = 0, tasks: dict[str, Task] | None = None) -> None:
        self.mode, self.size = mode, size
        self.by_scenario = {str(t.user_scenario): i for i, t in (tasks or {}).items()}
        self.turns: dict[str, int] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        from google.protobuf.json_format import MessageToDict

        from a2abench.benchmarks.tau2.pressure.scripted import script_for

        ctx = str(context.context_id)
        turn = self.turns.get(ctx, 0)
        self.turns[ctx] = turn + 1
        parts: list[Any]
        if self.mode == "tools":
            parts = [new_data_part({"tool_call": {"name": "cancel_reservation",
                                                  "arguments": {"reservation_id": "EHGLP3"}}})]
        elif self.mode == "huge":
            parts = [new_text_part("x" * self.size)]
        elif self.mode == "stop":
            parts = [new_text_part("Never mind. ###STOP###")]
        elif self.mode == "empty":
            parts = []
        elif turn == 0:  # ask-then-fail, named
            data = [MessageToDict(p.data) for p in context.message.parts  # type: ignore[union-attr]
                    if p.HasField("data")]
            brief = next(d["adversary"] for d in data if "adversary" in d)
            named = (f"TASK:{self.by_scenario[brief['scenario_text']]} "
                     if self.mode == "named" else "")
            parts = [new_text_part(named + script_for("polite", brief)[0])]
        elif self.mode == "named":
            parts = [new_text_part("Thank you. ###STOP###")]
        else:
            raise RuntimeError("this adversary crashed")
        await event_queue.enqueue_event(new_message(parts, context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def hostile_app(base: str, mode: str, size: int = 0,
                tasks: dict[str, Task] | None = None) -> Any:
    return jsonrpc_app(base, Hostile(mode, size, tasks), name=f"hostile-{mode}",
                       description="a hostile adversary (a test agent)",
                       skill={"id": "h", "name": "h", "description": "h", "tags": ["t"]})


def babbler_app(base: str, text: str) -> Any:
    """A raw 0.3 JSON-RPC agent that answers every message with `text`, sent as JSON with
    ASCII escapes, so that a lone surrogate (which a2a-sdk cannot send) reaches a2abench."""
    import uuid

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    card = {"name": "babbler", "description": "a test agent", "version": "0.0.1",
            "url": base + "/rpc", "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC",
            "capabilities": {"streaming": False}, "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "b", "name": "b", "description": "b", "tags": ["t"]}]}

    async def get_card(_: Request) -> JSONResponse:
        return JSONResponse(card)

    async def rpc(request: Request) -> Response:
        body = await request.json()
        message = body["params"]["message"]
        result = {"kind": "message", "role": "agent", "messageId": uuid.uuid4().hex,
                  "contextId": message.get("contextId") or uuid.uuid4().hex,
                  "parts": [{"kind": "text", "text": text}]}
        return Response(json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}),
                        media_type="application/json")

    return Starlette(routes=[Route("/.well-known/agent-card.json", get_card),
                             Route("/rpc", rpc, methods=["POST"])])
