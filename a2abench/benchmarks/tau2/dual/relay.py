"""The user as an A2A participant (scenario dual): what it is sent, and its replies as tau2
user messages (docs/multi-agent.md, "The user participant").

Per task-trial the user participant has a conversation of its own (one contextId). Its
first message holds three parts: a text with the rules of the relay, then exactly the
system prompt upstream's user simulator receives (the guidelines, then the task's user
scenario in `<scenario>` tags) and, where the user has tools, their schemas in `<tools>`;
a `{"user_scenario": ...}` DataPart with the same as data (the structured instructions and
persona, the guidelines, the scenario text, the tools, the trial's seed, any conversation
so far); and, as its own text part, the agent's first message. Every later message is the
agent's next message, verbatim, as its only text part, or the results of the user's own
tool calls ("Tool result (id=...): ..." plus a `tool_results` DataPart, as the agent gets
them).

Replies: text goes to the agent as the user's words, as written (stop tokens included);
a DataPart `{"tool_call": ...}` / `{"tool_calls": [...]}` calls the user's tools (an `id`
is kept; `arguments` may be a JSON string), run in the user's environment exactly as the
built-in simulator's calls are. Whatever the participant fails to do (no reply, a failed
task, an empty or malformed reply) is its forfeit.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.actions import parse_reply
from a2abench.benchmarks.tau2.models import (
    AssistantMessage,
    Task,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from a2abench.benchmarks.tau2.prompt import as_list, render_history, render_tools, tool_result_parts
from a2abench.benchmarks.tau2.user_sim import OUT_OF_SCOPE, STOP, TRANSFER, system_prompt
from a2abench.plugin import AgentReply, Conversation, DataPart, Part, ProtocolError, TextPart
from a2abench.plugin.provisional import participant_input

RULES = """\
You are the customer in a customer-service conversation with an agent (tau2-bench, domain
{domain}). Play the customer that <scenario> below describes, following the guidelines that
come before it: together they are exactly what tau2-bench's own user simulator is told.

Rules of this conversation:
- What you write as text goes to the agent exactly as written, as your next message. The
  agent's messages reach you exactly as it wrote them, as the last text part of each message.
- To end the conversation, include one of the guidelines' tokens in your message:
  ###STOP### (your task is done), ###TRANSFER### (you are transferred to a human agent),
  ###OUT-OF-SCOPE### (the scenario does not cover what you are asked).
"""

TOOL_RULES = """\
- Your own tools, in <tools>, act on your side only (your device); the agent never sees your
  tool calls or their results. To call one, reply with a data part
  {"tool_call": {"name": "<tool>", "arguments": {...}}} (several: {"tool_calls": [...]});
  an "id" you give is kept, and "arguments" may be a JSON string. The results come back as
  "Tool result (id=<id>): <content>" lines with a data part {"tool_results": [...]}.
"""


def scenario_data(task: Task, domain: str, guidelines: str, seed: int,
                  tools: Sequence[dict[str, Any]], history: Sequence[Any]) -> dict[str, Any]:
    """The first message's `user_scenario` DataPart (see the module docstring)."""
    scenario = str(task.user_scenario)
    data: dict[str, Any] = {
        "user_scenario": task.user_scenario.model_dump(mode="json"),
        "scenario_text": scenario, "simulation_guidelines": guidelines,
        "system_prompt": system_prompt(guidelines, scenario), "domain": domain,
        "seed": seed, "stop_tokens": [STOP, TRANSFER, OUT_OF_SCOPE]}
    if tools:
        data["tools"] = as_list(list(tools))
    if history:  # tool-call arguments as JSON text: integers stay integers in a Struct
        data["history"] = [_dumped(m) for m in history]
    return data


def _dumped(message: Any) -> dict[str, Any]:
    out: dict[str, Any] = message.model_dump(mode="json")
    if out.get("tool_calls"):
        out["tool_calls"] = [{**c, "arguments": json.dumps(c["arguments"])}
                             for c in out["tool_calls"]]
    return out


def first_parts(task: Task, domain: str, guidelines: str, seed: int,
                tools: Sequence[dict[str, Any]], history: Sequence[Any]) -> list[Part]:
    """The preamble of the user participant's first message (the agent's words follow)."""
    prompt = system_prompt(guidelines, str(task.user_scenario))
    text = RULES.format(domain=domain) + (TOOL_RULES if tools else "") + "\n" + prompt
    if tools:
        text += "\n\n" + render_tools(list(tools))
    if history:
        text += "\n\n" + render_history(history)
    return [TextPart(text=text),
            DataPart(data=scenario_data(task, domain, guidelines, seed, tools, history))]


class ParticipantUser:
    """A user participant as a tau2 user: `respond(incoming) -> UserMessage`, as the built-in
    simulator (user_sim.UserSimulator), so the Orchestrator treats both alike. A call to a
    user tool the task does not allow runs, as the built-in simulator's would (it is
    counted as a violation, violations.py)."""

    def __init__(self, chat: Conversation, preamble: list[Part], participant: str, *,
                 parameters: dict[str, Any] | None = None) -> None:
        """`parameters`: the user tools' `parameters_by_tool` (DataPart numbers restored)."""
        self.chat = chat
        self.participant = participant
        self._preamble = list(preamble)
        self.parameters = parameters or {}
        self.pending: list[ToolCall] = []  # the user's calls whose results come next
        self.turns = 0

    async def respond(self, incoming: AssistantMessage | list[ToolMessage]) -> UserMessage:
        parts = [*self._preamble, *self._relay(incoming)]
        self._preamble = []
        reply = await self.chat.send(*parts)  # its failures are its Forfeit
        self.turns += 1
        with participant_input("user", self.participant, "reply"):
            message = user_message(reply, self.parameters)
        self.pending = list(message.tool_calls or [])
        return message

    def _relay(self, incoming: AssistantMessage | list[ToolMessage]) -> list[Part]:
        if isinstance(incoming, list):  # the results of its own tool calls
            return tool_result_parts(incoming, self.pending)
        return [TextPart(text=agent_words(incoming))]  # the agent's words, verbatim


def agent_words(incoming: AssistantMessage) -> str:
    """The agent's words as a participant is sent them. Text with a lone surrogate (JSON
    escapes allow one, UTF-8 cannot carry it) would make the request to the participant
    fail, its forfeit, leaving the match out of the agent's score: the agent's error."""
    text = incoming.content or ""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ProtocolError(f"the agent's message is not valid Unicode text (a lone "
                            f"surrogate at character {exc.start}), so it cannot be relayed",
                            hint="Send text that UTF-8 can encode.") from None
    return text


def user_message(reply: AgentReply, parameters: dict[str, Any]) -> UserMessage:
    """The participant's reply as a tau2 user message: text parts as written, DataPart tool
    calls tagged `requestor="user"`. An empty reply raises (its forfeit)."""
    said = parse_reply(reply, tools=parameters or None, tool_call_format="datapart")
    calls = [ToolCall(id=c.id, name=c.name, arguments=c.arguments, requestor="user")
             for c in said.tool_calls] if said.tool_calls is not None else None
    return UserMessage(content=said.content, tool_calls=calls)
