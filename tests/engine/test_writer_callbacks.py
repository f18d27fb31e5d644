"""`RecordWriter.then`: callbacks run on the loop, in order, once their lines are on disk; one
group commit wakes the loop once, however many task-trials it holds (issue 27)."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import Any

import pytest

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
