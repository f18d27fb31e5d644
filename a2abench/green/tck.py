"""Test-only "tck" mode (`serve-green --tck`, off by default): the A2A TCK drives its scenario
tests by messageId prefix (a2a-tck 1.0-dev `scenarios/*.feature`). With the mode on, messages
whose id starts with `tck-` or `test-resubscribe-` get the scenario behaviour; every other
message is an assessment request as usual. See docs/conformance.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from a2a.helpers import new_data_part, new_task, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, TaskState
from a2a.utils.errors import InvalidParamsError

PREFIXES = ("tck-", "test-resubscribe-")
STREAMING_TIMEOUT_S = 2.0  # the TCK's default TCK_STREAMING_TIMEOUT

Scenario = Callable[[TaskUpdater], Awaitable[None]]


def _file() -> Part:
    return Part(raw=b"tck", media_type="text/plain", filename="output.txt")


def _artifact(*parts: Part, work: bool = False) -> Scenario:
    async def run(up: TaskUpdater) -> None:
        if work:
            await up.start_work()
        await up.add_artifact(list(parts))
        await up.complete()
    return run


async def _complete(up: TaskUpdater) -> None:
    await up.complete(up.new_agent_message([new_text_part("Hello from TCK")]))


async def _input_required(up: TaskUpdater) -> None:
    await up.requires_input()


async def _chunked(up: TaskUpdater) -> None:
    await up.start_work()
    await up.add_artifact([new_text_part("chunk-1 ")], artifact_id="chunked", append=True)
    await up.add_artifact([new_text_part("chunk-2")], artifact_id="chunked", append=True,
                          last_chunk=True)
    await up.complete()


async def _long(up: TaskUpdater) -> None:
    await up.start_work()
    await asyncio.sleep(2 * STREAMING_TIMEOUT_S)
    await up.complete()


async def _only_complete(up: TaskUpdater) -> None:
    await up.complete()


# Longest prefixes first: "tck-artifact-file-url" must win over "tck-artifact-file".
SCENARIOS: list[tuple[str, Scenario]] = [
    ("tck-stream-artifact-chunked", _chunked),
    ("tck-stream-artifact-text", _artifact(new_text_part("Streamed text content"), work=True)),
    ("tck-stream-artifact-file", _artifact(_file(), work=True)),
    ("tck-stream-ordering-001", _artifact(new_text_part("Ordered output"), work=True)),
    ("tck-stream-001", _artifact(new_text_part("Stream hello from TCK"), work=True)),
    ("tck-stream-002", _only_complete),
    ("tck-stream-003", _artifact(new_text_part("Stream task lifecycle"), work=True)),
    ("tck-artifact-file-url", _artifact(Part(url="https://example.com/output.txt",
                                             media_type="text/plain", filename="output.txt"))),
    ("tck-artifact-text", _artifact(new_text_part("Generated text content"))),
    ("tck-artifact-file", _artifact(_file())),
    ("tck-artifact-data", _artifact(new_data_part({"key": "value", "count": 42}))),
    ("tck-complete-task", _complete),
    ("tck-input-required", _input_required),
    ("test-resubscribe-message-id", _long),
]


class TckRouter(AgentExecutor):
    """Routes TCK scenario messages to their behaviour and everything else to `inner`."""

    def __init__(self, inner: AgentExecutor) -> None:
        self.inner = inner

    @staticmethod
    def _scenario_id(context: RequestContext) -> str | None:
        message = context.message
        mid = message.message_id if message is not None else ""
        return mid if mid.startswith(PREFIXES) else None

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        mid = self._scenario_id(context)
        if mid is None:
            await self.inner.execute(context, event_queue)
            return
        task_id = str(context.task_id)
        # A follow-up naming only its taskId must continue in the task's own context.
        context_id = (context.current_task.context_id if context.current_task is not None
                      else str(context.context_id))
        if mid.startswith("tck-message-response"):
            updater = TaskUpdater(event_queue, task_id, context_id)
            await event_queue.enqueue_event(
                updater.new_agent_message([new_text_part("Direct message response")]))
            return
        if mid.startswith("tck-reject-task"):
            raise InvalidParamsError(message="rejected")
        if context.current_task is None:
            message = context.message
            await event_queue.enqueue_event(new_task(
                task_id, context_id, TaskState.TASK_STATE_SUBMITTED,
                history=[message] if message is not None else []))
        updater = TaskUpdater(event_queue, task_id, context_id)
        scenario = next((run for prefix, run in SCENARIOS if mid.startswith(prefix)), None)
        if scenario is None:
            await updater.complete(updater.new_agent_message(
                [new_text_part("Unhandled messageId prefix: " + mid)]))
            return
        await scenario(updater)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is not None and any(m.message_id.startswith(PREFIXES) for m in task.history):
            await TaskUpdater(event_queue, task.id, task.context_id).cancel()
            return
        await self.inner.cancel(context, event_queue)
