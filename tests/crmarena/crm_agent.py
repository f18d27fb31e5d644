"""A real a2a-sdk white agent for CRMArena end-to-end tests.

It finds its task in the first message (the query and context it contains, or "TASK:<idx>"
from a simulated user) and then follows a policy:
- "oracle": answers with the ground truth at once (tags, JSON text or a DataPart by turns);
- "sql": runs a SOSL search (JSON, braces inside), a date-relative SOQL count when the task
  states a date, then looks its answer's Ids up with SOQL and answers with the Ids the org
  returned (non-Id answers are given as they are);
- "junk": an unparseable reply, an empty reply, then the oracle's answer;
- "chatty": answers in a sentence ("The answer is X."), so only extraction can match;
- "ask": interactive; asks the user a question first, then answers;
- "team": a team's front agent (scenario team): delegates the task's context and question
  to the specialist, then answers with the specialist's answer verbatim; given the query
  tools (the solo baseline) it is "oracle";
- "mcp-oracle", "mcp-sql": the same over MCP (--tool-channel mcp): the "sql" plan's queries
  as `soql_query` / `sosl_search` calls, then the answer as plain text; `mcp_results` keeps
  what each call returned (as a team's specialist too: its own session's calls);
  "mcp-check" makes the same queries, then answers with the ground truth (an org whose Ids
  differ from the task's cannot make it wrong);
- "mcp-team": "team" over MCP: the `delegate` tool with the task's question, then the
  specialist's answer as text (`tool_lists` keeps the tools it was offered).
A suffix names the MCP client's protocol ("mcp-sql@2026-07-28", "mcp-sql@legacy";
a2abench.mcp.client `Protocol`), kept per task in `mcp_protocols`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from a2a.helpers import get_data_parts, new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette

from a2abench.benchmarks.crmarena.tasks import CRMTask
from a2abench.mcp.client import Protocol, connect, find_pointer, result_text

REFUSAL = "I'm sorry, I cannot share that because of privacy and confidentiality policies."
OBJECT_BY_PREFIX = {"005": "User", "01t": "Product2", "ka0": "Knowledge__kav",
                    "a03": "Issue__c", "00T": "Task"}
DATE_QUERY = "SELECT COUNT(Id) n FROM Case WHERE CreatedDate = LAST_N_DAYS:90"


@dataclass
class State:
    task: CRMTask | None = None
    turn: int = 0
    inbox: list[str] = field(default_factory=list)
    pointer: dict[str, Any] | None = None


def answer_text(task: CRMTask) -> str:
    if task.reward_metric == "privacy_rejection":
        return REFUSAL
    return ", ".join(task.answer)


def oracle_reply(task: CRMTask) -> tuple[str, dict[str, Any] | None]:
    """The ground truth as tags, as JSON text, or as a DataPart (text, data), by idx."""
    answer = answer_text(task)
    style = task.idx % 3
    if style == 0:
        return f"<thought>I know it.</thought>\n<respond>{answer}</respond>", None
    if style == 1:
        return json.dumps({"action": "respond", "answer": answer}), None
    return "", {"action": "respond", "answer": answer}


class CRMExecutor(AgentExecutor):
    def __init__(self, tasks: Sequence[CRMTask], mode: str) -> None:
        mode, _, protocol = mode.partition("@")
        self.tasks, self.mode = list(tasks), mode
        self.protocol: Protocol = protocol or "auto"  # type: ignore[assignment]
        self.mcp_protocols: dict[int, str] = {}
        self.by_idx = {t.idx: t for t in tasks}
        self.by_query: dict[str, list[CRMTask]] = {}  # first messages name a query: no scan
        for t in tasks:
            self.by_query.setdefault(t.query.strip(), []).append(t)
        self.states: dict[str, State] = {}
        self.first_messages: list[str] = []
        self.mcp_results: dict[int, list[str]] = {}
        self.tool_lists: dict[int, list[list[str]]] = {}  # "mcp-team": what it was offered

    def identify(self, text: str) -> CRMTask | None:
        found = re.search(r"TASK:(\d+)", text)
        if found:
            return self.by_idx[int(found.group(1))]
        query = text.rsplit("# Question\n", 1)[-1].strip()
        return next((t for t in self.by_query.get(query, ())
                     if t.required.strip() in text), None)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input() if context.message else ""
        state = self.states.setdefault(context.context_id, State())
        if state.task is None:
            self.first_messages.append(text)
            state.task = self.identify(text)
            state.pointer = find_pointer(get_data_parts(list(context.message.parts))
                                         if context.message else [])
        state.inbox.append(text)
        parts = await self._mcp(state) if self.mode.startswith("mcp") else self.reply(state)
        state.turn += 1
        await event_queue.enqueue_event(new_message(parts, context_id=context.context_id))

    def reply(self, state: State) -> list[Any]:
        task = state.task
        assert task is not None, "the agent could not find its task in the first message"
        return getattr(self, f"_{self.mode}")(state, task)

    def _oracle(self, state: State, task: CRMTask) -> list[Any]:
        text, data = oracle_reply(task)
        return [new_data_part(data)] if data is not None else [new_text_part(text)]

    def _sql(self, state: State, task: CRMTask) -> list[Any]:
        plan = self._sql_plan(task)
        if state.turn < len(plan):
            return [new_text_part(plan[state.turn])]
        ids = re.findall(r"'Id': '([A-Za-z0-9]{18})'", state.inbox[-1])
        answer = ", ".join(ids) if ids and self._lookup(task) else answer_text(task)
        return [new_text_part(json.dumps({"action": "respond", "answer": answer}))]

    def _sql_plan(self, task: CRMTask) -> list[str]:
        plan = [json.dumps({"action": "execute",
                            "query": "FIND {policy} RETURNING Knowledge__kav(Id, Title)"})]
        if task.today is not None:
            plan.append(f"<execute>{DATE_QUERY}</execute>")
        lookup = self._lookup(task)
        if lookup:
            plan.append(f"<thought>Check the Ids.</thought><execute>{lookup}</execute>")
        return plan

    @staticmethod
    def _lookup(task: CRMTask) -> str | None:
        objects = {OBJECT_BY_PREFIX.get(a[:3]) for a in task.answer}
        if len(objects) != 1 or None in objects or task.reward_metric != "exact_match":
            return None
        quoted = ", ".join(f"'{a}'" for a in task.answer)
        return f"SELECT Id FROM {objects.pop()} WHERE Id IN ({quoted}) ORDER BY Id"

    async def _mcp(self, state: State) -> list[Any]:
        task = state.task
        assert task is not None and state.pointer is not None
        answer = answer_text(task)
        if self.mode == "mcp-team":
            return [new_text_part(await self._mcp_team(state.pointer, task))]
        if self.mode in ("mcp-sql", "mcp-check"):
            got = self.mcp_results.setdefault(task.idx, [])
            async with connect(state.pointer, protocol=self.protocol) as client:
                self.mcp_protocols[task.idx] = client.protocol_version
                for query in self._sql_queries(task):
                    tool = "sosl_search" if query.startswith("FIND") else "soql_query"
                    got.append(result_text(await client.call_tool(tool, {"query": query})))
            ids = re.findall(r"'Id': '([A-Za-z0-9]{18})'", got[-1])
            if ids and self._lookup(task) and self.mode == "mcp-sql":
                answer = ", ".join(ids)
        return [new_text_part(answer)]

    async def _mcp_team(self, pointer: dict[str, Any], task: CRMTask) -> str:
        """A team's front agent over MCP: delegates the question when its tools are
        `delegate`, answers with the specialist's answer; given the query tools (the solo
        baseline) it answers as the oracle. `tool_lists` keeps each task's tool names."""
        from a2abench.benchmarks.crmarena.team import SPECIALIST_PREFIX, question

        async with connect(pointer) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            self.tool_lists.setdefault(task.idx, []).append(names)
            if "delegate" not in names:
                return answer_text(task)
            result = await client.call_tool("delegate", {"to": "specialist",
                                                         "message": question(task)})
        return result_text(result).removeprefix(SPECIALIST_PREFIX)

    def _sql_queries(self, task: CRMTask) -> list[str]:
        queries = []
        for step in self._sql_plan(task):
            found = re.search(r"<execute>(.*?)</execute>", step, re.S)
            queries.append(found.group(1) if found else json.loads(step)["query"])
        return queries

    def _junk(self, state: State, task: CRMTask) -> list[Any]:
        if state.turn == 0:
            return [new_text_part("Let me think about the best way to do this.")]
        if state.turn == 1:
            return []
        return self._oracle(state, task)

    def _team(self, state: State, task: CRMTask) -> list[Any]:
        from a2abench.benchmarks.crmarena.team import SPECIALIST_PREFIX, question

        if '"action": "delegate"' not in state.inbox[0]:
            return self._oracle(state, task)
        last = state.inbox[-1]
        if last.startswith(SPECIALIST_PREFIX):
            answer = last[len(SPECIALIST_PREFIX):]
            return [new_text_part(json.dumps({"action": "respond", "answer": answer}))]
        return [new_data_part({"action": "delegate", "to": "specialist",
                               "message": question(task)})]

    def _chatty(self, state: State, task: CRMTask) -> list[Any]:
        return [new_text_part(f"<respond>The answer is {answer_text(task)}.</respond>")]

    def _ask(self, state: State, task: CRMTask) -> list[Any]:
        if state.turn == 0:
            return [new_text_part("<respond>Could you tell me which period you mean?</respond>")]
        return [new_text_part(f"<respond>{answer_text(task)}</respond>")]

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def app(base: str, tasks: Sequence[CRMTask], mode: str) -> tuple[Starlette, CRMExecutor]:
    card = AgentCard(
        name=f"crm-{mode}", description="test agent", version="1.0",
        capabilities=AgentCapabilities(streaming=False), default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="t", name="t", description="t", tags=["t"])],
        supported_interfaces=[AgentInterface(url=base + "/a2a", protocol_binding="JSONRPC",
                                             protocol_version="1.0")])
    executor = CRMExecutor(tasks, mode)
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(),
                                    agent_card=card)
    return Starlette(routes=[*create_agent_card_routes(card),
                             *create_jsonrpc_routes(handler, rpc_url="/a2a")]), executor
