"""Prompt profiles: the stock AgentBeats and agentify green agents' formats, reproduced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.a2a.client import AgentReply
from a2abench.a2a.models import Message, TextPart
from a2abench.benchmarks.tau2.models import Task, ToolCall, ToolMessage, UserMessage
from a2abench.benchmarks.tau2.profiles import (
    JSON_MARKER,
    TOOLS_MARKER,
    USER_MESSAGES_MARKER,
    AgentBeatsProfile,
    AgentifyProfile,
    get_profile,
)
from a2abench.errors import ProtocolError
from tests.fakes.llm_server import FakeLLMServer
from tests.servers import serve
from tests.tau2 import gold_agent, marker_agent
from tests.tau2.test_download import FileServer, server  # noqa: F401
from tests.tau2.test_run_e2e import airline, run, tasks_of, user_llm  # noqa: F401

SCHEMA = {"type": "function", "function": {"name": "get_user", "description": "Get a user.",
                                           "parameters": {"type": "object", "properties": {}}}}


def reply(text: str) -> AgentReply:
    return AgentReply(message=Message(role="agent", message_id="m", parts=[TextPart(text=text)]))


def _json_after(text: str, marker: str) -> Any:
    rest = text.split(marker, 1)[1]
    start = min(i for i in (rest.find("["), rest.find("{")) if i >= 0)
    return json.JSONDecoder().raw_decode(rest[start:])[0]


def test_agentbeats_fallback_keeps_the_stock_markers_and_structure() -> None:
    """Without the upstream file: our own wording, with the lines agents written for the
    stock green agent key on, in its order, and the greeting among the user messages."""
    parts = AgentBeatsProfile().first("POLICY", [SCHEMA], (), UserMessage(content="hi there"),
                                      ())
    assert len(parts) == 1 and isinstance(parts[0], TextPart)
    text = parts[0].text
    markers = [TOOLS_MARKER, '"name": "respond"', JSON_MARKER, "<json>", "</json>\n\n<json>",
               USER_MESSAGES_MARKER]
    at = [text.find(m) for m in markers]
    assert -1 not in at and at == sorted(at), at
    assert text.startswith(f"POLICY\n\n{TOOLS_MARKER}")
    assert _json_after(text, TOOLS_MARKER) == [SCHEMA]  # how such agents find their tools
    respond = _json_after(text, "]\n")
    assert respond["function"]["name"] == "respond"
    assert respond["function"]["parameters"]["required"] == ["content"]
    assert text.count("<json>") == text.count("</json>") == 2
    examples = [json.loads(chunk.split("</json>")[0]) for chunk in text.split("<json>")[1:]]
    assert [e["name"] for e in examples][1:] == ["respond"] and len(examples) == 2
    for example in examples:  # each example, sent bare, is a reply the profile reads
        parsed = AgentBeatsProfile().parse(reply(json.dumps(example)))
        assert parsed.tool_calls or parsed.content == example["arguments"]["content"]
    assert text.endswith(f"</json>\n\n\n{USER_MESSAGES_MARKER}\n"
                         "Hi! How can I help you today?\nhi there")


def test_agentbeats_tool_results_one_alone_several_named() -> None:
    calls = [ToolCall(id="a", name="get_user", arguments={}),
             ToolCall(id="b", name="get_order", arguments={})]
    one = AgentBeatsProfile().follow([ToolMessage(id="a", content='{"x": 1}')], calls[:1])
    two = AgentBeatsProfile().follow([ToolMessage(id="a", content="1"),
                                      ToolMessage(id="b", content="2")], calls)
    assert [p.text for p in one + two] == [  # type: ignore[union-attr]
        '{"x": 1}', "Tool 'get_user' result: 1\nTool 'get_order' result: 2"]


def test_agentbeats_replies_whole_text_json_or_words_for_the_user() -> None:
    p = AgentBeatsProfile()
    call = p.parse(reply('{"name": "get_user", "arguments": {"id": 1}}'))
    assert call.tool_calls and call.tool_calls[0].name == "get_user"
    assert call.tool_calls[0].arguments == {"id": 1}
    said = p.parse(reply('{"name": "respond", "arguments": {"content": "Hello"}}'))
    assert said.content == "Hello" and not said.tool_calls
    # Upstream json.loads the whole text: anything else goes to the user as it is.
    fenced = p.parse(reply('```json\n{"name": "get_user", "arguments": {}}\n```'))
    assert fenced.content.startswith("```json") and not fenced.tool_calls  # type: ignore[union-attr]
    with pytest.raises(ProtocolError, match="empty"):
        p.parse(reply("  "))


def test_agentify_first_message_and_observations() -> None:
    text = AgentifyProfile().first("POLICY", [SCHEMA], (), UserMessage(content="hi"), ())[0]
    assert text.text.startswith("\nPOLICY\nHere's a list of tools")  # type: ignore[union-attr]
    assert 'Please wrap the JSON part with <json>...</json> tags.' in text.text  # type: ignore[union-attr]
    assert '"name": "{RESPOND_ACTION_NAME}"' in text.text  # type: ignore[union-attr]
    assert text.text.endswith('User message: "user: hi"\n    ')  # type: ignore[union-attr]
    follow = AgentifyProfile().follow([ToolMessage(id="a", content="ok")], ())
    assert follow[0].text == "tool: ok"  # type: ignore[union-attr]
    parsed = AgentifyProfile().parse(reply('Sure.<json>{"name": "get_user", "arguments": '
                                           '{}}</json>'))
    assert parsed.tool_calls and parsed.tool_calls[0].name == "get_user"
    with pytest.raises(ProtocolError, match="no <json>"):
        AgentifyProfile().parse(reply('{"name": "respond", "arguments": {"content": "x"}}'))


def test_agentify_offers_done_and_done_ends_the_conversation() -> None:
    profile = AgentifyProfile()
    text = profile.first("P", [SCHEMA], (), UserMessage(content="hi"), ())[0].text  # type: ignore[union-attr]
    tools = _json_after(text, TOOLS_MARKER)
    assert [t["function"]["name"] for t in tools] == ["get_user", "done"]
    stop = profile.parse(reply('<json>{"name": "done", "arguments": {}}</json>'))
    assert stop.content == "###STOP###" and profile.is_stop(stop)
    assert not get_profile("a2abench").is_stop(stop)  # only agentify agents can stop


def test_the_default_profile_is_a2abench() -> None:
    parts = get_profile("a2abench").first("POLICY", [SCHEMA], (), UserMessage(content="hi"), ())
    assert "<policy>" in parts[0].text and parts[1].data == {"tools": [SCHEMA]}  # type: ignore[union-attr]
    assert parts[-1].text == "hi"  # type: ignore[union-attr]


def _score(base: str, llm: FakeLLMServer, out: Path, *extra: str) -> dict[str, Any]:
    result = run(base, llm, out, *extra)
    assert result.code in (0, 3), result.err
    return {k: v["reward"] for k, v in tasks_of(out).items()}


def test_a_stock_green_agent_scores_like_gold_under_the_agentbeats_profile(
        tmp_path: Path, airline: dict[str, Task], user_llm: FakeLLMServer) -> None:  # noqa: F811
    """The purple agent finds its tools and completes with --prompt-style agentbeats, scoring
    what a gold-replaying agent scores under the default profile; under the default profile
    the same agent never recognises the benchmark and only asks questions."""
    with serve(lambda base: gold_agent.app(base, airline, "gold")[0]) as gold:
        reference = _score(gold, user_llm, tmp_path / "gold.jsonl")
    holder: dict[str, Any] = {}

    def factory(base: str) -> Any:
        app, holder["agent"] = marker_agent.app(base, airline)
        return app

    with serve(factory) as purple:
        stock = _score(purple, user_llm, tmp_path / "stock.jsonl", "--prompt-style", "agentbeats")
        default = _score(purple, user_llm, tmp_path / "default.jsonl")
    assert reference == stock == {"3": 1.0, "14": 1.0, "19": 1.0}
    assert holder["agent"].recognised == [True] * 3 + [False] * 3
    assert set(default.values()) == {0.0}
    run_record = json.loads((tmp_path / "stock.jsonl").read_text().splitlines()[0])
    assert run_record["config"]["options"]["prompt_style"] == "agentbeats"
    # offline, with --data-dir and no agentbeats-tutorial file beside it: our own wording ran
    assert run_record["data"]["prompt_text"].startswith("a2abench wording (")
    assert "scenarios/tau2/tau2_evaluator.py" in run_record["data"]["prompt_text"]


def test_an_agentify_agent_completes_under_the_agentify_profile(
        tmp_path: Path, airline: dict[str, Task], user_llm: FakeLLMServer) -> None:  # noqa: F811
    with serve(lambda base: marker_agent.app(base, airline, "agentify")[0]) as purple:
        scores = _score(purple, user_llm, tmp_path / "agentify.jsonl", "--prompt-style",
                        "agentify")
    assert scores == {"3": 1.0, "14": 1.0, "19": 1.0}


SYNTHETIC_UPSTREAM = '''
RESPOND_ACTION_NAME = "respond"

async def ask_agent_to_solve(white_agent_url, env):
    observation, info = env.reset()
    task_description = f"""<{info["policy"]}|{tools_to_str(info["tools"])}|{RESPOND_ACTION_NAME}|{
        json.dumps({"name": RESPOND_ACTION_NAME, "arguments": {}}, indent=2)}|{
        json.dumps(observation, indent=2)}>"""
'''


def test_the_agentify_text_is_read_from_the_pinned_upstream_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With upstream's file beside --data-dir (checked against the pinned sha256) the text
    comes from it; a stand-in file of the same shape shows the mechanism offline."""
    import hashlib

    from a2abench.benchmarks.tau2 import data
    from a2abench.benchmarks.tau2.profiles import AGENTIFY_SOURCE, load_profile

    source = tmp_path / "checkout" / AGENTIFY_SOURCE
    source.parent.mkdir(parents=True)
    source.write_text(SYNTHETIC_UPSTREAM)
    data_dir = tmp_path / "checkout" / "data"
    profile, origin = load_profile("agentify", "any", data_dir)
    assert origin.startswith("written from the format (") and "not found" in origin  # sha differs
    pinned = data.manifest()
    files = {**pinned.files, AGENTIFY_SOURCE: hashlib.sha256(source.read_bytes()).hexdigest()}
    monkeypatch.setattr(data, "manifest", lambda: data.Manifest(pinned.repository,
                                                                 pinned.commit, files))
    profile, origin = load_profile("agentify", "any", data_dir)
    assert origin == "upstream"
    text = profile.first("POLICY", [SCHEMA], (), UserMessage(content="hi"), ())[0].text  # type: ignore[union-attr]
    tools = json.dumps([SCHEMA, {"type": "function", "function": {
        "name": "done", "description": "Call this function when you are done with the task.",
        "parameters": {"properties": {}, "title": "parameters", "type": "object"}}}], indent=2)
    respond = json.dumps({"name": "respond", "arguments": {}}, indent=2)
    assert text == f'<POLICY|{tools}|respond|{respond}|"user: hi">'


def test_a_prompt_style_sets_the_whole_format() -> None:
    from pydantic import ValidationError

    from a2abench.benchmarks.tau2.options import Tau2Options

    assert Tau2Options(prompt_style="agentbeats").prompt_style == "agentbeats"
    for clash in ({"solo": True}, {"tool_call_format": "tags"}):
        with pytest.raises(ValidationError, match="--tool-call-format and --solo go with"):
            Tau2Options(prompt_style="agentify", **clash)  # type: ignore[arg-type]


# A stand-in for the agentbeats-tutorial green agent's file, of the same shape (our own words):
# the opening's field holds a backslash, which only Python 3.12's parser accepts.
SYNTHETIC_AGENTBEATS = r'''
import json
RESPOND_ACTION_NAME = "respond"  # the reply that talks to the user


def tools_to_str(tools):
    return json.dumps([tool.openai_schema for tool in tools], indent=2)


class RemoteA2AAgent:
    @property
    def agent_prompt(self) -> str:
        return f"""[{self.domain_policy}]
{{tools}} {tools_to_str(self.tools)}
respond-tool {json.dumps({"name": RESPOND_ACTION_NAME, "n": [1, "}"]}, indent=2)}
"quoted" \t tab"""

    def generate_next_message(self, message, state):
        outgoing_text = f"{message.content}"
        if self._is_first_message:
            outgoing_text = f"{self.agent_prompt}\n== users ==\n{'\n--\n'.join([extract_text_from_message(message) for message in state.messages])}"
        logger.info(f"sent {len(outgoing_text):d} chars, {outgoing_text!r:.20}")
'''  # noqa: E501 (one line, as upstream writes it)


def _pin(monkeypatch: pytest.MonkeyPatch, body: bytes) -> None:
    """Pin the agentbeats source to `body` (the real pin is the upstream file's sha256)."""
    import dataclasses
    import hashlib

    from a2abench.benchmarks.tau2 import profiles

    monkeypatch.setattr(profiles, "AGENTBEATS_SOURCE", dataclasses.replace(
        profiles.AGENTBEATS_SOURCE, sha256=hashlib.sha256(body).hexdigest()))


def _synthetic_render(separator: str = "\n--\n") -> str:
    tools = json.dumps([SCHEMA], indent=2)
    respond = json.dumps({"name": "respond", "n": [1, "}"]}, indent=2)
    prompt = f'[POLICY]\n{{tools}} {tools}\nrespond-tool {respond}\n"quoted" \t tab'
    return f"{prompt}\n== users ==\n" + separator.join(["Hi! How can I help you today?", "hi"])


def test_the_agentbeats_text_is_read_from_the_pinned_file_beside_the_data_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from a2abench.benchmarks.tau2.profiles import AGENTBEATS_SOURCE, load_profile

    source = tmp_path / "checkout" / AGENTBEATS_SOURCE.path
    source.parent.mkdir(parents=True)
    source.write_text(SYNTHETIC_AGENTBEATS)
    data_dir = tmp_path / "checkout" / "data"
    profile, origin = load_profile("agentbeats", "any", data_dir)
    assert origin.startswith("a2abench wording (") and "not found" in origin  # sha differs
    assert JSON_MARKER in profile.first("P", [SCHEMA], (), UserMessage(content="hi"), ())[0].text  # type: ignore[union-attr]
    _pin(monkeypatch, source.read_bytes())
    profile, origin = load_profile("agentbeats", "any", data_dir)
    assert origin == "upstream"
    first = profile.first("POLICY", [SCHEMA], (), UserMessage(content="hi"), ())
    assert [p.text for p in first] == [_synthetic_render()]  # type: ignore[union-attr]
    assert profile.follow(UserMessage(content="more"), ())[0].text == "more"  # type: ignore[union-attr]


def test_the_agentbeats_text_is_downloaded_verified_and_cached(
        server: FileServer, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from a2abench._paths import cache_dir
    from a2abench.benchmarks.tau2.profiles import AGENTBEATS_SOURCE, load_profile

    body = SYNTHETIC_AGENTBEATS.encode()
    monkeypatch.setenv(AGENTBEATS_SOURCE.url_env, server.url)
    url_path = "/" + AGENTBEATS_SOURCE.path
    origin = load_profile("agentbeats", "any", None)[1]  # not served yet
    assert origin.startswith("a2abench wording (") and "HTTP 404" in origin
    server.files[url_path] = b"# other bytes\n" + body
    origin = load_profile("agentbeats", "any", None)[1]  # served, but not the pinned bytes
    assert origin.startswith("a2abench wording (") and "sha256" in origin
    _pin(monkeypatch, body)
    server.files[url_path] = body
    profile, origin = load_profile("agentbeats", "any", None)
    assert origin == "upstream"
    text = profile.first("POLICY", [SCHEMA], (), UserMessage(content="hi"), ())[0].text  # type: ignore[union-attr]
    assert text == _synthetic_render()
    cached = (cache_dir() / "agentbeats-tutorial" / AGENTBEATS_SOURCE.commit
              / AGENTBEATS_SOURCE.path)
    assert cached.read_bytes() == body
    del server.files[url_path]  # the cached copy serves from now on
    assert load_profile("agentbeats", "any", None)[1] == "upstream"
    assert server.requests == [url_path] * 3


def test_a_pinned_agentbeats_file_of_another_shape_falls_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from a2abench.benchmarks.tau2.profiles import AGENTBEATS_SOURCE, load_profile

    source = tmp_path / "checkout" / AGENTBEATS_SOURCE.path
    source.parent.mkdir(parents=True)
    for body, why in ((SYNTHETIC_AGENTBEATS.replace("tools_to_str(self.tools)", "self.tools"),
                       "no agent_prompt f-string"),
                      (SYNTHETIC_AGENTBEATS.replace("'\\n--\\n'.join", "sorted"),
                       "unexpected opening"),
                      (SYNTHETIC_AGENTBEATS.replace('= "respond"', '= "reply"'),
                       "RESPOND_ACTION_NAME is 'reply'"),
                      (SYNTHETIC_AGENTBEATS + 'x = """never closed\n', "cannot tokenize")):
        source.write_text(body)
        _pin(monkeypatch, source.read_bytes())
        profile, origin = load_profile("agentbeats", "any", tmp_path / "checkout" / "data")
        assert origin.startswith("a2abench wording (tau2_evaluator.py: ") and why in origin, \
            origin
        assert isinstance(profile, AgentBeatsProfile) and profile.text is None


def test_the_agentbeats_download_follows_the_runs_host_policy(
        server: FileServer, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Under --allow-host that does not name the download's host, nothing is fetched and our
    own wording runs, saying why."""
    from a2abench.benchmarks.tau2.profiles import AGENTBEATS_SOURCE, load_profile
    from a2abench.net.egress import HostPolicy, egress_policy

    body = SYNTHETIC_AGENTBEATS.encode()
    _pin(monkeypatch, body)
    server.files["/" + AGENTBEATS_SOURCE.path] = body
    monkeypatch.setenv(AGENTBEATS_SOURCE.url_env, server.url)
    with egress_policy(HostPolicy(("agent.example",))):
        profile, origin = load_profile("agentbeats", "any", None)
    assert origin.startswith("a2abench wording (") and "not an allowed host" in origin
    assert isinstance(profile, AgentBeatsProfile) and profile.text is None
    assert server.requests == []
    with egress_policy(HostPolicy(("127.0.0.1",))):
        assert load_profile("agentbeats", "any", None)[1] == "upstream"
