"""The one metered attempt loop of every outbound call: A2A on each binding, LLM chat and
embeddings.

    loop = AttemptLoop(decide, sent=len(body), report=emit)
    async for attempt in loop:           # or `for attempt in loop:` in blocking code
        try:
            attempt.result = await once(attempt.outcome)
        except A2ABenchError as exc:
            attempt.outcome.error = exc
    return loop.result

Each pass is one attempt, timed from its start. Leaving the body hands the attempt back to
the loop, which reports it (`report`, once per attempt), ends on success, and otherwise asks
`decide` how long to wait before the next one, or raises the attempt's error when `decide`
gives up. The body may `yield` (a streaming call): the loop is a plain iterator, not a
generator, so a consumer that stops early leaves nothing to finalize. The body must not
`return` or `break` out of the loop, or the attempt goes unreported.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from a2abench.errors import A2ABenchError


@dataclass
class Outcome:
    """What one attempt produced, for metrics and the retry decision."""

    status: int | None = None  # HTTP status
    status_name: str | None = None  # gRPC status code name; None: OK
    sent: int = 0
    received: int = 0
    error: A2ABenchError | None = None
    transient: bool = False
    retry_after: float | None = None


@dataclass
class Attempt:
    """One attempt in flight: its number (1-based), outcome, timing and result."""

    number: int
    outcome: Outcome
    t0: float = field(default_factory=time.perf_counter)
    first_event_ms: float | None = None  # streaming: when the first event arrived
    out_chars: int = 0  # content characters received, for the token estimate
    result: Any = None

    def received(self, chars: int, size: int = 0, *, event: bool = True) -> None:
        """Content (an event of a stream, or a whole reply) arrived: `chars` of content in
        `size` bytes; `event` marks the time of the first."""
        if event and self.first_event_ms is None:
            self.first_event_ms = self.latency_ms()
        self.out_chars += chars
        self.outcome.received += size

    def latency_ms(self) -> float:
        return (time.perf_counter() - self.t0) * 1000


Decide = Callable[[Attempt, float], "float | None"]
"""(the failed attempt, time.monotonic() when the loop began) -> seconds to wait, or None to
give up (the loop then raises the attempt's error)."""


class AttemptLoop:
    """Attempts of one call until one succeeds or `decide` gives up; see the module doc."""

    def __init__(self, decide: Decide, *, sent: int = 0,
                 report: Callable[[Attempt], None] | None = None) -> None:
        self._decide = decide
        self._sent = sent
        self._report = report
        self.started = time.monotonic()
        self.last: Attempt | None = None

    @property
    def result(self) -> Any:
        """The successful attempt's result (after the loop ended)."""
        return self.last.result if self.last is not None else None

    def _close(self) -> float | None:
        """Report the last attempt; the wait before the next one, or None when it succeeded.
        Raises its error when `decide` gives up."""
        last = self.last
        if last is None:
            return 0.0
        if self._report is not None:
            self._report(last)
        error = last.outcome.error
        if error is None:
            return None
        delay = self._decide(last, self.started)
        if delay is None:
            raise last.outcome.error or error  # `decide` may name the failure anew
        return delay

    def _open(self) -> Attempt:
        number = 1 if self.last is None else self.last.number + 1
        self.last = Attempt(number, Outcome(sent=self._sent))
        return self.last

    def __aiter__(self) -> AttemptLoop:
        return self

    async def __anext__(self) -> Attempt:
        first = self.last is None
        delay = self._close()
        if delay is None:
            raise StopAsyncIteration
        if not first:
            await asyncio.sleep(delay)
        return self._open()

    def __iter__(self) -> AttemptLoop:
        return self

    def __next__(self) -> Attempt:
        first = self.last is None
        delay = self._close()
        if delay is None:
            raise StopIteration
        if not first:
            time.sleep(delay)
        return self._open()
