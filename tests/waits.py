"""How long a test may wait, so that it fails on its defect and not on a slow machine (issue 35).

A test that guards a hang waits for an event (a thread ending, a message, an exit) for at most
HANG_S: far beyond what a loaded machine adds (the suite runs beside seven other helpers and
busy loops on 2 cores), yet short of the hang it guards against, which never ends or lasts
minutes. A test that guards against quadratic work measures the CPU time of its own thread
(`cpu_s`), which another process's load does not stretch as it stretches wall time. Deadlines
a test injects into the code under test (a request timeout, a task deadline) stay as short as
the test needs; what must finish before them is then given a generous one of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

HANG_S = 120.0


@contextlib.contextmanager
def cpu_s() -> Iterator[list[float]]:
    """`with cpu_s() as took:` ... `took[0]` is the CPU seconds this thread spent inside."""
    took = [0.0]
    start = time.thread_time()
    try:
        yield took
    finally:
        took[0] = time.thread_time() - start


async def within_hang(awaitable: Awaitable[T], what: str = "the call") -> T:
    """Await it, failing (instead of hanging, as the defect would) after HANG_S."""
    try:
        return await asyncio.wait_for(awaitable, HANG_S)
    except TimeoutError:
        raise AssertionError(f"{what} still had not ended after {HANG_S:g} s") from None


def in_thread(fn: Callable[[], T], what: str = "the call") -> T:
    """fn() in a daemon thread: its result, or its exception re-raised here; an
    AssertionError (instead of a hang) when it has not ended after HANG_S."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["out"] = fn()
        except BaseException as exc:
            box["exc"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_S)
    if thread.is_alive():
        raise AssertionError(f"{what} still had not ended after {HANG_S:g} s")
    if "exc" in box:
        raise box["exc"]
    result: T = box["out"]
    return result
