"""`report` with agent-controlled text and hostile paths (issue 17 items 5, 17)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.clihelp import run_cli

EVIL_ID = "t1|<script>alert(1)</script>\n| injected | row |"
EVIL_ERROR = "ProtocolError: **bold** [link](http://evil.example) \x1b[31m\x00 & <b>"


def _records(path: Path) -> None:
    run = {"type": "run", "run_id": "r", "schema_version": 1, "a2abench_version": "0",
           "benchmark": "b", "config": {}, "compat_key": {}, "started_at": ""}
    task: dict[str, Any] = {
        "type": "task", "run_id": "r", "benchmark": "b", "domain": "d<i>",
        "category": "c|x", "task_id": EVIL_ID, "trial": 0, "seed": 1,
        "status": "agent_error", "reward": 0.0, "success": False, "termination": "x`y",
        "error": {"error": "ProtocolError", "kind": "agent", "message": EVIL_ERROR},
        "started_at": "", "finished_at": ""}
    path.write_text(json.dumps(run) + "\n" + json.dumps(task) + "\n")


def test_markdown_escapes_agent_controlled_text(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    _records(path)
    r = run_cli("report", str(path), "--format", "markdown")
    assert r.code == 0, r.err
    assert "<script>" not in r.out and "<b>" not in r.out and "<i>" not in r.out
    assert "\x1b" not in r.out and "\x00" not in r.out
    assert "[link](http" not in r.out and "**bold**" not in r.out
    rows = [line for line in r.out.splitlines() if "alert" in line]
    # Failed and slowest tables: the newline and pipes made no new rows or cells.
    assert len(rows) == 2 and all(row.count(" | ") == 7 for row in rows)


def test_junit_is_well_formed_xml_with_hostile_text(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    _records(path)
    r = run_cli("report", str(path), "--format", "junit")
    assert r.code == 0, r.err
    root = ET.fromstring(r.out)  # NUL and ESC would make this raise
    case = root.find("./testsuite/testcase")
    assert case is not None and case.get("name", "").startswith("t1|<script>")


def test_report_output_ignores_run_variable_and_never_overwrites_input(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.jsonl"
    _records(path)
    before = path.read_bytes()
    monkeypatch.setenv("A2ABENCH_OUTPUT", str(path))  # `run`'s variable: not report's
    r = run_cli("report", str(path), "--format", "markdown")
    assert r.code == 0 and path.read_bytes() == before and "a2abench report" in r.out
    r = run_cli("report", str(path), "--format", "html", "--output", str(path))
    assert r.code == 2 and "is one of the input files" in r.err
    assert path.read_bytes() == before
    monkeypatch.setenv("A2ABENCH_REPORT_OUTPUT", str(tmp_path / "r.md"))
    r = run_cli("report", str(path), "--format", "markdown")
    assert r.code == 0 and (tmp_path / "r.md").read_text().startswith("## a2abench report")
