"""Running a benchmark: `execute()` is the one call the CLI makes (exported by a2abench.run)."""

from __future__ import annotations

import asyncio
import signal
import threading
from contextlib import suppress
from pathlib import Path

from pydantic import ValidationError

from a2abench.errors import A2ABenchError, ConfigError
from a2abench.run.config import RunConfig, Shard
from a2abench.run.driver import Driver, TaskContext, TaskOutcome, TaskSpec
from a2abench.run.engine import Engine, RunSummary
from a2abench.run.events import EventSink, Notice
from a2abench.run.registry import get_driver

__all__ = ["Driver", "RunConfig", "RunSummary", "Shard", "TaskContext", "TaskOutcome",
           "TaskSpec", "build_driver", "execute", "execute_async"]


def build_driver(config: RunConfig) -> Driver:
    """The registered driver for `config.benchmark`, with its options validated."""
    cls = get_driver(config.benchmark)
    try:
        options = cls.options_model.model_validate(config.options)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                             for e in exc.errors())
        raise ConfigError(f"invalid {config.benchmark} options: {problems}") from None
    return cls(options)


async def execute_async(config: RunConfig, on_event: EventSink,
                        stop: asyncio.Event | None = None,
                        driver: Driver | None = None) -> RunSummary:
    driver = driver or build_driver(config)
    try:
        return await Engine(config, driver, on_event, stop).run()
    finally:
        await driver.aclose()


class _Aborted(KeyboardInterrupt):
    """A second stop signal: leave the event loop at once, whatever still runs in it (a
    KeyboardInterrupt, the one kind asyncio lets out of a signal callback)."""

    def __init__(self, summary: RunSummary) -> None:
        super().__init__(summary.stopped_by)
        self.summary = summary


def execute(config: RunConfig, on_event: EventSink) -> RunSummary:
    """Run a benchmark to completion. The first Ctrl-C (or SIGTERM, as CI runners and
    `docker stop` send) stops launching task-trials and cancels those in flight (their
    results are not recorded; --resume re-runs them); `run_end` is written and the summary
    has status "interrupted" and `stopped_by` naming the signal. A second one, while the run
    stops, aborts at once: every record written so far is flushed and fsynced, the event loop
    is left without waiting for what still runs in it, and the summary is the same kind (the
    CLI exits with the same code, no traceback). Signals after that are ignored: the process
    is on its way out."""
    received: list[str] = []
    engine: Engine | None = None

    async def main() -> RunSummary:
        nonlocal engine
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        driver = build_driver(config)
        engine = Engine(config, driver, on_event, stop)

        def on_signal(name: str) -> None:
            if stop.is_set():
                raise _Aborted(_aborted(engine, received[0]))
            received.append(name)
            what = ("interrupted: stopping; completed results are kept (Ctrl-C again to abort "
                    "at once)" if name == "SIGINT" else "terminated (SIGTERM): stopping; "
                    "completed results are kept (SIGTERM again to abort at once)")
            on_event(Notice("warning", what))
            stop.set()

        installed = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            with suppress(NotImplementedError, RuntimeError):  # not the main thread / Windows
                loop.add_signal_handler(sig, on_signal, sig.name)
                installed.append(sig)
        try:
            try:
                summary = await engine.run()
            finally:
                await driver.aclose()
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            _ignore_more(received)
        if received and summary.status == "interrupted":
            summary.stopped_by = received[0]
        return summary

    runner = asyncio.Runner()
    try:
        return runner.run(main())
    except _Aborted as aborted:
        _leave(runner.get_loop())
        _ignore_more(received)  # after the loop gave the signals back
        return aborted.summary
    finally:
        if not runner.get_loop().is_closed():
            runner.close()


def _aborted(engine: Engine | None, stopped_by: str) -> RunSummary:
    """The summary of a run aborted by a second signal, its records flushed first."""
    assert engine is not None
    output, reason = Path("."), "aborted at once by a second signal"
    if engine.writer is not None:
        output = engine.writer.path
        try:
            engine.writer.close()  # drains, flushes and fsyncs what was written; idempotent
        except A2ABenchError as exc:  # a full disk: say so, without a traceback
            reason += f" ({exc.message})"
    return RunSummary(run_id=engine.run_id, output=output,
                      status="interrupted", planned=engine.progress.total, skipped=0,
                      counts=engine.progress.snapshot(), duration_s=0.0,
                      reason=reason, stopped_by=stopped_by, aborted=True)


def _ignore_more(received: list[str]) -> None:
    """After a stop signal the process is exiting: a repeat must not kill it mid-way (SIGTERM's
    default) or raise KeyboardInterrupt into the exit path (SIGINT's)."""
    if received and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)


def _leave(loop: asyncio.AbstractEventLoop) -> None:
    """Close `loop` without running its tasks again (a task-trial that does not stop would
    hold the exit forever). Their coroutines are closed here, their errors dropped: left to
    the garbage collector, each would print "Exception ignored in ..." with a traceback."""
    loop.set_exception_handler(lambda _loop, _context: None)
    for task in asyncio.all_tasks(loop):
        with suppress(Exception):
            task.get_coro().close()
    loop.close()
