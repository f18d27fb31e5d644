"""The green agent's AgentExecutor: one A2A task = one assessment run by the run engine.

Lifecycle of a task: SUBMITTED (the Task is enqueued first, as a2a-sdk 1.x requires) ->
REJECTED for a request that cannot run, or -> (queued) -> WORKING with a progress message per
finished task-trial, and a heartbeat (the same progress) whenever nothing was said for
`--heartbeat` seconds -> an artifact "Result" -> COMPLETED, CANCELED (after CancelTask, with what
finished) or FAILED (the run could not go on; partial results attached when there are any).

The heartbeat is for streaming clients with a read timeout: AgentBeats' gateway (an a2a-sdk 0.3
client) gives up after 300 s without a byte, and one tau2 task-trial can take longer.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a.helpers import get_data_parts, get_text_parts, new_data_part, new_task, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, TaskState
from a2a.utils.errors import UnsupportedOperationError
from google.protobuf.struct_pb2 import Struct, Value

from a2abench.errors import A2ABenchError, CircuitOpen, RecordsError
from a2abench.green.monitoring import Monitoring
from a2abench.green.request import (
    ACCEPTED_FORMATS,
    AssessmentRequest,
    Planned,
    RequestRejected,
    check_tasks,
    parse_request,
    plan_run,
    server_only,
)
from a2abench.green.result import (
    progress_data,
    progress_text,
    result_data,
    result_json,
    summary_text,
)
from a2abench.green.settings import GreenSettings
from a2abench.report import Report, build_report
from a2abench.run import execute_async
from a2abench.run.driver import Driver
from a2abench.run.events import Event, Notice, RunStarted, TaskFinished, task_list

logger = logging.getLogger("a2abench.green")


class Busy(Exception):
    """Every slot runs an assessment and the waiting line is full."""


class Admission:
    """At most `slots` assessments run at once; up to `queue_limit` more wait, first come
    first served; beyond that a request is refused (`Busy`)."""

    def __init__(self, slots: int, queue_limit: int) -> None:
        self.slots = slots
        self.queue_limit = queue_limit
        self.running = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        return sum(not f.done() for f in self._waiting)

    async def enter(self, stop: asyncio.Event,
                    on_queued: Callable[[int], Awaitable[None]]) -> bool:
        """Take a slot (True), or give up because `stop` was set while waiting (False)."""
        if self.running < self.slots and not self.waiting:
            self.running += 1
            return True
        if self.waiting >= self.queue_limit:
            raise Busy(f"this server already runs {self.running} assessment(s) (its limit, "
                       f"--max-concurrent-assessments {self.slots}) and {self.waiting} wait "
                       f"(--max-queued-assessments {self.queue_limit}); try again later")
        slot: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(slot)
        stopper: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        try:
            await on_queued(self.waiting)
            await asyncio.wait([slot, stopper], return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            self._abandon(slot)
            raise
        finally:
            stopper.cancel()
        if slot.done():
            return True
        self._abandon(slot)
        return False

    def _abandon(self, slot: asyncio.Future[None]) -> None:
        if slot.done() and not slot.cancelled():
            self.leave()  # the slot was handed over but will not be used
        else:
            slot.cancel()
        if slot in self._waiting:
            self._waiting.remove(slot)

    def leave(self) -> None:
        """Free a slot, handing it straight to the first live waiter."""
        while self._waiting:
            slot = self._waiting.popleft()
            if not slot.done():
                slot.set_result(None)
                return
        self.running -= 1


@dataclass
class Assessment:
    task_id: str
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    cancel_requested: bool = False
    stop_reason: str | None = None


def scrubber(settings: GreenSettings) -> Callable[[str], str]:
    """Replaces the operator's own values (server paths, LLM endpoints, the output and cache
    directories) in text meant for the client: error messages quote paths."""
    from a2abench._paths import cache_dir
    from a2abench.run.registry import get_driver

    values: set[str] = {str(settings.output_dir), str(settings.output_dir.resolve()),
                        str(cache_dir())}
    for bench, preset in settings.presets.items():
        reserved = server_only(get_driver(bench).options_model)
        values |= {str(v) for k, v in preset.items() if k in reserved and v}
    ordered = sorted((v for v in values if len(v) > 3), key=len, reverse=True)

    def scrub(text: str) -> str:
        for value in ordered:
            text = text.replace(value, "<server setting>")
        return text

    return scrub


_NO_SCRUB: Callable[[str], str] = str


def _say(updater: TaskUpdater, text: str, data: dict[str, Any] | None = None,
         scrub: Callable[[str], str] = _NO_SCRUB) -> Message:
    parts = [new_text_part(scrub(text))]
    if data is not None:
        parts.append(new_data_part({k: scrub(v) if isinstance(v, str) else v
                                    for k, v in data.items()}))
    return updater.new_agent_message(parts)


class _ProgressPump:
    """Turns engine events (a sync callback) into ordered WORKING status updates.

    Progress is coalesced to one update per `interval` seconds (the newest wins; the last one
    is always sent): a2a-sdk keeps every status message in the task's history and copies the
    task on every event, so one update per task-trial would make long runs quadratic.
    """

    def __init__(self, updater: TaskUpdater, interval: float,
                 scrub: Callable[[str], str] = _NO_SCRUB, heartbeat: float | None = None) -> None:
        self.updater = updater
        self.scrub = scrub
        self.interval = interval
        self.heartbeat = heartbeat  # seconds of silence before a heartbeat; None: never
        self.items: deque[tuple[str, str, dict[str, Any] | None]] = deque()
        self.wake = asyncio.Event()
        self.closed = asyncio.Event()
        self.sent_at = -float("inf")
        self.said_at = asyncio.get_running_loop().time()  # the last update of any kind
        self.latest: dict[str, Any] = {"done": 0, "total": None}  # progress so far

    def _push(self, kind: str, text: str, data: dict[str, Any] | None = None) -> None:
        self.items.append((kind, text, data))
        self.wake.set()

    def on_event(self, event: Event) -> None:
        if isinstance(event, TaskFinished):
            progress = dataclasses.replace(event.progress)
            self.latest = progress_data(progress)
            self._push("progress", progress_text(progress), self.latest)
        elif isinstance(event, RunStarted):
            self.latest = {"done": 0, "total": event.total}
            self._push("note", f"running {event.total} task-trial(s) of {event.benchmark}"
                               + (f" ({event.domain})" if event.domain else "")
                               + f" against {event.agent} ({event.dialect})"
                               + (f": {task_list(event.tasks)}" if event.tasks else ""))
        elif isinstance(event, Notice) and event.level in ("warning", "error"):
            self._push("note", f"{event.level}: {event.message}")

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            while not self.items:
                if self.closed.is_set():
                    return
                self.wake.clear()
                if not await self._wait_or_beat(loop):
                    await self._beat()
            kind, text, data = self.items[0]
            if kind == "progress":
                wait = self.sent_at + self.interval - loop.time()
                if wait > 0 and not self.closed.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.closed.wait(), wait)
                while len(self.items) > 1 and self.items[1][0] == "progress":
                    self.items.popleft()  # a newer progress supersedes this one
                kind, text, data = self.items[0]
                self.sent_at = loop.time()
            self.items.popleft()
            self.said_at = loop.time()
            await self.updater.update_status(TaskState.TASK_STATE_WORKING,
                                             _say(self.updater, text, data, self.scrub))

    async def _wait_or_beat(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Wait for news; False when the heartbeat is due first."""
        if self.heartbeat is None:
            await self.wake.wait()
            return True
        due = self.said_at + self.heartbeat - loop.time()
        if due > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), due)
        return self.wake.is_set()

    async def _beat(self) -> None:
        """A WORKING update with the progress so far, so the client's stream stays alive."""
        self.said_at = asyncio.get_running_loop().time()
        done, total = self.latest.get("done"), self.latest.get("total")
        text = f"heartbeat: {done}/{total if total is not None else '?'} task-trial(s) done"
        await self.updater.update_status(TaskState.TASK_STATE_WORKING, _say(
            self.updater, text, {**self.latest, "heartbeat": True}, self.scrub))

    def close(self) -> None:
        self.closed.set()
        self.wake.set()


def attach_tools(driver: Driver[Any], mcp: tuple[Any, str] | None) -> None:
    """Serve a driver's tools over MCP on this server's own /mcp: the channel is the one its
    `mcp_channel()` hook names (no attribute is looked up by name)."""
    channel = driver.mcp_channel()
    if mcp is not None and channel is not None:
        channel.attach(*mcp)


class AssessmentExecutor(AgentExecutor):
    """Runs one assessment per A2A task with the same engine as `a2abench run`."""

    def __init__(self, settings: GreenSettings, benchmarks: Callable[[], list[str]],
                 monitoring: Monitoring | None = None,
                 mcp: tuple[Any, str] | None = None) -> None:
        self.settings = settings
        self.mcp = mcp  # (McpEndpoint, its public URL): drivers with a tool channel use it
        self.benchmarks = benchmarks
        self.admission = Admission(settings.max_concurrent_assessments,
                                   settings.max_queued_assessments)
        self.running: dict[str, Assessment] = {}
        self.monitoring = monitoring or Monitoring()
        self.scrub = scrubber(settings)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.current_task is not None:
            raise UnsupportedOperationError(
                message="an assessment takes exactly one message; send a new message without "
                        "a taskId to start another")
        task_id, context_id = str(context.task_id), str(context.context_id)
        message = context.message
        # The task keeps the request in its history: stored as sent, a NaN in a DataPart made
        # every answer about the task fail to serialise (-32603 instead of our rejection).
        await event_queue.enqueue_event(new_task(
            task_id, context_id, TaskState.TASK_STATE_SUBMITTED,
            history=[finite_copy(message)] if message is not None else []))
        updater = TaskUpdater(event_queue, task_id, context_id)
        planned = await self._plan(task_id, message, updater)
        if planned is None:
            return
        request, plan = planned
        assessment = Assessment(task_id)
        self.running[task_id] = assessment
        try:
            await self._admit_and_run(assessment, request, plan, updater)
        finally:
            self.running.pop(task_id, None)
            # No-op after a normal end; clears the live entry if the run ended by an exception.
            self.monitoring.finished_assessment(task_id, "failed", "ended unexpectedly")
            assessment.finished.set()

    async def _plan(self, task_id: str, message: Message | None,
                    updater: TaskUpdater) -> tuple[AssessmentRequest, Planned] | None:
        """The request and its run plan; None once the task was rejected or failed."""
        try:
            parts = list(message.parts) if message is not None else []
            request = parse_request(get_text_parts(parts), _data_parts(parts),
                                    self.benchmarks())
            planned = plan_run(request, self.settings, task_id)
        except RequestRejected as exc:
            await self._reject(task_id, exc, updater)
            return None
        except A2ABenchError as exc:  # e.g. a plug-in benchmark that fails to load
            logger.warning("assessment %s cannot start: %s", task_id, exc.render())
            await updater.failed(self._say(updater, f"the assessment cannot start: {exc.render()}"))
            return None
        except Exception as exc:  # a bug: keep the traceback in the log, tell the client
            logger.exception("assessment %s: planning failed", task_id)
            await updater.failed(self._say(updater, f"internal error: {type(exc).__name__}: {exc}"))
            return None
        attach_tools(planned.driver, self.mcp)
        try:
            await check_tasks(planned)
            return request, planned
        except RequestRejected as exc:
            await planned.driver.aclose()
            await self._reject(task_id, exc, updater)
        except A2ABenchError as exc:  # e.g. data that cannot be downloaded
            await planned.driver.aclose()
            logger.warning("assessment %s cannot start: %s", task_id, exc.render())
            await updater.failed(self._say(updater, f"the assessment cannot start: {exc.render()}"))
        except BaseException as exc:
            await planned.driver.aclose()
            if not isinstance(exc, Exception):
                raise
            logger.exception("assessment %s: loading the tasks failed", task_id)
            await updater.failed(self._say(updater, f"internal error: {type(exc).__name__}: {exc}"))
        return None

    def _say(self, updater: TaskUpdater, text: str,
             data: dict[str, Any] | None = None) -> Message:
        return _say(updater, text, data, self.scrub)

    async def _reject(self, task_id: str, exc: RequestRejected, updater: TaskUpdater) -> None:
        self.monitoring.rejected(task_id, "invalid", exc.problem)
        await updater.reject(self._say(updater, exc.render(), {
            "error": exc.problem, "accepted_formats": list(ACCEPTED_FORMATS)}))

    async def _admit_and_run(self, assessment: Assessment, request: AssessmentRequest,
                             planned: Planned, updater: TaskUpdater) -> None:
        async def queued(ahead: int) -> None:
            self.monitoring.queued(assessment.task_id)
            await updater.update_status(TaskState.TASK_STATE_SUBMITTED, self._say(
                updater, f"queued: position {ahead} in line; "
                         f"{self.admission.running} assessment(s) running"))

        try:
            admitted = await self.admission.enter(assessment.stop, queued)
        except BaseException as exc:
            await planned.driver.aclose()  # execute_async never got it, so close it here
            if not isinstance(exc, Busy):
                raise
            self.monitoring.rejected(assessment.task_id, "busy", str(exc))
            await updater.reject(self._say(updater, str(exc)))
            return
        if not admitted:
            await planned.driver.aclose()
            self.monitoring.finished_assessment(
                assessment.task_id, "canceled" if assessment.cancel_requested else "failed",
                assessment.stop_reason)
            await self._stopped_before_start(assessment, updater)
            return
        try:
            await self._run(assessment, request, planned, updater)
        finally:
            self.admission.leave()

    async def _stopped_before_start(self, assessment: Assessment, updater: TaskUpdater) -> None:
        reason = assessment.stop_reason or "stopped"
        if assessment.cancel_requested:
            await updater.cancel(self._say(updater, "canceled before it started"))
        else:
            await updater.failed(self._say(updater, f"{reason} before it started"))

    async def _run(self, assessment: Assessment, request: AssessmentRequest, planned: Planned,
                   updater: TaskUpdater) -> None:
        config = planned.config
        self.monitoring.started(assessment.task_id, config.benchmark, planned.driver.domain,
                                config.white_agent_url, config.output)
        await updater.start_work(self._say(updater, f"starting the {config.benchmark} assessment "
                                               f"of {request.white_agent_url}"))
        pump = _ProgressPump(updater, self.settings.progress_interval_s, self.scrub,
                             self.settings.heartbeat_s or None)
        pumping = asyncio.create_task(pump.run())
        watch = self.monitoring.sink(assessment.task_id)

        def on_event(event: Event) -> None:
            pump.on_event(event)
            watch(event)

        status, error = "failed", None
        started = asyncio.get_running_loop().time()
        try:
            summary = await execute_async(config, on_event, assessment.stop, planned.driver)
            status = summary.status
        except A2ABenchError as exc:
            status, error = ("aborted" if isinstance(exc, CircuitOpen) else "failed"), exc.render()
        except Exception as exc:  # a bug: keep the traceback in the log, tell the client
            logger.exception("assessment %s failed", assessment.task_id)
            error = f"internal error: {type(exc).__name__}: {exc}"
        finally:
            pump.close()
            await pumping
        elapsed = asyncio.get_running_loop().time() - started
        await self._finish(assessment, request, planned, updater, status, error, elapsed)

    async def _finish(self, assessment: Assessment, request: AssessmentRequest,
                      planned: Planned, updater: TaskUpdater, status: str,
                      error: str | None, time_used: float | None = None) -> None:
        config = planned.config
        final = ("canceled" if assessment.cancel_requested else "failed" if error is not None
                 else status)
        self.monitoring.finished_assessment(assessment.task_id, final, error)
        logger.info("assessment %s: metrics in %s", assessment.task_id, config.output)
        report = await asyncio.to_thread(_read_report, config.output)
        if report is not None or status == "completed":
            data = result_data(report, config, status, request.participants, request.format,
                               server_only(type(planned.driver).options_model),
                               role=request.role, time_used=time_used,
                               scored_apart={c for cats in planned.driver.scoring.separate.values()
                                             for c in cats})
            text = summary_text(data, request.white_agent_url)
            # The Result as JSON text, not a DataPart: a DataPart's numbers are doubles on
            # the wire (counts would read 2.0); AgentBeats' gateway reads JSON text parts too.
            await updater.add_artifact([new_text_part(text), new_text_part(
                result_json(data), media_type="application/json")], name="Result")
        if assessment.cancel_requested:
            await updater.cancel(self._say(updater, "canceled; the results of the task-trials that "
                                               "finished are in the Result artifact"))
        elif error is not None:
            await updater.failed(self._say(updater, f"the assessment failed: {error}"))
        elif status != "completed":
            await updater.failed(self._say(updater, f"the assessment stopped ({status}): "
                                               f"{assessment.stop_reason or 'interrupted'}"))
        else:
            await updater.complete(self._say(updater, "assessment complete"))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Stop the engine and wait (bounded) until the task ends CANCELED with its partial
        result; a2a-sdk cancels `execute` right after this returns."""
        assessment = self.running.get(str(context.task_id))
        if assessment is None:  # rejected or already finishing: nothing to stop
            return
        assessment.cancel_requested = True
        assessment.stop_reason = "canceled"
        assessment.stop.set()
        try:
            await asyncio.wait_for(assessment.finished.wait(), self.settings.cancel_grace_s)
        except TimeoutError:
            logger.warning("assessment %s did not stop within %g s of its cancel",
                           assessment.task_id, self.settings.cancel_grace_s)

    async def shutdown(self, grace_s: float = 10.0) -> None:
        """Stop every assessment (results so far are kept) and wait for them, bounded."""
        for assessment in list(self.running.values()):
            assessment.stop_reason = assessment.stop_reason or "the server is shutting down"
            assessment.stop.set()
        waits = [a.finished.wait() for a in self.running.values()]
        if waits:
            await asyncio.wait([asyncio.ensure_future(w) for w in waits], timeout=grace_s)


def _read_report(path: Path | None) -> Report | None:
    if path is None or not path.exists():
        return None
    try:
        return build_report([path])
    except RecordsError:
        return None


def finite_copy(message: Message) -> Message:
    """`message` with every number JSON cannot carry (NaN, ±Infinity) in its DataParts and
    metadata written as the string protobuf's JSON would read back ("NaN", "Infinity"); the
    message itself is left as sent, so the request is still judged (and refused) as sent."""
    if next(_non_finite(message), None) is None:
        return message
    copy = Message()
    copy.CopyFrom(message)
    for value in list(_non_finite(copy)):
        value.string_value = "NaN" if math.isnan(value.number_value) else (
            "Infinity" if value.number_value > 0 else "-Infinity")
    return copy


def _non_finite(message: Message) -> Iterator[Value]:
    """The Values holding NaN or ±Infinity in `message`, walked with a stack: a Struct may
    nest as deep as protobuf lets it."""
    stack: list[Value | Struct] = [part.data for part in message.parts if part.HasField("data")]
    stack += [part.metadata for part in message.parts if part.HasField("metadata")]
    if message.HasField("metadata"):
        stack.append(message.metadata)
    while stack:
        item = stack.pop()
        if isinstance(item, Struct):
            stack.extend(item.fields.values())
        elif item.HasField("struct_value"):
            stack.append(item.struct_value)
        elif item.HasField("list_value"):
            stack.extend(item.list_value.values)
        elif item.HasField("number_value") and not math.isfinite(item.number_value):
            yield item


def _data_parts(parts: list[Any]) -> list[Any]:
    """The DataParts as dicts; a number JSON cannot carry (NaN, Infinity) is a bad request."""
    from google.protobuf.json_format import Error as JSONFormatError

    try:
        return get_data_parts(parts)
    except (JSONFormatError, ValueError) as exc:
        raise RequestRejected(f"a DataPart holds a value JSON cannot carry ({exc}); send "
                              "finite numbers") from None
