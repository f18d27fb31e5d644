"""The data behind the HTML report's trajectory viewer.

Every task-trial becomes one small summary row (what the table, filters and charts need) and
one compressed blob (transcript, reward breakdown, details, the A2A requests of that trial)
that the page inflates only when the trial is opened. Blobs are zlib-compressed JSON in base64:
transcripts repeat a lot of text, so they shrink several-fold, and the browser decompresses them
with its built-in `DecompressionStream("deflate")`, no library needed.

Records stream by once; task-trials are deduplicated across shards and resumes by the same rule
as `aggregate` (a scored result wins over an infrastructure failure, else the later record).
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from a2abench.report.aggregate import SCORED, record_problem, safe_count, safe_number
from a2abench.run.writer import RawLine, iter_records

# Columns of a summary row, in order (the page maps them back to names).
COLUMNS = ["run", "benchmark", "domain", "category", "task_id", "trial", "status", "reward",
           "success", "termination", "error_class", "error", "latency_ms", "turns",
           "tool_calls", "tokens", "cost_usd", "labels"]
# A request record as a short tuple: what the per-turn timing table shows.
REQUEST_FIELDS = ["timestamp", "method", "attempt", "status_code", "latency_ms",
                  "first_event_ms", "input_tokens", "output_tokens", "error"]
# What the viewer reads of a task record (the blob holds the whole record when it can).
_BLOB_KEYS = ("transcript", "details", "reward_components", "error", "labels", "seed",
              "started_at", "finished_at", "agent_latency_ms", "input_tokens",
              "output_tokens", "llm_prompt_tokens", "llm_completion_tokens", "cost_usd")
_TASK_AND_REQUEST = frozenset({"task", "request"})


@dataclass
class ViewerData:
    rows: list[list[Any]] = field(default_factory=list)
    blobs: list[str] = field(default_factory=list)


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


def _body(rec: dict[str, Any], requests: list[list[Any]], line: bytes | None) -> bytes:
    """{"record": the task record, "requests": its request rows}. The record goes in as the
    bytes `run` wrote (its transcript never decoded nor encoded again: that was a third of
    the page's time); the viewer reads the fields it shows."""
    rows = orjson.dumps(requests, option=orjson.OPT_NON_STR_KEYS)
    if line is not None:
        return b'{"record":' + line.rstrip() + b',"requests":' + rows + b"}"
    # a line only the tolerant parser read: encoded again, as valid JSON
    record = orjson.dumps({"record": {k: rec.get(k) for k in _BLOB_KEYS}},
                          option=orjson.OPT_NON_STR_KEYS)
    return record[:-1] + b',"requests":' + rows + b"}"


def _pack_all(bodies: list[bytes]) -> list[str]:
    # Level 3: 27% less CPU than level 4 for 5% more bytes (transcripts are repetitive).
    return [base64.b64encode(zlib.compress(body, 3)).decode("ascii") for body in bodies]


class _Packer:
    """Compresses blobs on a worker thread while the records are still being read: zlib
    releases the GIL, so on two cores compressing (the largest part of the page's time)
    overlaps parsing. Batches of 64 bodies; at most 8 batches in flight (bounded memory)."""

    BATCH, AHEAD = 64, 8

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="a2abench-html")
        self._batches: list[Future[list[str]]] = []
        self._current: list[bytes] = []

    def add(self, body: bytes) -> tuple[int, int]:
        """Queue one body; returns where its blob will be (batch, index)."""
        self._current.append(body)
        ref = (len(self._batches), len(self._current) - 1)
        if len(self._current) >= self.BATCH:
            self._submit()
        return ref

    def _submit(self) -> None:
        batch, self._current = self._current, []
        self._batches.append(self._pool.submit(_pack_all, batch))
        if len(self._batches) > self.AHEAD:
            self._batches[-self.AHEAD - 1].result()  # wait: the reader is too far ahead

    def results(self) -> list[list[str]]:
        if self._current:
            self._submit()
        return [future.result() for future in self._batches]

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


def _request(rec: dict[str, Any]) -> list[Any]:
    return [rec.get(k) for k in REQUEST_FIELDS]


def collect(paths: Iterable[Path], run: int = 0, into: ViewerData | None = None) -> ViewerData:
    """Summary rows and blobs for the task-trials of one run (shards and resumes merged)."""
    out = into if into is not None else ViewerData()
    packer = _Packer()
    try:
        kept = _gather(paths, run, packer)
        blobs = packer.results()
    finally:
        packer.close()
    for _, row, (batch, index) in kept.values():
        out.rows.append(row)
        out.blobs.append(blobs[batch][index])
    return out


Kept = dict[tuple[Any, ...], tuple[bool, list[Any], tuple[int, int]]]


def _gather(paths: Iterable[Path], run: int, packer: _Packer) -> Kept:
    """One row and one queued blob per task-trial, deduplicated."""
    requests: dict[tuple[Any, ...], list[list[Any]]] = {}
    kept: Kept = {}
    raw = RawLine()
    # summary: a task record's prefix is parsed for its row; its line goes into the blob.
    for rec in iter_records(list(paths), types=_TASK_AND_REQUEST, summary=True, raw=raw):
        # Keys as text: forged records may carry lists where ids belong.
        key = (rec.get("run_id"), str(rec.get("task_id")), str(rec.get("trial")))
        if rec["type"] == "request":
            requests.setdefault(key, []).append(_request(rec))
            continue
        own = requests.pop(key, [])
        if record_problem(rec) is not None:  # invalid: shown by the summary, not viewable
            continue
        trial = (rec.get("benchmark"), rec.get("domain"), str(rec["task_id"]), rec["trial"])
        scored = rec.get("status", "ok") in SCORED
        old = kept.get(trial)
        if old is not None and old[0] and not scored:
            continue  # keep the scored result over a later infrastructure failure
        kept[trial] = (scored, _row(rec, run), packer.add(_body(rec, own, raw.line)))
    return kept
