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
