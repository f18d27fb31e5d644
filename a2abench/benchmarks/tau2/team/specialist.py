"""Who plays the specialist of a tau2 team match, and what it is sent.

A remote specialist has one conversation per match (its own contextId). Its first message
holds the rules, its tools in `<tools>` (every agent tool of the domain), a DataPart
`{"team": {"role": "specialist", "domain", "tools"}}`, and the front agent's message as the
last text part; each later delegation is the front agent's message alone. It replies with
tool calls (a DataPart `{"tool_call": ...}` / `{"tool_calls": [...]}`, or a whole-text call
JSON), which run in the match's environment, their results coming back as "Tool result
(id=...): ..." lines with a `tool_results` DataPart, or with text: its answer, which the
front agent gets as the `delegate` result. Whatever it fails to do is its forfeit.

The reference specialist (`gold_specialist`) needs no model: it runs exactly the calls a
message carries as JSON (`{"tool_call": ...}` / `{"tool_calls": [...]}`), in order, and
reports their results; a message without one gets an answer saying so.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from a2abench.benchmarks.tau2.actions import call_id, parse_reply
from a2abench.benchmarks.tau2.models import ToolCall, ToolMessage
from a2abench.benchmarks.tau2.prompt import render_tools, tool_result_parts
from a2abench.plugin import DEFAULT_MAX_DEPTH, AgentReply, Conversation, DataPart, Part, TextPart
from a2abench.plugin.provisional import (
    DEFAULT_MAX_TOOL_CALLS,
    Delegations,
    participant_input,
    raw_decode,
)

RunCalls = Callable[[list[ToolCall]], Awaitable[list[ToolMessage]]]
NO_CALLS = ("I run tool calls given as JSON in the message, {\"tool_call\": {\"name\": ..., "
            "\"arguments\": {...}}}; this message has none, so I did nothing.")

RULES = """\
You are the specialist of a customer-service team (tau2-bench, domain {domain}). A front
agent talks to the customer and sends you requests; you hold the tools below, including
those that change records, and act on its requests. You never talk to the customer.

Rules of this conversation:
- Each message from the front agent is its request, as the last text part.
- To call a tool, reply with a data part {{"tool_call": {{"name": "<tool>", "arguments":
  {{...}}}}}} (several: {{"tool_calls": [...]}}); the results come back as "Tool result
  (id=<id>): <content>" lines with a data part {{"tool_results": [...]}}.
- Reply with text when you are done: the front agent receives your text as the answer to
  its request. At most {turns} replies per request, within {timeout:g} s.

"""


class Specialist(Protocol):
    """The specialist seat: one request in, its answer out; `run` runs its tool calls."""

    async def handle(self, message: str, run: RunCalls, budget: Delegations) -> str: ...


def requested_calls(text: str) -> list[dict[str, Any]]:
    """The calls a message carries as JSON objects (`{"tool_call": {...}}` or
    `{"tool_calls": [...]}`), in order; malformed ones are skipped."""
    found: list[dict[str, Any]] = []
    position = 0
    while (start := text.find("{", position)) != -1 and len(found) < DEFAULT_MAX_TOOL_CALLS:
        try:
            obj, position = raw_decode(text, start, DEFAULT_MAX_DEPTH, what="a request")
        except ValueError:
            position = start + 1
            continue
        items = ([obj.get("tool_call")] if isinstance(obj, dict) and "tool_call" in obj
                 else obj.get("tool_calls") if isinstance(obj, dict) else None)
        for item in items if isinstance(items, list) else []:
            if (isinstance(item, dict) and isinstance(item.get("name"), str)
                    and isinstance(item.get("arguments", {}), dict)):
                found.append({"name": item["name"], "arguments": item.get("arguments", {})})
    return found[:DEFAULT_MAX_TOOL_CALLS]


def report(results: Sequence[ToolMessage], calls: Sequence[ToolCall]) -> str:
    """The executor's answer: each call and its result, one per line."""
    names = {c.id: c.name for c in calls}
    return "\n".join(f"{names.get(r.id, '?')}: {'ERROR: ' if r.error else ''}{r.content}"
                     for r in results)


class GoldSpecialist:
    """The reference specialist: runs the calls it is given, exactly, and reports."""

    async def handle(self, message: str, run: RunCalls, budget: Delegations) -> str:
        asked = requested_calls(message)
        if not asked:
            return NO_CALLS
        calls = [ToolCall(id=call_id(), name=c["name"], arguments=dict(c["arguments"]))
                 for c in asked]
        budget.stats.specialist_tool_calls += len(calls)
        return report(await run(calls), calls)


class RemoteSpecialist:
    """A specialist participant over A2A (see the module docstring)."""

    def __init__(self, chat: Conversation, participant: str, preamble: list[Part],
                 parameters: dict[str, Any]) -> None:
        self.chat = chat
        self.participant = participant
        self._preamble = list(preamble)
        self.parameters = parameters

    async def handle(self, message: str, run: RunCalls, budget: Delegations) -> str:
        parts: list[Part] = [*self._preamble, TextPart(text=message)]
        self._preamble = []
        turns = 0
        while True:
            budget.turn_allowed(turns)
            reply = await self.chat.send(*parts)  # its failures are its Forfeit
            turns += 1
            budget.received(reply_size(reply))
            with participant_input("specialist", self.participant, "reply"):
                said = parse_reply(reply, tools=self.parameters)
            if not said.tool_calls:
                return said.content or ""
            calls = [ToolCall(id=c.id, name=c.name, arguments=c.arguments)
                     for c in said.tool_calls]
            budget.stats.specialist_tool_calls += len(calls)
            results = await run(calls)
            parts = tool_result_parts(results, calls)
            budget.sent("".join(r.content or "" for r in results))


def reply_size(reply: AgentReply) -> str:
    """What the reply weighs for the byte budget: its text and its data as JSON."""
    texts = [p.text for p in reply.parts if isinstance(p, TextPart)]
    return "".join(texts) + "".join(json.dumps(d, ensure_ascii=False) for d in reply.data)


def first_parts(domain: str, schemas: list[dict[str, Any]], turns: int,
                timeout: float) -> list[Part]:
    """The preamble of a remote specialist's first message (the request follows)."""
    text = RULES.format(domain=domain, turns=turns, timeout=timeout) + render_tools(schemas)
    return [TextPart(text=text), DataPart(data={"team": {
        "role": "specialist", "domain": domain,
        "tools": [s.get("function", s) for s in schemas]}})]
