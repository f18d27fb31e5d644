"""Bounded evaluation of the agent's `grep` patterns: each runs in a child process
(`_grep_worker.py`, Python's own `re`, so every pattern that finishes gives upstream's
counts) that is killed at the deadline or when the task-trial is cancelled.

The deadline is the worker's CPU time where the OS reports it (Linux's /proc), so a pattern's
answer does not depend on how busy the machine is; a wall-clock backstop still ends a worker
that gets no CPU at all. Elsewhere the deadline is wall-clock time.

Python's regex engine backtracks: `(\\w+\\s?)+$` over the knowledge base runs for hours and
holds the GIL inside one C call, so neither a thread nor a signal can stop it in-process.
Workers are started on first use, kept warm between calls, and replaced after a kill.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any

GREP_DEADLINE_S = 2.0  # of the worker's CPU: a pattern over the whole KB takes ~5 ms
# Wall-clock bound of one evaluation whatever its CPU (upstream's shell-tool timeout).
BACKSTOP_S = 30.0
# A fresh worker's start (an interpreter and the KB) is not the pattern's time: the deadline
# counts from its ready line, which may take this long on a loaded machine (issue 35).
BOOT_S = 120.0
MAX_WORKERS = 4  # concurrent grep evaluations per process; more callers wait for one
IDLE_WORKERS = 2  # kept warm between calls
_POLL_S = 0.05  # how often a waiting caller looks at its cancel event
_WORKER = Path(__file__).with_name("_grep_worker.py")


def _ticks() -> int:
    sysconf = getattr(os, "sysconf", None)
    try:
        return int(sysconf("SC_CLK_TCK")) if sysconf is not None else 0
    except (OSError, ValueError):
        return 0


_TICKS = _ticks()


def cpu_seconds(pid: int) -> float | None:
    """A process's CPU time (user + system) as /proc reports it; None where it cannot tell."""
    if not _TICKS:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()  # the name may hold spaces
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return None


class GrepTimeout(Exception):
    """The pattern did not finish in time (the agent's error for that call)."""


class GrepCancelled(Exception):
    """The task-trial was cancelled while its pattern ran."""


class _Worker:
    def __init__(self, corpus_line: bytes) -> None:
        # -S: no site-packages to scan (the worker needs the standard library only)
        self.proc = subprocess.Popen([sys.executable, "-I", "-S", str(_WORKER)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.replies: queue.Queue[bytes] = queue.Queue()
        self.ready = False  # its ready line was read: the KB is loaded
        threading.Thread(target=self._read, name="a2abench-grep-reader", daemon=True).start()
        try:
            self.ask(corpus_line)
        except OSError as exc:
            self.close(kill=True)
            raise RuntimeError(f"grep worker did not start: {exc}") from exc

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.replies.put(line)
        self.replies.put(b"")  # the worker exited

    def ask(self, request: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(request)
        self.proc.stdin.flush()

    def close(self, kill: bool = False) -> None:
        if kill:
            self.proc.kill()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        self.proc.wait()


def _close_all(workers: list[_Worker]) -> None:
    while workers:
        workers.pop().close(kill=True)


class GrepPool:
    """Warm workers over one knowledge base's documents (contents in upstream's order)."""

    def __init__(self, contents: list[str]) -> None:
        self._corpus = (json.dumps(contents) + "\n").encode()
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(MAX_WORKERS)
        weakref.finalize(self, _close_all, self._idle)

    def search(self, pattern: str, top_k: int, case_sensitive: bool = False, *,
               deadline_s: float | None = None,
               cancel: threading.Event | None = None) -> list[tuple[int, int]]:
        """(document index, match count) of the top_k documents, as upstream ranks them.
        Raises GrepTimeout after `deadline_s` (default GREP_DEADLINE_S) of the worker's CPU,
        GrepCancelled once `cancel` is set, RuntimeError if the worker fails."""
        request = (json.dumps({"pattern": pattern, "case_sensitive": case_sensitive,
                               "top_k": top_k}) + "\n").encode()
        while not self._slots.acquire(timeout=_POLL_S):
            if cancel is not None and cancel.is_set():
                raise GrepCancelled("grep cancelled")
        try:
            return self._search(request, GREP_DEADLINE_S if deadline_s is None else deadline_s,
                                cancel)
        finally:
            self._slots.release()

    def _search(self, request: bytes, deadline_s: float,
                cancel: threading.Event | None) -> list[tuple[int, int]]:
        worker = self._take()
        try:
            if not worker.ready:
                self._started(worker, cancel)
            line = self._evaluate(worker, request, deadline_s, cancel)
        except BaseException:
            worker.close(kill=True)
            raise
        reply: dict[str, Any] = (json.loads(line) if line
                                 else {"error": "the grep worker exited"})
        if "error" in reply:
            worker.close(kill=True)
            raise RuntimeError(f"grep failed: {reply['error']}")
        self._give_back(worker)
        return [(int(i), int(n)) for i, n in reply["hits"]]

    def _started(self, worker: _Worker, cancel: threading.Event | None) -> None:
        """Wait for a fresh worker's ready line (its start is not the pattern's time)."""
        try:
            line = self._wait(worker, BOOT_S, cancel)
        except GrepTimeout:
            raise RuntimeError(f"the grep worker did not start within {BOOT_S:g} s") from None
        if json.loads(line or b"{}").get("ready") is not True:
            raise RuntimeError("the grep worker did not start")
        worker.ready = True

    @staticmethod
    def _evaluate(worker: _Worker, request: bytes, deadline_s: float,
                  cancel: threading.Event | None) -> bytes:
        """The worker's answer to `request` within `deadline_s` of its CPU time (wall-clock
        time where /proc cannot tell), and within BACKSTOP_S of wall-clock time."""
        start = cpu_seconds(worker.proc.pid)
        if start is None:
            worker.ask(request)
            return GrepPool._wait(worker, deadline_s, cancel)
        worker.ask(request)
        wall = time.monotonic() + max(BACKSTOP_S, deadline_s)
        spent = 0.0
        while True:
            if spent >= deadline_s or time.monotonic() >= wall:
                raise GrepTimeout(f"grep timed out after {deadline_s:g} seconds")
            try:
                return worker.replies.get(timeout=min(_POLL_S, deadline_s - spent))
            except queue.Empty:
                if cancel is not None and cancel.is_set():
                    raise GrepCancelled("grep cancelled") from None
            now = cpu_seconds(worker.proc.pid)
            if now is not None:  # None: it exited, and its reader says so next
                spent = now - start

    @staticmethod
    def _wait(worker: _Worker, deadline_s: float, cancel: threading.Event | None) -> bytes:
        deadline = time.monotonic() + deadline_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                # The shape of upstream's shell tool timeout ("Command timed out after 30
                # seconds"); the agent reads it as "Error: grep timed out after ...".
                raise GrepTimeout(f"grep timed out after {deadline_s:g} seconds")
            try:
                return worker.replies.get(timeout=min(left, _POLL_S))
            except queue.Empty:
                if cancel is not None and cancel.is_set():
                    raise GrepCancelled("grep cancelled") from None

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.proc.poll() is None:
                    return worker
                worker.close()
        return _Worker(self._corpus)

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            if len(self._idle) < IDLE_WORKERS:
                self._idle.append(worker)
                return
        worker.close()

    def close(self) -> None:
        with self._lock:
            _close_all(self._idle)
