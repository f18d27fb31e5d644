"""tau2 with `--tool-channel mcp` (docs/mcp.md): the task-trial's tools as an MCP session.

The first A2A message keeps the instructions' role, the policy verbatim and the user's first
words, drops the `<tools>` and `<reply_format>` blocks, and carries the `{"mcp": ...}`
DataPart instead of the `tools` one. While the agent holds the turn its `tools/call`s run at
once through `Orchestrator.run_mcp_call`, so each enters the trajectory exactly as a
DataPart call would (same message shapes, same steps and error counts, same result text);
its A2A reply is what it says to the user, as text.

Banking (`banking_knowledge`): a discoverable tool the agent unlocked is listed as a tool of
its own from then on (`notifications/tools/list_changed` announces it); calling it is
recorded as upstream's `call_discoverable_agent_tool` with the arguments as JSON text, the
call the A2A channel makes for the same thing.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.actions import EmptyReply
from a2abench.benchmarks.tau2.episode import AgentLink, Orchestrator
from a2abench.benchmarks.tau2.models import AssistantMessage, ToolCall, ToolMessage
from a2abench.benchmarks.tau2.numbers import restore_integers
from a2abench.benchmarks.tau2.prompt import GREETING, render_history
from a2abench.benchmarks.tau2.solo import DONE, SoloOrchestrator
from a2abench.plugin import (
    AgentError,
    AgentReply,
    Conversation,
    DataPart,
    Part,
    TextPart,
    agent_input,
)
from a2abench.plugin.provisional import CallRejected, ToolResult, ToolSession, ToolSpec

INSTRUCTIONS = """\
You are a customer service agent. Help the user according to the policy in <policy> below,
using the tools of the MCP server named in <tools> when you need information or need to
change something.

Rules of this conversation:
- Call tools on the MCP server while you hold the turn, before you reply; each call runs at
  once and its result comes back as the call's result.
- Your reply is your message to the user, as written. The user cannot see tool calls or
  results.
- Only the user's words come back to you as messages.
- You already greeted the user with: "{greeting}"
"""

SOLO_INSTRUCTIONS = """\
You are a customer service agent working on a support ticket, following the policy in
<policy> below. Nobody will answer messages: solve the ticket in <ticket> by calling the
tools of the MCP server named in <tools>, which include the tools that act on the
customer's side.

Rules of this task:
- Call the tools while you hold the turn; each call runs at once.
- When the ticket is solved, call the `done` tool; it ends the task. Replying without
  calling it ends the task as a failure.
"""

DONE_TEXT = "The task has ended."  # what `done` answers (upstream never runs it)
_JSON_TYPES = {"str": "string", "string": "string", "int": "integer", "integer": "integer",
               "float": "number", "number": "number", "bool": "boolean",
               "boolean": "boolean", "list": "array", "array": "array", "dict": "object",
               "object": "object"}


def tools_block(url: str) -> str:
    return ("<tools>\nServed over MCP (Streamable HTTP) at " + url + " for this conversation "
            "only; connect with the URL and headers of this message's `mcp` data part.\n"
            "</tools>")


def first_parts(policy: str, url: str, pointer: dict[str, Any],
                history: Sequence[Any] = ()) -> list[Part]:
    """The preamble of a conversation's first message over MCP (the user's words follow)."""
    text = "\n".join([INSTRUCTIONS.format(greeting=GREETING), "<policy>", policy.strip(),
                      "</policy>", "", tools_block(url)])
    if history:
        text += "\n\n" + render_history(history)
    return [TextPart(text=text), DataPart(data=pointer)]


def solo_parts(policy: str, url: str, pointer: dict[str, Any], ticket: str | None,
               history: Sequence[Any] = ()) -> list[Part]:
    """The whole first message of a solo run over MCP."""
    # upstream formats the ticket into its prompt as is: a task without one shows "None"
    text = "\n".join([SOLO_INSTRUCTIONS, "<policy>", policy.strip(), "</policy>", "",
                      tools_block(url), "", "<ticket>", str(ticket), "</ticket>"])
    if history:
        text += "\n\n" + render_history(history)
    return [TextPart(text=text), DataPart(data=pointer)]


class McpAgentLink(AgentLink):
    """The agent over A2A with its tools over MCP: each A2A request holds the session's
    turn; the reply is text for the user (tool-call JSON in it is text too)."""

    def __init__(self, chat: Conversation, session: ToolSession, preamble: list[Part],
                 schemas: list[dict[str, Any]]) -> None:
        super().__init__(chat, "", schemas, preamble=preamble)
        self.session = session

    async def respond(self, incoming: Any, calls: Sequence[ToolCall] = ()) -> AssistantMessage:
        parts = list(self._preamble or [])
        if incoming is not None and not isinstance(incoming, list):
            parts.append(TextPart(text=incoming.content or ""))
        self._preamble = None
        try:
            async with self.session.turn():
                reply = await self.chat.send(*parts)
        except AgentError:
            if not self.session.ended:
                raise
            reply = None  # a call during the turn ended the conversation: the reply is moot
        self.turns += 1
        if reply is None or self.session.ended:
            return AssistantMessage(content=None)  # not used: the orchestrator has stopped
        reply.raise_for_state()
        with agent_input("reply"):
            return text_reply(reply)


def text_reply(reply: AgentReply) -> AssistantMessage:
    """The reply as a message to the user: its text parts joined as sent (a reply of data
    parts only: the first as JSON, as on the A2A channel); nothing at all is EmptyReply."""
    texts = [p.text for p in reply.parts if isinstance(p, TextPart)]
    text = "\n".join(texts) if texts else None
    if not (text or "").strip():
        if reply.data:
            return AssistantMessage(content=json.dumps(reply.data[0], ensure_ascii=False))
        raise EmptyReply(AssistantMessage(content=text))
    return AssistantMessage(content=text)


class Tau2Tools:
    """The `ToolBackend` of one tau2 task-trial (see the module docstring)."""

    def __init__(self, orchestrator: Orchestrator, schemas: list[dict[str, Any]],
                 session: ToolSession) -> None:
        self.orchestrator = orchestrator
        self.session = session
        self.specs = [_spec(s) for s in schemas]
        self.parameters = {s.name: s.input_schema for s in self.specs}
        self.mcp_messages: list[int] = []  # transcript indices of the calls made over MCP

    def _unlocked(self) -> dict[str, dict[str, Any]]:
        """Banking's unlocked discoverable agent tools: name -> upstream's tool info."""
        state = getattr(self.orchestrator.env.tools, "agent_tools_state", None)
        if not isinstance(state, dict):
            return {}
        return {name: entry["tool_info"] for name, entry in state.items()
                if name not in self.parameters}

    def tools(self) -> list[ToolSpec]:
        return self.specs + [_discovered_spec(info) for info in self._unlocked().values()]

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        orch = self.orchestrator
        if orch.done:
            raise CallRejected("ended", f"the conversation has ended "
                                        f"({orch.termination.value}); reply to finish")
        before = set(self._unlocked())
        call_id = f"call_{uuid.uuid4().hex[:12]}"
        if name in before:  # an unlocked discoverable tool, called by its own name
            call = ToolCall(id=call_id, name="call_discoverable_agent_tool", arguments={
                "agent_tool_name": name, "arguments": json.dumps(arguments)})
        else:
            with agent_input(f"tool call {name}"):
                arguments = restore_integers(arguments, self.parameters.get(name))
            call = ToolCall(id=call_id, name=name, arguments=arguments)
        if name == DONE and isinstance(orch, SoloOrchestrator):
            self.mcp_messages.append(len(orch.trajectory))
            orch.stop_over_mcp()
            self.session.ended = True
            return ToolResult(DONE_TEXT)
        self.mcp_messages.append(len(orch.trajectory))
        result: ToolMessage = await orch.run_mcp_call(call)
        self.session.ended = orch.done  # a limit reached: the turn's reply will not count
        return ToolResult(result.content or "", result.error,
                          tools_changed=set(self._unlocked()) != before)


def _spec(schema: dict[str, Any]) -> ToolSpec:
    function = schema.get("function", schema)
    return ToolSpec(function["name"], function.get("description") or "",
                    function.get("parameters") or {"type": "object", "properties": {}})


def _discovered_spec(info: dict[str, Any]) -> ToolSpec:
    """An unlocked banking tool from upstream's parsed docstring (what the unlock showed)."""
    properties: dict[str, Any] = {}
    required = []
    for name, param in info.get("parameters", {}).items():
        kind = _JSON_TYPES.get(str(param.get("type", "")).lower())
        properties[name] = {**({"type": kind} if kind else {}),
                            "description": param.get("description", "")}
        if param.get("required", True):
            required.append(name)
    return ToolSpec(info["name"], info.get("description", ""),
                    {"type": "object", "properties": properties, "required": required})


async def run_over_mcp(session: ToolSession, url: str, chat: Conversation,
                       make: Any, schemas: list[dict[str, Any]],
                       preamble: list[Part]) -> tuple[Any, list[int]]:
    """Play one conversation with its tools on `session`: `make(agent)` builds the
    orchestrator; returns its outcome and the transcript indices of the MCP calls."""
    agent = McpAgentLink(chat, session, preamble, schemas)
    orchestrator = make(agent)
    tools = Tau2Tools(orchestrator, schemas, session)
    session.backend = tools
    # banking's unlocked tools join the list: those sessions announce it (list_changed)
    session.announces = isinstance(getattr(orchestrator.env.tools, "agent_tools_state", None),
                                   dict)
    outcome = await orchestrator.run()
    return outcome, tools.mcp_messages
