"""The writer's fast path (a record that is plain JSON already) writes exactly the line the
bounded path writes, and steps aside for everything bound() changes (issue 27)."""

from __future__ import annotations

import datetime
import enum
import math
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import SecretStr

from a2abench.run.bounds import MAX_DEPTH, MAX_STRING_CHARS, bound
from a2abench.run.records import ErrorInfo, TaskRecord
from a2abench.run.writer import RecordWriter, _plain_line, iter_records


class Color(enum.Enum):
    RED = "red"


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def _record(**over: Any) -> TaskRecord:
    fields: dict[str, Any] = {
        "run_id": "r", "benchmark": "b", "task_id": "t", "trial": 0, "seed": 1,
        "status": "ok", "reward": 1.0, "started_at": "s", "finished_at": "f",
        "transcript": [{"role": "user", "content": "hi", "tool_calls": None}],
        "details": {"x": [1, 2.5, None, True]}}
    return TaskRecord.model_construct(**{**fields, **over})


ERROR = ErrorInfo(error="E", kind="agent", message="m", traceback="Traceback ...\n")
PLAIN = [_record(), {"a": (1, 2), "n": math.nan, "i": math.inf, "s": "é"},
         _record(extra_field={"k": "v"}), {"deep": _nested(MAX_DEPTH - 2)},
         _record(error=ERROR)]  # a record's own model fields are taken as bound() takes them
NOT_PLAIN = [{"big": 2**70}, {1: "int key"}, {"s": {1, 2}},
             {"when": datetime.datetime(2026, 1, 1)},
             {"secret": SecretStr("x")}, {"model": ERROR},
             _record(details={"deeper": ERROR}),
             _record(error=ErrorInfo(error="E", kind="agent", message="x" * MAX_STRING_CHARS)),
             {"long": "x" * (MAX_STRING_CHARS + 1)}, {"deep": _nested(MAX_DEPTH + 1)},
             {"deep": _nested(MAX_DEPTH)}]


@pytest.mark.parametrize("value", PLAIN, ids=range(len(PLAIN)))
def test_plain_records_take_the_fast_path_with_the_same_line(value: Any) -> None:
    assert _plain_line(value) == orjson.dumps(bound(value), default=str)


@pytest.mark.parametrize("value", NOT_PLAIN, ids=range(len(NOT_PLAIN)))
def test_what_bound_changes_takes_the_bounded_path(value: Any, tmp_path: Path) -> None:
    assert _plain_line(value) is None
    record = {"type": "run", "run_id": "r", "v": value}
    writer = RecordWriter(tmp_path / "m.jsonl", fsync=False)
    writer.write(record)
    writer.close()
    (got,) = iter_records([tmp_path / "m.jsonl"])
    assert got == orjson.loads(orjson.dumps(bound(record), default=str))


def test_an_enum_is_written_as_its_value(tmp_path: Path) -> None:
    assert _plain_line({"c": Color.RED}) == orjson.dumps(bound({"c": Color.RED}))


def test_a_lone_surrogate_is_stored_as_the_replacement_character(tmp_path: Path) -> None:
    """An agent's reply may carry a lone surrogate (a JSON escape allows it; UTF-8 cannot
    carry it): the record is written, with U+FFFD in its place, never a crashed writer."""
    text = "refund \ud800 now \U0001f600"
    record = {"type": "run", "run_id": "r", "transcript": [{"content": text}]}
    writer = RecordWriter(tmp_path / "m.jsonl", fsync=False)
    writer.write(record)
    writer.close()
    (got,) = iter_records([tmp_path / "m.jsonl"])
    assert got["transcript"][0]["content"] == "refund \ufffd now \U0001f600"
