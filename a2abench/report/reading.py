"""The report's reader: each line decoded straight into the few fields the report reads.

A run's metrics file is mostly what the report never shows: transcripts, details, request
metadata. msgspec decodes each line into a Struct of the fields the report reads, typed and
bounded as `run` writes them, and skips the rest without building it (about half the cost of
`orjson.loads` building the whole record). A line that does not fit (a run or run_end record,
a multi-party or adaptive task record, a value of another type or out of bounds, a record that
cannot be true, anything damaged or forged) goes to `iter_records`' tolerant reader instead,
line by line (`read_line`), so every odd line is counted, kept or refused exactly as there:
the fast path decides nothing the tolerant one would decide otherwise
(tests/report/test_reading.py compares the two on odd and generated lines).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Protocol

import msgspec
from msgspec import Meta, Struct, UnsetType

from a2abench.run.status import SCORED_STATUSES, SUCCESS_EPS, UNSCORED_STATUSES
from a2abench.run.writer import (
    TOO_LONG,
    RawLine,
    ReadStats,
    RecordLines,
    open_records,
    read_line,
    summary_prefix,
)

# A number `safe_count` and `safe_number` read as themselves: an int within int64 (orjson's
# ints; msgspec's bounds) or a finite float (msgspec refuses inf as orjson does). Anything
# else, and a negative int, goes to the tolerant reader.
_Number = Annotated[int, Meta(ge=0, le=2**63 - 1)] | Annotated[float, Meta(ge=0.0)]
_Name = Annotated[str, Meta(max_length=500)]  # as `_text` cuts it: a longer one is odd
_Count = Annotated[int, Meta(ge=0, le=2**63 - 1)]


class ErrorFields(Struct, gc=False):
    """What the report reads of a task record's `error` (the class name and the message)."""

    error: str | None = None
    message: str | None = None


class TaskFields(Struct, tag_field="type", tag="task", kw_only=True, gc=False):
    """A task record's fields the report reads, in the order of `aggregate._KEPT` (so that
    `astuple` holds its token counts where a dict record's kept values do). The first ones
    are typed so narrowly that each decoded value is the one its row holds (`Row`: an int
    reward is a float, a long name cut, an absent latency 0.0); a value outside goes to the
    tolerant reader, whose row reads it as a validated `TaskLine` would."""

    benchmark: str = ""  # an absent one is "" (`str(None or "")`); null: the tolerant reader
    domain: _Name | None = None
    category: _Name | None = None
    task_id: Annotated[str, Meta(min_length=1, max_length=500)]
    trial: Annotated[int, Meta(ge=0, le=2**31 - 1)]
    status: Annotated[str, Meta(max_length=40)] = "ok"
    # An int reward decodes as its float ("-0" as 0.0, as float(0)); above 1 + SUCCESS_EPS a
    # record cannot be true: the tolerant reader.
    reward: Annotated[float, Meta(ge=0.0, le=1.0 + SUCCESS_EPS)] | None = None
    success: bool = False
    termination: _Name | None = None
    # Positive and below 2**63 (a larger int is no number to `safe_number`), else the
    # tolerant reader (0.0 and -0.0 read as 0.0 there).
    latency_ms: Annotated[float, Meta(gt=0.0, lt=2.0**63)] = 0.0
    turns: Annotated[int, Meta(ge=0, le=2**63 - 1)] = 0
    labels: list[Annotated[str, Meta(max_length=100)]] = []
    error: ErrorFields | None = None
    # As `safe_count` and `safe_number` read them (an absent count 0).
    input_tokens: _Count = 0
    output_tokens: _Count = 0
    llm_prompt_tokens: _Count = 0
    llm_completion_tokens: _Count = 0
    cost_usd: Annotated[float, Meta(ge=0.0, lt=2.0**63)] | None = None
    run_id: str
    adaptive: None = None  # an adaptive run's tag: the tolerant reader (report/adaptive.py)
    match: UnsetType = msgspec.UNSET  # a multi-party record: the tolerant reader (matches.py)


class RequestFields(Struct, tag_field="type", tag="request", gc=False):
    run_id: str
    latency_ms: _Number | None = None
    error: Any = None  # read for its truth alone


_DECODE = msgspec.json.Decoder(TaskFields | RequestFields).decode

# A JSON number as it was written: an int within int64 stays an int (a `float` field would
# turn 5 into 5.0, and the page would show another value), a float stays a float.
_Plain = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)] | float


class RequestRow(Struct, tag_field="type", tag="request", kw_only=True, gc=False):
    """A request record as the HTML page's viewer reads it: its columns (in the order of
    viewer_data.REQUEST_FIELDS), the task-trial it served, and what the report counts. Typed
    as `run` writes them, so each value is the one `orjson.loads` would build; any other
    value goes to the tolerant reader with the whole line."""

    timestamp: str | None = None
    method: str | None = None
    attempt: _Plain | None = None
    status_code: _Plain | None = None
    latency_ms: _Number | None = None  # also the report's latency: as safe_number reads it
    first_event_ms: _Plain | None = None
    input_tokens: _Plain | None = None
    output_tokens: _Plain | None = None
    error: str | None = None
    run_id: str
    task_id: Annotated[str, Meta(max_length=500)] | _Plain | None = None
    trial: _Plain | None = None
    pairing: str | None = None


class TaskView(TaskFields, kw_only=True, gc=False):
    """A task record as the HTML page reads it: the report's fields (`TaskFields`, kept as
    `read_file` keeps them) and the viewer's row, decoded from the record's summary (the
    part before its transcript, `summary_prefix`, as the tolerant reader's summary path
    parses it). Where the report's value and the row's could differ, the record goes to the
    tolerant reader instead: an absent benchmark (the report reads "", the row null), an
    absent status (the summary path parses such a line whole), an int reward (the row shows
    it as written) and an error object without either name (the row tells `{}` apart)."""

    benchmark: str
    status: Annotated[str, Meta(max_length=40)]
    reward: int | Annotated[float, Meta(ge=0.0, le=1.0 + SUCCESS_EPS)] | None = None
    tool_calls: _Count = 0


class TaskTag(Struct, tag_field="type", tag="task", gc=False):
    """A task record, its fields skipped (a union of tagged Structs requires the tag)."""


# Each a union: a Struct decoded alone would take a line without a `type` (a foreign line).
_DECODE_VIEW = msgspec.json.Decoder(TaskView | RequestRow).decode
_DECODE_TAPPED = msgspec.json.Decoder(RequestRow | TaskTag).decode
_TASK_TYPE = b'"type":"task"'

_ODD = (ValueError, RecursionError)  # msgspec's DecodeError is a ValueError
_SCORED = frozenset(SCORED_STATUSES)
_UNSCORED = frozenset(UNSCORED_STATUSES)


class Sink(Protocol):
    """What `read_file` fills (report/aggregate._Accumulator)."""

    requests: int
    request_errors: int
    latencies: list[float]

    def keep(self, key: tuple[Any, ...], scored: bool, values: tuple[Any, ...] | TaskFields,
             problem: str | None) -> bool: ...

    def flush_latencies(self) -> None: ...

    def take(self, rec: dict[str, Any]) -> None: ...


class Tap(Protocol):
    """What `read_file_tapped` hands the HTML page's viewer (report/viewer_data.Viewer)."""

    def request_row(self, rec: RequestRow) -> None: ...

    def task_view(self, rec: TaskView, line: bytes, scored: bool) -> None: ...


def read_file(sink: Sink, path: Path, stats: ReadStats) -> None:
    """Read one metrics file into `sink`, counting in `stats` as `iter_records` does."""
    out = RawLine()
    records_before = stats.records
    fast = 0  # lines read here (each a record); the tolerant reader counts its own
    requests = errors = 0
    keep, task_of = sink.keep, _task
    with open_records(path) as handle:
        lines = RecordLines(handle)
        for raw in lines:
            if raw is not TOO_LONG and not lines.torn:
                try:
                    rec = _DECODE(raw)
                except _ODD:
                    rec = None
                if rec.__class__ is TaskFields:
                    kept = task_of(rec)
                    if kept is not None:
                        keep(*kept)
                        fast += 1
                        continue
                elif rec.__class__ is RequestFields:
                    fast += 1
                    requests += 1
                    errors += _request(sink, rec.latency_ms, rec.error)
                    continue
            obj = read_line(raw, lines.torn, stats, True, out)
            if obj is not None:
                sink.take(obj)
    sink.requests += requests
    sink.request_errors += errors
    stats.lines += fast
    stats.records += fast
    stats.by_file[str(path)] = stats.records - records_before


def read_file_tapped(sink: Sink, path: Path, stats: ReadStats, tap: Tap,
                     take: Callable[[dict[str, Any], bytes | None], None]) -> None:
    """Read one metrics file for the HTML page: each request record decoded into its row
    alone (80,000 of the 90,000 lines of 10,000 task-trials) for `tap.request_row`, each task
    record as `run` writes it into a `TaskView` for the report and `tap.task_view`, every
    other line through the tolerant reader into `take(record, line)`, counted in `stats` as
    `iter_records` does."""
    out = RawLine()
    records_before = stats.records
    fast = errors = tasks = 0
    keep, request_row, task_view = sink.keep, tap.request_row, tap.task_view
    with open_records(path) as handle:
        lines = RecordLines(handle)
        for raw in lines:
            if raw is not TOO_LONG and not lines.torn:
                # A task record as `run` writes it names its type in its first bytes.
                if raw.find(_TASK_TYPE, 0, 80) < 0:
                    try:
                        rec = _DECODE_TAPPED(raw)
                    except _ODD:
                        rec = None
                    if rec.__class__ is RequestRow:
                        fast += 1
                        errors += _request(sink, rec.latency_ms, rec.error)
                        request_row(rec)
                        continue
                elif (view := _task_view(raw)) is not None \
                        and (kept := _task(view)) is not None:
                    tasks += 1
                    task_view(view, raw, kept[1])
                    keep(*kept)
                    continue
            obj = read_line(raw, lines.torn, stats, True, out)
            if obj is not None:
                take(obj, out.line)
    sink.requests += fast
    sink.request_errors += errors
    stats.lines += fast + tasks
    stats.records += fast + tasks
    stats.by_file[str(path)] = stats.records - records_before


def _task_view(raw: bytes) -> TaskView | None:
    """A task line's `TaskView` when its summary fits one (see there), else None."""
    prefix = summary_prefix(raw)
    if prefix is None:
        return None
    try:
        rec = _DECODE_VIEW(prefix)
    except _ODD:
        return None
    if rec.__class__ is not TaskView:
        return None
    err = rec.error
    if rec.reward.__class__ is int or (err is not None and err.error is None
                                       and err.message is None):
        return None
    return rec


def _request(sink: Sink, latency: float | None, error: Any) -> int:
    """Fold in a request's latency (as `safe_number` reads it); 1 when it failed, else 0."""
    if latency is not None:
        sink.latencies.append(float(latency))
        if len(sink.latencies) >= 4096:
            sink.flush_latencies()
    return 1 if error else 0


def _task(rec: TaskFields) -> tuple[tuple[Any, ...], bool, TaskFields, None] | None:
    """(key, scored, the record, no problem) as `add_task` keeps a record, or None when the
    record may not be true (`record_problem` decides that, and words it, on the dict)."""
    status, reward = rec.status, rec.reward
    if status in _SCORED:
        if reward is None or (status != "ok" and (reward or rec.success)):
            return None  # no reward, or an error that claims a pass
        scored = True
    elif status in _UNSCORED and reward is None:
        scored = False
    else:
        return None  # an unknown status, or an unscored record with a reward
    return (rec.benchmark, rec.domain, rec.task_id, rec.trial), scored, rec, None

