"""The data behind the HTML report's trajectory viewer.

Every task-trial becomes one small summary row (what the table, filters and charts need) and
one body (transcript, reward breakdown, details, the A2A requests of that trial) that the page
inflates only when the trial is opened. Bodies are JSON, compressed in chunks of consecutive
task-trials (about 256 KiB of JSON each, bodies separated by newlines) and stored in base64;
each row names its chunk and its place there. Transcripts repeat a lot of text, within one
and across neighbours, so they shrink several-fold, and the browser decompresses a chunk with
its built-in `DecompressionStream("deflate")`, no library needed. (One blob per task-trial
was 1.5x the bytes and 1.7x the compressing time: every blob paid the compressor's setup.)

Records stream by once; task-trials are deduplicated across shards and resumes by the same rule
as `aggregate` (a scored result wins over an infrastructure failure, else the later record).
"""

from __future__ import annotations

import base64
import functools
import json
import operator
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from msgspec.structs import astuple

from a2abench.report.aggregate import SCORED, record_problem, safe_count, safe_number
from a2abench.report.reading import RequestRow, TaskView
from a2abench.run.writer import RawLine, iter_records

# Columns of a summary row, in order (the page maps them back to names).
COLUMNS = ["run", "benchmark", "domain", "category", "task_id", "trial", "status", "reward",
           "success", "termination", "error_class", "error", "latency_ms", "turns",
           "tool_calls", "tokens", "cost_usd", "labels"]
# A multi-party run's rows end with their match's pairing (single-agent pages are unchanged).
MATCH_COLUMNS = [*COLUMNS, "pairing"]
# A request record as a short tuple: what the per-turn timing table shows.
REQUEST_FIELDS = ["timestamp", "method", "attempt", "status_code", "latency_ms",
                  "first_event_ms", "input_tokens", "output_tokens", "error"]
# What the viewer reads of a task record (the blob holds the whole record when it can).
_BLOB_KEYS = ("transcript", "details", "reward_components", "error", "labels", "seed",
              "started_at", "finished_at", "agent_latency_ms", "input_tokens",
              "output_tokens", "llm_prompt_tokens", "llm_completion_tokens", "cost_usd")
_TASK_AND_REQUEST = frozenset({"task", "request"})


# A chunk is sealed (compressed) once it holds this many bytes of JSON: past the deflate
# window (32 KiB) a bigger chunk barely shrinks more; opening a trial inflates its chunk.
CHUNK_BYTES = 256 * 1024


@dataclass
class ViewerData:
    rows: list[list[Any]] = field(default_factory=list)
    blobs: list[bytes] = field(default_factory=list)  # compressed chunks in base64, ASCII
    refs: list[tuple[int, int]] = field(default_factory=list)  # per row: (chunk, body in it)
    multi_party: bool = False  # rows hold MATCH_COLUMNS

    @property
    def columns(self) -> list[str]:
        return MATCH_COLUMNS if self.multi_party else COLUMNS


def _row(rec: dict[str, Any], run: int) -> list[Any]:
    err = rec.get("error") if isinstance(rec.get("error"), dict) else None
    tokens = sum(safe_count(rec.get(k)) for k in ("input_tokens", "output_tokens",
                                                  "llm_prompt_tokens", "llm_completion_tokens"))
    return [run, rec.get("benchmark"), rec.get("domain"), rec.get("category"),
            str(rec["task_id"]), int(rec["trial"]), rec.get("status", "ok"), rec.get("reward"),
            bool(rec.get("success")), rec.get("termination"),
            err.get("error") if err else None,
            f"{err.get('message')}" if err else None,
            round(safe_number(rec.get("latency_ms")) or 0.0, 1), safe_count(rec.get("turns")),
            safe_count(rec.get("tool_calls")), tokens, safe_number(rec.get("cost_usd")),
            [str(x) for x in labels] if isinstance(labels := rec.get("labels"), list) else []]


def _body(rec: dict[str, Any], requests: list[Sequence[Any]], line: bytes | None) -> bytes:
    """{"record": the task record, "requests": its request rows}. The record goes in as the
    bytes `run` wrote (its transcript never decoded nor encoded again: that was a third of
    the page's time); the viewer reads the fields it shows."""
    if line is not None:
        return _line_body(line, requests)
    # a line only the tolerant parser read: encoded again, as valid JSON
    record = strict_json({"record": {k: rec.get(k) for k in _BLOB_KEYS}})
    return b"".join((record[:-1], b',"requests":', strict_json(requests), b"}"))


def _line_body(line: bytes, requests: list[Sequence[Any]]) -> bytes:
    # a forged request row (a lone surrogate) once ended in a traceback: strict_json
    return b"".join((b'{"record":', line.rstrip(), b',"requests":', strict_json(requests),
                     b"}"))


def strict_json(value: Any) -> bytes:
    """JSON that JavaScript parses, of what the tolerant parser read: orjson's (NaN as null);
    where orjson refuses (a lone surrogate, an integer beyond 64 bits; `report` used to end
    in a traceback), the standard library's, which writes both, with NaN and Infinity as
    null."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # orjson.JSONEncodeError is one
        plain = json.loads(json.dumps(value), parse_constant=lambda _: None)
        return json.dumps(plain, separators=(",", ":")).encode()


def _compressor() -> functools.partial[bytes]:
    """zlib-format compression: ISA-L's (isal) where its wheels exist, 3x faster than zlib's
    level 3 for 4% more bytes (compressing was the largest part of the page's time), else
    zlib's own. A zlib stream either way: the browser inflates both alike."""
    try:
        from isal.isal_zlib import compress
    except ImportError:  # no isal on this platform (pyproject installs it where wheels exist)
        return functools.partial(zlib.compress, level=3)
    return functools.partial(compress, level=1)


_REQUEST_ROW = operator.itemgetter(*REQUEST_FIELDS)
# A RequestRow's fields: the columns, then run_id, task_id, trial, pairing (a test pins it).
_RUN = len(REQUEST_FIELDS)


def _request(rec: dict[str, Any]) -> Sequence[Any]:
    try:  # every field is there in what `run` writes: one C call (80k requests per 10k trials)
        row: Sequence[Any] = _REQUEST_ROW(rec)  # itemgetter of several keys: a tuple
        return row
    except KeyError:  # an older or forged record
        return [rec.get(k) for k in REQUEST_FIELDS]


def _pairing(rec: dict[str, Any]) -> str | None:
    """A multi-party record's pairing (its matches share the task-trial), else None."""
    match = rec.get("match")
    pairing = match.get("pairing") if match.__class__ is dict else None
    return pairing if isinstance(pairing, str) else None


def collect(paths: Iterable[Path], run: int = 0, into: ViewerData | None = None) -> ViewerData:
    """Summary rows and blobs for the task-trials of one run (shards and resumes merged)."""
    viewer = Viewer(run)
    raw = RawLine()
    # summary: a task record's prefix is parsed for its row; its line goes into the blob.
    for rec in iter_records(list(paths), types=_TASK_AND_REQUEST, summary=True, raw=raw):
        if rec["type"] == "request":
            viewer.request(rec)
        else:
            viewer.task(rec, raw.line)
    return viewer.finish(into)


class Viewer:
    """Gathers one row and one body per task-trial, deduplicated, from records as they
    stream by (`build_report`'s tap, so the page and the summary come from one pass over
    the files). Bodies are compressed a chunk at a time as they come: memory holds compressed
    chunks and one open chunk. (A worker thread compressing them did not overlap reading: it
    waited for the GIL after every blob.)"""

    def __init__(self, run: int = 0) -> None:
        self.run = run
        self._compress = _compressor()
        self._requests: dict[tuple[Any, ...], list[Sequence[Any]]] = {}
        # trial -> (scored, row, (chunk, body in it))
        self._kept: dict[tuple[Any, ...], tuple[bool, list[Any], tuple[int, int]]] = {}
        self._chunks: list[bytes] = []  # sealed: compressed, base64
        self._open: list[bytes] = []  # the next chunk's bodies
        self._open_bytes = 0
        self._stale: set[int] = set()  # chunks holding bodies a later record replaced

    def request(self, rec: dict[str, Any]) -> None:
        # Keys as text: forged records may carry lists where ids belong. A multi-party run's
        # requests name their match's pairing (several matches share a task-trial).
        self._add((rec.get("run_id"), str(rec.get("task_id")), str(rec.get("trial")),
                   str(rec.get("pairing"))), _request(rec))

    def request_row(self, rec: RequestRow) -> None:
        """A request record the fast reader decoded (its values those `request` reads);
        `_add` inlined: 80,000 calls for 10,000 task-trials. Its values in one C call (an
        attrgetter of the nine columns took twice as long): the columns, then the key's."""
        values = astuple(rec)
        key = (values[_RUN], str(values[_RUN + 1]), str(values[_RUN + 2]),
               str(values[_RUN + 3]))
        rows = self._requests.get(key)
        if rows is None:
            self._requests[key] = [values[:_RUN]]
        else:
            rows.append(values[:_RUN])

    def _add(self, key: tuple[Any, ...], row: Sequence[Any]) -> None:
        rows = self._requests.get(key)
        if rows is None:
            self._requests[key] = [row]
        else:
            rows.append(row)

    def task(self, rec: dict[str, Any], line: bytes | None) -> None:
        pairing = _pairing(rec)
        key = (rec.get("run_id"), str(rec.get("task_id")), str(rec.get("trial")), str(pairing))
        own = self._requests.pop(key, [])
        if record_problem(rec) is not None:  # invalid: shown by the summary, not viewable
            return
        trial = (rec.get("benchmark"), rec.get("domain"), str(rec["task_id"]), rec["trial"],
                 pairing)
        scored = rec.get("status", "ok") in SCORED
        old = self._kept.get(trial)
        if old is not None and old[0] and not scored:
            return  # keep the scored result over a later infrastructure failure
        row = _row(rec, self.run)
        if pairing is not None:
            row.append(pairing)
        self._keep(trial, scored, row, _body(rec, own, line), old)

    def task_view(self, rec: TaskView, line: bytes, scored: bool) -> None:
        """A task record the fast reader decoded (valid, single-agent, each value the one
        `task` reads from the dict: reading.TaskView), with its line."""
        own = self._requests.pop((rec.run_id, rec.task_id, str(rec.trial), "None"), [])
        trial = (rec.benchmark, rec.domain, rec.task_id, rec.trial, None)
        old = self._kept.get(trial)
        if old is not None and old[0] and not scored:
            return  # keep the scored result over a later infrastructure failure
        err = rec.error
        row = [self.run, rec.benchmark, rec.domain, rec.category, rec.task_id, rec.trial,
               rec.status, rec.reward, rec.success, rec.termination,
               err.error if err else None, f"{err.message}" if err else None,
               round(rec.latency_ms, 1), rec.turns, rec.tool_calls,
               rec.input_tokens + rec.output_tokens + rec.llm_prompt_tokens
               + rec.llm_completion_tokens, rec.cost_usd, list(rec.labels)]
        self._keep(trial, scored, row, _line_body(line, own), old)

    def _keep(self, trial: tuple[Any, ...], scored: bool, row: list[Any], body: bytes,
              old: tuple[bool, list[Any], tuple[int, int]] | None) -> None:
        if old is not None:
            self._stale.add(old[2][0])
        self._kept[trial] = (scored, row, (len(self._chunks), len(self._open)))
        self._open.append(body)
        self._open_bytes += len(body)
        if self._open_bytes >= CHUNK_BYTES:
            self._seal()

    def _seal(self) -> None:
        if self._open:
            self._chunks.append(base64.b64encode(self._compress(b"\n".join(self._open))))
            self._open, self._open_bytes = [], 0

    def finish(self, into: ViewerData | None = None) -> ViewerData:
        out = into if into is not None else ViewerData()
        self._seal()
        if self._stale:
            self._drop_replaced()
        first = len(out.blobs)  # this run's chunks follow those of the runs before it
        out.blobs += self._chunks
        for _, row, (chunk, at) in self._kept.values():
            out.multi_party = out.multi_party or len(row) > len(COLUMNS)
            out.rows.append(row)
            out.refs.append((first + chunk, at))
        if out.multi_party:  # a single-agent run's rows among them get no pairing
            for row in out.rows:
                row += [None] * (len(MATCH_COLUMNS) - len(row))
        return out

    def _drop_replaced(self) -> None:
        """Compress again the chunks that hold the bodies of replaced records, without them
        (a resumed run's retried task-trials): the page holds what it shows, no more."""
        live: dict[int, list[tuple[tuple[Any, ...], int]]] = {c: [] for c in self._stale}
        for trial, (_, _, (chunk, at)) in self._kept.items():
            if chunk in live:
                live[chunk].append((trial, at))
        for chunk, kept in live.items():
            bodies = zlib.decompress(base64.b64decode(self._chunks[chunk])).split(b"\n")
            kept.sort(key=lambda item: item[1])
            self._chunks[chunk] = base64.b64encode(self._compress(
                b"\n".join(bodies[at] for _, at in kept)))
            for place, (trial, _) in enumerate(kept):
                scored, row, _ = self._kept[trial]
                self._kept[trial] = (scored, row, (chunk, place))
