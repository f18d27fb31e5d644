"""The example plugin gives its agent a tool (docs/writing-a-benchmark.md, "Giving the agent
tools"): the `calculate` tool, offered with `--calculator`, over A2A data parts, against a
real a2a-sdk agent on loopback. The plugin is registered in-process here; its entry-point
path is tests/examples/test_plugin_example.py's.

Whatever the agent does with the tool, its failure stays its own: a malformed call, one call
too many and an answer `int()` refuses are `agent_error` (scored 0), never an unscored
harness error; a call to an unknown tool or with a bad expression is a result it can read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from a2a.helpers import new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from google.protobuf.json_format import MessageToDict

from a2abench.plugin import register, unregister
from tests.agents import ROOT
from tests.clihelp import run_cli
from tests.sdk_agents import sdk_agent
from tests.servers import serve

_QUESTION = re.compile(r"What is (-?\d+) ([+*-]) (-?\d+)\?")


class Calculating(AgentExecutor):
    """Calls `calculate` as `mode` says, then answers with what the tool returned."""

    def __init__(self) -> None:
        self.mode = "calc"
        self.seen: list[list[Any]] = []  # the data parts of every message received

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        data = [MessageToDict(p.data) if p.data.HasField("struct_value") else None
                for p in context.message.parts if p.HasField("data")]
        self.seen.append(data)
        parts = self._reply(context.get_user_input(), data)
        await event_queue.enqueue_event(new_message(parts, context_id=context.context_id))

    def _reply(self, text: str, data: list[Any]) -> list[Any]:
        result = next((d["tool_result"] for d in data if d and "tool_result" in d), None)
        question = _QUESTION.search(text)
        if result is not None and self.mode != "loop":
            if "error" in result:  # an unknown tool: now call the right one
                return [_call("calculate", {"expression": "2 + 2"})]
            return [new_text_part(f"The answer is {result['content']}")]
        if self.mode == "loop" and result is not None:
            return [_call("calculate", {"expression": "2 + 2"})]
        if self.mode == "bad-call":
            return [new_data_part({"tool_call": "calculate 2 + 2"})]
        if self.mode == "huge":
            return [new_text_part("9" * 5000)]
        if self.mode == "unknown-tool" and result is None:
            return [_call("sqrt", {"x": 4})]
        assert question, text
        return [_call("calculate", {"expression": f"{question[1]} {question[2]} {question[3]}"})]

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def _call(name: str, arguments: dict[str, Any]) -> Any:
    return new_data_part({"tool_call": {"name": name, "arguments": arguments}})


@pytest.fixture(scope="module")
def agent() -> Iterator[tuple[Calculating, str]]:
    import sys

    sys.path.insert(0, str(ROOT / "examples" / "plugin"))  # where it is not installed
    try:
        from a2abench_arith import ArithDriver
    finally:
        sys.path.remove(str(ROOT / "examples" / "plugin"))
    executor = Calculating()
    register("arith-tools", ArithDriver)
    try:
        with serve(lambda base: sdk_agent(base, bindings=("JSONRPC",), versions=("1.0",),
                                          streaming=False, executor=executor)) as base:
            yield executor, base
    finally:
        unregister("arith-tools")


def _run(agent: tuple[Calculating, str], mode: str, out: Path,
         *extra: str) -> list[dict[str, Any]]:
    executor, base = agent
    executor.mode, executor.seen = mode, []
    r = run_cli("run", "arith-tools", "--white-agent-url", base, "--output", str(out),
                "--count", "1", "--calculator", *extra)
    assert r.code in (0, 1), r.err
    return [t for t in map(json.loads, out.read_text().splitlines()) if t["type"] == "task"]


def test_the_agent_calls_the_tool_and_answers(agent: tuple[Calculating, str],
                                              tmp_path: Path) -> None:
    tasks = _run(agent, "calc", tmp_path / "m.jsonl")
    assert [(t["status"], t["reward"], t["tool_calls"]) for t in tasks] == [("ok", 1.0, 1)] * 3
    data = [d for message in agent[0].seen for d in message]
    assert sum("tools" in d for d in data) == 3  # the schema, as a data part
    assert data[0]["tools"][0]["name"] == "calculate"
    assert [d["tool_result"]["name"] for d in data if "tool_result" in d] == ["calculate"] * 3
    assert [m["role"] for m in tasks[0]["transcript"]] == ["user", "assistant", "tool",
                                                           "assistant"]


def test_a_bad_tool_is_a_result_the_agent_can_correct(agent: tuple[Calculating, str],
                                                      tmp_path: Path) -> None:
    tasks = _run(agent, "unknown-tool", tmp_path / "m.jsonl", "--operations", "add")
    assert tasks[0]["transcript"][2]["tool_result"] == {"name": "sqrt",
                                                        "error": "unknown tool 'sqrt'"}
    assert (tasks[0]["status"], tasks[0]["tool_calls"]) == ("ok", 2)


@pytest.mark.parametrize("mode, message", [
    ("bad-call", "could not process the agent's tool call (TypeError"),
    ("loop", "the agent made more than 3 tool calls"),
    ("huge", "could not process the agent's answer (ValueError"),
])
def test_what_the_agent_gets_wrong_with_the_tool_is_its_error(
        agent: tuple[Calculating, str], tmp_path: Path, mode: str, message: str) -> None:
    tasks = _run(agent, mode, tmp_path / "m.jsonl", "--operations", "add")
    assert [(t["status"], t["reward"]) for t in tasks] == [("agent_error", 0.0)]
    assert message in tasks[0]["error"]["message"], tasks[0]["error"]


def test_without_the_flag_no_tool_is_offered(agent: tuple[Calculating, str],
                                             tmp_path: Path) -> None:
    executor, base = agent
    executor.mode, executor.seen = "calc", []
    out = tmp_path / "m.jsonl"
    r = run_cli("run", "arith-tools", "--white-agent-url", base, "--output", str(out),
                "--count", "1", "--operations", "add")
    assert r.code == 0 and executor.seen == [[]]  # no data part: no tool is offered
    task = json.loads(out.read_text().splitlines()[-2])
    # It answers with a tool call anyway: an answer without a number, its error.
    assert (task["status"], task["tool_calls"]) == ("agent_error", 0), task
