"""The HTML report read in one pass (`report_page`): the same page as the report and the
viewer data read apart, whichever compressor the platform has."""

from __future__ import annotations

import base64
import sys
import zlib
from pathlib import Path
from typing import Any

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
