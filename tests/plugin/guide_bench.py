"""A benchmark plugin written from docs/writing-a-benchmark.md alone: it imports only
`a2abench.plugin` and follows the guide's three rules. Each task asks for a sum and expects
the answer as JSON, `{"answer": 4}`; the agent's reply is parsed inside `agent_input`, and
its conversation raises on a failed A2A task, so neither a reply that crashes the parser nor
a failed task can leave the score."""

from __future__ import annotations

from pydantic import BaseModel, Field

from a2abench.plugin import (
    DEFAULT_MAX_DEPTH,
    Driver,
    Scoring,
    TaskContext,
    TaskOutcome,
    TaskSpec,
    agent_input,
    loads,
)


class GuideOptions(BaseModel):
    tasks: list[str] = Field(default_factory=lambda: ["plain"],
                             description="Task ids; each is sent to the agent as is.")
    wrap: bool = Field(default=True, description="Parse replies inside agent_input (the rule).")


class GuideDriver(Driver[GuideOptions]):
    name = "guide"
    scoring = Scoring(headline="mean_reward", description="sums answered right")

    def tasks(self) -> list[TaskSpec]:
        return [TaskSpec(task_id=t) for t in self.options.tasks]

    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        reply = await ctx.conversation().send(f"{ctx.task.task_id}: what is 2 + 2?")
        if self.options.wrap:
            with agent_input("answer"):
                given = _parse(reply.text)
        else:  # what a plugin that skips the rule records: an unscored harness error
            given = _parse(reply.text)
        return TaskOutcome(reward=1.0 if given == 4 else 0.0, termination="answered", turns=1,
                           transcript=[{"role": "agent", "text": reply.text}])


def _parse(text: str) -> int:
    """The plugin's parser: it trusts the reply's shape, as real parsers do."""
    return int(loads(text, DEFAULT_MAX_DEPTH, what="the answer")["answer"])
