"""A2A -> tau2: the agent's reply as tau2 actions (docs/design.md §3; the seed design's
a2a_to_tau2).

By `--tool-call-format` (docs/tau2.md, "Replies"):
* `any` (default): a DataPart `{"tool_call": ...}` / `{"tool_calls": [...]}` is a call; text
  is a call only when the whole message (one code fence or `<json>` tag stripped) is one
  well-formed call JSON naming known tools (`{"name", "arguments"}`, `respond` included);
  anything else is text for the user, as written.
* `datapart`: only DataParts carry calls; text always goes to the user (upstream's LLM agent).
* `tags`: the `<json>` tag carries `{"name", "arguments"}` (upstream's agentify_tau_bench).
Missing call ids are generated. What the harness sends first: `prompt.py`.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from typing import Any, Literal

from a2abench.benchmarks.tau2.models import AssistantMessage, ToolCall
from a2abench.benchmarks.tau2.numbers import has_float, restore_integers
from a2abench.plugin import DEFAULT_MAX_DEPTH, AgentReply, ProtocolError, TextPart, loads
from a2abench.plugin.provisional import DEFAULT_MAX_TOOL_CALLS, ReplyLimitExceeded, check_count

ToolCallFormat = Literal["any", "datapart", "tags"]
TOOL_CALL_FORMATS: tuple[ToolCallFormat, ...] = ("any", "datapart", "tags")

RESPOND = "respond"

_WRAPPERS = (re.compile(r"\A```(?:json|JSON)?[ \t]*\n?(.*?)```\Z", re.S),
             re.compile(r"\A<json>(.*?)</json>\Z", re.S | re.I))
# Upstream's tags parser (agentify_tau_bench parse_tags): any <tag>...</tag>, content stripped,
# the last `json` tag wins because the tags are collected into a dict.
_TAGS = re.compile(r"<(.*?)>(.*?)</\1>", re.S)
# That expression backtracks over every `<` x `>` pair across the text (cubic: 4,000 unclosed
# tags, 12 kB, took 7 minutes). Replies whose shape could cost more than about half a second
# are refused instead of parsed; a real tagged reply has a few tags.
_TAG_WORK_LIMIT = 300_000_000
# Generated call ids need only be unique within a conversation: 48 random bits from a private
# generator, written as `uuid4().hex[:12]` was (12 hex digits), without os.urandom and a UUID
# object per call (~2 us each).
_IDS = random.Random()


def call_id() -> str:
    """`call_` and 12 random hex digits: the id of a tool call the agent sent without one."""
    return f"call_{_IDS.getrandbits(48):012x}"


class EmptyReply(ProtocolError):
    """The agent's reply has neither text nor a tool call; `reply` is what it sent, kept for
    the transcript (upstream keeps an empty message in the trajectory too)."""

    def __init__(self, reply: AssistantMessage) -> None:
        super().__init__("the agent's reply is empty (no text and no tool call)",
                         hint="Reply with a message for the user or a tool call.")
        self.reply = reply


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
    return ToolCall(id=str(raw.get("id") or call_id()),
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


def _message(calls: list[ToolCall], content: str | None) -> AssistantMessage:
    # Upstream has no limit; thousands of calls in one turn are a hostile reply, not a model's.
    check_count(len(calls), DEFAULT_MAX_TOOL_CALLS, "tool calls")
    responds = [c for c in calls if c.name == RESPOND]
    if responds:
        if len(calls) > 1:
            raise ProtocolError("`respond` cannot be mixed with tool calls in one reply")
        text = responds[0].arguments.get("content")
        if not isinstance(text, str) or not text.strip():
            raise ProtocolError("`respond` needs a non-empty string `content`")
        return AssistantMessage(content=text)
    return AssistantMessage(content=content, tool_calls=calls)


def _text_of(reply: AgentReply) -> str | None:
    """The reply's text parts joined, exactly as sent; None when it has no text part."""
    texts = [p.text for p in reply.parts if isinstance(p, TextPart)]
    return "\n".join(texts) if texts else None


def _whole_call(text: str, known: Mapping[str, Any] | None) -> AssistantMessage | None:
    """The call when the whole text (one fence or one <json> tag stripped) is one well-formed
    call JSON naming known tools (or `respond`); otherwise None: the text goes to the user."""
    body = text.strip()
    for wrapper in _WRAPPERS:
        m = wrapper.match(body)
        if m:
            body = m.group(1).strip()
            break
    if not body or body[0] not in "[{":
        return None
    try:  # depth-limited: JSON nested too deep is the agent's error (ReplyTooDeep)
        value = loads(body, DEFAULT_MAX_DEPTH, what="JSON in the agent's text")
    except ValueError:
        return None
    if not _is_call_shape(value):
        return None
    try:
        message = _message(_calls(value), None)
    except ReplyLimitExceeded:
        raise  # too many calls or too deep: a hostile reply, not prose for the user
    except ProtocolError:
        return None  # malformed: prose that merely looks like a call
    if message.tool_calls and known is not None and any(
            c.name not in known for c in message.tool_calls):
        return None
    return message


def _restored(calls: list[ToolCall], known: Mapping[str, Any] | None) -> list[ToolCall]:
    if not known:
        return calls
    # Only floats are ever restored: a call without one is kept as it is (no copy).
    return [c.model_copy(update={"arguments": restore_integers(c.arguments, known.get(c.name))})
            if has_float(c.arguments) else c for c in calls]


def _parse_tags(text: str | None) -> AssistantMessage:
    """Upstream's agentify_tau_bench semantics: the `<json>` tag holds `{"name", "arguments"}`;
    `respond` gives its content to the user, anything else is one tool call."""
    text = text or ""
    opening, closing = text.count("<"), text.count(">")
    if opening * closing * len(text) > _TAG_WORK_LIMIT:
        raise ReplyLimitExceeded(f"the reply has {opening} '<' and {closing} '>' in "
                                 f"{len(text)} characters: too many for the tags parser",
                                 hint="Reply with one <json>...</json> tag.")
    tags = {name: body.strip() for name, body in _TAGS.findall(text)}
    if "json" not in tags:  # upstream: KeyError, the task fails
        raise ProtocolError("the reply has no <json>...</json> tag (--tool-call-format tags)",
                            hint='Reply with <json>{"name": ..., "arguments": {...}}</json>.')
    try:
        action = loads(tags["json"], DEFAULT_MAX_DEPTH, what="the <json> tag")
    except ValueError as exc:  # upstream: json.loads raises, the task fails
        raise ProtocolError(f"the <json> tag is not valid JSON: {exc}") from exc
    if not isinstance(action, dict) or "name" not in action:
        raise ProtocolError("the <json> tag needs an object with `name` and `arguments`")
    if action["name"] == RESPOND:
        content = (action.get("arguments") or {}).get("content") \
            if isinstance(action.get("arguments"), dict) else None
        if not isinstance(content, str) or not content.strip():
            raise ProtocolError("`respond` needs a non-empty string `content`")
        return AssistantMessage(content=content)
    name, args = action.get("name"), action.get("arguments")
    if not isinstance(name, str) or not isinstance(args, dict):
        # upstream: not a valid ToolCall, so parse_action_string sends the JSON as text
        return AssistantMessage(content=json.dumps(action))
    given = action.get("id")
    return AssistantMessage(content=None, tool_calls=[ToolCall(
        id=given if isinstance(given, str) and given else call_id(),
        name=name, arguments=args)])


def parse_reply(reply: AgentReply, *, tools: Mapping[str, Any] | None = None,
                tool_call_format: ToolCallFormat = "any") -> AssistantMessage:
    """The agent's A2A reply as a tau2 assistant message (docs/tau2.md, "Replies").

    `tools` maps the known tool names to their parameter schemas: text calls must name one,
    and DataPart numbers are restored by them. Text is kept byte for byte. Raises
    ProtocolError for a malformed DataPart call, EmptyReply for an empty reply."""
    text = _text_of(reply)
    if tool_call_format == "tags":
        return _parse_tags(text)
    for data in reply.data:  # a DataPart tool call wins; text beside it stays as content,
        if _is_call_shape(data):  # like upstream's mixed message (never shown to the user)
            message = _message(_calls(data), text)
            if message.tool_calls:
                message.tool_calls = _restored(message.tool_calls, tools)
            return message
    if not (text or "").strip():
        if reply.data:
            return AssistantMessage(content=json.dumps(reply.data[0], ensure_ascii=False))
        raise EmptyReply(AssistantMessage(content=text))
    if tool_call_format == "any":
        whole = _whole_call(text or "", tools)
        if whole is not None:
            return whole
    return AssistantMessage(content=text)
