"""The reference LLM white agent (examples/llm_agent.py), served on loopback with a fake model.

The agent is driven through a2abench's own A2AClient and tau2 prompt and actions modules, so
means a2abench and the agent agree on the wire contract (docs/design.md §3).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from a2abench.a2a.client import A2AClient, AgentReply
from a2abench.a2a.config import A2AConfig
from a2abench.a2a.models import FilePart, TextPart
from a2abench.benchmarks.tau2 import actions, prompt
from a2abench.benchmarks.tau2.domains.mock import MockTools
from a2abench.benchmarks.tau2.models import ToolMessage
from a2abench.benchmarks.tau2.toolkit import ToolTexts
from a2abench.llm import LLMConfig, RetryPolicy
from tests.agents import load_example
from tests.fakes.fixtures import TEST_API_KEY
from tests.fakes.llm_server import FakeLLMServer, Reply, completion
from tests.servers import serve
from tests.waits import HANG_S

agent_mod = load_example("llm_agent.py")

RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.02, budget_s=HANG_S)

# A tool whose schema has $defs, a $ref and integers, which must reach the model unchanged.
BOOKING_SCHEMA: dict[str, Any] = {"type": "function", "function": {
    "name": "book_seats", "description": "Book seats on a flight.",
    "parameters": {
        "type": "object", "required": ["flight", "passengers"],
        "properties": {"flight": {"type": "string"},
                       "passengers": {"type": "array", "minItems": 1, "maxItems": 9,
                                      "items": {"$ref": "#/$defs/Passenger"}}},
        "$defs": {"Passenger": {"type": "object",
                                "properties": {"name": {"type": "string"},
                                               "age": {"type": "integer", "minimum": 0}}}}}}}

CRM_TASK = """You are an agent that answers questions about a Salesforce org.
# Schema
Case: Id, Subject, AccountId
# Query
How many cases does account 001A have?
# Action format
Reply with {"action": "execute", "query": "..."} to run SOQL/SOSL, or
{"action": "respond", "answer": "..."} to answer. Official tags <execute>/<respond> also work."""


@pytest.fixture
def served(llm_server: FakeLLMServer) -> Iterator[tuple[str, Any]]:
    """(base URL, the running app) for an agent whose model is the fake LLM server."""
    config = LLMConfig(model="gpt-4.1", base_url=llm_server.base_url,
                       api_key=SecretStr(TEST_API_KEY), args={"temperature": 0.0},
                       timeout_s=HANG_S, retry=RETRY, cache=False)
    apps: list[Any] = []

    def factory(base: str) -> Any:
        apps.append(agent_mod.build_app(base, config))
        return apps[0]

    with serve(factory) as url:
        yield url, apps[0]


def client_for(url: str, *, streaming: bool = False) -> A2AClient:
    return A2AClient(A2AConfig.create(url, timeout=HANG_S, streaming=streaming))


def model_messages(server: FakeLLMServer, index: int) -> list[dict[str, Any]]:
    body = server.requests[index].json
    assert isinstance(body, dict)
    messages: list[dict[str, Any]] = body["messages"]
    return messages


# --- (1) tau2 ------------------------------------------------------------------------------------

async def test_tau2_tool_calls_round_trip(served: tuple[str, Any],
                                          llm_server: FakeLLMServer) -> None:
    url, _ = served
    schemas = [*MockTools.openai_schemas(ToolTexts(source="fallback", tools={})), BOOKING_SCHEMA]
    preamble = prompt.first_message("Only help users with their own tasks.", schemas)
    llm_server.enqueue(tool_calls=[
        {"id": "call_a", "name": "get_users", "arguments": {}},
        {"id": "call_b", "name": "book_seats",
         "arguments": {"flight": "HAT001", "passengers": [{"name": "Ann", "age": 40}]}}])
    llm_server.enqueue(content="All set: two seats on HAT001.")
    async with client_for(url) as client:
        chat = client.conversation()
        first = actions.parse_reply(
            await chat.send(*preamble, TextPart(text="Book HAT001 for Ann, please.")))
        assert [(c.id, c.name) for c in first.tool_calls] == [("call_a", "get_users"),
                                                             ("call_b", "book_seats")]
        assert first.tool_calls[1].arguments == {
            "flight": "HAT001", "passengers": [{"name": "Ann", "age": 40}]}
        results = [ToolMessage(id="call_a", content='[{"user_id": "u1"}]'),
                   ToolMessage(id="call_b", content="Error: flight full", error=True)]
        second = actions.parse_reply(
            await chat.send(*prompt.tool_result_parts(results, first.tool_calls)))
    assert second.content == "All set: two seats on HAT001." and not second.tool_calls

    request = llm_server.requests[0].json
    # complete: $defs, $ref and integers intact (compared as text, since 1 == 1.0 in Python)
    assert json.dumps(request["tools"], sort_keys=True) == json.dumps(schemas, sort_keys=True)
    system, user = request["messages"]
    assert system["role"] == "system" and "<policy>" in system["content"]
    assert "Only help users" in system["content"] and agent_mod.TAU2_NOTE in system["content"]
    assert user == {"role": "user", "content": "Book HAT001 for Ann, please."}
    later = model_messages(llm_server, 1)
    assert later[2]["role"] == "assistant" and len(later[2]["tool_calls"]) == 2
    assert later[3:] == [
        {"role": "tool", "tool_call_id": "call_a", "content": '[{"user_id": "u1"}]'},
        {"role": "tool", "tool_call_id": "call_b", "content": "Error: flight full"}]
    assert llm_server.requests[1].json["tools"] == schemas


async def test_tau2_words_beside_a_tool_call_and_missing_results(
        served: tuple[str, Any], llm_server: FakeLLMServer) -> None:
    url, _ = served
    schemas = MockTools.openai_schemas(ToolTexts(source="fallback", tools={}))
    llm_server.enqueue(content="Let me look.", tool_calls=[
        {"id": "c1", "name": "get_users", "arguments": {}},
        {"id": "c2", "name": "get_users", "arguments": {}}])
    llm_server.enqueue(content="Done.")
    async with client_for(url) as client:
        chat = client.conversation()
        reply = await chat.send(*prompt.first_message("P", schemas), "hi")
        assert reply.text == "Let me look."
        assert [c.id for c in actions.parse_reply(reply).tool_calls] == ["c1", "c2"]
        # Only c1's result, plus one for a call the model never made (a task's prior history).
        await chat.send(*prompt.tool_result_parts(
            [ToolMessage(id="c1", content="ok"), ToolMessage(id="old", content="42")], []))
    messages = model_messages(llm_server, 1)
    assert messages[3:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "tool", "tool_call_id": "c2", "content": agent_mod.NO_RESULT},
        {"role": "user", "content": "Tool result (id=old, name=): 42"}]


# --- (2) CRMArena --------------------------------------------------------------------------------

async def test_crmarena_execute_then_respond(served: tuple[str, Any],
                                             llm_server: FakeLLMServer) -> None:
    url, _ = served
    query = "SELECT COUNT() FROM Case WHERE AccountId = '001A'"
    llm_server.enqueue(content="<thought>Count them.</thought>\n```json\n"
                               + json.dumps({"action": "execute", "query": query}) + "\n```")
    llm_server.enqueue(content='The result is clear. {"action": "respond", "answer": 3} '
                               'Then maybe {"action": "execute", "query": "SELECT Id FROM Case"}')
    async with client_for(url, streaming=True) as client:  # the SSE path, too
        chat = client.conversation()
        first = await chat.send(CRM_TASK)
        second = await chat.send("Salesforce instance output: [{'expr0': 3}]")
    assert json.loads(first.text) == {"action": "execute", "query": query}
    assert json.loads(second.text) == {"action": "respond", "answer": "3"}  # one action only
    messages = model_messages(llm_server, 1)
    assert messages[0] == {"role": "system", "content": agent_mod.CRM_SYSTEM}
    assert messages[1] == {"role": "user", "content": CRM_TASK}
    assert messages[2] == {"role": "assistant", "content": first.text}  # the action as sent
    assert messages[3]["content"] == "Salesforce instance output: [{'expr0': 3}]"
    assert "tools" not in llm_server.requests[0].json


async def test_crmarena_reminds_once_then_passes_text_through(
        served: tuple[str, Any], llm_server: FakeLLMServer) -> None:
    url, _ = served
    llm_server.enqueue(content="I think I should search for Joe.")
    llm_server.enqueue(content="<execute>FIND {Joe Smith} IN NAME FIELDS RETURNING "
                               "Lead(Name)</execute>")
    llm_server.enqueue(content="Hmm.")
    llm_server.enqueue(content="Still thinking.")
    async with client_for(url) as client:
        chat = client.conversation()
        repaired = await chat.send(CRM_TASK)
        unrepaired = await chat.send("Salesforce instance output: []")
    assert json.loads(repaired.text) == {
        "action": "execute", "query": "FIND {Joe Smith} IN NAME FIELDS RETURNING Lead(Name)"}
    assert model_messages(llm_server, 1)[-1] == {"role": "user",
                                                  "content": agent_mod.CRM_REPAIR}
    # a2abench answers this with CRMArena's official "Invalid output format" rule.
    assert unrepaired.text == "Still thinking."
    assert llm_server.pending == 0


@pytest.mark.parametrize(("output", "action"), [
    ('{"action": "execute", "query": "```sql\\nSELECT Id FROM Lead\\n```"}',
     {"action": "execute", "query": "SELECT Id FROM Lead"}),
    ('```\n{"action":"execute","query":"FIND {A{B}} RETURNING Account(Id)"}\n```',
     {"action": "execute", "query": "FIND {A{B}} RETURNING Account(Id)"}),
    ('{"name": "respond", "content": "None"}', {"action": "respond", "answer": "None"}),
    ('{"action": "respond", "answer": ["a", "b"]}', {"action": "respond", "answer": "a, b"}),
    ("<respond> 005X </respond> and <execute>SELECT Id FROM Case</execute>",
     {"action": "respond", "answer": "005X"}),
    ('<execute>SELECT Id FROM Case</execute> {"action": "respond", "answer": "x"}',
     {"action": "execute", "query": "SELECT Id FROM Case"}),
    ('{"note": {"x": 1}} {"action": "respond", "answer": ""}',
     {"action": "respond", "answer": ""}),
    ("<execute> </execute> then <respond>12</respond>", {"action": "respond", "answer": "12"}),
    ('{"action": "Respond", "answer": 4.5}', {"action": "respond", "answer": "4.5"}),
    ('{"action": "execute", "query": "  "}', None),
    ("{not json} <execute></execute>", None),
    ("plain words", None),
])
def test_find_action(output: str, action: dict[str, str] | None) -> None:
    assert agent_mod.find_action(output) == action


# --- (3) isolation -------------------------------------------------------------------------------

async def test_conversations_are_isolated(served: tuple[str, Any],
                                          llm_server: FakeLLMServer) -> None:
    url, app = served

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        said = [m["content"] for m in body["messages"] if m["role"] == "user"]
        return completion(content=" | ".join(said))

    llm_server.handler = handler
    async with client_for(url) as client:
        a, b = client.conversation(), client.conversation()
        assert (await a.send("alpha")).text == "alpha"
        assert (await b.send("beta")).text == "beta"
        again_a, again_b = await asyncio.gather(a.send("alpha 2"), b.send("beta 2"))
    assert again_a.text == "alpha | alpha 2"
    assert again_b.text == "beta | beta 2"
    assert a.context_id and b.context_id and a.context_id != b.context_id
    conversations = app.state.agent.conversations
    assert {conversations[a.context_id].mode, conversations[b.context_id].mode} == {"chat"}
    assert len(conversations[a.context_id].messages) == 4


async def test_one_turn_at_a_time_within_a_conversation(served: tuple[str, Any],
                                                        llm_server: FakeLLMServer) -> None:
    url, app = served

    def handler(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]["content"]
        return Reply(body=completion(content=f"re: {last}"), delay_s=0.3 * (last == "slow"))

    llm_server.handler = handler
    async with client_for(url) as client:
        chat = client.conversation()
        await chat.send("start")
        replies = await asyncio.gather(chat.send("slow"), chat.send("fast"))
    assert sorted(r.text for r in replies) == ["re: fast", "re: slow"]
    assert chat.context_id
    history = app.state.agent.conversations[chat.context_id].messages
    assert [m["role"] for m in history] == ["user", "assistant"] * 3
    assert all(answer["content"] == f"re: {asked['content']}"
               for asked, answer in zip(history[::2], history[1::2], strict=True))


def test_least_recently_used_conversation_is_dropped() -> None:
    agent = agent_mod.LLMAgent(llm=None, max_contexts=2)  # no model call is made here
    text = [agent_mod.Piece("text", "hi")]
    for context_id in ("a", "b", "a", "c"):
        agent.conversation(context_id, text)
    assert list(agent.conversations) == ["a", "c"]


# --- (4) failures and odd input -----------------------------------------------------------------

async def test_model_failure_is_explained_and_the_agent_keeps_going(
        served: tuple[str, Any], llm_server: FakeLLMServer) -> None:
    url, _ = served
    for _ in range(RETRY.max_attempts):
        llm_server.enqueue_error(500, "upstream exploded")
    llm_server.enqueue(content="Back again.")
    async with client_for(url) as client:
        chat = client.conversation()
        failed = await asyncio.wait_for(chat.send("hello"), timeout=HANG_S)
        recovered = await chat.send("still there?")
    assert "could not get an answer from my language model" in failed.text
    assert "500" in failed.text and "upstream exploded" in failed.text
    assert TEST_API_KEY not in failed.text
    assert recovered.text == "Back again."
    assert model_messages(llm_server, RETRY.max_attempts)[-2:] == [
        {"role": "user", "content": "hello"}, {"role": "user", "content": "still there?"}]


async def test_unusable_model_output_is_explained(served: tuple[str, Any],
                                                  llm_server: FakeLLMServer) -> None:
    url, _ = served
    schemas = MockTools.openai_schemas(ToolTexts(source="fallback", tools={}))
    llm_server.enqueue(tool_calls=[{"name": "get_users", "arguments": "{broken"}])
    llm_server.enqueue(content="")
    async with client_for(url) as client:
        chat = client.conversation()
        bad_json = await chat.send(*prompt.first_message("P", schemas), "hi")
        empty = await chat.send("anyone?")
    assert "LLMResponseInvalid" in bad_json.text and "not valid JSON" in bad_json.text
    assert empty.text == "The model returned an empty reply."


async def test_a_message_without_text_or_data_gets_an_explanation(
        served: tuple[str, Any], llm_server: FakeLLMServer) -> None:
    url, _ = served
    async with client_for(url) as client:
        reply: AgentReply = await client.conversation().send(
            FilePart(uri="https://example.org/a.pdf", mime_type="application/pdf"))
    assert reply.text == agent_mod.NO_CONTENT
    assert llm_server.requests == []


def test_legacy_dialect_and_trailing_slash(served: tuple[str, Any],
                                           llm_server: FakeLLMServer) -> None:
    url, _ = served
    llm_server.enqueue(content="hi from 0.3")
    card = httpx.get(url + "/.well-known/agent-card.json").json()
    assert card["url"] == url + "/a2a" and card["protocolVersion"] == "0.3"
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "kind": "message", "role": "user", "messageId": "m1",
        "parts": [{"kind": "text", "text": "hello"}]}}}
    result = httpx.post(url + "/a2a/", json=body).json()["result"]
    assert result["kind"] == "message" and result["parts"][0]["text"] == "hi from 0.3"

    # tau2 over 0.3: the tools arrive as a 0.3 data part, the tool call leaves as one.
    llm_server.enqueue(tool_calls=[{"id": "c9", "name": "book_seats",
                                    "arguments": {"flight": "F1", "passengers": []}}])
    body["params"]["message"]["parts"] = [
        {"kind": "text", "text": "policy"}, {"kind": "data", "data": {"tools": [BOOKING_SCHEMA]}},
        {"kind": "text", "text": "book F1"}]
    result = httpx.post(url + "/a2a", json=body).json()["result"]
    assert result["parts"] == [{"kind": "data", "data": {"tool_calls": [
        {"id": "c9", "name": "book_seats", "arguments": {"flight": "F1", "passengers": []}}]}}]
    assert llm_server.requests[-1].json["tools"] == [BOOKING_SCHEMA]


def test_main_refuses_to_start_without_an_api_key(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["llm_agent.py", "--model", "gpt-4.1"])
    with pytest.raises(SystemExit) as exit_info:
        agent_mod.main()
    assert exit_info.value.code == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err
