"""Every reply shape of docs/design.md §3 becomes the right tau2 message; ids are always
assigned."""

from __future__ import annotations

import json
import re

import pytest

from a2abench.a2a.client import AgentReply
from a2abench.a2a.models import DataPart, Message, TextPart
from a2abench.benchmarks.tau2.actions import EmptyReply, call_id, parse_reply
from a2abench.benchmarks.tau2.models import ToolCall, ToolMessage
from a2abench.benchmarks.tau2.prompt import first_message, tool_result_parts
from a2abench.errors import ProtocolError

CALL = {"name": "get_user_details", "arguments": {"user_id": "u1"}}


def reply(*parts: object) -> AgentReply:
    ps = [TextPart(text=p) if isinstance(p, str) else DataPart(data=p) for p in parts]
    return AgentReply(message=Message(role="agent", parts=ps, message_id="m"))


@pytest.mark.parametrize("shape", [
    reply({"tool_call": CALL}),
    reply(json.dumps({"tool_call": CALL})),
    reply("```json\n" + json.dumps({"tool_call": CALL}) + "\n```"),
    reply("<json>" + json.dumps(CALL) + "</json>\n"),
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
    # generated ids look as uuid4().hex[:12] made them: `call_` and 12 lowercase hex digits
    assert all(re.fullmatch(r"call_[0-9a-f]{12}", i) for i in ids[:2])
    assert len({call_id() for _ in range(1000)}) == 1000
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


def test_datapart_numbers_are_kept_without_schemas() -> None:
    # Issue 18 item 1: no blanket 2.0 -> 2; without schemas nothing is converted.
    message = parse_reply(reply({"tool_call": {"name": "x", "arguments": {"n": 2.0, "f": 2.5,
                                                                          "l": [1.0]}}}))
    assert message.tool_calls[0].arguments == {"n": 2.0, "f": 2.5, "l": [1.0]}  # type: ignore[index]
    assert isinstance(message.tool_calls[0].arguments["n"], float)  # type: ignore[index]


@pytest.mark.parametrize(("shape", "words"), [
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


# --- issue 18 item 3: which text is a call, by --tool-call-format --------------------------

KNOWN = {"get_user_details": {"type": "object", "properties": {"user_id": {"type": "string"}}}}


@pytest.mark.parametrize("text", [
    'Here is what I will send: {"name": "get_user_details", "arguments": {"user_id": "u1"}}',
    "Let me check.\n<json>" + json.dumps(CALL) + "</json>",
    "```json\n" + json.dumps(CALL) + "\n```\nDoes that look right?",
    json.dumps(CALL) + "\n" + json.dumps(CALL),  # two JSON values: not one call
    json.dumps({"name": "get_weather", "arguments": {}}),  # not one of the tools
    json.dumps({"name": "get_user_details", "arguments": "user u1"}),  # malformed arguments
    json.dumps({"name": "respond", "arguments": {}}),  # respond without content
    '{"order_id": "#W1", "total": 3}',
])
def test_text_that_is_not_one_whole_call_goes_to_the_user_as_written(text: str) -> None:
    message = parse_reply(reply(text), tools=KNOWN)
    assert message.tool_calls is None and message.content == text


@pytest.mark.parametrize("text", [
    json.dumps(CALL), "  " + json.dumps({"tool_call": CALL}) + "\n",
    "```json\n" + json.dumps(CALL) + "\n```", "<json>\n" + json.dumps(CALL) + "\n</json>",
    json.dumps({"tool_calls": [CALL, CALL]}),
])
def test_a_whole_message_call_to_a_known_tool_is_a_call(text: str) -> None:
    message = parse_reply(reply(text), tools=KNOWN)
    assert message.tool_calls and {c.name for c in message.tool_calls} == {"get_user_details"}
    assert message.content is None


@pytest.mark.parametrize("text", [json.dumps(CALL), "```json\n" + json.dumps(CALL) + "\n```",
                                  "<json>" + json.dumps(CALL) + "</json>"])
def test_datapart_format_never_reads_calls_from_text(text: str) -> None:
    message = parse_reply(reply(text), tools=KNOWN, tool_call_format="datapart")
    assert message.tool_calls is None and message.content == text
    message = parse_reply(reply(text, {"tool_call": CALL}), tools=KNOWN,
                          tool_call_format="datapart")
    assert message.tool_calls and message.content == text


def test_tags_format_reads_the_json_tag_as_upstream() -> None:
    call = parse_reply(reply("Checking now.\n<json>\n" + json.dumps(CALL) + "\n</json> ok"),
                       tools=KNOWN, tool_call_format="tags")
    assert call.content is None and call.tool_calls
    assert (call.tool_calls[0].name, call.tool_calls[0].arguments) == (
        "get_user_details", {"user_id": "u1"})
    talk = parse_reply(reply('<json>{"name": "respond", "arguments": {"content": " Hi! "}}'
                             "</json>"), tools=KNOWN, tool_call_format="tags")
    assert talk.content == " Hi! " and talk.tool_calls is None
    # upstream collects tags into a dict: the last <json> tag wins
    last = parse_reply(reply("<json>" + json.dumps(CALL) + "</json><json>" + json.dumps(
        {"name": "respond", "arguments": {"content": "bye"}}) + "</json>"),
        tool_call_format="tags")
    assert last.content == "bye"
    # not a valid ToolCall: upstream's parse_action_string shows the JSON to the user
    odd = parse_reply(reply('<json>{"name": "get_user_details"}</json>'),
                      tool_call_format="tags")
    assert odd.tool_calls is None and odd.content == '{"name": "get_user_details"}'


@pytest.mark.parametrize(("text", "words"), [
    (json.dumps(CALL), "no <json>"), ("<json>{not json}</json>", "not valid JSON"),
    ('<json>{"arguments": {}}</json>', "`name`"),
])
def test_tags_format_without_a_usable_tag_is_an_agent_error(text: str, words: str) -> None:
    with pytest.raises(ProtocolError, match=words):
        parse_reply(reply(text), tool_call_format="tags")


# --- issue 18 item 4: what the agent sent is kept byte for byte ----------------------------

def test_text_beside_a_datapart_call_is_kept_as_sent() -> None:
    message = parse_reply(reply("  Let me look that up.\n", {"tool_call": CALL}))
    assert message.content == "  Let me look that up.\n" and message.tool_calls
    assert parse_reply(reply("", {"tool_call": CALL})).content == ""
    assert parse_reply(reply({"tool_call": CALL})).content is None


def test_text_for_the_user_is_kept_as_sent() -> None:
    assert parse_reply(reply("  Hello there \n")).content == "  Hello there \n"


@pytest.mark.parametrize(("shape", "content"), [(reply(), None), (reply("   "), "   "),
                                                (reply(""), "")])
def test_an_empty_reply_is_an_agent_error_that_keeps_the_message(shape: AgentReply,
                                                                 content: str | None) -> None:
    with pytest.raises(EmptyReply, match="empty") as caught:
        parse_reply(shape)
    assert caught.value.reply.content == content and caught.value.reply.tool_calls is None


def test_the_first_message_explains_the_chosen_format() -> None:
    schemas = [{"type": "function", "function": {"name": "t", "parameters": {}}}]
    texts = {fmt: first_message("P", schemas, tool_call_format=fmt)[0].text  # type: ignore[union-attr]
             for fmt in ("any", "datapart", "tags")}
    assert "(as a data part, or as text)" in texts["any"]
    assert "Text parts always go to the user" in texts["datapart"]
    assert "<json>{\"name\": \"respond\"" in texts["tags"]
    assert "plain text go to the user" not in texts["tags"]


def test_the_first_message_carries_the_runs_schema_list_itself() -> None:
    schemas = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    for given in (schemas, tuple(schemas)):
        data = first_message("policy", given)[1]
        assert isinstance(data, DataPart) and data.data["tools"] == schemas
        # the run's list as it is (its length stays remembered for the token estimate)
        assert (data.data["tools"] is schemas) == (given is schemas)
