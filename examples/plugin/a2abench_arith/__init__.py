"""a2abench-arith: the example benchmark plugin of a2abench's docs/writing-a-benchmark.md.

Each task asks the agent one arithmetic question; the reward is 1 when the last integer in
the agent's answer is the right one, else 0. A reply without any number is the agent's
error (recorded as `agent_error`, reward 0), not a wrong answer. With `--calculator` the
agent is given a tool, `calculate`, which it may call before it answers (the guide's
"Giving the agent tools").

    pip install -e examples/plugin
    a2abench run arith --white-agent-url http://127.0.0.1:9999 --count 5 --operations add
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from a2abench.plugin import (
    AgentReply,
    Driver,
    ProtocolError,
    Scoring,
    TaskContext,
    TaskOutcome,
    TaskSpec,
    agent_input,
)

Operation = Literal["add", "sub", "mul"]
SYMBOLS: dict[Operation, str] = {"add": "+", "sub": "-", "mul": "*"}
_INTEGER = re.compile(r"-?\d+")

# The tool, described as an OpenAI function schema (what most agents know how to read).
CALCULATE: dict[str, Any] = {
    "name": "calculate",
    "description": "Evaluate one operation of two integers, e.g. '12 * 34'.",
    "parameters": {"type": "object", "required": ["expression"],
                   "properties": {"expression": {"type": "string",
                                                 "description": "<integer> <+|-|*> <integer>"}}},
}
TOOL_HELP = ('You may call the calculate tool first: reply with a data part '
             '{"tool_call": {"name": "calculate", "arguments": {"expression": "12 * 34"}}}; '
             'its result comes back as a data part {"tool_result": {...}}. '
             "Then answer with the number only.")
# Operands of at most 18 digits: the agent's arguments never make the harness compute long.
_EXPRESSION = re.compile(r"\s*(-?\d{1,18})\s*([-+*])\s*(-?\d{1,18})\s*")


class ArithOptions(BaseModel):
    """Options of `a2abench run arith`: each field is a flag (`--task-seed`, also read from
    A2ABENCH_ARITH_TASK_SEED); its description is the help text."""

    count: int = Field(default=3, ge=1, description="Questions per operation.")
    operations: list[Operation] = Field(
        default_factory=lambda: list(SYMBOLS),
        description="Operations asked about: add | sub | mul (repeatable).")
    task_seed: int = Field(default=0, description="Seed of the generated questions.")
    calculator: bool = Field(default=False,
                             description="Give the agent the calculate tool.")
    max_tool_calls: int = Field(default=3, ge=1, le=100,
                                description="Tool calls allowed per question; one more is "
                                            "the agent's error.")


@dataclass(frozen=True)
class Question:
    left: int
    right: int
    operation: Operation

    @property
    def text(self) -> str:
        return (f"What is {self.left} {SYMBOLS[self.operation]} {self.right}? "
                "Answer with the number only.")

    @property
    def answer(self) -> int:
        return apply(self.left, SYMBOLS[self.operation], self.right)


def apply(left: int, symbol: str, right: int) -> int:
    if symbol == "+":
        return left + right
    if symbol == "-":
        return left - right
    return left * right


def tool_call(reply: AgentReply) -> dict[str, Any] | None:
    """The reply's tool call as {"name", "arguments"}, or None when it is an answer. The
    agent's data may be any JSON: a malformed call raises inside `agent_input`, which makes
    it the agent's error."""
    with agent_input("tool call"):
        for item in reply.data:
            if isinstance(item, dict) and "tool_call" in item:
                call = item["tool_call"]
                return {"name": str(call["name"])[:100], "arguments": dict(call["arguments"])}
    return None


def calculate(call: dict[str, Any]) -> dict[str, Any]:
    """Run one call. A bad call is a result the agent can read and correct, as a real tool's
    error would be, not an exception."""
    if call["name"] != "calculate":
        return {"name": call["name"], "error": f"unknown tool {call['name']!r}"}
    found = _EXPRESSION.fullmatch(str(call["arguments"].get("expression", ""))[:100])
    if found is None:
        return {"name": "calculate", "error": "expression must be <integer> <+|-|*> <integer>"}
    return {"name": "calculate", "content": str(apply(int(found[1]), found[2], int(found[3])))}


class ArithDriver(Driver[ArithOptions]):
    """The benchmark: `tasks()` once, then `run_task()` per task-trial (the engine does the
    rest: concurrency, retries, records, resume, shards, reports)."""

    name = "arith"
    help = "Ask the agent arithmetic questions; score exact answers."
    example = "a2abench run arith --white-agent-url http://127.0.0.1:9999 --count 5"
    scoring = Scoring(headline="mean_reward", description="share of questions answered right")

    def tasks(self) -> list[TaskSpec]:
        rng = random.Random(self.options.task_seed)  # same options, same questions
        out = []
        for operation in self.options.operations:
            for i in range(self.options.count):
                question = Question(rng.randint(2, 99), rng.randint(2, 99), operation)
                out.append(TaskSpec(task_id=f"{operation}-{i}", category=operation,
                                    data=question))
        return out

    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        question: Question = ctx.task.data
        chat = ctx.conversation()
        transcript: list[dict[str, Any]] = [{"role": "user", "content": question.text}]
        if not self.options.calculator:
            reply = await chat.send(question.text)
        else:  # the question, the tool's use in words, and its schema as a data part
            reply = await chat.send(question.text, TOOL_HELP, {"tools": [CALCULATE]})
        calls = 0
        while self.options.calculator and (call := tool_call(reply)) is not None:
            calls += 1
            if calls > self.options.max_tool_calls:
                raise ProtocolError(f"the agent made more than {self.options.max_tool_calls} "
                                    "tool calls", hint="Answer within --max-tool-calls calls.")
            result = calculate(call)
            transcript += [{"role": "assistant", "tool_call": call},
                           {"role": "tool", "tool_result": result}]
            reply = await chat.send(f"calculate: {result.get('content', result.get('error'))}",
                                    {"tool_result": result})
        return self.score(question, reply.text, transcript, calls)

    def score(self, question: Question, text: str, transcript: list[dict[str, Any]],
              calls: int) -> TaskOutcome:
        numbers = _INTEGER.findall(text)
        if not numbers:
            raise ProtocolError(f"the reply holds no number: {text[:80]!r}")
        with agent_input("answer"):  # int() refuses 5,000 digits: the agent's error too
            given = int(numbers[-1])
        return TaskOutcome(
            reward=1.0 if given == question.answer else 0.0, termination="answered",
            turns=calls + 1, tool_calls=calls,
            transcript=[*transcript, {"role": "assistant", "content": text}],
            details={"expected": question.answer, "given": given})
