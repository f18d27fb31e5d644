"""The HTML report read in one pass (`report_page`): the same page as the report and the
viewer data read apart, whichever compressor the platform has."""

from __future__ import annotations

import base64
import sys
import zlib
from pathlib import Path
from typing import Any

import orjson
import pytest

from a2abench.report import build_report
from a2abench.report.html import compare_page, report_page, to_html
from a2abench.report.viewer_data import REQUEST_FIELDS, _compressor, collect
from tests.report.pagedata import page_data
from tests.report.test_html_data import _request, _task, _write


def _records() -> list[dict[str, Any]]:
    full = {**_request("a", 0, 5.0), "first_event_ms": None, "error": None}
    return [
        full, _request("a", 0, 7.0), _task("a", 0),  # every field; an older record's fields
        _task("b", 0, status="infrastructure_error", reward=None),
        _request("b", 0, 9.0), _task("b", 0, reward=0.0),  # the scored retry wins
        _task("c", 0, reward=2.0),  # invalid: in the summary, not viewable
        # lines only the tolerant parser reads, with what orjson cannot write (a traceback)
        _task("d", 1, seed=2**64, transcript=[{"role": "user", "content": "x\ud800y"}],
              cost_usd=float("nan")),
    ]


def test_one_pass_writes_the_page_two_passes_write(tmp_path: Path) -> None:
    metrics = _write(tmp_path / "metrics.jsonl", _records())
    report, page = report_page([metrics])
    assert report == build_report([metrics])
    assert page.decode() == to_html(report, [metrics])
    meta, blobs = page_data(page.decode())
    assert [(r["task_id"], r["trial"], r["status"]) for r in meta["rows"]] == [
        ("a", 0, "ok"), ("b", 0, "ok"), ("d", 1, "ok")]
    latency = REQUEST_FIELDS.index("latency_ms")
    assert [[q[latency] for q in b["requests"]] for b in blobs] == [[5.0, 7.0], [9.0], []]
    assert blobs[0]["requests"][0] == [
        "2026-01-01T00:00:00.000+00:00", "SendMessage", 1, 200, 5.0, None, 3, 4, None]
    assert blobs[2]["seed"] == 2**64 and blobs[2]["cost_usd"] is None
    assert blobs[2]["transcript"][0]["content"] == "x\ud800y"


def test_without_isal_blobs_are_zlib_and_hold_the_same_data(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    metrics = _write(tmp_path / "metrics.jsonl", _records())
    assert _compressor().func.__module__ == "isal.isal_zlib"  # installed where it has wheels
    with_isal = collect([metrics])
    monkeypatch.setitem(sys.modules, "isal.isal_zlib", None)  # as where no wheel installs
    without = collect([metrics])
    assert without.rows == with_isal.rows
    assert [zlib.decompress(base64.b64decode(b)) for b in without.blobs] == \
        [zlib.decompress(base64.b64decode(b)) for b in with_isal.blobs]
    assert without.blobs[0] == base64.b64encode(zlib.compress(
        zlib.decompress(base64.b64decode(with_isal.blobs[0])), 3))


def test_the_cli_writes_the_page_to_stdout_as_to_a_file(tmp_path: Path) -> None:
    from tests.clihelp import run_cli

    metrics = _write(tmp_path / "metrics.jsonl", _records())
    target = tmp_path / "report.html"
    assert run_cli("report", str(metrics), "--format", "html", "--output", str(target)).code == 0
    shown = run_cli("report", str(metrics), "--format", "html")
    assert shown.code == 0
    assert shown.out == target.read_text(encoding="utf-8") + "\n"


def test_compare_gathers_each_runs_viewer_data_in_the_same_pass(tmp_path: Path) -> None:
    first = _write(tmp_path / "one.jsonl", _records())
    second = tmp_path / "two.jsonl"
    second.write_text(first.read_text().replace('"r1"', '"r2"')
                      .replace('"compat_key": {"a": 1}', '"compat_key": {"a": 2}'))
    comparison, page = compare_page([first, second])
    assert len(comparison.reports) == 2
    meta, blobs = page_data(page.decode())
    apart = [collect([first], run=0), collect([second], run=1)]
    assert [list(r.values()) for r in meta["rows"]] == [*apart[0].rows, *apart[1].rows]
    assert blobs == [*page_data(to_html(comparison.reports[0], [first]))[1],
                     *page_data(to_html(comparison.reports[1], [second]))[1]]


# Values a damaged or forged request record may hold in a field the viewer shows or keys on
# (as JSON text: some no encoder writes), and a few whole odd lines.
_ODD_VALUES = [b"null", b"true", b"0", b"-0", b"-1", b"5", b"5.0", b"-0.0", b"1e300", b"1E2",
               b"0.1e-400", b"9223372036854775807", b"9223372036854775808", b"-9223372036854775809",
               b'""', b'"x"', b'"' + b"y" * 600 + b'"', b'"\\u00e9\\n"', b"[]", b"[1,\"a\"]",
               b"{}", b'{"a":1}']
_ODD_REQUEST_KEYS = [*REQUEST_FIELDS, "run_id", "task_id", "trial", "pairing", "type"]


def _odd_requests() -> list[bytes]:
    base = orjson.dumps(_request("a", 1, 5.0) | {"first_event_ms": 1.5, "error": None})
    lines = []
    for key in _ODD_REQUEST_KEYS:
        lines.append(base[:-1] + b',"' + key.encode() + b'":' + b'"absent"}')
        for value in _ODD_VALUES:
            rec = orjson.loads(base)
            rec.pop(key, None)  # the odd value as the record's last key
            lines.append(orjson.dumps(rec)[:-1] + b',"' + key.encode() + b'":' + value + b"}")
        lines.append(orjson.dumps({k: v for k, v in orjson.loads(base).items() if k != key}))
    return [  # first: a line orjson reads as a task record takes the requests before it
            base[:-1] + b',"latency_ms":NaN}', base[:-1] + b',"latency_ms":1e400}',
            base.replace(b'"run_id":"r1"', b'"run_id":"r1","run_id":"r2"'),
            base.replace(b'"type":"request"', b'"type":"task","type":"request"'),
            base.replace(b'"type":"request"', b'"type":"request","type":"task"'),
            base[:-1] + b',"error":"E","error":null}', base[:-1] + b',"task_id":"b"}',
            base[:-1] + b',"method":"\\ud800"}', base[:40], b"", b"[1]", base + b" ",
            base, *lines]


def test_request_rows_read_fast_are_the_rows_read_whole(tmp_path: Path) -> None:
    """The one-pass page reads request records through a Struct of the viewer's columns
    (report/reading.RequestRow); every odd value or line gives the page, the rows and the
    counts that reading each record whole gives (`collect`, `iter_records` alone)."""
    metrics = _write(tmp_path / "metrics.jsonl", [_task("a", 0), _task("b", 0)])
    tail = b"\n".join(_odd_requests()) + b"\n"
    metrics.write_bytes(metrics.read_bytes() + tail + orjson.dumps(_task("a", 1)) + b"\n")
    report, page = report_page([metrics])
    whole = collect([metrics])
    assert page.decode() == to_html(report, [metrics])
    meta, blobs = page_data(page.decode())
    assert [list(r.values()) for r in meta["rows"]] == whole.rows
    assert len(blobs[-1]["requests"]) > 100  # the odd records reached the last trial's rows
    plain = build_report([metrics])  # the fast reader without the viewer: the same counts
    assert report == plain
    assert (report.requests, report.request_errors) == (plain.requests, plain.request_errors)
