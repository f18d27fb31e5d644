"""Issue 34: no score over fewer task-trials than the run planned without saying so in the
score's own field. `score` counts unscored and never-recorded task-trials as 0
(report/planned.py); `score_scored_only` is beside it; serve-green's Result and the
AgentBeats leaderboard queries read the same figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.errors import ScoreBelowThreshold
from a2abench.green.result import result_data, summary_text
from a2abench.report import build_report
from a2abench.report.gate import check
from a2abench.report.text import headline
from a2abench.run.config import RunConfig, Shard
from a2abench.run.driver import TaskSpec
from a2abench.run.plan import Plan
from tests.clihelp import run_cli

QUERIES = Path(__file__).parents[2] / "examples/agentbeats/leaderboard/queries"
MACRO = {"headline": "macro_category_mean", "description": "macro",
         "separate": {"confidentiality": ["privacy"]}}


def _run(planned: int, counts: list[dict[str, Any]] | None, *, shard: list[int] | None = None,
         scoring: dict[str, Any] | None = None, run_id: str = "r") -> dict[str, Any]:
    rec: dict[str, Any] = {
        "type": "run", "run_id": run_id, "schema_version": 1, "a2abench_version": "0",
        "benchmark": "tau2", "domain": "mock", "config": {}, "compat_key": {"b": 1},
        "planned": planned, "shard": shard, "started_at": "",
        "scoring": scoring or {"headline": "mean_reward", "description": "mean"}}
    if counts is not None:
        rec["plan_counts"] = counts
    return rec


def _task(task_id: str, status: str = "ok", reward: float | None = 1.0, *,
          category: str | None = None, trial: int = 0, run_id: str = "r") -> dict[str, Any]:
    return {"type": "task", "run_id": run_id, "schema_version": 1, "benchmark": "tau2",
            "domain": "mock", "category": category, "task_id": task_id, "trial": trial,
            "seed": 1, "status": status, "reward": reward,
            "success": status == "ok" and reward == 1.0, "started_at": "", "finished_at": ""}


def _write(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_plan_is_counted_per_share_without_iterating() -> None:
    tasks = tuple(TaskSpec(f"t{i}", category="ab"[i % 2]) for i in range(7))
    for shard in (None, *[Shard(index=i, count=3) for i in (1, 2, 3)]):
        plan = Plan(tasks, 3, 0, shard)
        counted: dict[tuple[Any, Any], int] = {}
        for item in plan:
            key = (item.task.domain or "d", item.task.category)
            counted[key] = counted.get(key, 0) + 1
        assert {(r["domain"], r["category"]): r["task_trials"]
                for r in plan.counts("d")} == counted


def test_an_interrupted_run_scores_what_never_ran_as_zero(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl",
                  _run(4, [{"domain": "mock", "category": None, "task_trials": 4}]),
                  _task("a"), _task("b"))
    report = build_report([path])
    assert (report.score, report.score_scored_only) == (0.5, 1.0)
    assert (report.planned, report.task_trials, report.missing) == (4, 2, 2)
    assert not report.score_complete
    assert "incomplete: 2 of 4 task-trials not scored, counted 0; 1.0000 over the 2 scored" \
        in headline(report)
    assert any("2 of the 4 planned task-trials were never recorded" in w
               for w in report.warnings)


def test_unscored_task_trials_count_zero_and_the_gate_says_which(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl",
                  _run(4, [{"domain": "mock", "category": None, "task_trials": 4}]),
                  _task("a"), _task("b"), _task("c", "infrastructure_error", None),
                  _task("d", "harness_error", None))
    report = build_report([path])
    assert (report.score, report.score_scored_only) == (0.5, 1.0)
    with pytest.raises(ScoreBelowThreshold, match="score 0.5000 is incomplete: 2 of 4"):
        check(report, 0.4)
    check(report, 0.9, allow_incomplete=True)  # the scored ones alone: 1.0


def test_a_complete_run_scores_as_before(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl",
                  _run(2, [{"domain": "mock", "category": None, "task_trials": 2}]),
                  _task("a"), _task("b", reward=0.0))
    report = build_report([path])
    assert report.score == report.score_scored_only == 0.5 and report.score_complete
    assert "incomplete" not in headline(report)


def test_shards_and_resumes_count_each_share_once(tmp_path: Path) -> None:
    one = [{"domain": "mock", "category": None, "task_trials": 2}]
    first = _write(tmp_path / "s1.jsonl", _run(2, one, shard=[1, 2], run_id="x"),
                   _task("a", run_id="x"), _run(2, one, shard=[1, 2], run_id="y"),
                   _task("b", run_id="y"))  # resumed: its run record is repeated
    second = _write(tmp_path / "s2.jsonl", _run(2, one, shard=[2, 2], run_id="z"),
                    _task("c", run_id="z"))
    report = build_report([first, second])
    assert (report.planned, report.missing, report.score) == (4, 1, 0.75)


def test_records_from_before_the_plan_counts_use_the_total(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl", _run(4, None), _task("a"), _task("b"))
    assert build_report([path]).score == 0.5


def test_a_macro_headline_scores_each_planned_category(tmp_path: Path) -> None:
    counts = [{"domain": "mock", "category": c, "task_trials": 2}
              for c in ("billing", "shipping", "privacy")]
    path = _write(tmp_path / "m.jsonl", _run(6, counts, scoring=MACRO),
                  _task("a", category="billing"), _task("b", category="billing"),
                  _task("c", category="shipping"),  # the other shipping one never ran
                  _task("d", "infrastructure_error", None, category="privacy"),
                  _task("e", category="privacy"))
    report = build_report([path])
    assert report.score == pytest.approx((1.0 + 0.5) / 2)
    assert report.score_scored_only == 1.0
    assert report.group_scores == {"confidentiality": 0.5}


def _result(report: Any) -> dict[str, Any]:
    config = RunConfig(benchmark="tau2", white_agent_url="http://agent/", num_trials=1)
    return result_data(report, config, "canceled", {"agent": "http://agent/"}, "agentbeats")


def test_the_result_states_the_planned_score_and_the_queries_use_it(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = _write(tmp_path / "m.jsonl",
                  _run(4, [{"domain": "mock", "category": None, "task_trials": 4}]),
                  _task("a"), _task("b"), _task("c", "infrastructure_error", None))
    data = _result(build_report([path]))
    summary = data["summary"]
    assert (summary["score"], summary["score_scored_only"]) == (0.5, 1.0)
    assert (summary["task_trials_planned"], summary["missing"], summary["unscored"]) == (4, 1, 1)
    assert summary["score_complete"] is False
    assert data["planned"] == [{"domain": "mock", "category": None, "task_trials": 4,
                                "headline": True}]
    assert "2 of 4 task-trials were not scored" in summary_text(data, "http://agent/")
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "sub.json").write_text(json.dumps(
        {"status": "partial", "participants": {"agent": "agent-1"}, "results": [data]}))
    con = duckdb.connect()
    con.execute(f"CREATE TABLE results AS SELECT * FROM read_json_auto('{folder}/*.json')")
    overall = con.sql((QUERIES / "overall.sql").read_text())
    row = dict(zip(overall.columns, overall.fetchall()[0], strict=True))
    assert row["Pass rate (%)"] == 50.0 and row["Mean reward"] == 0.5
    assert row["Task-trials"] == 4 and row["Not scored"] == 2 and row["Complete"] is False
    domains = con.sql((QUERIES / "tau2/by_domain.sql").read_text())
    assert dict(zip(domains.columns, domains.fetchall()[0], strict=True))["mock"] == 50.0


def test_a_benchmark_format_refuses_a_run_with_task_trials_never_recorded(
        tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl",
                  _run(4, [{"domain": "mock", "category": None, "task_trials": 4}]),
                  _task("a"), _task("b"))
    r = run_cli("report", str(path), "--format", "tau2")
    assert r.code == 2 and "recorded 2 of the 4 task-trials it planned" in r.err


def test_the_crmarena_paper_layout_counts_unscored_task_trials_zero() -> None:
    from a2abench.benchmarks.crmarena.export import paper_scores

    records = [{**_task("a", category="billing"), "benchmark": "crmarena"},
               {**_task("b", "infrastructure_error", None, category="billing"),
                "benchmark": "crmarena"}]
    doc = json.loads(paper_scores(iter(records), {"domain": "b2b"}))
    assert (doc["overall"], doc["overall_scored_only"]) == (0.5, 1.0)
    assert doc["categories"]["billing"]["task_trials"] == 2 and doc["unscored_task_trials"] == 1


def test_junit_lists_the_task_trials_never_recorded(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl",
                  _run(4, [{"domain": "mock", "category": None, "task_trials": 4}]),
                  _task("a"), _task("b"))
    r = run_cli("report", str(path), "--format", "junit")
    assert r.code == 0 and 'tests="3" failures="0" errors="1"' in r.out
    assert "2 of the 4 planned task-trials were never recorded" in r.out
