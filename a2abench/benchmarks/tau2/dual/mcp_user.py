"""The user participant's own tools over MCP (`--tool-channel mcp`, scenario dual): the same
channel as the agent's (docs/mcp.md), with a session of its own per match.

Its first message names the session (an `{"mcp": ...}` DataPart, the `<tools>` block says
where) instead of listing the tools; while its A2A request is in flight it holds the
session's turn, and each `tools/call` runs at once in the user's environment through
`Orchestrator.run_user_mcp_call`, entering the trajectory exactly as a DataPart call would
(the user's call message, a step; its result, a step). Its A2A reply is its words to the
agent, as text.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.dual.relay import TOOL_RULES, ParticipantUser
from a2abench.benchmarks.tau2.episode import Orchestrator
from a2abench.benchmarks.tau2.mcp_tools import text_reply, tools_block
from a2abench.benchmarks.tau2.models import AssistantMessage, ToolCall, ToolMessage, UserMessage
from a2abench.benchmarks.tau2.numbers import restore_integers
from a2abench.plugin import Conversation, DataPart, Part, TextPart
from a2abench.plugin.provisional import (
    CallRejected,
    Forfeit,
    ToolResult,
    ToolSession,
    ToolSpec,
    participant_input,
)

MCP_TOOL_RULES = """\
- Your own tools act on your side only (your device); the agent never sees your tool calls
  or their results. They are served over MCP (see <tools>): call them while you hold the
  turn, before you reply; each call runs at once and its result comes back as the call's
  result. Your reply is your message to the agent, as text.
"""


class UserTools:
    """The `ToolBackend` of a user participant's session: the user tools its task allows
    are listed; a call runs as the built-in simulator's calls run."""

    def __init__(self, schemas: Sequence[dict[str, Any]], parameters: dict[str, Any],
                 session: ToolSession, participant: str) -> None:
        self.specs = [ToolSpec(s["function"]["name"], s["function"].get("description") or "",
                               s["function"].get("parameters") or {"type": "object"})
                      for s in schemas]
        self.parameters = parameters
        self.session = session
        self.participant = participant
        self.orchestrator: Orchestrator | None = None  # set once the match is built

    def tools(self) -> list[ToolSpec]:
        return self.specs

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        orch = self.orchestrator
        if orch is None or orch.done:
            raise CallRejected("ended", "the conversation has ended; reply to finish")
        with participant_input("user", self.participant, f"tool call {name}"):
            arguments = restore_integers(arguments, self.parameters.get(name))
        call = ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=name, arguments=arguments,
                        requestor="user")
        result: ToolMessage = await orch.run_user_mcp_call(call)
        self.session.ended = orch.done  # a limit reached: the turn's reply will not count
        return ToolResult(result.content or "", result.error)


def mcp_preamble(preamble: list[Part], url: str, pointer: dict[str, Any]) -> list[Part]:
    """The first message's parts with the tools served over MCP: the `<tools>` block says
    where, the DataPart `mcp` names the session. The `user_scenario` data keeps the tools'
    schemas (what an LLM user is given), callable over MCP only."""
    text, data = preamble[0], preamble[1]
    assert isinstance(text, TextPart) and isinstance(data, DataPart)
    head, _, rest = text.text.partition("<tools>")
    body = (head + tools_block(url) + rest.partition("</tools>")[2]).replace(
        TOOL_RULES, MCP_TOOL_RULES)
    return [TextPart(text=body), data, DataPart(data=pointer)]


class McpParticipantUser(ParticipantUser):
    """A user participant whose tools are on an MCP session: each A2A request holds the
    session's turn; the reply is its words (tool-call JSON in it is words too)."""

    def __init__(self, chat: Conversation, preamble: list[Part], participant: str,
                 tools: UserTools) -> None:
        super().__init__(chat, preamble, participant)
        self.backend = tools

    async def respond(self, incoming: AssistantMessage | list[ToolMessage]) -> UserMessage:
        parts = [*self._preamble, *self._relay(incoming)]
        self._preamble = []
        session = self.backend.session
        try:
            async with session.turn():
                reply = await self.chat.send(*parts)  # its failures are its Forfeit
        except Forfeit:
            if not session.ended:
                raise
            reply = None  # a call during the turn ended the conversation
        self.turns += 1
        if reply is None or session.ended:
            return UserMessage(content=None)  # not used: the orchestrator has stopped
        with participant_input("user", self.participant, "reply"):
            said = text_reply(reply)
        return UserMessage(content=said.content)


def bind(user: Any, orchestrator: Orchestrator) -> Orchestrator:
    """Give an MCP user's tools the match they run in (other users need nothing)."""
    if isinstance(user, McpParticipantUser):
        user.backend.orchestrator = orchestrator
        user.backend.session.backend = user.backend
    return orchestrator
