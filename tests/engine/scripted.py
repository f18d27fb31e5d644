"""A small scripted benchmark only the tests use: each task sends `turns` messages and
expects the agent to echo each one. Reward = fraction of echoed turns (1.0 = pass)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from pydantic import BaseModel

from a2abench.errors import ProtocolError
from a2abench.run import Driver, TaskContext, TaskOutcome, TaskSpec
from a2abench.run.events import Notice
from a2abench.run.records import Scoring, TaskRecord
from a2abench.run.registry import register


class ScriptedOptions(BaseModel):
    tasks: int = 10
    turns: int = 3
    strict: bool = False  # rescoring option: require the exact echo prefix
    boom_task: str | None = None  # a task id whose run raises a harness bug
    stuck_task: str | None = None  # a task id whose run says so, then never stops


class ScriptedDriver(Driver):
    name = "scripted"
    options_model = ScriptedOptions
    scoring = Scoring(headline="mean_reward", description="fraction of echoed turns")

    @property
    def domain(self) -> str | None:
        return "scripted"

    def tasks(self) -> list[TaskSpec]:
        opts: ScriptedOptions = self.options  # type: ignore[assignment]
        return [TaskSpec(task_id=f"t{i:03d}", domain="scripted", category=f"cat{i % 3}")
                for i in range(opts.tasks)]

    def manifest(self) -> dict[str, Any]:
        return {"data": {"source": "generated"}, "models": {}}

    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        opts: ScriptedOptions = self.options  # type: ignore[assignment]
        if ctx.task.task_id == opts.boom_task:
            raise ValueError("scripted harness bug")
        if ctx.task.task_id == opts.stuck_task:
            await _stuck(self)
        chat = ctx.conversation()
        transcript: list[dict[str, Any]] = []
        for turn in range(opts.turns):
            text = f"{ctx.task.task_id} turn {turn} seed {ctx.seed}"
            try:
                reply = await chat.send(text)
            except ProtocolError as exc:
                return TaskOutcome(status="agent_error", reward=0.0, termination="agent_error",
                                   turns=turn, transcript=transcript,
                                   error=_info(exc))
            transcript.append({"sent": text, "reply": reply.text})
        return self._score(transcript, opts)

    def _score(self, transcript: list[dict[str, Any]], opts: ScriptedOptions) -> TaskOutcome:
        def ok(t: dict[str, Any]) -> bool:
            return (t["reply"].endswith(": " + t["sent"]) if opts.strict
                    else t["sent"] in t["reply"])

        hits = sum(ok(t) for t in transcript)
        reward = hits / max(1, opts.turns)
        return TaskOutcome(reward=reward, termination="done", turns=len(transcript),
                           transcript=transcript, reward_components={"echoed": hits},
                           labels=["strict"] if opts.strict else [])

    async def rescore(self, record: TaskRecord) -> TaskRecord | None:
        opts: ScriptedOptions = self.options  # type: ignore[assignment]
        outcome = self._score(record.transcript or [], opts)
        return record.model_copy(update={"reward": outcome.reward,
                                         "success": outcome.reward == 1.0,
                                         "labels": outcome.labels,
                                         "reward_components": outcome.reward_components})


async def _stuck(driver: Driver) -> None:
    """Say so, then ignore every cancellation: a task-trial whose clean-up never ends."""
    if driver.emit is not None:
        driver.emit(Notice("warning", "scripted: this task-trial is stuck"))
    while True:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.Event().wait()


def _info(exc: ProtocolError) -> Any:
    from a2abench.run.records import ErrorInfo

    return ErrorInfo(error=type(exc).__name__, kind=exc.kind, message=exc.message)


def install() -> None:
    register("scripted", ScriptedDriver)
