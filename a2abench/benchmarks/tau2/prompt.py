"""tau2 -> A2A: what the harness sends the agent (docs/design.md §3, the seed design's tau2_to_a2a).

The first message carries the instructions, the policy, the tools (as text and as a DataPart
of complete OpenAI schemas) and the user's first words; later messages carry the user's
words, or tool results as text plus a `tool_results` DataPart. Replies: `actions.py`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.actions import ToolCallFormat
from a2abench.benchmarks.tau2.models import ToolCall, ToolMessage
from a2abench.plugin import DataPart, Part, TextPart

GREETING = "Hi! How can I help you today?"  # upstream's DEFAULT_FIRST_AGENT_MESSAGE


INSTRUCTIONS = """\
You are a customer service agent. Help the user according to the policy in <policy> below,
using the tools in <tools> when you need information or need to change something.

Rules of this conversation:
- Each reply is either a message to the user or tool calls, never both.
- Messages you write as plain text go to the user. The user cannot see tool calls or results.
- Only the user's words and the results of your tool calls come back to you.
- You already greeted the user with: "{greeting}"
"""

_RESULTS_FORMAT = """\
Tool results come back as "Tool result (id=<id>): <content>" lines, with a data part
{"tool_results": [{"id", "name", "content", "error"}]}."""

REPLY_FORMATS = {
    "any": """\
To call a tool, reply with this JSON (as a data part, or as text):
{"tool_call": {"name": "<tool name>", "arguments": {<arguments>}}}
Several calls at once: {"tool_calls": [{"name": "...", "arguments": {...}}, ...]}
As text, the JSON must be the whole reply (a code fence around it is fine).
To talk to the user, reply with plain text
(or {"name": "respond", "arguments": {"content": "..."}}).""",
    "datapart": """\
To call a tool, reply with a data part holding this JSON:
{"tool_call": {"name": "<tool name>", "arguments": {<arguments>}}}
Several calls at once: {"tool_calls": [{"name": "...", "arguments": {...}}, ...]}
Text parts always go to the user as written, so write your messages as plain text.""",
    "tags": """\
Reply with one JSON object wrapped in <json>...</json> tags, one action at a time:
<json>{"name": "<tool name>", "arguments": {<arguments>}}</json> to call a tool, or
<json>{"name": "respond", "arguments": {"content": "<your message>"}}</json> to talk to the
user. Text outside the tags is ignored.""",
}
REPLY_FORMAT = "<reply_format>\n" + REPLY_FORMATS["any"] + "\n" + _RESULTS_FORMAT \
    + "\n</reply_format>"


def reply_format(tool_call_format: str = "any") -> str:
    """The `<reply_format>` block telling the agent how to call tools in this format."""
    return ("<reply_format>\n" + REPLY_FORMATS[tool_call_format] + "\n" + _RESULTS_FORMAT
            + "\n</reply_format>")


# The driver hands every task-trial of a run the same schema objects; their text is the
# same too. Keyed by identity, holding the schemas (so an id is not reused while cached).
_RENDERED: dict[tuple[int, ...], tuple[Sequence[dict[str, Any]], str]] = {}


def render_tools(schemas: Sequence[dict[str, Any]]) -> str:
    """Every tool as one line of JSON schema: complete (nested $defs survive), readable."""
    key = tuple(map(id, schemas))
    hit = _RENDERED.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], schemas, strict=True)):
        return hit[1]
    lines = [json.dumps(s.get("function", s), ensure_ascii=False)
             for s in schemas]
    text = "<tools>\n" + "\n".join(lines) + "\n</tools>"
    if len(_RENDERED) >= 16:
        _RENDERED.clear()
    _RENDERED[key] = (list(schemas), text)
    return text


def render_history(messages: Sequence[Any]) -> str:
    """A task's pre-existing conversation, for agents that join it half-way."""
    lines = []
    for m in messages:
        if m.role == "tool":
            lines.append(f"tool (id={m.id}): {m.content}")
        elif getattr(m, "tool_calls", None):
            calls = [{"id": c.id, "name": c.name, "arguments": c.arguments}
                     for c in m.tool_calls]
            lines.append(f"{m.role} tool calls: {json.dumps(calls, ensure_ascii=False)}")
        elif m.content is not None:
            lines.append(f"{m.role}: {m.content}")
    return "<conversation_so_far>\n" + "\n".join(lines) + "\n</conversation_so_far>"


def as_list(schemas: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The schemas for a DataPart: the run's own list as it is (read only, like the schemas
    in it), so that the request's token estimate finds its length remembered (~5 us a message
    when copied); another sequence as a new list."""
    return schemas if isinstance(schemas, list) else list(schemas)


def first_message(policy: str, schemas: Sequence[dict[str, Any]],
                  history: Sequence[Any] = (), *,
                  tool_call_format: ToolCallFormat = "any") -> list[Part]:
    """The preamble parts of a conversation's first A2A message (the user's words follow)."""
    instructions = INSTRUCTIONS.format(greeting=GREETING)
    if tool_call_format == "tags":  # there, words for the user go through `respond`
        instructions = instructions.replace(
            "Messages you write as plain text go to the user.",
            "Messages for the user go in a `respond` action.")
    text = "\n".join([instructions, "<policy>", policy.strip(), "</policy>", "",
                      render_tools(schemas), "", reply_format(tool_call_format)])
    if history:
        text += "\n\n" + render_history(history)
    return [TextPart(text=text), DataPart(data={"tools": as_list(schemas)})]


def tool_result_parts(results: Sequence[ToolMessage],
                      calls: Sequence[ToolCall]) -> list[Part]:
    names = {c.id: c.name for c in calls}
    lines = [f"Tool result (id={r.id}): {'ERROR: ' if r.error else ''}{r.content}"
             for r in results]
    data = [{"id": r.id, "name": names.get(r.id, ""), "content": r.content, "error": r.error}
            for r in results]
    return [TextPart(text="\n".join(lines)), DataPart(data={"tool_results": data})]

