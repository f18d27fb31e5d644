"""Reports stay true and readable at scale (issue 22): true counts when a list is cut, pass^k
tables that collapse for people and stay whole in JSON/HTML, category names never cut."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2abench.report import build_report
from tests.clihelp import run_cli
from tests.report.runs import write_grid

LONG = ["policy_violation_identification", "confidential_company_knowledge",
        "named_entity_disambiguation"]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 tasks × 64 trials."""
    return write_grid(tmp_path_factory.mktemp("big") / "m.jsonl", 300, 64, categories=LONG)


def test_failed_counts_are_true_when_the_list_is_cut(tmp_path: Path) -> None:
    path = write_grid(tmp_path / "m.jsonl", 102, 5)
    report = build_report([path])
    total = sum(1 for line in report.lines if not line.success)
    assert total > 200
    data = json.loads(run_cli("report", str(path), "--format", "json").out)
    assert (data["failed_total"], data["failed_truncated"], len(data["failed"])) == (
        total, True, 200)
    table = run_cli("report", str(path))
    assert f"failed task-trials: {total} (showing 8 of {total}:" in table.out
    md = run_cli("report", str(path), "--format", "markdown").out
    assert f"### Failed task-trials ({total}, showing 50 of {total})" in md


@pytest.mark.slow
def test_pass_k_collapses_for_people_and_is_whole_in_json_and_html(big: Path,
                                                                     tmp_path: Path) -> None:
    data = json.loads(run_cli("report", str(big), "--format", "json").out)
    assert [p["k"] for p in data["pass_k"]] == list(range(1, 65))
    table = run_cli("report", str(big)).out
    shown = [line.split()[1] for line in table.splitlines()
             if line.startswith("│") and line.split()[1].isdigit()
             and "–" in line]  # rows of the pass^k table: │ k │ value │ low – high │
    assert shown == ["1", "2", "4", "8", "16", "32", "64"]
    assert "showing 7 of 64 k" in table
    md = run_cli("report", str(big), "--format", "markdown").out
    rows = [line.split("|")[1].strip() for line in md.split("### pass^k")[1].split("###")[0]
            .splitlines() if line.startswith("| ") and "–" in line]
    assert rows == ["1", "2", "4", "8", "16", "32", "64"] and "showing 7 of 64 k" in md
    html = tmp_path / "r.html"
    assert run_cli("report", str(big), "--format", "html", "--output", str(html)).code in (0, 1)
    assert html.read_text().count("<tr><td>") >= 64  # every k in the HTML pass^k table


def test_category_names_are_not_cut_when_piped(big: Path) -> None:
    out = run_cli("report", str(big)).out  # run_cli captures: a pipe, 80 columns
    for name in LONG:
        assert name in out
