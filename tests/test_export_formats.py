"""A plugin's own `report --format` with an option, end to end through the CLI: found through
the registry from the records' benchmark, option validated, async writer awaited."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from a2abench.plugin import (
    Driver,
    ExportFormat,
    ExportResult,
    TaskContext,
    TaskOutcome,
    TaskSpec,
    iter_records,
    option,
    register,
    unregister,
)
from tests.clihelp import run_cli
from tests.report.runs import write_run


class BoardOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    team: str = option("anon", "the team name on the board")
    top: int = option(10, "rows to keep", ge=1)


async def write_board(paths: list[Path], output: Path | None,
                      options: BoardOptions) -> ExportResult:
    assert output is not None
    passed = [r["task_id"] for r in iter_records(paths, types=frozenset({"task"}))
              if r["success"]]
    output.write_text(json.dumps({"team": options.team, "passed": passed[:options.top]}))
    return ExportResult((f"wrote {output.name}",), ("a board keeps no transcripts",))


class Boarded(Driver[BoardOptions]):
    def tasks(self) -> list[TaskSpec]:
        return []

    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        return TaskOutcome(reward=1.0)

    @classmethod
    def export_formats(cls) -> list[ExportFormat]:
        return [ExportFormat("board", BoardOptions, write_board, "the board's upload file")]


@pytest.fixture
def records(tmp_path: Path) -> Iterator[Path]:
    path = write_run(tmp_path / "metrics.jsonl", "run000000001", [True, False, True])
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for rec in lines:
        rec["benchmark"] = "boarded"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    register("boarded", Boarded)
    yield path
    unregister("boarded")


def test_a_plugins_export_format_takes_its_option(records: Path, tmp_path: Path) -> None:
    target = tmp_path / "board.json"
    r = run_cli("report", str(records), "--format", "board", "--output", str(target),
                "--format-option", "team=blue", "--format-option", "top=1")
    assert r.code == 0, r.err
    assert json.loads(target.read_text()) == {"team": "blue", "passed": ["t0"]}
    assert "Warning: a board keeps no transcripts" in r.err and "wrote board.json" in r.err


def test_a_bad_export_option_is_a_one_line_usage_error(records: Path, tmp_path: Path) -> None:
    for pair, needle in (("top=0", "invalid option top"), ("colour=red", "invalid option colour")):
        r = run_cli("report", str(records), "--format", "board", "--output",
                    str(tmp_path / "b.json"), "--format-option", pair)
        assert r.code == 2, r.err
        errors = [line for line in r.err.splitlines() if line.startswith("Error: ")]
        assert len(errors) == 1 and errors[0].startswith(f"Error: --format board: {needle}"), r.err
        assert not (tmp_path / "b.json").exists()


def test_an_unknown_format_still_names_the_known_ones(records: Path) -> None:
    r = run_cli("report", str(records), "--format", "nope")
    assert r.code == 2, r.err
    assert "unknown --format 'nope'" in r.err and "board" in r.err, r.err


def test_tau2_submission_flags_come_from_its_options_and_read_their_variables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = write_run(tmp_path / "metrics.jsonl", "run000000001", [True])
    monkeypatch.setenv("A2ABENCH_MODEL_NAME", "m")
    monkeypatch.setenv("A2ABENCH_CONTACT_EMAIL", "me@example.org")
    r = run_cli("report", str(records), "--format", "tau2-submission",
                "--model-organization", "org")
    assert r.code == 2, r.err
    assert "Error: --format tau2-submission needs --output DIR. e.g." in r.err, r.err
