"""The banking grep deadline is the worker's CPU time, not the wall clock: on a busy machine
a pattern that finishes gets its answer, as upstream gives it, and a pattern that burns its
CPU budget is still stopped (tests/hostile/test_banking_retrieval.py holds the rest)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

import pytest

from a2abench.benchmarks.tau2.domains.banking import grep_pool
from tests.waits import HANG_S

pytestmark = pytest.mark.skipif(grep_pool.cpu_seconds(os.getpid()) is None,
                                reason="no /proc: the grep deadline is wall-clock time here")
CONTENTS = ["a fee and a fee", "no match", "one fee", "a" * 40 + "!"]


def _starved(pool: grep_pool.GrepPool, pattern: str, hold_s: float) -> list[object]:
    """Search with the worker stopped (no CPU at all) for `hold_s` of wall-clock time: what
    a worker gets on a machine busy enough. The outcome, value or exception, in a list."""
    assert pool.search("fee", top_k=10) == [(0, 2), (2, 1)]  # a warm worker, kept idle
    (worker,) = pool._idle
    outcome: list[object] = []

    def search() -> None:
        try:
            outcome.append(pool.search(pattern, top_k=10, deadline_s=0.3))
        except Exception as exc:  # the outcome under test, whichever it is
            outcome.append(exc)

    os.kill(worker.proc.pid, signal.SIGSTOP)
    thread = threading.Thread(target=search)
    try:
        thread.start()
        time.sleep(hold_s)
    finally:
        with contextlib.suppress(ProcessLookupError):  # killed at its deadline meanwhile
            os.kill(worker.proc.pid, signal.SIGCONT)
    thread.join(HANG_S)
    assert not thread.is_alive()
    return outcome


@pytest.mark.skipif(sys.platform != "linux", reason="SIGSTOP stands in for a busy CPU")
def test_a_pattern_starved_of_cpu_past_the_deadline_is_still_answered() -> None:
    # Reproduces the finding: 1 s of wall-clock time with no CPU under a 0.3 s deadline was
    # "grep timed out", the agent's error, where upstream (and a quiet machine) answers.
    pool = grep_pool.GrepPool(CONTENTS)
    try:
        assert _starved(pool, "fee", hold_s=1.0) == [[(0, 2), (2, 1)]]
        with pytest.raises(grep_pool.GrepTimeout, match="after 0.3 seconds"):
            pool.search("(a+)+$", top_k=10, deadline_s=0.3)  # CPU-bound: still stopped
    finally:
        pool.close()


@pytest.mark.skipif(sys.platform != "linux", reason="SIGSTOP stands in for a busy CPU")
def test_a_worker_that_gets_no_cpu_at_all_ends_at_the_backstop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grep_pool, "BACKSTOP_S", 0.5)
    pool = grep_pool.GrepPool(CONTENTS)
    try:
        (outcome,) = _starved(pool, "fee", hold_s=1.5)
        assert isinstance(outcome, grep_pool.GrepTimeout), outcome
        assert pool.search("fee", top_k=10) == [(0, 2), (2, 1)]  # a new worker took over
    finally:
        pool.close()


def test_cpu_seconds_reads_a_running_process_and_none_for_a_gone_one() -> None:
    spent = grep_pool.cpu_seconds(os.getpid())
    assert spent is not None and spent > 0
    assert grep_pool.cpu_seconds(2**22 + 12345) is None  # above Linux's pid_max
