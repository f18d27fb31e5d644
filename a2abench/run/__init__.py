"""The run engine both benchmarks share. `execute()` is the one call the CLI makes."""

from __future__ import annotations

import asyncio
import signal
from contextlib import suppress

from pydantic import ValidationError

from a2abench.errors import ConfigError
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


def execute(config: RunConfig, on_event: EventSink) -> RunSummary:
    """Run a benchmark to completion. The first Ctrl-C (or SIGTERM, as CI runners and
    `docker stop` send) stops launching task-trials and cancels those in flight (their
    results are not recorded; --resume re-runs them); `run_end` is written and the summary
    has status "interrupted" and `stopped_by` naming the signal. A second one aborts at once."""

    async def main() -> RunSummary:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        received: list[str] = []

        def on_signal(name: str) -> None:
            if stop.is_set():
                raise KeyboardInterrupt
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
            summary = await execute_async(config, on_event, stop)
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
        if received and summary.status == "interrupted":
            summary.stopped_by = received[0]
        return summary

    return asyncio.run(main())
