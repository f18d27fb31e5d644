"""The one counters model: every status lands in exactly one place, scored ones in the score."""

from __future__ import annotations

from typing import get_args

from a2abench.run.status import (
    COUNT_KEYS,
    SCORED_STATUSES,
    UNSCORED_STATUSES,
    Counts,
    TaskStatus,
    failed_reward,
)


def test_every_status_is_scored_or_unscored_once() -> None:
    assert sorted(SCORED_STATUSES + UNSCORED_STATUSES) == sorted(get_args(TaskStatus))


def test_counts_split_scored_and_unscored() -> None:
    c = Counts()
    for status, success, reward in [("ok", True, 1.0), ("ok", False, 0.5),
                                    ("agent_error", False, 0.0), ("evaluator_error", False, 0.0),
                                    ("infrastructure_error", False, None),
                                    ("harness_error", False, None)]:
        c.add(status, success, reward)
    assert c.as_dict() == {"done": 6, "passed": 1, "failed": 3, "agent_errors": 1,
                           "evaluator_errors": 1, "infra_errors": 1, "harness_errors": 1}
    assert list(c.as_dict()) == list(COUNT_KEYS)
    assert (c.scored, c.unscored, c.errors) == (4, 2, 4)
    assert c.mean_reward == 1.5 / 4 and c.pass_rate == 0.25


def test_failed_reward_follows_scoring() -> None:
    assert [failed_reward(s) for s in get_args(TaskStatus)] == [
        0.0 if s in SCORED_STATUSES else None for s in get_args(TaskStatus)]
    assert failed_reward("agent_error") == 0.0 and failed_reward("harness_error") is None


def test_the_run_end_record_and_the_summary_carry_counts() -> None:
    from a2abench.run.engine import RunSummary
    from a2abench.run.events import Progress
    from a2abench.run.records import RunEndRecord

    progress = Progress(total=3)
    for status, success in (("ok", True), ("agent_error", False), ("harness_error", False)):
        progress.add(status, success, 1.0 if success else 0.0)
    snap = progress.snapshot()
    assert type(snap) is Counts and (snap.done, snap.passed, snap.harness_errors) == (3, 1, 1)
    end = RunEndRecord(run_id="r", status="completed", finished_at="t", duration_s=1.0,
                       counts=snap)
    again = RunEndRecord.model_validate_json(end.model_dump_json())
    assert again.counts == snap
    # a record written before the counts were typed (no evaluator_errors) still reads
    old = RunEndRecord.model_validate({"type": "run_end", "run_id": "r", "status": "completed",
                                       "finished_at": "t", "duration_s": 1.0, "counts": {
                                           "done": 2, "passed": 2, "failed": 0,
                                           "agent_errors": 0, "infra_errors": 0,
                                           "harness_errors": 0}})
    assert old.counts.evaluator_errors == 0 and old.counts.done == 2
    summary = RunSummary(run_id="r", output="m.jsonl", status="completed", planned=3,
                         skipped=0, counts=snap, duration_s=1.0)
    assert summary.ran == 3
