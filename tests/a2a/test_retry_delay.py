"""One retry decision for every binding (JSON-RPC, HTTP+JSON, gRPC)."""

from __future__ import annotations

import time

from a2abench.a2a.transport import _Attempt, retry_delay
from a2abench.errors import AgentUnreachable
from a2abench.net.limits import task_deadline
from a2abench.net.retry import RetryPolicy

POLICY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.01, budget_s=60,
                     jitter=0)


def failed(transient: bool = True, retry_after: float | None = None) -> _Attempt:
    return _Attempt(error=AgentUnreachable("503 from the agent"), transient=transient,
                    retry_after=retry_after)


def test_only_transient_failures_retry_within_the_attempts() -> None:
    now = time.monotonic()
    assert retry_delay(POLICY, failed(), 1, now) == 0.01
    assert retry_delay(POLICY, failed(transient=False), 1, now) is None
    assert retry_delay(POLICY, failed(), 3, now) is None


def test_a_retry_after_beyond_the_task_deadline_is_not_waited_for_and_says_so() -> None:
    outcome = failed(retry_after=30)
    with task_deadline(2):
        assert retry_delay(POLICY, outcome, 1, time.monotonic()) is None
    assert outcome.error is not None
    assert "asked to retry after 30 s, beyond the" in outcome.error.message
    assert retry_delay(POLICY, failed(retry_after=30), 1, time.monotonic()) == 30
