"""Every reply shape of DESIGN.md §3 becomes the right tau2 message; ids are always assigned."""

from __future__ import annotations

import json

import pytest

from a2abench.a2a.client import AgentReply
from a2abench.a2a.models import DataPart, Message, TextPart
from a2abench.benchmarks.tau2.models import ToolCall, ToolMessage
from a2abench.benchmarks.tau2.translator import (
    first_message,
    parse_reply,
    tool_result_parts,
    whole_numbers,
)
from a2abench.errors import ProtocolError

CALL = {"name": "get_user_details", "arguments": {"user_id": "u1"}}


def reply(*parts: object) -> AgentReply:
    ps = [TextPart(text=p) if isinstance(p, str) else DataPart(data=p) for p in parts]
    return AgentReply(message=Message(role="agent", parts=ps, message_id="m"))


@pytest.mark.parametrize("shape", [
    reply({"tool_call": CALL}),
    reply(json.dumps({"tool_call": CALL})),
    reply("```json\n" + json.dumps({"tool_call": CALL}) + "\n```"),
    reply("Let me check.\n<json>" + json.dumps(CALL) + "</json>"),
    reply(json.dumps(CALL)),
    reply({"tool_calls": [CALL]}),
    reply(json.dumps({"tool_calls": [{"tool_call": CALL}]})),
    reply({"tool_calls": [{"id": "x", "type": "function", "function": {
        "name": "get_user_details", "arguments": json.dumps({"user_id": "u1"})}}]}),
], ids=["datapart", "text", "fenced", "json-tag", "name-arguments", "datapart-list",
        "fork-list", "openai-shape"])
def test_tool_call_shapes(shape: AgentReply) -> None:
    message = parse_reply(shape)
    assert message.tool_calls is not None and len(message.tool_calls) == 1
    call = message.tool_calls[0]
    assert (call.name, call.arguments) == ("get_user_details", {"user_id": "u1"})
    assert call.id and call.requestor == "assistant"


def test_several_calls_keep_order_and_get_distinct_ids() -> None:
    message = parse_reply(reply({"tool_calls": [CALL, {**CALL, "arguments": {"user_id": "u2"}},
                                                {**CALL, "id": "mine"}]}))
    ids = [c.id for c in message.tool_calls or []]
    assert len(set(ids)) == 3 and ids[2] == "mine"
    assert [c.arguments["user_id"] for c in message.tool_calls or []] == ["u1", "u2", "u1"]


@pytest.mark.parametrize("shape", [
    reply(json.dumps({"name": "respond", "arguments": {"content": "Hello there"}})),
    reply("<json>{\"name\": \"respond\", \"arguments\": {\"content\": \"Hello there\"}}</json>"),
    reply("Hello there"),
])
def test_text_for_the_user(shape: AgentReply) -> None:
    message = parse_reply(shape)
    assert message.content == "Hello there" and message.tool_calls is None


def test_prose_with_json_that_is_not_a_call_stays_text() -> None:
    text = 'Your order: {"id": "#W1", "total": 3}'
    assert parse_reply(reply(text)).content == text


def test_datapart_numbers_come_back_whole() -> None:
    message = parse_reply(reply({"tool_call": {"name": "x", "arguments": {"n": 2.0, "f": 2.5,
                                                                          "l": [1.0]}}}))
    assert message.tool_calls[0].arguments == {"n": 2, "f": 2.5, "l": [1]}  # type: ignore[index]
    assert whole_numbers({"a": [3.0, "3.0"]}) == {"a": [3, "3.0"]}


@pytest.mark.parametrize(("shape", "words"), [
    (reply(), "empty"),
    (reply("   "), "empty"),
    (reply({"tool_call": {"arguments": {}}}), "string `name`"),
    (reply({"tool_call": {"name": "x", "arguments": "not json"}}), "not valid JSON"),
    (reply({"tool_call": {"name": "x", "arguments": [1]}}), "JSON object"),
    (reply({"tool_calls": []}), "non-empty list"),
    (reply({"tool_calls": [CALL, {"name": "respond", "arguments": {"content": "x"}}]}),
     "cannot be mixed"),
])
def test_malformed_replies_are_protocol_errors(shape: AgentReply, words: str) -> None:
    with pytest.raises(ProtocolError, match=words):
        parse_reply(shape)


def test_first_message_carries_policy_tools_and_schemas() -> None:
    schemas = [{"type": "function", "function": {"name": "t", "parameters": {
        "type": "object", "$defs": {"X": {"type": "object"}}}}}]
    text, data = first_message("POLICY TEXT", schemas)
    assert isinstance(text, TextPart) and isinstance(data, DataPart)
    assert "<policy>\nPOLICY TEXT\n</policy>" in text.text and '"$defs"' in text.text
    assert "Hi! How can I help you today?" in text.text
    assert data.data == {"tools": schemas}


def test_tool_results_as_text_and_data() -> None:
    calls = [ToolCall(id="a", name="f", arguments={}), ToolCall(id="b", name="g", arguments={})]
    results = [ToolMessage(id="a", content="ok"),
               ToolMessage(id="b", content="Error: nope", error=True)]
    text, data = tool_result_parts(results, calls)
    assert text.text == "Tool result (id=a): ok\nTool result (id=b): ERROR: Error: nope"  # type: ignore[union-attr]
    assert data.data == {"tool_results": [  # type: ignore[union-attr]
        {"id": "a", "name": "f", "content": "ok", "error": False},
        {"id": "b", "name": "g", "content": "Error: nope", "error": True}]}
