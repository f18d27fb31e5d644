"""A real a2a-sdk white agent for tau2 end-to-end tests.

Modes: "gold" replays a task's gold actions (one DataPart tool call per turn), then says the
task's communicate_info; "text" does the same with its tool calls as bare JSON text, "tags"
with every reply as `<json>{"name", "arguments"}</json>` after a line of prose (`respond`
for its words); "solo" plays a solo run (the task named by the ticket in its first message):
every gold action as its own call, then `done`; "solo-text" answers a solo run with text;
"solo-mixed" sends its first gold call together with `done`; "silent" only ever answers
politely; "malformed" sends a tool call without a name; "empty" answers with no parts at
all. The task is named by the user's first words ("TASK:<id>"), which the fake user LLM says.
"team" plays a team's front agent (scenario team): a gold call whose tool is not in its
first message's tools is delegated to the specialist as an exact request (the reference
front agent's wording); given every tool (the solo baseline) it is "gold". "team-pad" pads
each such request to 4,000 bytes.
Modes "mcp", "mcp-alias" and "mcp-solo" play the same over MCP (mcp_gold.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from a2a.helpers import new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette

from a2abench.benchmarks.tau2.models import Task
from tests.tau2.mcp_gold import McpGold


class GoldExecutor(AgentExecutor):
    def __init__(self, tasks: dict[str, Task], mode: str,
                 plans: dict[str, list[tuple[str, dict[str, Any]]]] | None = None) -> None:
        self.tasks, self.mode = tasks, mode
        self.plans = plans or {}  # task id -> (tool, arguments) when gold actions fall short
        self.progress: dict[str, tuple[str, int]] = {}  # context -> (task id, next action)
        self.known: dict[str, set[str]] = {}  # context -> the tool names it was given
        self.first_messages: list[str] = []
        self.mcp = McpGold(tasks, mode, self.plans, self.first_messages)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input() if context.message else ""
        ctx = context.context_id
        if self.mode.startswith("mcp"):
            parts = await self.mcp.turn(ctx, text, context.message)
            await event_queue.enqueue_event(new_message(parts, context_id=ctx))
            return
        if ctx not in self.progress:
            self.first_messages.append(text)
            match = re.search(r"TASK:(\S+)", text)
            ticket = re.search(r"<ticket>\n(.*?)\n</ticket>", text, re.S)
            by_ticket = {str(t.ticket): i for i, t in self.tasks.items()}
            task_id = (match.group(1) if match else
                       by_ticket.get(ticket.group(1), "?") if ticket else "?")
            self.progress[ctx] = (task_id, 0)
            self.known[ctx] = set(re.findall(r'"name": "(\w+)"', text))
        task_id, step = self.progress[ctx]
        parts = self._reply(task_id, step, self.known.get(ctx, set()))
        self.progress[ctx] = (task_id, step + 1)
        await event_queue.enqueue_event(new_message(parts, context_id=ctx))

    def _reply(self, task_id: str, step: int, known: Collection[str] = ()) -> list[Any]:
        if self.mode == "silent":
            return [new_text_part("I am sorry, I cannot help with that.")]
        if self.mode == "malformed":
            return [new_data_part({"tool_call": {"arguments": {"x": 1}}})]
        if self.mode == "empty":
            return []
        if self.mode.startswith("solo"):
            return self._solo(task_id, step)
        task = self.tasks[task_id]
        actions = self.plans.get(task_id) or [
            (a.name, a.arguments) for a in (task.evaluation_criteria.actions or [])  # type: ignore[union-attr]
            if a.requestor == "assistant"]
        said = " ".join(task.evaluation_criteria.communicate_info or [])  # type: ignore[union-attr]
        words = f"All done. {said}".strip()
        if step < len(actions):
            name, arguments = actions[step]
            call = {"name": name, "arguments": arguments}
            if self.mode == "text":
                return [new_text_part(json.dumps(call))]
            if self.mode == "tags":
                return [new_text_part(f"Let me do that.\n<json>{json.dumps(call)}</json>")]
            if self.mode in ("team", "team-pad") and "delegate" in known and name not in known:
                from a2abench.benchmarks.tau2.team.reference import request

                pad = " " * (4000 - len(request(name, arguments))) if self.mode == "team-pad" \
                    else ""  # "team-pad": a 4,000-byte message (the byte budget nearly spent)
                call = {"name": "delegate", "arguments": {
                    "to": "specialist", "message": request(name, arguments) + pad}}
            return [new_data_part({"tool_call": call})]
        if self.mode == "tags":
            respond = {"name": "respond", "arguments": {"content": words}}
            return [new_text_part(f"Replying.\n<json>{json.dumps(respond)}</json>")]
        return [new_text_part(words)]

    def _solo(self, task_id: str, step: int) -> list[Any]:
        if self.mode == "solo-text":
            return [new_text_part("I have solved the ticket.")]
        calls = [{"name": a.name, "arguments": a.arguments}
                 for a in self.tasks[task_id].evaluation_criteria.actions or []]  # type: ignore[union-attr]
        done = {"name": "done", "arguments": {}}
        if self.mode == "solo-mixed":
            return [new_data_part({"tool_calls": [*calls[:1], done]})]
        return [new_data_part({"tool_call": calls[step] if step < len(calls) else done})]

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def app(base: str, tasks: dict[str, Task], mode: str = "gold",
        plans: dict[str, list[tuple[str, dict[str, Any]]]] | None = None
        ) -> tuple[Starlette, GoldExecutor]:
    card = AgentCard(
        name=f"tau2-{mode}", description="test agent", version="1.0",
        capabilities=AgentCapabilities(streaming=False), default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="t", name="t", description="t", tags=["t"])],
        supported_interfaces=[AgentInterface(url=base + "/a2a", protocol_binding="JSONRPC",
                                             protocol_version="1.0")])
    executor = GoldExecutor(tasks, mode, plans)
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(),
                                    agent_card=card)
    return Starlette(routes=[*create_agent_card_routes(card),
                             *create_jsonrpc_routes(handler, rpc_url="/a2a")]), executor


def gold_user(tasks: dict[str, Task], run_seed: int = 300) -> Any:
    """A fake-user-LLM handler that plays each task's user side: its own gold tool calls one
    at a time, then `TASK:<id>`, then `###STOP###` once the agent has answered."""
    from a2abench.run.config import trial_seed
    from tests.fakes.llm_server import completion

    seeds = {trial_seed(run_seed, i, 0): i for i in tasks}

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        task = tasks[seeds[body["seed"]]]
        move, action = user_move(task, [m for m in body["messages"] if m["role"] == "assistant"])
        if action is not None:
            return completion(None, [{"name": action.name, "arguments": action.arguments}])
        return completion(f"TASK:{task.id} I need help." if move == "name"
                          else "Thank you. ###STOP###")

    return handler


def user_move(task: Task, mine: list[dict[str, Any]]) -> tuple[str, Any]:
    """A scripted user's next move from its own past messages (OpenAI shape): its gold tool
    calls one at a time ("call", the action), then naming the task ("name", None), then
    stopping ("stop", None)."""
    done = sum(len(m.get("tool_calls") or []) for m in mine)
    todo = [a for a in task.evaluation_criteria.actions or []  # type: ignore[union-attr]
            if a.requestor == "user"]
    if done < len(todo):
        return "call", todo[done]
    if not any((m.get("content") or "").startswith("TASK:") for m in mine):
        return "name", None
    return "stop", None


def run_banking_gold(tasks: dict[str, Task], out: Any, llm_base_url: str, data_dir: Any,
                     *flags: str) -> list[dict[str, Any]]:
    """`run tau2 --domain banking_knowledge` of `tasks` against the gold agent, with the user
    (and any retrieval model) on the fake LLM at `llm_base_url`; returns the records written
    to `out` after checking the command exited 0."""
    from tests.clihelp import run_cli
    from tests.servers import serve

    ids = [arg for task_id in tasks for arg in ("--task-ids", task_id)]
    with serve(lambda base: app(base, tasks, "gold")[0]) as base:
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", "banking_knowledge",
                    *flags, "--data-dir", str(data_dir), "--user-llm", "fake",
                    "--user-llm-base-url", llm_base_url, "--output", str(out), *ids)
    assert r.code == 0, r.err
    return [json.loads(line) for line in out.read_text().splitlines()]
