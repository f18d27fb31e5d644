"""`RecordWriter.then`: callbacks run on the loop, in order, once their lines are on disk; one
group commit wakes the loop once, however many task-trials it holds, and fsyncs come at most
once per 20 ms window unless someone waits for the disk (issue 27)."""

from __future__ import annotations

import asyncio
import os
import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from a2abench.errors import RecordsError
from a2abench.run.writer import RecordWriter


async def test_callbacks_run_in_order_after_their_lines_and_wake_the_loop_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    wakes: list[Any] = []
    threadsafe = loop.call_soon_threadsafe

    def counted(callback: Any, *args: Any) -> Any:
        wakes.append(callback)
        return threadsafe(callback, *args)

    monkeypatch.setattr(loop, "call_soon_threadsafe", counted)
    path = tmp_path / "run.jsonl"
    writer = RecordWriter(path)
    seen: list[tuple[int, int]] = []

    def note(i: int) -> None:
        seen.append((i, len(path.read_bytes().splitlines())))

    for i in range(20):  # one loop tick: one batch, one group commit
        writer.write({"type": "task", "n": i})
        writer.then(partial(note, i))
    await writer.durable()
    writer.close()
    assert [i for i, _ in seen] == list(range(20))
    assert all(lines >= i + 1 for i, lines in seen)  # each ran with its line on disk
    assert len(wakes) == 1  # 20 callbacks and durable()'s own: one wake-up of the loop


async def test_a_failing_callback_does_not_stop_the_others(tmp_path: Path) -> None:
    loop = asyncio.get_running_loop()
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    writer = RecordWriter(tmp_path / "run.jsonl")
    seen: list[int] = []
    writer.write({"type": "task"})

    def fail() -> None:
        raise ZeroDivisionError

    writer.then(fail)
    writer.then(lambda: seen.append(2))
    await writer.durable()
    writer.close()
    assert seen == [2]
    assert isinstance(errors[0]["exception"], ZeroDivisionError)


async def test_fsyncs_are_batched_and_each_callback_waits_for_the_one_covering_its_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []  # the file's size at each fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.fstat(fd).st_size))
    path = tmp_path / "run.jsonl"
    writer = RecordWriter(path)
    ends: list[int] = []  # where each record's line ends
    seen: list[tuple[int, int]] = []
    started = time.monotonic()
    for i in range(60):  # 60 loop ticks, each with its record: ~60 writer polls
        writer.write({"type": "task", "n": i})
        writer.then(partial(lambda i: seen.append((i, synced[-1] if synced else 0)), i))
        await asyncio.sleep(0.001)
    elapsed = time.monotonic() - started
    before = len(synced)
    await writer.durable()  # waits for the disk: syncs now, not at the end of the window
    writer.close()
    for line in path.read_bytes().splitlines(keepends=True):
        ends.append((ends[-1] if ends else 0) + len(line))
    assert [i for i, _ in seen] == list(range(60))
    assert all(size >= ends[i] for i, size in seen)  # announced once fsynced, never before
    assert before <= elapsed / 0.02 + 2  # one fsync per 20 ms window, not one per poll
    assert synced[-1] == ends[-1]


async def test_a_failed_commit_announces_nothing_and_durable_raises(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that fails the fsync: the task-trials of that commit are not on disk, so their
    `then` callbacks (serve-green's progress) never run; `durable()` wakes and says why."""
    writer = RecordWriter(tmp_path / "run.jsonl")
    writer.write({"type": "task", "n": 0})
    await writer.durable()

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    announced: list[int] = []
    writer.write({"type": "task", "n": 1})
    writer.then(lambda: announced.append(1))
    with pytest.raises(RecordsError, match="No space left"):
        await writer.durable()
    writer.then(lambda: announced.append(2))  # after the failure: never on disk either
    with pytest.raises(RecordsError):
        await writer.durable()
    await asyncio.sleep(0.1)
    assert announced == []
    with pytest.raises(RecordsError):
        writer.close()
