"""The report's fast reader (report/reading.py) decides nothing the tolerant reader would
decide otherwise: on odd, damaged, forged and generated lines, a report read through it is
byte for byte the report read through `iter_records` alone (a tap forces that path)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest

from a2abench.report import build_report, text
from a2abench.report.aggregate import _KEPT
from a2abench.report.reading import TaskFields
from a2abench.report.stats import LogHistogram
from a2abench.run import writer
from tests.report.runs import write_run

RUN_ID = "run000000001"


class _Tap:
    """Sees every record: `build_report` then reads through `iter_records` alone."""

    def request(self, rec: dict[str, Any]) -> None:
        pass

    def task(self, rec: dict[str, Any], line: bytes | None) -> None:
        pass


def _both(path: Path) -> tuple[str, str]:
    fast = build_report([path])
    tolerant = build_report([path], tap=_Tap())
    assert fast.lines == tolerant.lines
    return (text.to_json(fast) + text.to_markdown(fast) + text.to_junit(fast),
            text.to_json(tolerant) + text.to_markdown(tolerant) + text.to_junit(tolerant))


def _task(task_id: str, **fields: Any) -> dict[str, Any]:
    """A task record laid out as `run` writes it: the transcript, details and timestamps
    last."""
    rec = {"schema_version": 1, "run_id": RUN_ID, "type": "task", "benchmark": "tau2",
           "domain": "mock", "category": None, "task_id": task_id, "trial": 0, "seed": 1,
           "status": "ok", "reward": 1.0, "success": True, "labels": [],
           "termination": "agent_stop", "turns": 2, "latency_ms": 12.5, "input_tokens": 10,
           "output_tokens": 2, "llm_prompt_tokens": 0, "llm_completion_tokens": 0,
           "cost_usd": None, "error": None}
    rec.update(fields)
    tail: dict[str, Any] = {
        "transcript": [{"role": "assistant", "content": "hi"}], "details": {"x": 1},
        "adaptive": None, "started_at": "s", "finished_at": "2026-11-26T07:00:00.000+00:00"}
    for key in tail:
        if key in rec:
            tail[key] = rec.pop(key)
    return rec | tail


def _request(**fields: Any) -> dict[str, Any]:
    return {"request_id": "1", "latency_ms": 3.5, "error": None, "schema_version": 1,
            "run_id": RUN_ID, "type": "request", "task_id": "t", "trial": 0} | fields


def _line(rec: Any) -> bytes:
    return orjson.dumps(rec) + b"\n"


# Values a forged or damaged record may hold where a field belongs.
ODD: list[Any] = [None, True, False, 0, -0, 1, 2, -1, 0.0, -0.0, 0.5, 1.0, 1.0000005, 1.00001,
                  3.7, 1e300, 2**31, 2**63 - 1, 2**63, "", "x", "x" * 600, "ok", "forfeit",
                  "infrastructure_error", "agent_error", "evaluator_error", [], ["a", 5],
                  ["l" * 150],
                  {}, {"error": "E", "message": "m"}, {"error": 5, "message": None}]
RAW_ODD = [b"NaN", b"-Infinity", b"1e400", b"-0", b"-0.0", b"18446744073709551616",
           b"123456789012345678901234567", b'"\\ud800"', b'"\xff"', b"1E2", b"0.1e-400"]


def _odd_lines() -> list[bytes]:
    lines = [_line(_task("plain")), _line(_request()),
             _line(_task("int-reward", reward=1, latency_ms=5, turns=3.0)),
             _line(_task("zero", reward=0, success=False, latency_ms=0.0, turns=0)),
             _line(_task("neg-zero", reward=-0.0, success=False, latency_ms=-0.0)),
             _line(_task("eval", status="evaluator_error", reward=0.0, success=False,
                         error={"error": "ValueError", "kind": "evaluator", "message": "m",
                                "traceback": "tb"})),
             _line(_task("eval-pass", status="evaluator_error", reward=0.5, success=False)),
             _line(_task("infra", status="infrastructure_error", reward=None, success=False)),
             _line(_task("infra-reward", status="infrastructure_error", reward=0.0)),
             _line(_task("forfeit", status="forfeit", reward=None, success=False)),
             _line(_task("no-status", status=None)),
             _line({k: v for k, v in _task("absent").items() if k not in ("status", "success")}),
             _line(_task("match", match={"pairing": "a+u", "roles": {"agent": "a"},
                                         "scores": {"agent": 1.0}})),
             _line(_task("match-null", match=None)),
             _line(_task("adaptive", adaptive={"stratum": "s", "rank": 1, "pick": 1})),
             _line(_task("dup", trial=1) | {"trial": 1}),
             _line(_task("dup", trial=1, status="infrastructure_error", reward=None)),
             _line(_task("long-domain", domain="d" * 700)),
             _line(_task("long-category", category="c" * 700)),
             _line(_task("long-termination", termination="t" * 700)),
             _line(_task("long-label", labels=["l" * 200, "x"])),
             _line(_task("")), _line(_task("x" * 501)),
             _line(_task("labels", labels="nope")), _line(_task("err", error="boom")),
             _line(_request(latency_ms=-1.0, error={"code": 1})),
             _line(_request(latency_ms=2**63, error="")), _line(_request(latency_ms="5")),
             _line(_request(error=0)), _line(_request(error=[0])),
             _line(_request(run_id=5)), _line(_task("run-id", run_id=None)),
             _line(_task("domain-list", domain=["x"])), _line(_task("bench", benchmark={})),
             _line(_task("bench-null", benchmark=None)),
             b"", b"\n", b"[1, 2]\n", b'{"type": "other", "run_id": "r"}\n', b"not json\n",
             _line(_task("crlf"))[:-1] + b"\r\n", b"  " + _line(_task("spaced")),
             _line(_task("deep", transcript=None))[:-2] + b',"x":' + b"[" * 3000
             + b"]" * 3000 + b"}\n"]
    for i, raw in enumerate(RAW_ODD):  # values orjson and msgspec may read differently
        for field in ("reward", "latency_ms", "turns", "input_tokens", "cost_usd", "trial"):
            rec = _task(f"raw-{i}-{field}")
            rec[field] = "@@"
            lines.append(_line(rec).replace(b'"@@"', raw))
        rec = _task(f"raw-{i}-transcript", transcript=["@@"], error={"error": "E",
                                                                    "message": "@@"})
        lines.append(_line(rec).replace(b'"@@"', raw))
        lines.append(_line(_request(latency_ms="@@", error="@@")).replace(b'"@@"', raw))
    return lines


def test_odd_lines_read_alike(tmp_path: Path) -> None:
    path = write_run(tmp_path / "m.jsonl", RUN_ID, [True, False])
    with path.open("ab") as f:
        f.writelines(_odd_lines())
        f.write(_line(_task("torn"))[:-30])  # a torn last line
    fast, tolerant = _both(path)
    assert fast == tolerant
    read = json.loads(text.to_json(build_report([path])))["read"]
    assert (read["corrupt"], read["foreign"], read["malformed"], read["torn_tail"]) == \
        (3, 4, 2, 1)


def test_generated_records_read_alike(tmp_path: Path) -> None:
    """Records whose fields take odd values at random (seeded): 3,000 of them."""
    rng = random.Random(39)
    fields = [k for k in _KEPT if k != "benchmark"] + ["benchmark", "run_id", "type", "match",
                                                         "adaptive"]
    path = write_run(tmp_path / "m.jsonl", RUN_ID, [True])
    with path.open("ab") as f:
        for n in range(3000):
            rec = _task(f"g{n % 700}", trial=n % 4)
            for field in rng.sample(fields, rng.choice((0, 1, 1, 2, 3))):
                if rng.random() < 0.15:
                    rec.pop(field, None)
                else:
                    rec[field] = rng.choice(ODD)
            line = _line(rec)
            if rng.random() < 0.1:
                line = line.replace(b"12.5", rng.choice(RAW_ODD), 1)
            f.write(line)
            if rng.random() < 0.5:
                f.write(_line(_request(latency_ms=rng.choice(ODD), error=rng.choice(ODD))))
    fast, tolerant = _both(path)
    assert fast == tolerant


def test_the_fast_fields_are_the_kept_fields_in_order() -> None:
    """`add_task` keeps `astuple(TaskFields)`'s first values as it keeps a dict's `_KEPT`."""
    assert TaskFields.__struct_fields__[:len(_KEPT)] == _KEPT


def test_an_over_long_line_is_corrupt_on_the_fast_path_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "MAX_LINE_BYTES", 2_000, raising=False)
    monkeypatch.setattr(writer, "_BLOCK", 512, raising=False)  # lines span blocks
    path = write_run(tmp_path / "m.jsonl", RUN_ID, [True])
    with path.open("ab") as f:
        f.write(_line(_task("huge", transcript=["x" * 5_000])))
        f.write(_line(_task("small")))
    report = build_report([path])
    assert report.read["corrupt"] == 1 and {line.task_id for line in report.lines} == \
        {"t0", "small"}
    assert _both(path)[0] == _both(path)[1]


def test_msgspec_refuses_what_the_fast_path_must_not_read() -> None:
    """The assumptions the fast path rests on (a newer msgspec must keep them)."""
    decode = msgspec.json.Decoder(TaskFields).decode
    base = _line(_task("t"))
    for raw in (b"NaN", b"1e400", b"18446744073709551616", b'"\\ud800"', b"true"):
        with pytest.raises(ValueError):
            decode(base.replace(b'"latency_ms":12.5', b'"latency_ms":' + raw))
    one = decode(base.replace(b'"reward":1.0', b'"reward":1')).reward
    zero = decode(base.replace(b'"reward":1.0', b'"reward":-0')).reward  # float(0), not -0.0
    assert zero is not None and math.copysign(1.0, zero) == 1.0
    assert (one, one.__class__) == (1.0, float)
    with pytest.raises(ValueError):  # no number to safe_number: the tolerant reader says so
        decode(base.replace(b'"latency_ms":12.5', b'"latency_ms":9223372036854775808'))
    with pytest.raises(ValueError):
        decode(base.replace(b'"trial":0', b'"trial":true'))
    with pytest.raises(ValueError):
        decode(base.replace(b'"error":null', b'"match":{},"error":null'))


def test_a_histogram_extended_equals_one_added_value_by_value() -> None:
    """`LogHistogram.extend` counts at C speed what `add` counts one value at a time: the
    same buckets, bounds and total (added in the same order)."""
    rng = random.Random(7)
    values = [0.0, -0.0, 0.0, 1e-9, 3.0, 3.0, *(rng.lognormvariate(3, 2) for _ in range(5000))]
    for batch in (values, values[::-1], [], [0.0], [-0.0, 0.0]):
        one, many = LogHistogram(), LogHistogram()
        for value in batch:
            one.add(value)
        many.extend(iter(batch))
        many.extend([])
        assert (many.counts, many.n, many.total, many.low, many.high) == \
            (one.counts, one.n, one.total, one.low, one.high)
        assert [math.copysign(1.0, x) for x in (many.low, many.high) if not math.isinf(x)] == \
            [math.copysign(1.0, x) for x in (one.low, one.high) if not math.isinf(x)]
