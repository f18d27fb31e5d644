"""tau-bench's agentify dialect (issue 22): integers are positions, strings are task ids, and
the run header names the tasks that ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2abench.green.request import RequestRejected, _position
from tests.clihelp import run_cli
from tests.engine.conftest import agent

# Retail-like: ids are numbers as strings, not in position order.
IDS = [str(i) for i in range(30, 40)] + [str(i) for i in range(10)]


def test_a_string_is_a_task_id_never_a_position() -> None:
    assert _position("9", IDS, "split 'test'") == "9"  # task 9, not the task at position 9
    assert _position(9, IDS, "split 'test'") == "39"
    assert _position(9.0, IDS, "split 'test'") == "39"  # a DataPart's number


def test_an_unknown_string_id_is_rejected_as_an_id() -> None:
    with pytest.raises(RequestRejected, match="task id '77' is not in split 'test'"):
        _position("77", IDS, "split 'test'")
    with pytest.raises(RequestRejected, match="not a position"):
        _position(20, IDS, "split 'test'")


def test_the_run_header_names_the_tasks_that_ran(tmp_path: Path) -> None:
    with agent() as (_, base):
        r = run_cli("run", "scripted", "--white-agent-url", base, "--output",
                    str(tmp_path / "m.jsonl"), "--option", "tasks=6",
                    "--task-ids", "t003", "--task-ids", "t001")
    assert r.code == 0, r.err
    header = next(line for line in (r.out + r.err).splitlines() if line.startswith("run "))
    assert "2 task-trials of tasks t001, t003" in header or \
        "2 task-trials of tasks t003, t001" in header, header
