"""a2abench-arith: the example benchmark plugin of a2abench's docs/writing-a-benchmark.md.

Each task asks the agent one arithmetic question; the reward is 1 when the last integer in
the agent's reply is the right answer, else 0. A reply without any number is the agent's
error (recorded as `agent_error`, reward 0), not a wrong answer.

    pip install -e examples/plugin
    a2abench run arith --white-agent-url http://127.0.0.1:9999 --count 5 --operations add
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from a2abench.plugin import Driver, ProtocolError, Scoring, TaskContext, TaskOutcome, TaskSpec

Operation = Literal["add", "sub", "mul"]
SYMBOLS: dict[Operation, str] = {"add": "+", "sub": "-", "mul": "*"}
_INTEGER = re.compile(r"-?\d+")


class ArithOptions(BaseModel):
    """Options of `a2abench run arith`: each field is a flag (`--task-seed`, also read from
    A2ABENCH_TASK_SEED); its description is the help text."""

    count: int = Field(default=3, ge=1, description="Questions per operation.")
    operations: list[Operation] = Field(
        default_factory=lambda: list(SYMBOLS),
        description="Operations asked about: add | sub | mul (repeatable).")
    task_seed: int = Field(default=0, description="Seed of the generated questions.")


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
        if self.operation == "add":
            return self.left + self.right
        if self.operation == "sub":
            return self.left - self.right
        return self.left * self.right


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
        reply = await ctx.conversation().send(question.text)
        numbers = _INTEGER.findall(reply.text)
        if not numbers:
            raise ProtocolError(f"the reply holds no number: {reply.text[:80]!r}")
        given = int(numbers[-1])
        return TaskOutcome(
            reward=1.0 if given == question.answer else 0.0, termination="answered", turns=1,
            transcript=[{"role": "user", "content": question.text},
                        {"role": "assistant", "content": reply.text}],
            details={"expected": question.answer, "given": given})
