"""The specialist's own tools over MCP (`--tool-channel mcp`, scenario team on tau2): the
channel the front agent and a dual user participant have (docs/mcp.md), with a session of
its own per match, bound to the specialist's conversation.

Its first message names the session (an `{"mcp": ...}` DataPart; the `<tools>` block says
where) instead of listing the tools; the `team` DataPart still carries their schemas. While
its A2A request for a delegation is in flight it holds the session's turn, and each
`tools/call` runs at once in the match's environment, exactly as its DataPart calls would:
an assistant tool call without words after the front agent's `delegate` result, replayed
by upstream's evaluator; its errors count towards `--max-errors`. Each call is one of its
rounds (`--max-specialist-turns` per delegation: past it, its forfeit), and its result counts
towards `--max-delegation-bytes` (run out: the delegation ends, BudgetSpent). Its A2A reply,
as text, is its answer to the front agent.
"""

from __future__ import annotations

import uuid
from typing import Any

from a2abench.benchmarks.tau2.mcp_tools import text_reply, tools_block
from a2abench.benchmarks.tau2.models import ToolCall
from a2abench.benchmarks.tau2.numbers import restore_integers
from a2abench.benchmarks.tau2.team.specialist import RunCalls, reply_size
from a2abench.plugin import Conversation, DataPart, Part, TextPart
from a2abench.plugin.provisional import (
    SPECIALIST,
    BudgetSpent,
    CallRejected,
    Delegations,
    ToolResult,
    ToolSession,
    ToolSpec,
    participant_input,
)

RULES = """\
You are the specialist of a customer-service team (tau2-bench, domain {domain}). A front
agent talks to the customer and sends you requests; you hold the tools of the MCP server
named in <tools>, including those that change records, and act on its requests. You never
talk to the customer.

Rules of this conversation:
- Each message from the front agent is its request, as the last text part.
- Call the tools on the MCP server while you hold the turn (until you reply to the
  request); each call runs at once and its result comes back as the call's result. At most
  {turns} calls per request, within {timeout:g} s.
- Your reply, as text, is your answer: the front agent receives it as the result of its
  request.

"""


class SpecialistTools:
    """The `ToolBackend` of the specialist's session: every agent tool of the domain; a call
    runs only within a delegation (`handle` opens it), as one of its rounds."""

    def __init__(self, schemas: list[dict[str, Any]], parameters: dict[str, Any],
                 session: ToolSession, participant: str) -> None:
        self.specs = [ToolSpec(s["function"]["name"], s["function"].get("description") or "",
                               s["function"].get("parameters") or {"type": "object"})
                      for s in schemas]
        self.parameters, self.session, self.participant = parameters, session, participant
        self.run: RunCalls | None = None
        self.budget: Delegations | None = None
        self.rounds = 0

    def tools(self) -> list[ToolSpec]:
        return self.specs

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        run, budget = self.run, self.budget
        if run is None or budget is None:
            raise CallRejected("outside_turn", "no request of the front agent is open")
        budget.turn_allowed(self.rounds)  # past --max-specialist-turns: its forfeit
        self.rounds += 1
        with participant_input(SPECIALIST, self.participant, f"tool call {name}"):
            arguments = restore_integers(arguments, self.parameters.get(name))
        call = ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=name, arguments=arguments)
        budget.stats.specialist_tool_calls += 1
        (result,) = await run([call])
        try:
            budget.sent(result.content or "")
        except BudgetSpent as exc:  # the delegation ends once it replies (handle)
            raise CallRejected("budget", exc.message) from None
        return ToolResult(result.content or "", result.error)


class McpRemoteSpecialist:
    """A specialist participant whose tools are on its MCP session: each delegation is one
    A2A request, during which it calls them; its reply is the answer."""

    def __init__(self, chat: Conversation, participant: str, preamble: list[Part],
                 tools: SpecialistTools) -> None:
        self.chat, self.participant, self.tools = chat, participant, tools
        self._preamble = list(preamble)

    async def handle(self, message: str, run: RunCalls, budget: Delegations) -> str:
        parts: list[Part] = [*self._preamble, TextPart(text=message)]
        self._preamble = []
        tools = self.tools
        tools.run, tools.budget, tools.rounds = run, budget, 0
        try:
            reply = await budget.mcp_reply(tools.session.turn(),
                                           lambda: self.chat.send(*parts))
        finally:
            tools.run = tools.budget = None
        budget.received(reply_size(reply))
        with participant_input(SPECIALIST, self.participant, "reply"):
            return text_reply(reply).content or ""


def mcp_parts(domain: str, schemas: list[dict[str, Any]], turns: int, timeout: float,
              url: str, pointer: dict[str, Any]) -> list[Part]:
    """The preamble of the specialist's first message over MCP (the request follows)."""
    text = RULES.format(domain=domain, turns=turns, timeout=timeout) + tools_block(url)
    return [TextPart(text=text), DataPart(data={"team": {
        "role": "specialist", "domain": domain,
        "tools": [s.get("function", s) for s in schemas]}}), DataPart(data=pointer)]


def specialist_over(chat: Conversation, participant: str, session: ToolSession, url: str,
                    domain: str, schemas: list[dict[str, Any]], parameters: dict[str, Any],
                    turns: int, timeout: float) -> McpRemoteSpecialist:
    """The seat's remote specialist with its tools on `session` (its own)."""
    tools = SpecialistTools(schemas, parameters, session, participant)
    session.backend = tools
    return McpRemoteSpecialist(chat, participant, mcp_parts(
        domain, schemas, turns, timeout, url, session.pointer(url)), tools)
