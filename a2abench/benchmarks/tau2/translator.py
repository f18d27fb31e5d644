"""tau2 <-> A2A (DESIGN.md §3, after the seed design's tau2_to_a2a / a2a_to_tau2).

Outgoing: the first message carries the instructions, the policy, the tools (as text and as a
DataPart of complete OpenAI schemas) and the user's first words; later messages carry the
user's words, or tool results as text plus a `tool_results` DataPart.

Incoming: a DataPart `{"tool_call": ...}` / `{"tool_calls": [...]}`, the same JSON as text
(bare, in a code fence or in `<json>` tags), or `{"name", "arguments"}` with the pseudo-tool
`respond`; anything else is text for the user. Missing call ids are generated.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from typing import Any

from a2abench.a2a._limits import DEFAULT_MAX_DEPTH, DEFAULT_MAX_TOOL_CALLS, check_count, loads
from a2abench.a2a.client import AgentReply
from a2abench.a2a.dialects import whole_numbers
from a2abench.a2a.models import DataPart, Part, TextPart
from a2abench.benchmarks.tau2.models import AssistantMessage, ToolCall, ToolMessage
from a2abench.errors import ProtocolError

GREETING = "Hi! How can I help you today?"  # upstream's DEFAULT_FIRST_AGENT_MESSAGE
RESPOND = "respond"

INSTRUCTIONS = """\
You are a customer service agent. Help the user according to the policy in <policy> below,
using the tools in <tools> when you need information or need to change something.

Rules of this conversation:
- Each reply is either a message to the user or tool calls, never both.
- Messages you write as plain text go to the user. The user cannot see tool calls or results.
- Only the user's words and the results of your tool calls come back to you.
- You already greeted the user with: "{greeting}"
"""

REPLY_FORMAT = """\
<reply_format>
To call a tool, reply with this JSON (as a data part, or as text):
{"tool_call": {"name": "<tool name>", "arguments": {<arguments>}}}
Several calls at once: {"tool_calls": [{"name": "...", "arguments": {...}}, ...]}
To talk to the user, reply with plain text
(or {"name": "respond", "arguments": {"content": "..."}}).
Tool results come back as "Tool result (id=<id>): <content>" lines, with a data part
{"tool_results": [{"id", "name", "content", "error"}]}.
</reply_format>"""


def render_tools(schemas: Sequence[dict[str, Any]]) -> str:
    """Every tool as one line of JSON schema: complete (nested $defs survive), readable."""
    lines = [json.dumps(s.get("function", s), ensure_ascii=False)
             for s in schemas]
    return "<tools>\n" + "\n".join(lines) + "\n</tools>"


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


def first_message(policy: str, schemas: Sequence[dict[str, Any]],
                  history: Sequence[Any] = ()) -> list[Part]:
    """The preamble parts of a conversation's first A2A message (the user's words follow)."""
    text = "\n".join([INSTRUCTIONS.format(greeting=GREETING), "<policy>", policy.strip(),
                      "</policy>", "", render_tools(schemas), "", REPLY_FORMAT])
    if history:
        text += "\n\n" + render_history(history)
    return [TextPart(text=text), DataPart(data={"tools": list(schemas)})]


def tool_result_parts(results: Sequence[ToolMessage],
                      calls: Sequence[ToolCall]) -> list[Part]:
    names = {c.id: c.name for c in calls}
    lines = [f"Tool result (id={r.id}): {'ERROR: ' if r.error else ''}{r.content}"
             for r in results]
    data = [{"id": r.id, "name": names.get(r.id, ""), "content": r.content, "error": r.error}
            for r in results]
    return [TextPart(text="\n".join(lines)), DataPart(data={"tool_results": data})]


# --- replies -----------------------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
_JSON_OPEN, _JSON_CLOSE = re.compile(r"<json>", re.I), re.compile(r"</json>", re.I)


def _json_tags(text: str) -> list[str]:
    """`re.findall(r"<json>(.*?)</json>", text, re.S | re.I)` in linear time (the regex is
    quadratic in the number of unclosed `<json>` tags: minutes for a 1 MB reply)."""
    out, position = [], 0
    while (opening := _JSON_OPEN.search(text, position)) is not None:
        closing = _JSON_CLOSE.search(text, opening.end())
        if closing is None:
            break
        out.append(text[opening.end():closing.start()])
        position = closing.end()
    return out


def _json_candidates(text: str) -> list[Any]:
    """JSON values the text is made of: whole text, fenced blocks, <json> tags."""
    out = []
    stripped = text.strip()
    for chunk in [stripped, *_json_tags(text), *_FENCE.findall(text)]:
        chunk = chunk.strip()
        if not chunk or chunk[0] not in "[{":
            continue
        try:  # depth-limited: JSON nested too deep is the agent's error (ReplyTooDeep)
            out.append(loads(chunk, DEFAULT_MAX_DEPTH, what="JSON in the agent's text"))
        except ValueError:
            continue
    return out


def _is_call_shape(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_is_call_shape(v) for v in value)
    return isinstance(value, dict) and (
        "tool_call" in value or "tool_calls" in value
        or ("name" in value and ("arguments" in value or "function" not in value)
            and isinstance(value.get("name"), str) and set(value) <= {"name", "arguments", "id"})
        or ("function" in value and isinstance(value["function"], dict)))


def _call(raw: Any) -> ToolCall:
    if isinstance(raw, dict) and isinstance(raw.get("tool_call"), dict):
        raw = raw["tool_call"]  # {"tool_calls": [{"tool_call": {...}}]} (the seed fork's form)
    if isinstance(raw, dict) and isinstance(raw.get("function"), dict):  # OpenAI's shape
        raw = {"id": raw.get("id"), **raw["function"]}
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
        raise ProtocolError(f"a tool call needs a string `name`: {str(raw)[:120]}")
    args = raw.get("arguments", {})
    if isinstance(args, str):  # OpenAI sends arguments as a JSON string
        try:
            args = (loads(args, DEFAULT_MAX_DEPTH, what=f"arguments of {raw['name']}")
                    if args.strip() else {})
        except ValueError as exc:
            raise ProtocolError(f"arguments of {raw['name']} are not valid JSON: {exc}") from exc
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ProtocolError(f"arguments of {raw['name']} must be a JSON object")
    return ToolCall(id=str(raw.get("id") or f"call_{uuid.uuid4().hex[:12]}"),
                    name=raw["name"], arguments=args)


def _calls(value: Any) -> list[ToolCall]:
    if isinstance(value, list):
        return [c for v in value for c in _calls(v)]
    if "tool_calls" in value:
        items = value["tool_calls"]
        if not isinstance(items, list) or not items:
            raise ProtocolError("`tool_calls` must be a non-empty list")
        return [_call(item) for item in items]
    return [_call(value.get("tool_call", value))]


def _message(calls: list[ToolCall], raw_text: str) -> AssistantMessage:
    # Upstream has no limit; thousands of calls in one turn are a hostile reply, not a model's.
    check_count(len(calls), DEFAULT_MAX_TOOL_CALLS, "tool calls")
    responds = [c for c in calls if c.name == RESPOND]
    if responds:
        if len(calls) > 1:
            raise ProtocolError("`respond` cannot be mixed with tool calls in one reply")
        content = responds[0].arguments.get("content")
        if not isinstance(content, str) or not content.strip():
            raise ProtocolError("`respond` needs a non-empty string `content`")
        return AssistantMessage(content=content)
    return AssistantMessage(content=raw_text or None, tool_calls=calls)


def parse_reply(reply: AgentReply) -> AssistantMessage:
    """The agent's A2A reply as a tau2 assistant message. Raises ProtocolError for an empty
    reply or a malformed tool call (an agent error, never silently dropped)."""
    text = reply.text
    for data in reply.data:  # a DataPart tool call wins; text beside it stays as content,
        if _is_call_shape(data):  # like upstream's mixed message (never shown to the user)
            return _message(_calls(whole_numbers(data)), text.strip())
    if not text.strip():
        if reply.data:
            return AssistantMessage(content=json.dumps(reply.data[0], ensure_ascii=False))
        raise ProtocolError("the agent's reply is empty (no text and no data)",
                            hint="Reply with a message for the user or a tool call.")
    for candidate in _json_candidates(text):
        if _is_call_shape(candidate):
            return _message(_calls(candidate), "")
    return AssistantMessage(content=text)
