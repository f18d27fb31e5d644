"""Test-only benchmarks whose task-trials misbehave on purpose (issue 17 items 1 and 16)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from a2abench.run import Driver, TaskContext, TaskOutcome, TaskSpec
from a2abench.run.driver import agent_input


class HostileOptions(BaseModel):
    # task id -> what its task-trial does: "pass", "fail", "bigint", "deep", "huge",
    # "agent_raises" (processing the agent's reply raises), "harness_bug".
    plan: dict[str, str] = {"t0": "pass"}


class HostileDriver(Driver):
    name = "hostile"
    options_model = HostileOptions

    def tasks(self) -> list[TaskSpec]:
        opts: HostileOptions = self.options  # type: ignore[assignment]
        return [TaskSpec(task_id=t, domain="d", category="c") for t in opts.plan]

    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        opts: HostileOptions = self.options  # type: ignore[assignment]
        what = opts.plan[ctx.task.task_id]
        reply = await ctx.conversation().send(f"{ctx.task.task_id} go")
        transcript: list[dict[str, Any]] = [{"reply": reply.text}]
        if what == "bigint":
            transcript.append({"tool_call": {"amount": 10 ** 4000}})
        elif what == "deep":
            deep: dict[str, Any] = {}
            node = deep
            for _ in range(3000):
                node["x"] = {}
                node = node["x"]
            transcript.append({"args": deep})
        elif what == "huge":
            transcript.append({"text": "z" * 3_000_000})
        elif what == "agent_raises":
            with agent_input("reply"):
                _ = [int("9" * 10_000)]  # Python refuses: like any reply we cannot process
        elif what == "harness_bug":
            raise RuntimeError("a bug in a2abench")
        reward = 0.0 if what == "fail" else 1.0
        return TaskOutcome(reward=reward, termination="done", turns=1, transcript=transcript)


def install() -> None:
    from a2abench.run.registry import register

    register("hostile", HostileDriver)
