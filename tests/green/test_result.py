"""The Result's summary text and the progress DataPart, without a server."""

from __future__ import annotations

from typing import Any

import pytest

from a2abench.green.result import progress_data, progress_text, summary_text
from a2abench.run.events import Progress


def data(tasks: int, trials: int, scored: int, passed: int, task_trials: int) -> dict[str, Any]:
    return {"benchmark": "tau2", "domain": "airline", "status": "completed",
            "num_trials": trials, "pass_k": {}, "by_category": {},
            "summary": {"total_tasks": tasks, "task_trials": task_trials, "scored": scored,
                        "total_passed": passed, "pass_rate": passed / scored if scored else None,
                        "score": passed / scored if scored else None}}


@pytest.mark.parametrize(("args", "sentence"), [
    ((1, 1, 1, 1, 1), "1/1 passed over 1 task-trial (1 task × 1 trial); pass rate 100.0%"),
    ((2, 1, 2, 1, 2), "1/2 passed over 2 task-trials (2 tasks × 1 trial); pass rate 50.0%"),
    ((2, 2, 4, 3, 4), "3/4 passed over 4 task-trials (2 tasks × 2 trials); pass rate 75.0%"),
    ((1, 3, 3, 3, 3), "3/3 passed over 3 task-trials (1 task × 3 trials)"),
])
def test_summary_wording(args: tuple[int, int, int, int, int], sentence: str) -> None:
    text = summary_text(data(*args), "http://purple")
    assert sentence in text and "score incomplete" not in text


def test_an_incomplete_score_says_so() -> None:
    text = summary_text(data(2, 1, 1, 1, 2), "http://purple")
    assert "1/1 passed over 2 task-trials (2 tasks × 1 trial)" in text
    assert "score incomplete: 1 of 2 task-trials was not scored" in text


def test_progress_counts_harness_errors_as_unscored() -> None:
    p = Progress(total=4, done=4, passed=1, failed=1, scored=2, agent_errors=1, infra_errors=1,
                 harness_errors=1, reward_sum=1.0)
    assert progress_text(p) == "4/4 done, pass rate 50.0%, 2 not scored (errors)"
    assert progress_data(p) | {} == {
        "done": 4, "total": 4, "passed": 1, "failed": 1, "scored": 2, "pass_rate": 0.5,
        "mean_reward": 0.5, "agent_errors": 1, "evaluator_errors": 0, "infra_errors": 1,
        "harness_errors": 1, "unscored": 2}


def test_a_shards_summary_says_it_covers_that_shard_only() -> None:
    # Issue 35: the prose of one shard's Result read like the whole run's.
    whole = summary_text(data(4, 1, 4, 2, 4) | {"shard": {"index": 0, "count": 1}}, "agent")
    assert "shard" not in whole
    shard = summary_text(data(2, 1, 2, 1, 2) | {"shard": {"index": 1, "count": 3}}, "agent")
    assert shard.startswith("tau2 (airline) against agent, shard 2 of 3 (figures for this "
                            "shard only): completed. 1/2 passed")
