"""Append-only JSON Lines: a durable writer and a tolerant reader.

The writer appends from a background thread that flushes and fsyncs each batch of lines
(group commit), so the event loop never waits on the disk and every record reaches the disk
moments after it is written. `durable()` waits until everything written so far is on disk.
The reader streams lines, skips a torn last line (kill -9 mid-write) and counts corrupt or
foreign lines instead of failing.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel

from a2abench.errors import RecordsError
from a2abench.run.bounds import bound

_STOP = object()


class RecordWriter:
    """Appends records to one file; safe to call from the event loop or any thread."""

    def __init__(self, path: Path, *, fsync: bool = True,
                 redact: Callable[[bytes], bytes] | None = None) -> None:
        self.path = path
        self._redact = redact  # removes known secret values from each serialized line
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._repair_torn_tail(path)
            self._file = open(path, "ab")  # noqa: SIM115 - closed in close()
        except OSError as exc:
            parent = next((p for p in path.parents if p.exists()), None)
            why = (f"{parent} is not a directory" if parent is not None and not parent.is_dir()
                   else exc.strerror or str(exc))
            raise RecordsError(f"cannot write {path}: {why}",
                               hint="Choose a writable --output (check permissions and free "
                                    "space).") from None
        self._fsync = fsync
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        # Lines written on the event loop wait here until the end of the loop's tick and go to
        # the writer thread as one item: a queue put per record woke the thread (and took the
        # GIL from the loop) for every request and task record.
        self._pending: list[bytes] = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name="a2abench-writer", daemon=True)
        self._thread.start()

    @staticmethod
    def _repair_torn_tail(path: Path) -> None:
        """Cut a half-written last line left by a crash, so appends start on a fresh line."""
        if not path.exists() or path.stat().st_size == 0:
            return
        with open(path, "rb+") as f:
            f.seek(-1, os.SEEK_END)
            if f.read(1) == b"\n":
                return
            f.seek(0, os.SEEK_END)
            size = f.tell()
            pos = size
            while pos > 0:
                step = min(65536, pos)
                f.seek(pos - step)
                chunk = f.read(step)
                cut = chunk.rfind(b"\n")
                if cut >= 0:
                    f.truncate(pos - step + cut + 1)
                    return
                pos -= step
            f.truncate(0)

    def write(self, record: BaseModel | dict[str, Any]) -> None:
        if self._error is not None:
            raise RecordsError(f"cannot write {self.path}: {self._error}",
                               hint="Check free disk space and permissions.")
        # Bounded first: agent-controlled values must not make the line unreadable or huge.
        line = orjson.dumps(bound(record), default=str)
        if self._redact is not None:
            line = self._redact(line)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # another thread, no loop: straight to the writer thread
            self._queue.put(line + b"\n")
            return
        self._pending.append(line + b"\n")
        if len(self._pending) == 1:
            loop.call_soon(self._drain)

    def _drain(self) -> None:
        """Hand the lines written on the event loop so far to the writer thread."""
        if self._pending:
            lines, self._pending = self._pending, []
            self._queue.put(b"".join(lines))

    def then(self, callback: Callable[[], None]) -> None:
        """Call `callback` on the running event loop once every record written so far is
        flushed and fsynced (without making the caller wait for the disk)."""
        loop = asyncio.get_running_loop()
        self._drain()
        self._queue.put(lambda: loop.call_soon_threadsafe(callback))

    async def durable(self) -> None:
        """Wait until every record written so far is flushed and fsynced."""
        done = asyncio.get_running_loop().create_future()

        def resolve() -> None:
            if not done.done():
                done.set_result(None)

        self.then(resolve)
        await done
        self._raise_if_failed()

    def flush(self) -> None:
        """Blocking variant of `durable()` for synchronous callers."""
        event = threading.Event()
        self._drain()
        self._queue.put(event.set)
        event.wait()
        self._raise_if_failed()

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise RecordsError(f"cannot write {self.path}: {self._error}",
                               hint="Check free disk space and permissions.")

    def close(self) -> None:
        self._drain()
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join()
        try:
            self._file.close()
        except OSError as exc:  # e.g. a full disk found by the last flush
            self._error = self._error or exc
        self._raise_if_failed()

    def _loop(self) -> None:
        while True:
            items = [self._queue.get()]
            while True:  # group commit: take everything queued now
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            lines = [i for i in items if isinstance(i, bytes)]
            try:
                if lines and self._error is None:
                    self._file.write(b"".join(lines))
                    self._file.flush()
                    if self._fsync:
                        os.fsync(self._file.fileno())
            except OSError as exc:
                self._error = exc
            for item in items:
                if callable(item):
                    item()
            if any(i is _STOP for i in items):
                return


@dataclass
class ReadStats:
    lines: int = 0
    records: int = 0
    corrupt: int = 0  # not JSON (a torn last line is not counted)
    foreign: int = 0  # JSON, but not an a2abench record
    torn_tail: int = 0
    by_file: dict[str, int] = field(default_factory=dict)


_INVALID: Any = object()


def _bounded_int(text: str) -> int | str:
    return int(text) if len(text) <= 20 else f"[a2abench: {len(text):,}-digit integer]"


def _tolerant_loads(raw: bytes) -> Any:
    """Parse what orjson refuses but JSON allows (integers beyond 64 bits, lone surrogate
    escapes, lines written by older versions); `_INVALID` when it is not JSON at all."""
    try:
        return json.loads(raw.decode("utf-8", errors="replace"), parse_int=_bounded_int)
    except (ValueError, RecursionError):
        return _INVALID


KNOWN_TYPES = frozenset({"run", "request", "task", "run_end"})


def iter_records(paths: Iterable[Path], stats: ReadStats | None = None,
                 types: frozenset[str] = KNOWN_TYPES) -> Iterator[dict[str, Any]]:
    """Stream records of the given types from JSONL files, tolerating damage."""
    stats = stats if stats is not None else ReadStats()
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    for path in paths:
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise RecordsError(f"cannot read {path}: {exc.strerror}",
                               hint="Pass the metrics.jsonl file a run wrote.") from None
        count = 0
        with handle:
            for raw in handle:
                stats.lines += 1
                try:
                    obj = loads(raw)
                except decode_error:
                    obj = _tolerant_loads(raw)  # valid JSON orjson refuses: never dropped
                    if obj is _INVALID:
                        if not raw.endswith(b"\n"):
                            stats.torn_tail += 1  # the process died mid-write
                        else:
                            stats.corrupt += 1
                        continue
                kind = obj.get("type") if isinstance(obj, dict) else None
                if kind not in KNOWN_TYPES or not isinstance(obj.get("run_id"), str):
                    stats.foreign += 1
                    continue
                count += 1
                stats.records += 1
                if kind in types:
                    yield obj
        stats.by_file[str(path)] = count
