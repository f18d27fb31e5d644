"""What `report` accepts and how it ends (issue 35): the directory `run --output` wrote, a hint
to `--compare` for two different runs, and a reader that stops early (`| head`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clihelp import run_cli
from tests.report.runs import write_run


def test_a_run_directory_stands_for_its_metrics_file(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "x"
    run.mkdir(parents=True)
    write_run(run / "metrics.jsonl", "aaaaaaaa1111", [True, False])
    res = run_cli("report", str(run), "--format", "json")
    assert res.code == 0, res.err
    assert res.json()["task_trials"] == 2 and res.json()["files"] == [str(run / "metrics.jsonl")]


def test_a_folder_of_runs_names_them_and_suggests_compare(tmp_path: Path) -> None:
    for name in ("tau2", "crmarena"):  # the demo's layout: one run per benchmark
        (tmp_path / name).mkdir()
        write_run(tmp_path / name / "metrics.jsonl", f"{name:>12}".replace(" ", "0"), [True])
    res = run_cli("report", str(tmp_path))
    assert res.code == 1 and "is a directory without a metrics.jsonl" in res.err
    assert str(tmp_path / "tau2" / "metrics.jsonl") in res.err and "--compare" in res.err
    assert "Traceback" not in res.err


def test_two_different_runs_suggest_compare(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.jsonl", "aaaaaaaa1111", [True], domain="mock")
    b = write_run(tmp_path / "b.jsonl", "bbbbbbbb2222", [True], domain="retail")
    res = run_cli("report", str(a), str(b))
    assert res.code == 1 and "is not a shard or resume of run" in res.err
    assert "side by side with --compare" in res.err


def _report_into_a_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """`a2abench report ARGS | head` where head has already gone: every write meets EPIPE."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "a2abench", "report", *args],
                              stdout=write, stderr=subprocess.PIPE, text=True, timeout=120,
                              env={**os.environ, "NO_COLOR": "1"})
    finally:
        os.close(write)


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_a_reader_that_stops_early_is_no_failure(tmp_path: Path, fmt: str) -> None:
    run = write_run(tmp_path / "m.jsonl", "aaaaaaaa1111", [True] * 30 + [False] * 10)
    done = _report_into_a_closed_pipe(str(run), "--format", fmt)
    assert (done.returncode, done.stderr) == (0, "")


def test_a_stopped_reader_does_not_pass_a_failed_gate(tmp_path: Path) -> None:
    run = write_run(tmp_path / "m.jsonl", "aaaaaaaa1111", [True, False, False])
    done = _report_into_a_closed_pipe(str(run), "--fail-under", "0.9")
    assert done.returncode == 3 and "below --fail-under 0.9" in done.stderr
    assert "Broken pipe" not in done.stderr and "Traceback" not in done.stderr
