"""Solo mode (`run tau2 --solo`): upstream's `llm_agent_solo` with its `dummy_user`.

What upstream does (tau2-bench a2c0247: `LLMSoloAgent`, the half-duplex `Orchestrator` with
`solo_mode=True`, `Environment.set_solo_mode`, `evaluate_simulation(solo_mode=True)`):

* domains: mock and telecom only (airline and retail refuse solo mode); the policy is the
  domain's solo variant (mock `policy_solo.md`; telecom `main_policy_solo.md` with the manual,
  or with `tech_support_workflow_solo.md` under the workflow policy);
* tasks: those upstream's `check_valid_task` accepts (a ticket, evaluation criteria and at
  least one gold action; or an initial state whose history holds only tool calls/results);
* there is no user simulator and no greeting: the agent receives the policy, the ticket and
  every tool (its own, the user's, and `done`) and speaks first;
* the agent may only call tools; the user's tools run on the user's side of the environment;
* a `done` call ends the task (`agent_stop`): the message becomes the stop token and any
  other call in it is dropped; a text reply ends it as `agent_error` (scored 0), unless it
  holds the stop token;
* scoring is the usual one, with the trajectory replayed in solo mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.actions import EmptyReply, ToolCallFormat
from a2abench.benchmarks.tau2.environment import Tau2Environment
from a2abench.benchmarks.tau2.episode import AgentLink, Orchestrator, Role
from a2abench.benchmarks.tau2.models import (
    AssistantMessage,
    Task,
    TerminationReason,
    ToolMessage,
    UserMessage,
)
from a2abench.benchmarks.tau2.prompt import as_list, render_history, render_tools, reply_format
from a2abench.plugin import Conversation, DataPart, Part, TextPart

DONE = "done"  # upstream LLMSoloAgent.STOP_FUNCTION_NAME
STOP = "###STOP###"  # upstream LLMSoloAgent.STOP_TOKEN

DONE_SCHEMA: dict[str, Any] = {"type": "function", "function": {
    "name": DONE, "description": "Call this alone when the ticket is solved; it ends the task.",
    "parameters": {"properties": {}, "title": "parameters", "type": "object"}}}

SOLO_INSTRUCTIONS = """\
You are a customer service agent working on a support ticket, following the policy in
<policy> below. Nobody will answer messages: solve the ticket in <ticket> by calling the
tools in <tools>, which include the tools that act on the customer's side.

Rules of this task:
- Every reply must be tool calls; a reply with only text ends the task as a failure.
- Tool results come back to you; nothing else does.
- When the ticket is solved, reply with a single call to the `done` tool.
"""


def is_solo_task(task: Task) -> bool:
    """Upstream's `LLMSoloAgent.check_valid_task`, quirk included: a task with an initial
    state passes on its history alone, ticket or not."""
    if task.initial_state is not None:
        for message in task.initial_state.message_history or []:
            if isinstance(message, UserMessage):
                return False
            if isinstance(message, AssistantMessage) and not message.is_tool_call():
                return False
        return True
    if task.ticket is None or task.evaluation_criteria is None:
        return False
    return bool(task.evaluation_criteria.actions)


def solo_schemas(env: Tau2Environment) -> list[dict[str, Any]]:
    """The solo agent's tools: its own, the user's (as upstream, all of them), then `done`."""
    return [*env.agent_tool_schemas(), *env.domain.user_tool_schemas(), DONE_SCHEMA]


def solo_first_message(policy: str, schemas: Sequence[dict[str, Any]], ticket: str | None,
                       history: Sequence[Any] = (), *,
                       tool_call_format: ToolCallFormat = "any") -> list[Part]:
    """The whole first message of a solo run: there are no user words to follow."""
    # upstream formats the ticket into its prompt as is: a task without one shows "None"
    text = "\n".join([SOLO_INSTRUCTIONS, "<policy>", policy.strip(), "</policy>", "",
                      render_tools(schemas), "", reply_format(tool_call_format), "",
                      "<ticket>", str(ticket), "</ticket>"])
    if history:
        text += "\n\n" + render_history(history)
    return [TextPart(text=text), DataPart(data={"tools": as_list(schemas)})]


def solo_agent(chat: Conversation, env: Tau2Environment, task: Task, policy: str,
               history: Sequence[Any] = (), *,
               tool_call_format: ToolCallFormat = "any",
               schemas: list[dict[str, Any]] | None = None,
               tools: dict[str, Any] | None = None) -> AgentLink:
    """`schemas`: the run's `solo_schemas` when the caller keeps them (the same each time);
    `tools`: their `parameters_by_tool`, likewise."""
    schemas = schemas if schemas is not None else solo_schemas(env)
    preamble = solo_first_message(policy, schemas, task.ticket, history,
                                  tool_call_format=tool_call_format)
    return AgentLink(chat, policy, schemas, history, tool_call_format=tool_call_format,
                     preamble=preamble, tools=tools)


class SoloOrchestrator(Orchestrator):
    """The loop without a user: agent -> environment -> agent until `done` or a limit."""

    def __init__(self, env: Tau2Environment, agent: AgentLink, *,
                 history: Sequence[Any] = (), max_steps: int = 200,
                 max_errors: int = 10) -> None:
        self.env, self.agent = env, agent
        self.max_steps, self.max_errors = max_steps, max_errors
        self.steps = self.errors = 0
        self.done = False
        self.termination = TerminationReason.AGENT_STOP
        self.trajectory: list[Any] = list(history)
        # upstream generates the agent's first message while initializing (not a step)
        self._first = not history
        self.message: Any = None
        self.source, self.target = Role.ENV, Role.AGENT
        last = history[-1] if history else None
        if isinstance(last, ToolMessage):
            self.message = [m for m in history if isinstance(m, ToolMessage)][-1:]
        elif isinstance(last, AssistantMessage) and last.is_tool_call():
            self.message, self.source, self.target = last, Role.AGENT, Role.ENV

    async def step(self) -> None:
        if self.target is Role.AGENT:
            calls = self._pending_calls() if self.message else ()
            try:
                msg = await self.agent.respond(self.message, calls)
            except EmptyReply as exc:
                self.trajectory.append(exc.reply)
                raise
            if self.done:  # over MCP, `done` or a limit ended the task during the turn
                return
            if msg.tool_calls and any(c.name == DONE for c in msg.tool_calls):
                # upstream: a `done` call makes the whole message the stop token; other
                # calls in the same message are dropped, never executed
                msg.content, msg.tool_calls = STOP, None
            self.trajectory.append(msg)
            self.message, self.source = msg, Role.AGENT
            if msg.is_tool_call():
                self.target = Role.ENV
            else:
                self.target = Role.USER  # nobody there: the run ends
                self.done = True
                self.termination = (TerminationReason.AGENT_STOP if STOP in (msg.content or "")
                                    else TerminationReason.AGENT_ERROR)
        else:
            results = await self._execute(list(self.message.tool_calls))
            self.message = results
            self.source, self.target = Role.ENV, Role.AGENT
        if self._first:
            self._first = False
        else:
            self.steps += 1
        self.env.sync_tools()

    def _count_agent_step(self) -> None:
        # upstream generates the first message while initializing: not a step
        if self._first:
            self._first = False
        else:
            self.steps += 1

    def stop_over_mcp(self) -> None:
        """The agent called `done` over MCP: as the DataPart `done`, the stop token."""
        self.trajectory.append(AssistantMessage(content=STOP))
        self._count_agent_step()
        self.done, self.termination = True, TerminationReason.AGENT_STOP
