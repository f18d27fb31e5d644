"""The HTML page reads task records as `run` writes them through a Struct of their summary
(report/reading.TaskView) for both the report and the viewer's row: on odd, damaged, forged
and generated lines it gives the page, the report and the counts that reading every record
whole gives (`iter_records` and the viewer's dict path), and each chunk of the page holds
the bodies of the rows it shows, no more."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from a2abench.report import build_report, text
from a2abench.report.html import report_page, to_html
from a2abench.report.reading import RequestRow
from a2abench.report.viewer_data import REQUEST_FIELDS, Viewer
from tests.report.pagedata import page_data
from tests.report.runs import write_run
from tests.report.test_reading import ODD, RAW_ODD, RUN_ID, _line, _odd_lines, _request, _Tap, _task


def _read_alike(path: Path) -> None:
    report, page = report_page([path])
    whole = build_report([path], tap=_Tap())  # every record read whole (`iter_records`)
    assert text.to_json(report) + text.to_markdown(report) + text.to_junit(report) == \
        text.to_json(whole) + text.to_markdown(whole) + text.to_junit(whole)
    assert page.decode() == to_html(whole, [path])  # its viewer data read whole (`collect`)
    page_data(page.decode())  # every chunk holds its rows' bodies alone


def test_odd_task_lines_give_the_page_read_whole(tmp_path: Path) -> None:
    path = write_run(tmp_path / "m.jsonl", RUN_ID, [True, False])
    with path.open("ab") as f:
        f.writelines(_odd_lines())
        for value in (b"{}", b'{"kind":"x"}', b'{"error":null}', b'{"message":null}',
                      b'{"error":null,"message":"m"}', b'{"error":"E"}'):
            f.write(_line(_task("error-object")).replace(b'"error":null', b'"error":' + value))
        f.write(_line(_task("reward-int", reward=1, success=True)))
        f.write(_line({k: v for k, v in _task("no-benchmark").items() if k != "benchmark"}))
        f.write(_line(_task("two-types")).replace(b'"type":"task"',
                                                  b'"type":"task","type":"request"'))
        f.write(_line(_task("two-types", trial=1)).replace(b'"type":"task"',
                                                           b'"type":"request","type":"task"'))
        f.write(_line(_task("nested", benchmark={"type": "task"}, tool_calls=3)))
        f.write(_line(_task("tools", tool_calls=2**63)))
        f.write(_line(_task("tools", trial=1, tool_calls=-1)))
        f.write(_line(_task("tools", trial=2, tool_calls=2.5)))
        f.write(_line(_task("torn"))[:-30])  # a torn last line
    _read_alike(path)


def test_generated_task_lines_give_the_page_read_whole(tmp_path: Path) -> None:
    """Task and request records whose fields take odd values at random (seeded), many of
    them the same task-trial (replaced records: their bodies leave their chunks)."""
    rng = random.Random(3939)
    fields = ["benchmark", "domain", "category", "task_id", "trial", "status", "reward",
              "success", "termination", "latency_ms", "turns", "tool_calls", "labels", "error",
              "input_tokens", "llm_completion_tokens", "cost_usd", "run_id", "type"]
    path = write_run(tmp_path / "m.jsonl", RUN_ID, [True])
    with path.open("ab") as f:
        for n in range(2000):
            rec = _task(f"g{n % 300}", trial=n % 3, tool_calls=1,
                        transcript=[{"role": "user", "content": "x" * rng.randint(0, 3000)}])
            for field in rng.sample(fields, rng.choice((0, 0, 1, 1, 2))):
                if rng.random() < 0.15:
                    rec.pop(field, None)
                else:
                    rec[field] = rng.choice(ODD)
            if rng.random() < 0.3:
                rec["status"], rec["reward"] = "infrastructure_error", None
            line = _line(rec)
            if rng.random() < 0.05:
                line = line.replace(b"12.5", rng.choice(RAW_ODD), 1)
            f.write(_line(_request(task_id=rec.get("task_id"), trial=rec.get("trial"))))
            f.write(line)
    _read_alike(path)


def test_task_records_as_run_writes_them_take_the_fast_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not one of them reaches the viewer's dict path (so the tests above compare two)."""
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"".join([_line(_request()), _line(_task("t")), _line(_task("u")),
                               _line(_task("t", status="infrastructure_error", reward=None,
                                           success=False))]))

    def whole(*_: Any) -> None:
        raise AssertionError("read whole")

    monkeypatch.setattr(Viewer, "task", whole)
    monkeypatch.setattr(Viewer, "request", whole)
    report, page = report_page([path])
    meta, bodies = page_data(page.decode())
    assert [(r["task_id"], r["status"]) for r in meta["rows"]] == [("t", "ok"), ("u", "ok")]
    assert [len(b["requests"]) for b in bodies] == [1, 0]
    assert (report.read["lines"], report.read["duplicates"], report.requests) == (4, 1, 1)


def test_a_request_rows_fields_are_its_columns_then_its_key() -> None:
    """`Viewer.request_row` takes them in that order (`astuple`)."""
    assert RequestRow.__struct_fields__ == (*REQUEST_FIELDS, "run_id", "task_id", "trial",
                                            "pairing")
