"""The run engine: bounded concurrency on one event loop, classified failures, durable
records, resume, shards, a circuit breaker and a graceful stop."""

from __future__ import annotations

import asyncio
import time
import traceback
import uuid
from collections.abc import Awaitable, Iterator
from contextlib import AsyncExitStack, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

from a2abench._version import __version__
from a2abench.a2a import A2AClient, A2AConfig, ProtocolMetrics, RetryPolicy
from a2abench.errors import (
    A2ABenchError,
    AgentError,
    AgentUnreachable,
    CircuitOpen,
    ConfigError,
    Forfeit,
)
from a2abench.net.egress import HostPolicy, egress_policy, policy_for
from a2abench.net.limits import (
    Deadline,
    DeadlinePassed,
    ReplyLimits,
    deadline_scope,
    task_deadline,
)
from a2abench.run import match, plan
from a2abench.run.adaptive import is_adaptive
from a2abench.run.config import Redactor, RunConfig, redact, redact_url, resolve_output
from a2abench.run.driver import Driver, TaskContext, TaskOutcome
from a2abench.run.events import (
    EventSink,
    Notice,
    Progress,
    RunFinished,
    RunStarted,
    TaskFinished,
    TaskStarted,
)
from a2abench.run.records import (
    SCHEMA_VERSION,
    ErrorInfo,
    RunEndRecord,
    RunRecord,
    TaskRecord,
    TaskStatus,
    is_success,
)
from a2abench.run.roles import AGENT, Lineup, Participant
from a2abench.run.status import Counts, failed_reward
from a2abench.run.writer import RecordWriter

if TYPE_CHECKING:  # numpy comes with it: imported only when a run is adaptive
    from a2abench.run.adaptive.sequence import Sequence

T = TypeVar("T")


class _StoppedEarly(Exception):
    """A stop (Ctrl-C, SIGTERM) arrived during start-up."""


def _redacting(sink: EventSink, redactor: Redactor) -> EventSink:
    """Events carry agent text (error messages); known secrets never reach the display."""
    def emit(event: Any) -> None:
        for name in ("error", "message", "agent", "reason"):
            value = getattr(event, name, None)
            if isinstance(value, str):
                setattr(event, name, redactor.text(value))
        sink(event)
    return emit


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class RateLimiter:
    """At most `rate` requests per second to the agent's host (evenly spaced)."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            now = time.monotonic()
            wait = self._next - now
            self._next = max(now, self._next) + self.interval
        if wait > 0:
            await asyncio.sleep(wait)


@dataclass
class _Tally:
    """Requests made on behalf of one task-trial (filled by the metrics hook)."""

    task_id: str
    trial: int
    requests: int = 0
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    # A multi-party match: the participant in the agent seat (the fields above count its
    # requests, as in a single-agent run) and every seated participant's own.
    agent: str | None = None
    by_participant: dict[str, match.Usage] | None = None
    pairing: str | None = None


_current: ContextVar[_Tally | None] = ContextVar("a2abench_task", default=None)


class RunSummary(BaseModel):
    run_id: str
    output: Path
    status: str  # completed | interrupted | aborted
    planned: int
    skipped: int
    counts: Counts  # the task-trials of this session, by outcome
    duration_s: float
    reason: str | None = None
    first_infra_error: str | None = None  # why the agent could not be reached, if it was not
    stopped_by: str | None = None  # SIGINT | SIGTERM when interrupted by a signal
    aborted: bool = False  # a second signal left the run at once (a2abench/run/__init__.py)

    @property
    def ran(self) -> int:
        return self.counts.done


class Engine:
    """Runs one benchmark's task-trials against one agent and records every result.

    The engine is benchmark-neutral: the `Driver` supplies tasks and runs one task-trial; the
    engine plans (filters, trials with derived seeds, shards, resume), runs up to
    `config.concurrency` task-trials at once on one event loop with one A2A client, turns
    escaped `A2ABenchError`s into outcomes of their kind, writes the `run`, `request`, `task`
    and `run_end` records (fsynced), emits events for the display, and stops early on Ctrl-C
    (`stop`) or when the agent stays unreachable (`--max-consecutive-failures`).
    """

    def __init__(self, config: RunConfig, driver: Driver, on_event: EventSink,
                 stop: asyncio.Event | None = None) -> None:
        self.config = config
        self.driver = driver
        self.redactor = Redactor(config.secrets())
        self.emit = _redacting(on_event, self.redactor) if self.redactor else on_event
        self.stop = stop or asyncio.Event()
        self.run_id = uuid.uuid4().hex[:12]
        self.progress = Progress()
        self._consecutive_unreachable = 0
        self._abort: str | None = None
        self._first_infra: str | None = None
        self.writer: RecordWriter | None = None
        self.policy: Sequence | None = None  # an adaptive run's plan: order and stop rule
        self.lineup: Lineup | None = None  # a multi-party run's participants and pairings
        self.clients: dict[str, A2AClient] = {}  # its remote participants' clients, by id

    async def run(self) -> RunSummary:
        """Plan, run and record the whole run; returns the summary the CLI renders.

        Order: resolve the output path, `driver.setup()`, plan the pending task-trials (a
        ConfigError if the output holds another run and `--resume` is off), fetch the card (an
        unreachable agent fails here, before anything is written), write the `run` record,
        execute, write `run_end`. Raises `CircuitOpen` when the run was aborted; completed
        records stay on disk in every case.
        """
        config, driver = self.config, self.driver
        started = time.monotonic()
        # Downloads and logins follow the run's --allow-host.
        with egress_policy(run_host_policy(config)):
            return await self._run(config, driver, started)

    async def _run(self, config: RunConfig, driver: Driver, started: float) -> RunSummary:
        output = resolve_output(config.output, config.benchmark, driver.domain)
        driver.emit = self.emit
        driver.max_reply_bytes = config.max_reply_bytes  # for the LLM clients it builds
        self.lineup = driver.lineup = match.lineup_for(config, driver.scenarios)
        if self.lineup is not None and is_adaptive(config):
            raise ConfigError("an adaptive run plays one agent: --target-ci, --adaptive-gate "
                              "and --allocate neyman cannot be combined with other "
                              "participants", hint="Run the multi-party assessment in full.")
        try:
            return await self._start(config, driver, output, started)
        except _StoppedEarly:  # Ctrl-C or SIGTERM before the run record: nothing to keep
            return self._summary(output, "interrupted", 0, 0, time.monotonic() - started)

    async def _until_stopped(self, step: Awaitable[T]) -> T:
        """A start-up step (loading data, fetching the card), unless a stop comes first."""
        if self.stop.is_set():
            raise _StoppedEarly
        work = asyncio.ensure_future(step)
        stopper = asyncio.ensure_future(self.stop.wait())
        try:
            await asyncio.wait([work, stopper], return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopper.cancel()
        if not work.done():
            work.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await work
            raise _StoppedEarly
        return work.result()

    async def _start(self, config: RunConfig, driver: Driver, output: Path,
                     started: float) -> RunSummary:
        await self._until_stopped(driver.setup())
        selected = plan.select(driver.tasks(), config.task_ids, config.max_tasks,
                               driver.unknown_tasks)
        if not selected:
            raise ConfigError(f"no {config.benchmark} tasks to run: the data and filters "
                              "select none", hint="Check --task-ids, the split, the category "
                              "filter and --data-dir.")
        items = plan.Plan(tuple(selected), config.num_trials, config.seed, config.shard,
                          self.lineup.pairings if self.lineup else ())
        if not len(items):  # a CI matrix wider than the run: an empty share, said out loud
            self.emit(Notice("warning", f"shard {config.shard} has no task-trials: "
                                        f"{len(selected)} task(s) × {config.num_trials} "
                                        f"trial(s) fill only the first shards"))
        key = redact(plan.compat_key(config, driver.compat(), driver.domain))
        if self.lineup is not None:  # another user or pairing is another run
            key["lineup"] = redact(self._lineup_record())
        previous = self._previous(output, key)
        planned = len(items)
        skipped = plan.skipped(items, previous, config.retry_errors)
        todo = plan.pending(items, previous, config.retry_errors)
        if is_adaptive(config):  # a random, stratified order that stops once the score is known
            todo = self.policy = adaptive_plan(config, selected, driver, output, previous)
            planned = len(self.policy)  # an A/B run's are the baseline's task-trials
            skipped = plan.skipped(self.policy.items(), previous, config.retry_errors)
            for note in self.policy.notes:
                self.emit(Notice("warning", note))
        async with self._client(planned - skipped) as client, AsyncExitStack() as stack:
            # Fail fast, before writing anything, if unreachable.
            card = await self._until_stopped(client.card())
            await self._open_participants(stack, client, planned - skipped)
            transport = await self._until_stopped(client.transport())
            if config.streaming and not card.card.capabilities.streaming:
                raise ConfigError("--streaming: the agent's card does not advertise streaming",
                                  hint="Drop --streaming (the run then uses blocking calls).")
            interface = {**(client.interface.to_dict() if client.interface else {}),
                         "streaming": config.streaming}
            withheld = await self._until_stopped(client.token_withheld())
            if withheld is not None:
                self.emit(Notice("warning", f"the agent's card points to {withheld}, not the "
                                            "host you gave: the bearer token is not sent "
                                            "there (allow it with --allow-host)"))
            self.writer = RecordWriter(output, redact=self.redactor.line
                                       if self.redactor else None)
            try:
                self._write_run_record(key, items, skipped, previous, interface)
                self.progress.total = planned - skipped
                self.emit(RunStarted(
                    self.run_id, config.benchmark, driver.domain, str(output),
                    card.card.name or redact_url(config.white_agent_url), transport.dialect,
                    planned, skipped, planned - skipped, config.concurrency,
                    str(config.shard) if config.shard else None, transport.binding,
                    config.streaming,
                    [t.task_id for t in selected] if config.task_ids is not None else None))
                status = await self._execute(todo, planned - skipped, client)
                duration = time.monotonic() - started
                self.writer.write(RunEndRecord(
                    run_id=self.run_id, status=status, finished_at=now_iso(),
                    duration_s=round(duration, 3), counts=self.progress.snapshot(),
                    reason=self._abort,
                    adaptive=self.policy.tracker.summary() if self.policy else None))
                await self.writer.durable()
            finally:
                self.writer.close()
        self.emit(RunFinished(status, str(output), self.progress, duration, self._abort))
        if status == "aborted":
            raise CircuitOpen(self._abort or "run aborted",
                              hint=f"Completed results are kept in {output}; fix the agent "
                                   "and re-run with --resume.")
        return self._summary(output, status, planned, skipped, duration)

    def _previous(self, output: Path, key: dict[str, object]) -> plan.Previous | None:
        exists = output.exists() and output.stat().st_size > 0
        if exists and not self.config.resume:
            raise ConfigError(f"{output} already exists",
                              hint="Pass --resume to continue the run it holds, or choose "
                                   "another --output.")
        if not exists:
            return None
        return plan.read_previous(output, key)

    def _client(self, pending: int, participant: Participant | None = None) -> A2AClient:
        """The agent's client, or a multi-party run's other participant's: a bearer token
        goes to the first participant of its role only (--auth-token to `agent`,
        --user-auth-token to `user`, --specialist-auth-token, --adversary-auth-token),
        never to another participant."""
        config = self.config
        in_flight = max(1, min(config.concurrency, pending))  # no more than the work
        pid = participant.id if participant else AGENT
        url = participant.url if participant and participant.url else config.white_agent_url
        user_side = participant is not None and participant.role != AGENT
        token = config.participant_token(pid)  # None for `user_2`, `agent_2`, ...
        a2a = A2AConfig.create(
            url, timeout=config.timeout, streaming=config.streaming,
            transport=config.user_transport if user_side else config.transport,
            auth_token=token.get_secret_value() if token else None,
            ca_cert=str(config.ca_cert) if config.ca_cert else None,
            retry=RetryPolicy(max_attempts=config.retries + 1, base_delay_s=config.retry_delay,
                              max_delay_s=max(8.0, config.retry_delay),
                              budget_s=max(60.0, config.timeout)),
            limits=ReplyLimits(max_bytes=config.max_reply_bytes))
        limiter = RateLimiter(config.rate_limit) if config.rate_limit else None
        return A2AClient(a2a, on_request=partial(self._on_request, pid),
                         before_request=limiter.acquire if limiter else None,
                         pool_size=-(-in_flight // 4),
                         host_policy=policy_for(config.allowed_hosts, url))

    async def _open_participants(self, stack: AsyncExitStack, client: A2AClient,
                                 pending: int) -> None:
        """A multi-party run's remote participants: one client each (`client` is the
        agent's), every card fetched before anything is written, so that an unreachable
        participant fails the run here, as an unreachable agent does."""
        if self.lineup is None:
            return
        for participant in self.lineup.remote():
            if participant.id == AGENT:
                self.clients[AGENT] = client
                continue
            other = await stack.enter_async_context(self._client(pending, participant))
            try:
                card = await self._until_stopped(other.card())
                await self._until_stopped(other.transport())
            except AgentError as exc:
                refused = match.refused_access(participant, exc)
                if refused is None:
                    raise
                raise refused from None
            match.check_access(participant, card.card.security,
                               self.config.participant_token(participant.id) is not None)
            if self.config.streaming and not card.card.capabilities.streaming:
                raise ConfigError(f"--streaming: participant {participant.id}'s card does not "
                                  "advertise streaming",
                                  hint="Drop --streaming (the run then uses blocking calls).")
            self.clients[participant.id] = other

    def _lineup_plan(self, items: plan.Plan) -> dict[str, Any]:
        """The run record's `lineup` keyword ({} for a single agent), with the share's
        task-trials of the primary pairing (what `report`'s headline covers,
        report/planned.py), by (domain, category)."""
        if self.lineup is None:
            return {}
        counts = items.counts(self.driver.domain)
        return {"lineup": {**redact(self._lineup_record()), "plan_counts": counts,
                           "planned": sum(row["task_trials"] for row in counts)}}

    def _lineup_record(self) -> dict[str, Any]:
        """The lineup for the run record and the compatibility key, URLs without
        credentials."""
        assert self.lineup is not None
        described = self.lineup.describe()
        for entry in described["participants"].values():
            if entry["url"]:
                entry["url"] = redact_url(entry["url"])
        return described

    def _write_run_record(self, key: dict[str, object], items: plan.Plan, skipped: int,
                          previous: plan.Previous | None,
                          interface: dict[str, object] | None = None) -> None:
        assert self.writer is not None
        manifest = self.driver.manifest()
        channel = self.driver.mcp_channel()
        over_mcp = channel is not None and channel.enabled
        self.writer.write(RunRecord(
            run_id=self.run_id, a2abench_version=__version__, benchmark=self.config.benchmark,
            domain=self.driver.domain, config=self.config.public(), compat_key=key,
            data=redact(manifest.get("data", {})), models=redact(manifest.get("models", {})),
            scoring=self.driver.scoring, planned=len(items),
            plan_counts=items.counts(self.driver.domain),
            skipped=skipped,
            shard=(self.config.shard.index, self.config.shard.count) if self.config.shard
            else None, resumed=previous is not None, started_at=now_iso(),
            interface=interface, tool_channel="mcp" if over_mcp else "a2a",
            adaptive=self.policy.header() if self.policy else None,
            **self._lineup_plan(items)))

    def _on_request(self, pid: str, m: ProtocolMetrics) -> None:
        tally = _current.get()
        if tally is not None and tally.agent in (None, pid):
            tally.requests += 1
            tally.latency_ms += m.latency_ms
            tally.input_tokens += m.input_tokens
            tally.output_tokens += m.output_tokens
        if tally is not None and tally.by_participant is not None:
            usage = tally.by_participant.setdefault(pid, match.Usage())
            usage.requests += 1
            usage.latency_ms += m.latency_ms
            usage.input_tokens += m.input_tokens
            usage.output_tokens += m.output_tokens
        if self.writer is not None:
            # Our own, already validated metrics: the record as a dict in RequestRecord's
            # field order (a model validated again, or model_construct, cost 17-35 µs each).
            record = {**m.__dict__, "schema_version": SCHEMA_VERSION,
                      "run_id": self.run_id, "type": "request",
                      "task_id": tally.task_id if tally else None,
                      "trial": tally.trial if tally else None}
            if self.lineup is not None:  # which match, and which participant it went to
                record["pairing"] = tally.pairing if tally else None
                record["participant"] = pid
            self.writer.write(record)

    async def _execute(self, todo: Iterator[plan.Item], count: int,
                       client: A2AClient) -> Literal["completed", "interrupted", "aborted"]:
        # Workers pull from one lazy iterator (one event loop: no lock needed).
        drained: list[bool] = []  # a worker found nothing left to run
        workers = [asyncio.create_task(self._worker(todo, client, drained))
                   for _ in range(min(self.config.concurrency, max(1, count)))]
        stopper: asyncio.Future[Any] = asyncio.create_task(self.stop.wait())
        all_done: asyncio.Future[Any] = asyncio.ensure_future(asyncio.wait(workers))
        await asyncio.wait([all_done, stopper], return_when=asyncio.FIRST_COMPLETED)
        # Workers that stopped for the signal may all be done by now (it came as their
        # replies arrived): only a drained plan with every worker done is a completed run.
        interrupted = self.stop.is_set() and not (drained and all(w.done() for w in workers))
        for task in [*workers, stopper, all_done]:
            task.cancel()
        results = await asyncio.gather(*workers, stopper, all_done, return_exceptions=True)
        for result in results:  # a worker that died of something else must not pass unseen
            if isinstance(result, Exception) and not isinstance(result, asyncio.CancelledError):
                raise result
        if self._abort:
            return "aborted"
        return "interrupted" if interrupted else "completed"

    async def _worker(self, todo: Iterator[plan.Item], client: A2AClient,
                      drained: list[bool]) -> None:
        while not self.stop.is_set():
            item = next(todo, None)
            if item is None:
                drained.append(True)
                return
            self.progress.running += 1
            self.emit(TaskStarted(item.task.task_id, item.trial, self.progress))
            try:
                record = await self._run_one(item, client)
            finally:
                self.progress.running -= 1
            if self.policy is not None:
                self._observe(record)
            assert self.writer is not None
            self.writer.write(record if item.pairing is None else match.record_line(record))
            # The next task-trial starts at once; TaskFinished is emitted once the record is
            # on disk (group commit: one fsync serves every record written meanwhile). Awaiting
            # the fsync here cost a whole disk flush per task-trial (2-3 ms) at concurrency 1.
            self._count(record)
            self._watch_circuit(record)

    async def _run_one(self, item: plan.Item, client: A2AClient) -> TaskRecord:
        tally = _Tally(item.task.task_id, item.trial)
        ctx = TaskContext(task=item.task, trial=item.trial, seed=item.seed, client=client)
        if item.pairing is not None and self.lineup is not None:
            tally.agent, tally.by_participant = item.pairing.of(AGENT), {}
            tally.pairing = item.pairing.id
            ctx.pairing, ctx.clients = item.pairing, self.clients
            ctx.seats = match.seats(self.lineup, item.pairing)
        token = _current.set(tally)
        started_at, t0 = now_iso(), time.perf_counter()
        try:
            outcome = await self._within_deadline(ctx)
        except A2ABenchError as exc:
            outcome = outcome_from_error(exc)
        except DeadlinePassed as passed:
            outcome = TaskOutcome(status="infrastructure_error", reward=None,
                                  termination="task_timeout",
                                  error=ErrorInfo(error="TaskTimeout", kind="infrastructure",
                                                  message=f"the task-trial deadline "
                                                          f"(--task-timeout "
                                                          f"{passed.deadline.seconds:g} s) "
                                                          "passed while a2abench was not "
                                                          "waiting for the agent (user "
                                                          "simulator, judge, environment)"))
        except Exception as exc:  # a bug in a2abench or a driver: keep it, with its traceback
            outcome = TaskOutcome(status="harness_error", reward=None, termination="harness_error",
                                  error=ErrorInfo(error=type(exc).__name__, kind="harness",
                                                  message=str(exc),
                                                  traceback=traceback.format_exc()))
        finally:
            _current.reset(token)
        return self._record(item, outcome, tally, ctx, started_at, t0)

    async def _within_deadline(self, ctx: TaskContext) -> TaskOutcome:
        """Run one task-trial under --task-timeout. Requests to the agent see the deadline
        (net/limits.py) and fail with TaskTimeout, the agent's error, when it passes while
        the agent is answering; the scope here catches it anywhere else (infrastructure)."""
        with task_deadline(self.config.task_timeout) as deadline:
            if deadline is None:
                return await self.driver.run_task(ctx)
            # A moment's grace so that a request in flight reports the deadline itself.
            grace = Deadline(deadline.at + 0.25, deadline.seconds, "task")
            async with deadline_scope(grace):
                return await self.driver.run_task(ctx)

    def _record(self, item: plan.Item, outcome: TaskOutcome, tally: _Tally, ctx: TaskContext,
                started_at: str, t0: float) -> TaskRecord:
        # Only an `ok` outcome keeps its reward: an agent or evaluator error is scored 0 and
        # never passes, whatever the driver said; an unscored status has no reward.
        ok = outcome.status == "ok"
        reward = (outcome.reward or 0.0) if ok else failed_reward(outcome.status)
        success = ok and (outcome.success if outcome.success is not None
                          else is_success(reward))
        return TaskRecord(
            run_id=self.run_id, benchmark=self.config.benchmark,
            domain=item.task.domain or self.driver.domain, category=item.task.category,
            task_id=item.task.task_id, trial=item.trial, seed=item.seed,
            status=outcome.status, reward=reward, success=bool(success),
            reward_components=outcome.reward_components, labels=outcome.labels,
            termination=outcome.termination, turns=outcome.turns, tool_calls=outcome.tool_calls,
            latency_ms=round((time.perf_counter() - t0) * 1000, 3),
            agent_latency_ms=round(tally.latency_ms, 3), requests=tally.requests,
            input_tokens=tally.input_tokens, output_tokens=tally.output_tokens,
            llm_prompt_tokens=ctx.usage.prompt_tokens,
            llm_completion_tokens=ctx.usage.completion_tokens, cost_usd=ctx.usage.cost_usd,
            error=outcome.error, transcript=outcome.transcript, details=outcome.details,
            started_at=started_at, finished_at=now_iso(), **self._match(item, outcome, reward,
                                                                        tally))

    @staticmethod
    def _match(item: plan.Item, outcome: TaskOutcome, reward: float | None,
               tally: _Tally) -> dict[str, Any]:
        """A multi-party record's `match` (run/match.py), as a keyword; {} otherwise."""
        if item.pairing is None:
            return {}
        return {"match": match.match_block(item.pairing, outcome, reward,
                                           tally.by_participant or {})}

    def _count(self, record: TaskRecord) -> None:
        p = self.progress
        p.add(record.status, record.success, record.reward)
        if (record.status == "infrastructure_error" and self._first_infra is None
                and record.error is not None):
            self._first_infra = f"{record.error.error}: {record.error.message}"
        assert self.writer is not None
        # Announced when the record is durable (serve-green's monitor then reads the file).
        self.writer.then(partial(self.emit, TaskFinished(
            record.task_id, record.trial, record.category, record.status, record.reward,
            record.success, record.termination, record.turns, record.latency_ms,
            f"{record.error.error}: {record.error.message}" if record.error else None,
            p.copy())))  # a snapshot: later task-trials may finish before this is shown

    def _observe(self, record: TaskRecord) -> None:
        """Count a result in the adaptive sequence; say so once it stops the run."""
        assert self.policy is not None
        tracker = self.policy.tracker
        before = tracker.stop_reason
        self.policy.observe(record)
        if before is None and tracker.stop_reason is not None:
            from a2abench.run.adaptive.wording import stop_text

            self.emit(Notice("info", stop_text(tracker.header(), tracker.summary())))

    def _watch_circuit(self, record: TaskRecord) -> None:
        unreachable = record.error is not None and record.error.error == AgentUnreachable.__name__
        self._consecutive_unreachable = self._consecutive_unreachable + 1 if unreachable else 0
        limit = self.config.max_consecutive_failures
        if self._consecutive_unreachable >= limit and not self._abort:
            who = ("a participant" if record.error and record.error.kind == "forfeit"
                   else "the agent")
            self._abort = (f"{who} was unreachable for {limit} task-trials in a row "
                           f"(last: {record.error.message if record.error else ''})")
            self.emit(Notice("error", self._abort))
            self.stop.set()

    def _summary(self, output: Path, status: str, planned: int, skipped: int,
                 duration: float) -> RunSummary:
        return RunSummary(
            run_id=self.run_id, output=output, status=status, planned=planned, skipped=skipped,
            counts=self.progress.snapshot(), duration_s=round(duration, 3), reason=self._abort,
            first_infra_error=self._first_infra)


def adaptive_plan(config: RunConfig, tasks: list[Any], driver: Driver, output: Path,
                  previous: plan.Previous | None) -> Sequence:
    """The adaptive Sequence of this run, continued from `output` when resuming."""
    from a2abench.run.adaptive.sequence import start
    from a2abench.run.writer import iter_records

    records = iter_records([output], types=frozenset({"run", "task"})) if previous else None
    return start(config, tasks, driver.scoring.model_dump(), records)


def run_host_policy(config: RunConfig) -> HostPolicy | None:
    return policy_for(config.allowed_hosts, config.white_agent_url)


def outcome_from_error(exc: A2ABenchError) -> TaskOutcome:
    """An error that escaped a driver becomes an outcome of its kind (never dropped)."""
    statuses: dict[str, TaskStatus] = {
        "agent": "agent_error", "infrastructure": "infrastructure_error",
        "data": "harness_error", "usage": "harness_error", "harness": "harness_error"}
    if isinstance(exc, Forfeit):  # another participant failed: its loss, not the agent's
        return TaskOutcome(status="forfeit", reward=None, termination="forfeit",
                           forfeit=exc.role, error=match.forfeit_error(exc))
    status = statuses[exc.kind]
    cause = exc.__cause__
    # An agent reply the harness could not process keeps the original traceback for us.
    trace = ("".join(traceback.format_exception(cause))
             if isinstance(cause, Exception) and not isinstance(cause, A2ABenchError) else None)
    return TaskOutcome(status=status,
                       reward=failed_reward(status),
                       termination=status,
                       error=ErrorInfo(error=type(exc).__name__, kind=exc.kind,
                                       message=exc.message, hint=exc.hint, traceback=trace))
