"""Append-only JSON Lines: a durable writer and a tolerant reader.

The writer appends from a background thread that writes and fsyncs the lines queued since
its last round every 20 ms (group commit), so the event loop never waits on the disk and
every record reaches the disk moments after it is written.
`durable()` waits until everything written so far is on disk; `then(callback)` calls back
on the loop at that point without waiting (the engine announces a finished task-trial so).
The reader streams lines in bounded blocks, skips a torn last line
(kill -9 mid-write) and counts corrupt, over-long, foreign and malformed lines instead of
failing (docs/limits.md, "Reading records").
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

import orjson
from pydantic import BaseModel

from a2abench.errors import RecordsError
from a2abench.run.bounds import MAX_DEPTH, MAX_STRING_CHARS, bound

if TYPE_CHECKING:  # `report` reads records with this module and never starts a loop
    import asyncio

_STOP = object()
# The writer thread's poll interval while busy and idle; each busy round is one group commit
# (write, fsync), so one fsync per 20 ms at most unless someone waits for the disk. At ~600
# task-trials/s a 2 ms poll cost ~0.2 ms of CPU per task-trial, mostly the thread's wake-ups
# and fsyncs (perf/throughput.py).
_POLL_MIN_S, _POLL_MAX_S = 0.02, 0.05


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
        # Lines (bytes), `then` callbacks and flush events, in order, from any thread, until
        # the writer thread's next round takes them all: no queue, and no wake-up per record
        # (each took the GIL from the event loop) or per loop tick.
        self._pending: list[Any] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()  # set by callers that wait for the disk
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
        line = _plain_line(record)
        if line is None:
            line = orjson.dumps(bound(record), default=str)
        if self._redact is not None:
            line = self._redact(line)
        self._push(line + b"\n")

    def _push(self, item: Any) -> None:
        with self._lock:
            self._pending.append(item)

    def then(self, callback: Callable[[], None], *, failed_too: bool = False) -> None:
        """Call `callback` on the running event loop once every record written so far is
        flushed and fsynced (without making the caller wait for the disk). If writing them
        failed, it is not called, unless `failed_too` (a waiter, who then raises)."""
        from asyncio import get_running_loop  # loaded already: `run` is running a loop

        self._push(_OnLoop(get_running_loop(), callback, failed_too))

    async def durable(self) -> None:
        """Wait until every record written so far is flushed and fsynced."""
        from asyncio import get_running_loop

        done = get_running_loop().create_future()

        def resolve() -> None:
            if not done.done():
                done.set_result(None)

        self.then(resolve, failed_too=True)
        self._wake.set()
        await done
        self._raise_if_failed()

    def flush(self) -> None:
        """Blocking variant of `durable()` for synchronous callers."""
        event = threading.Event()
        self._push(event.set)
        self._wake.set()
        event.wait()
        self._raise_if_failed()

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise RecordsError(f"cannot write {self.path}: {self._error}",
                               hint="Check free disk space and permissions.")

    def close(self) -> None:
        if self._thread.is_alive():
            self._push(_STOP)
            self._wake.set()
            self._thread.join()
        try:
            self._file.close()
        except OSError as exc:  # e.g. a full disk found by the last flush
            self._error = self._error or exc
        self._raise_if_failed()

    def _loop(self) -> None:
        idle = _POLL_MIN_S
        while True:
            # Polled: a wake-up per record would cost the event loop a context switch each
            # on a busy machine. The poll backs off while idle (a record is on disk within
            # ~50 ms plus its fsync); durable(), flush() and close() wake it at once. The
            # event is cleared before taking: what a waiter pushed before setting it is taken.
            if self._wake.wait(idle):
                self._wake.clear()
            items = self._take()
            if not items:
                idle = min(idle * 2, _POLL_MAX_S)
                continue
            idle = _POLL_MIN_S
            self._commit([i for i in items if isinstance(i, bytes)])
            _call_back(items, failed=self._error is not None)
            if any(i is _STOP for i in items):
                return

    def _take(self) -> list[Any]:
        """Everything pushed since the last round, in order."""
        with self._lock:
            items, self._pending = self._pending, []
        return items

    def _commit(self, lines: list[bytes]) -> None:
        """One group commit: write, flush and fsync `lines`; a failure is kept for callers."""
        if not lines or self._error is not None:
            return
        try:
            self._file.write(b"".join(lines))
            self._file.flush()
            if self._fsync:
                os.fsync(self._file.fileno())
        except OSError as exc:
            self._error = exc


class _OnLoop(NamedTuple):
    """A `then` callback: run on `loop` once the lines before it are on disk."""

    loop: asyncio.AbstractEventLoop
    callback: Callable[[], None]
    failed_too: bool


def _call_back(items: list[Any], *, failed: bool) -> None:
    """After a group commit, on the writer thread: run its thread callbacks, and hand each
    loop its callbacks in one `call_soon_threadsafe` (one wake-up of the loop per commit, not
    one per task-trial; each still runs as its own callback there, in order). After a failed
    commit only waiters are called: the lines of the others are not on disk."""
    later: dict[asyncio.AbstractEventLoop, list[Callable[[], None]]] = {}
    for item in items:
        if isinstance(item, _OnLoop):
            if failed and not item.failed_too:
                continue
            later.setdefault(item.loop, []).append(item.callback)
        elif callable(item):
            item()
    for loop, callbacks in later.items():
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            loop.call_soon_threadsafe(_schedule, loop, callbacks)


def _schedule(loop: asyncio.AbstractEventLoop, callbacks: list[Callable[[], None]]) -> None:
    for callback in callbacks:
        loop.call_soon(callback)


def _refuse(value: Any) -> Any:
    raise TypeError  # a type bound() turns into text: take the slow path


_PLAIN = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def _plain_line(record: BaseModel | dict[str, Any]) -> bytes | None:
    """The record's line when `bound()` would change nothing in it, else None (then it is
    bounded first). Walking every value through bound() was the largest cost of writing a
    task record (~0.15 ms); orjson alone refuses what is not plain JSON (integers beyond 64
    bits, keys that are not strings, sets, models, datetimes, secrets), a line shorter than
    MAX_STRING_CHARS holds no longer string, and the nesting is checked apart."""
    data: Any = record
    if isinstance(record, BaseModel):
        data = _fields(record)
        for key, value in data.items():  # a task record's ErrorInfo: a dict, as bound() makes
            if isinstance(value, BaseModel):  # it (orjson refuses models: every record with
                data[key] = _fields(value)  # an error took the slow path, ~0.1 ms)
    try:
        line = orjson.dumps(data, default=_refuse, option=_PLAIN)
    except TypeError:  # orjson.JSONEncodeError is one
        return None
    if len(line) > MAX_STRING_CHARS or not _shallow(data, line):
        return None
    return line


def _fields(model: BaseModel) -> dict[str, Any]:
    """A model's fields and extras, as `bound()` takes them."""
    data = dict(model.__dict__)
    data.update(model.__pydantic_extra__ or {})
    return data


def _shallow(value: Any, line: bytes) -> bool:
    """No container nested as deep as bound()'s MAX_DEPTH (the top level is depth 0)."""
    if line.count(b"[") + line.count(b"{") < MAX_DEPTH:  # brackets in strings count too
        return True
    level, depth = [value], 0
    while level:  # one level of containers at a time
        if depth >= MAX_DEPTH:
            return False
        deeper = []
        for item in level:
            for child in item.values() if isinstance(item, dict) else item:
                if isinstance(child, dict | list | tuple):
                    deeper.append(child)
        level, depth = deeper, depth + 1
    return True


@dataclass
class ReadStats:
    lines: int = 0
    records: int = 0
    corrupt: int = 0  # not JSON, or longer than MAX_LINE_BYTES (a torn last line is not counted)
    foreign: int = 0  # JSON, but not an a2abench record
    malformed: int = 0  # an a2abench record with a list or object where a name belongs
    torn_tail: int = 0
    by_file: dict[str, int] = field(default_factory=dict)


# The longest line `report` reads (a longer one is skipped as corrupt, without being held in
# memory): far above any record `run` writes (bounded strings, replies capped at 16 MB).
MAX_LINE_BYTES = 64 * 1024 * 1024
_BLOCK = 1024 * 1024
_INVALID: Any = object()
TOO_LONG: Any = object()


def _bounded_int(text: str) -> int | str:
    return int(text) if len(text) <= 20 else f"[a2abench: {len(text):,}-digit integer]"


def _tolerant_loads(raw: bytes) -> Any:
    """Parse what orjson refuses but JSON allows (integers beyond 64 bits, lone surrogate
    escapes, lines written by older versions); `_INVALID` when it is not JSON at all."""
    try:
        return json.loads(raw.decode("utf-8", errors="replace"), parse_int=_bounded_int)
    except (ValueError, RecursionError):
        return _INVALID


class RecordLines:
    """The lines of a binary file (without their newline), read in blocks so that no line
    longer than `limit` bytes (MAX_LINE_BYTES when built) is ever held whole: such a line
    comes out as `TOO_LONG`. `torn` is set when the last line has no newline (its text is
    still yielded)."""

    def __init__(self, handle: BinaryIO, limit: int | None = None) -> None:
        self.handle = handle
        self.limit = MAX_LINE_BYTES if limit is None else limit
        self.torn = False

    def __iter__(self) -> Iterator[Any]:
        read, limit = self.handle.read, self.limit
        pending: list[bytes] = []  # the start of a line that continues in the next block
        size = 0
        skipping = False  # inside a line already known to be too long
        while block := read(_BLOCK):
            pieces = block.split(b"\n")
            if len(pieces) == 1:  # no newline in this block
                if not skipping:
                    pending.append(block)
                    size += len(block)
                    if size > limit:
                        pending, skipping = [], True
                continue
            first = pieces[0]
            if skipping or size + len(first) > limit:
                yield TOO_LONG
            else:
                yield b"".join([*pending, first]) if pending else first
            yield from pieces[1:-1]  # whole lines inside one block: shorter than the block
            last = pieces[-1]
            pending, size, skipping = ([last] if last else []), len(last), False
        if skipping or pending:
            self.torn = True
            yield TOO_LONG if skipping else b"".join(pending)


KNOWN_TYPES = frozenset({"run", "request", "task", "run_end"})
# A list or object as a record's status, benchmark or domain (names, used as keys) is a
# forged record: skipped and counted. JSON containers parse to exactly these classes.
_CONTAINERS = frozenset({list, dict})
_TRANSCRIPT = b',"transcript":'
_FINISHED = b',"finished_at":"'
_ADAPTIVE = b'"adaptive":{'


def summary_prefix(raw: bytes) -> bytes | None:
    """A task record without the transcript and what follows it (details, timestamps), which
    `report` does not show, as JSON: the prefix `run` writes before it, closed. Only for lines
    laid out as `run` writes them, whole: `,"transcript":` unescaped is a key, and a prefix
    that closes with one brace is the top level; the line must end with the `finished_at`
    key (a line cut short, e.g. by a crash, does not). Otherwise None: parse it all."""
    cut = raw.find(_TRANSCRIPT)
    if cut <= 0 or not raw.endswith(b'"}') or raw.find(_FINISHED, len(raw) - 80) < 0 \
            or raw.find(_ADAPTIVE, cut) >= 0:  # an adaptive run's tag comes after: read all
        return None
    return raw[:cut] + b"}"


def _summary_loads(raw: bytes) -> Any:
    """A task record's summary (`summary_prefix`) parsed, with its status; else None."""
    prefix = summary_prefix(raw)
    if prefix is None:
        return None
    try:
        obj = orjson.loads(prefix)
    except orjson.JSONDecodeError:
        return None
    if obj.__class__ is dict and obj.get("type") == "task" and "status" in obj:
        return obj
    return None


class RawLine:
    """Set by `iter_records` before each record it yields: the line's bytes when they are
    the record as orjson reads it (None when it needed the tolerant parser)."""

    line: bytes | None = None


def iter_records(paths: Iterable[Path], stats: ReadStats | None = None,
                 types: frozenset[str] = KNOWN_TYPES, *, summary: bool = False,
                 raw: RawLine | None = None) -> Iterator[dict[str, Any]]:
    """Stream records of the given types from JSONL files, tolerating damage: corrupt,
    over-long (MAX_LINE_BYTES), foreign and malformed lines are counted in `stats`, never
    raised. `summary`: task records may come without `transcript`, `details` and the
    timestamps (what `report` leaves out), skipped unparsed. `raw` receives each line."""
    stats = stats if stats is not None else ReadStats()
    out = raw or RawLine()
    for path in paths:
        with open_records(path) as handle:
            count = stats.records
            lines = RecordLines(handle)
            for line in lines:
                obj = read_line(line, lines.torn, stats, summary, out)
                if obj is not None and obj["type"] in types:
                    yield obj
            stats.by_file[str(path)] = stats.records - count


def open_records(path: Path) -> BinaryIO:
    """A metrics file, open for `RecordLines` (the caller closes it)."""
    try:
        return open(path, "rb")
    except OSError as exc:
        raise RecordsError(f"cannot read {path}: {exc.strerror}",
                           hint="Pass the metrics.jsonl file a run wrote.") from None


def read_line(raw: Any, torn: bool, stats: ReadStats, summary: bool,
              out: RawLine) -> dict[str, Any] | None:
    """One line of `RecordLines` (`torn`: it is the file's unfinished last line) as a record,
    or None when it is none (counted in `stats`). `out.line` receives the line's bytes."""
    stats.lines += 1
    if raw is TOO_LONG:
        if torn:
            stats.torn_tail += 1
        else:
            stats.corrupt += 1
        return None
    obj = _summary_loads(raw) if summary and not torn else None
    line: bytes | None = raw
    if obj is None:
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            line = None
            obj = _tolerant_loads(raw)  # valid JSON orjson refuses: never dropped
            if obj is _INVALID:
                if torn:
                    stats.torn_tail += 1  # the process died mid-write
                else:
                    stats.corrupt += 1
                return None
    if obj.__class__ is not dict:
        stats.foreign += 1
        return None
    kind = obj.get("type")  # compared by class first: a forged list is unhashable
    if kind.__class__ is not str or kind not in KNOWN_TYPES \
            or obj.get("run_id").__class__ is not str:
        stats.foreign += 1
        return None
    if kind != "request" and (obj.get("status").__class__ in _CONTAINERS
                              or obj.get("benchmark").__class__ in _CONTAINERS
                              or obj.get("domain").__class__ in _CONTAINERS):
        stats.malformed += 1  # a list or object where a name belongs: forged
        return None
    stats.records += 1
    out.line = line
    return obj
