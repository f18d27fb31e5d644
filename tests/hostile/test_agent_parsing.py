"""Hostile reply contents, in process: typed errors for wrong-typed fields, linear work on big
replies, tag scanners equal to upstream's regexes but linear, tool-call and nesting limits,
and which side a passed --task-timeout is blamed on."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from a2abench.a2a import dialects
from a2abench.a2a.client import AgentReply, check_reply
from a2abench.a2a.models import Artifact, Task, TaskStatus, TextPart
from a2abench.benchmarks.crmarena import actions
from a2abench.benchmarks.tau2 import actions as tau2_actions
from a2abench.errors import ProtocolError, ReplyLimitExceeded, ReplyTooDeep
from a2abench.net.limits import ReplyLimits
from a2abench.run import Driver, TaskContext, TaskOutcome, TaskSpec, execute_async
from a2abench.run.config import RunConfig
from a2abench.run.registry import register, unregister
from tests.hostile.hostile_agent import hostile
from tests.waits import cpu_s

BAD_RESULTS: list[Any] = [
    {"kind": "message", "role": ["agent"], "parts": []},
    {"kind": "message", "role": {"a": 1}, "parts": []},
    {"kind": "message", "role": "agent", "parts": [], "metadata": "not an object"},
    {"kind": "task", "id": "t", "status": {"state": "completed"}, "artifacts": 5},
    {"kind": "task", "id": "t", "status": {"state": "completed"}, "history": [1, 2]},
    {"kind": "task", "id": "t", "status": {"state": "completed", "message": "hi"}},
    {"kind": "message", "role": "agent", "parts": [{"kind": "file", "file": []}]},
    {"kind": "message", "role": "agent", "parts": {"kind": "text"}},
    ["not", "an", "object"],
]


@pytest.mark.parametrize("raw", BAD_RESULTS, ids=range(len(BAD_RESULTS)))
def test_wrong_typed_fields_raise_protocol_error(raw: Any) -> None:
    with pytest.raises(ProtocolError):
        dialects.parse_result(raw)


def test_wrong_typed_stream_event_raises_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        dialects.parse_stream_event({"kind": "artifact-update", "artifact": {"parts": 3}})


def _task(artifacts: int, parts_each: int = 1) -> Task:
    return Task(id="t", status=TaskStatus(state="completed"), artifacts=[
        Artifact(artifact_id=f"a{i}", parts=[TextPart(text=f"{i}-{j}")
                                             for j in range(parts_each)])
        for i in range(artifacts)])


def test_reply_parts_are_linear_and_still_deduplicated() -> None:
    reply = AgentReply(task=_task(1_000, 10))
    with cpu_s() as took:
        assert len(reply.parts) == 10_000
    assert took[0] < 5  # CPU seconds of this thread; quadratic took minutes at this size
    status = Task(id="t", status=TaskStatus(state="completed", message=None))
    status.status.message = dialects.parse_message(
        {"role": "agent", "parts": [{"kind": "text", "text": "same"}]})
    status.artifacts = [Artifact(parts=[TextPart(text="same"), TextPart(text="other")])]
    assert [p.text for p in AgentReply(task=status).parts  # type: ignore[union-attr]
            ] == ["same", "other"]


def test_reply_counts_are_limited() -> None:
    with pytest.raises(ReplyLimitExceeded, match="1001 artifacts; the limit is 1000"):
        check_reply(AgentReply(task=_task(1_001)), ReplyLimits())
    with pytest.raises(ReplyLimitExceeded, match="12 parts; the limit is 10"):
        check_reply(AgentReply(task=_task(3, 4)), ReplyLimits(max_parts=10))
    check_reply(AgentReply(task=_task(1_000)), ReplyLimits())


# --- tag scanners: exactly upstream's regexes, in linear time ---------------------------------

TAG_TEXT = st.lists(st.sampled_from(["<execute>", "</execute>", "<respond>", "</respond>",
                                      "<json>", "</JSON>", "<JSON>", "</json>", "a", " ",
                                      "\n", "{", "}"]), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(TAG_TEXT)
def test_tag_content_equals_upstreams_regex(text: str) -> None:
    for name in ("execute", "respond"):
        match = re.search(rf"<{name}>(.*?)</{name}>", text, re.DOTALL)
        assert actions.tag_content(text, name) == (match.group(1) if match else None)


def test_unclosed_tags_and_half_objects_cost_linear_time() -> None:
    with cpu_s() as took:
        assert actions.parse_reply("<execute>" * 150_000) is None
        # 200,000 starts of half-objects 500 deep: the scan gives up after 1,000 failed starts
        assert actions.parse_reply(('{"a": ' * 500 + "x") * 400) is None
        text = "<json>" * 200_000  # text to the user in the default format, quickly
        assert tau2_actions.parse_reply(_reply({"kind": "text", "text": text})).content == text
    assert took[0] < 10  # CPU seconds of this thread; the regexes alone took minutes


def test_the_tags_format_refuses_replies_its_regex_cannot_parse_in_time() -> None:
    with cpu_s() as took, pytest.raises(ReplyLimitExceeded, match="4000 '<' and 4000 '>'"):
        tau2_actions.parse_reply(_reply({"kind": "text", "text": "<a>" * 4_000}),
                               tool_call_format="tags")
    assert took[0] < 5  # CPU seconds of this thread; upstream's expression took 7 minutes
    ok = tau2_actions.parse_reply(_reply({"kind": "text", "text": (
        'Thinking <b>bold</b>. <json>{"name": "respond", "arguments": {"content": "hi"}}'
        "</json>")}), tool_call_format="tags")
    assert ok.content == "hi"


# --- tau2 replies -----------------------------------------------------------------------------

def _reply(*parts: dict[str, Any]) -> AgentReply:
    return AgentReply(message=dialects.parse_message({"role": "agent", "parts": list(parts)}))


def test_thousands_of_tool_calls_in_one_reply_are_refused() -> None:
    calls = [{"name": "get_user", "arguments": {}} for _ in range(5_000)]
    with pytest.raises(ReplyLimitExceeded, match="5000 tool calls; the limit is 100"):
        tau2_actions.parse_reply(_reply({"kind": "data", "data": {"tool_calls": calls}}))
    as_text = json.dumps({"tool_calls": calls})  # as text too: not prose for the user
    with pytest.raises(ReplyLimitExceeded, match="5000 tool calls"):
        tau2_actions.parse_reply(_reply({"kind": "text", "text": as_text}),
                               tools={"get_user": {}})
    ok = [{"name": "get_user", "arguments": {}} for _ in range(100)]
    assert len(tau2_actions.parse_reply(
        _reply({"kind": "data", "data": {"tool_calls": ok}})).tool_calls or []) == 100


def test_json_too_deep_in_text_is_the_agents_error() -> None:
    deep = '{"tool_call": {"name": "x", "arguments": {"a": ' + "[" * 900 + "]" * 900 + "}}}"
    with pytest.raises(ReplyTooDeep, match="JSON in the agent's text is nested deeper"):
        tau2_actions.parse_reply(_reply({"kind": "text", "text": deep}))
    with pytest.raises(ReplyTooDeep):
        actions.parse_reply('{"action": "respond", "answer": ' + "[" * 5000 + "]" * 5000 + "}")


# --- --task-timeout: whose fault ----------------------------------------------------------------

class _NoOptions(BaseModel):
    pass


class _SlowHarness(Driver):
    """Talks to the agent once, then waits on something that is not the agent."""

    name = "slow-harness"
    options_model = _NoOptions

    def tasks(self) -> list[TaskSpec]:
        return [TaskSpec(task_id="t1")]

    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        await ctx.conversation().send("hi")
        await asyncio.Event().wait()  # e.g. a user simulator that never answers
        raise AssertionError("unreachable")


@pytest.mark.slow
async def test_task_deadline_outside_the_agent_is_infrastructure(tmp_path: Path) -> None:
    register("slow-harness", _SlowHarness)
    try:
        with hostile("normal") as (_, base):
            # 3 s: the one exchange with the agent must end before it, on a loaded machine
            # too (0.5 s did not, issue 35); the harness's own wait never ends.
            config = RunConfig(benchmark="slow-harness", white_agent_url=base,
                               output=tmp_path / "m.jsonl", task_timeout=3)
            summary = await execute_async(config, lambda _: None)
    finally:
        unregister("slow-harness")
    assert summary.counts.infra_errors == 1
    text = (tmp_path / "m.jsonl").read_text()
    assert "not waiting for the agent" in text and '"error":"TaskTimeout"' in text


def test_counts_are_checked_on_the_wire_result_before_parsing() -> None:
    from a2abench.a2a.client import precheck

    artifacts = [{"artifactId": f"a{i}", "parts": [{"kind": "text", "text": f"{i}"}]}
                 for i in range(20_000)]
    for raw in ({"kind": "task", "id": "t", "status": {"state": "completed"},
                 "artifacts": artifacts},
                {"task": {"id": "t", "artifacts": artifacts}}):
        with pytest.raises(ReplyLimitExceeded, match="20000 artifacts"):
            precheck(raw, ReplyLimits())
    message = {"kind": "message", "role": "agent", "parts": [{"text": "x"}] * 11}
    with pytest.raises(ReplyLimitExceeded, match="11 parts"):
        precheck(message, ReplyLimits(max_parts=10))
    assert precheck(["odd"], ReplyLimits()) == ["odd"]  # the parser reports shapes


def test_a_lone_surrogate_anywhere_in_a_wire_result_is_the_agents_error() -> None:
    """Every shape (a Task's artifact or status message, a stream event, a key) is refused
    before any model is built: a Task's artifact once crashed the part deduplication (its
    JSON serialization), a harness error. Valid pairs and other non-ASCII text pass."""
    from a2abench.a2a.client import precheck

    lone = json.loads('"a\\udc00"')
    task = {"kind": "task", "id": "t", "status": {"state": "completed", "message": {
        "role": "agent", "messageId": "m", "parts": [{"kind": "text", "text": "ok"}]}},
        "artifacts": [{"artifactId": "a", "parts": [{"kind": "data", "data": {lone: 1}}]}]}
    event = {"kind": "status-update", "taskId": "t", "status": {"state": "working",
             "message": {"role": "agent", "messageId": "m", "parts": [{"text": lone}]}}}
    for raw, where in ((task, "a key of artifacts[0].parts[0].data"),
                       (event, "status.message.parts[0].text")):
        with pytest.raises(ProtocolError, match=re.escape(
                f"a lone surrogate (U+DC00 at character 1 of {where})")):
            precheck(raw, ReplyLimits())
    fine = {"kind": "message", "role": "agent", "messageId": "m", "parts": [
        {"kind": "text", "text": json.loads('"\\ud83d\\ude00 é ü"')}]}
    assert precheck(fine, ReplyLimits()) is fine
