"""The adaptive plan (run/adaptive/sequence.py): seeded stratified order, allocation, stop
rule, resume replay, and the report's rebuild from records."""

from __future__ import annotations

import itertools
import zlib
from types import SimpleNamespace
from typing import Any

import pytest

from a2abench.report.adaptive import cost_view, rebuild
from a2abench.run.adaptive.sequence import Sequence, headline_weights, stratum_of, units_of
from a2abench.run.adaptive.tracker import STALL_RUN, Settings, Tracker
from a2abench.run.driver import TaskSpec


def plan(suite: list[TaskSpec], trials: int, seed: int, scoring: dict[str, Any],
         settings: Settings) -> Sequence:
    """A run's plan with order seed = run seed (what `--seed` gives)."""
    return Sequence(units_of(suite, trials, seed), seed, scoring, settings)


def tasks(sizes: dict[str, int]) -> list[TaskSpec]:
    return [TaskSpec(task_id=f"{cat}-{i}", domain="d", category=cat)
            for cat, n in sizes.items() for i in range(n)]


def result(item: Any, reward: float, status: str = "ok") -> SimpleNamespace:
    return SimpleNamespace(task_id=item.task.task_id, trial=item.trial, status=status,
                           reward=reward if status == "ok" else None)


def drain(seq: Sequence, value: Any, limit: int = 10**6) -> list[Any]:
    """Run the plan one task-trial at a time; `value(item)` is its reward."""
    done = []
    while len(done) < limit:
        item = seq.next_item()
        if item is None:
            break
        rec = result(item, value(item))
        seq.observe(rec)
        done.append(rec)
    return done


def test_order_is_seeded_and_every_prefix_is_representative() -> None:
    suite = tasks({"a": 30, "b": 60, "c": 10})
    first = plan(suite, 2, 7, {}, Settings())
    again = plan(suite, 2, 7, {}, Settings())
    other = plan(suite, 2, 8, {}, Settings())
    order = [first.next_item() for _ in range(200)]
    assert order == [again.next_item() for _ in range(200)]
    assert order != [other.next_item() for _ in range(200)]
    assert {i.key for i in order if i} == set(first.where)  # every task-trial once
    for n in range(1, 201):
        prefix = order[:n]
        for cat, share in (("a", 0.3), ("b", 0.6), ("c", 0.1)):
            assert abs(sum(stratum_of(i.task) == cat for i in prefix) - share * n) < 2


def test_ranks_follow_each_stratums_seeded_order() -> None:
    seq = plan(tasks({"a": 5, "b": 5}), 1, 1, {}, Settings())
    items = [seq.next_item() for _ in range(4)]
    for n, item in enumerate(items):
        rec = result(item, 1.0)
        seq.observe(rec)
        stratum, rank = rec.adaptive["stratum"], rec.adaptive["rank"]
        assert seq.units[stratum][rank] == item and rank == n // 2


def test_headline_weights_follow_the_scoring() -> None:
    sizes = {"a": 10, "b": 30, "private": 20}
    assert headline_weights(sizes, {"headline": "mean_reward"}) == {
        "a": 10 / 60, "b": 30 / 60, "private": 20 / 60}
    macro = headline_weights(sizes, {"headline": "macro_category_mean",
                                     "separate": {"confidentiality": ["private"]}})
    assert macro == {"a": 0.5, "b": 0.5, "private": 0.0}


def test_target_stops_early_and_the_interval_holds_the_full_score() -> None:
    seq = plan(tasks({"a": 100, "b": 100}), 4, 3, {}, Settings(target_ci=0.1))
    # Stratum a always passes, b passes on even trials: full score 0.75.
    done = drain(seq, lambda i: 1.0 if i.task.category == "a" or i.trial % 2 == 0 else 0.0)
    t = seq.tracker
    assert t.stop_reason == "target_ci" and len(done) < 800
    assert t.interval.half_width <= 0.1 and 0.75 in t.interval
    assert seq.next_item() is None  # stopped: nothing more starts


def test_a_full_run_is_exhausted_and_exact() -> None:
    seq = plan(tasks({"a": 4, "b": 2}), 2, 3, {}, Settings(allocate="neyman"))
    done = drain(seq, lambda i: 1.0 if i.trial == 0 else 0.0)
    assert len(done) == 12 and seq.tracker.stop_reason == "exhausted"
    assert seq.tracker.interval.lower == pytest.approx(0.5)
    assert seq.tracker.interval.upper == pytest.approx(0.5)


@pytest.mark.parametrize(("threshold", "reason"), [(0.5, "gate_pass"), (0.95, "gate_fail")])
def test_gate_decides_early(threshold: float, reason: str) -> None:
    seq = plan(tasks({"a": 200}), 2, 3, {}, Settings(fail_under=threshold, gate=True))
    done = drain(seq, lambda i: 1.0 if int(i.task.task_id.split("-")[1]) % 5 else 0.0)
    assert seq.tracker.stop_reason == reason and len(done) < 400
    assert seq.tracker.decision() == reason[5:]


def test_neyman_spends_draws_where_the_spread_is() -> None:
    seq = plan(tasks({"flat": 100, "mixed": 100}), 1, 3, {}, Settings(allocate="neyman"))
    done = drain(seq, lambda i: 1.0 if i.task.category == "flat"
                 else float(int(i.task.task_id.split("-")[1]) % 2), limit=100)
    mixed = sum(r.task_id.startswith("mixed") for r in done)
    assert mixed > 70  # a stratum that always passes informs little
    prop = plan(tasks({"flat": 100, "mixed": 100}), 1, 3, {}, Settings())
    assert sum(r.task_id.startswith("mixed")
               for r in drain(prop, lambda i: 1.0, limit=100)) == 50


def test_unscored_results_keep_counting_at_their_worst() -> None:
    seq = plan(tasks({"a": 40}), 1, 3, {}, Settings())
    first = seq.next_item()
    seq.observe(result(first, 0.0, status="infrastructure_error"))
    second = seq.next_item()
    seq.observe(result(second, 1.0))
    summary = seq.tracker.summary()
    assert seq.tracker.fed == 2 and summary["errors"] == 1 and summary["stalled"] == []
    assert summary["estimate"] == 1.0  # the scored one; the unscored widens the bounds
    assert summary["upper"] == pytest.approx(1.0) and summary["lower"] <= 1 / 40


def test_a_stratum_whose_last_results_were_all_unscored_is_no_longer_picked() -> None:
    seq = plan(tasks({"a": 30, "b": 60}), 1, 3, {}, Settings(target_ci=0.01))
    picked = []
    for _ in range(40):
        item = seq.next_item()
        assert item is not None
        broken = item.task.category == "a"
        seq.observe(result(item, 1.0, status="infrastructure_error" if broken else "ok"))
        picked.append(item.task.category)
    assert seq.tracker.stalled == {"a"} and picked.count("a") == STALL_RUN
    assert picked[-10:] == ["b"] * 10  # its share goes to the other stratum
    while (item := seq.next_item()) is not None:
        seq.observe(result(item, 1.0))
    assert seq.tracker.stop_reason == "stalled"  # only the stalled stratum is left


def test_a_stall_ends_when_a_result_is_scored_again() -> None:
    seq = plan(tasks({"a": 20}), 1, 3, {}, Settings())
    items = [seq.next_item() for _ in range(STALL_RUN + 1)]
    for item in items[:STALL_RUN]:
        seq.observe(result(item, 0.0, status="harness_error"))
    assert seq.tracker.stalled == {"a"}
    assert seq.next_item() is None and seq.tracker.stop_reason == "stalled"
    seq.observe(result(items[-1], 1.0))  # in flight when it stalled: it still counts
    assert seq.tracker.stalled == set() and seq.tracker.fed == STALL_RUN + 1


# Outcomes from a stable hash of the key (Python's `hash` of a str changes with each process,
# and so did this test's data). Salt 210 makes the sequence miss near the end of the
# population (chance <= alpha): the logical bounds then exclude the running interval.
@pytest.mark.parametrize(("salt", "misses"), [(0, 0), (210, 1)])
def test_the_interval_is_a_running_intersection_and_a_decision_stays(salt: int,
                                                                     misses: int) -> None:
    seq = plan(tasks({"a": 50, "b": 50}), 2, 5, {}, Settings(fail_under=0.5, gate=True))
    seq.obey_stop = False
    seen = []
    while (item := seq.next_item()) is not None:
        outcome = zlib.crc32(f"{salt}:{item.key}".encode()) % 3 != 0
        seq.observe(result(item, float(outcome)))
        seen.append(seq.tracker.interval)
        decided = seq.tracker.decision()
        if seq.tracker.stop_reason in ("gate_pass", "gate_fail"):
            assert decided == seq.tracker.stop_reason[5:]  # never undone later
    disjoint = 0
    for before, after in itertools.pairwise(seen):
        if after.upper < before.lower or before.upper < after.lower:
            disjoint += 1  # a miss: the newer interval is kept (Interval.meet)
        else:
            assert before.lower <= after.lower and after.upper <= before.upper
    assert disjoint == misses


@pytest.mark.parametrize(("reward", "value"), [(1.0000001, 1.0), (-5e-7, 0.0), (0.5, 0.5)])
def test_rewards_within_1e6_of_the_range_are_clamped(reward: float, value: float) -> None:
    seq = plan(tasks({"a": 3}), 1, 3, {}, Settings())
    seq.observe(result(seq.next_item(), reward))
    assert seq.tracker.errors == 0 and seq.tracker.estimate() == value


@pytest.mark.parametrize("reward", [1.5, -0.1, float("nan")])
def test_rewards_outside_the_range_are_not_scores(reward: float) -> None:
    seq = plan(tasks({"a": 3}), 1, 3, {}, Settings())
    seq.observe(result(seq.next_item(), reward))
    assert seq.tracker.errors == 1 and seq.tracker.estimate() is None


def test_uniform_order_is_one_stratum() -> None:
    seq = plan(tasks({"a": 10, "b": 30}), 1, 3, {}, Settings(allocate="uniform"))
    assert list(seq.units) == ["all"] and seq.tracker.weights == {"all": 1.0}
    order = [seq.next_item() for _ in range(40)]
    assert {i.key for i in order if i} == set(seq.where)


def test_replay_rebuilds_the_same_state_and_reruns_what_was_in_flight() -> None:
    suite = tasks({"a": 20, "b": 20})
    live = plan(suite, 2, 11, {}, Settings(target_ci=0.2))
    started = [live.next_item() for _ in range(30)]
    finished = [result(i, float(n % 3 != 0)) for n, i in enumerate(started) if n not in (4, 9)]
    for rec in finished:
        live.observe(rec)
    records = [{"task_id": r.task_id, "trial": r.trial, "status": r.status,
                "reward": r.reward, "adaptive": r.adaptive} for r in finished]
    resumed = plan(suite, 2, 11, {}, Settings(target_ci=0.2))
    resumed.replay(records, retry_errors=False)
    assert resumed.tracker.summary() == live.tracker.summary()
    assert resumed.tracker.fed == 4  # fed in pick order: waiting for the pick in flight
    assert [resumed.next_item(), resumed.next_item()] == [started[4], started[9]]
    assert resumed.next_item() == live.next_item()  # then the plan goes on as it would have
    for n in (4, 9):  # the two results arrive: everything recorded is fed
        resumed.observe(result(started[n], 1.0))
    assert resumed.tracker.fed == 30


def _crash(in_flight: set[int]) -> tuple[list[Any], Sequence]:
    """8 picks alternating a, b; those in `in_flight` never recorded (a crash: no run_end)."""
    suite = tasks({"a": 6, "b": 6})
    live = plan(suite, 1, 4, {}, Settings())
    started = [live.next_item() for _ in range(8)]
    assert [stratum_of(i.task) for i in started] == ["a", "b"] * 4
    finished = [result(i, 1.0) for n, i in enumerate(started) if n not in in_flight]
    for rec in finished:
        live.observe(rec)
    records = [{"task_id": r.task_id, "trial": r.trial, "status": r.status,
                "reward": r.reward, "adaptive": r.adaptive} for r in finished]
    resumed = plan(suite, 1, 4, {}, Settings())
    resumed.replay(records, retry_errors=False)
    return started, resumed


def test_picks_in_flight_at_a_crash_go_back_to_their_places() -> None:
    started, resumed = _crash({2, 5})
    assert resumed.tracker.fed == 2 and resumed.tracker.voids == []
    assert [resumed.next_item(), resumed.next_item()] == [started[2], started[5]]
    for n in (2, 5):
        resumed.observe(result(started[n], 0.0))
    assert resumed.tracker.fed == 8


def test_picks_whose_task_trial_is_unknown_are_left_void() -> None:
    started, resumed = _crash({2, 4, 6})  # a's ranks 1-3: nothing later in a pins them
    assert resumed.tracker.voids == [2, 4, 6] and resumed.tracker.fed == 5
    again = resumed.next_item()
    assert again == started[2]  # a's next in its order, picked afresh
    resumed.observe(result(again, 1.0))
    assert resumed.tracker.fed == 6


def test_replay_retries_infrastructure_failures_only_when_asked() -> None:
    suite = tasks({"a": 5})
    seq = plan(suite, 1, 2, {}, Settings())
    item = seq.next_item()
    rec = {"task_id": item.task.task_id, "trial": 0, "status": "infrastructure_error",
           "adaptive": {"stratum": "a", "rank": 0, "pick": 0}}
    kept = plan(suite, 1, 2, {}, Settings())
    kept.replay([rec], retry_errors=False)
    assert kept.next_item() != item and kept.tracker.errors == 1 and kept.tracker.fed == 1
    retried = plan(suite, 1, 2, {}, Settings())
    retried.replay([rec], retry_errors=True)
    assert retried.next_item() == item and retried.tracker.fed == 0


def line(rec: Any) -> SimpleNamespace:
    """What the report reads of a task record (its TaskLine)."""
    return SimpleNamespace(status=rec.status, reward=rec.reward, task_id=rec.task_id,
                           trial=rec.trial, success=rec.reward == 1.0)


def tag(rec: Any) -> tuple[Any, ...]:
    a = rec.adaptive
    return (a["stratum"], a["rank"], a["pick"], a.get("scale"), a.get("top"),
            a.get("baseline"), a.get("baseline_success"))


def test_report_rebuild_matches_the_live_tracker() -> None:
    seq = plan(tasks({"a": 30, "b": 10}), 2, 5, {}, Settings(target_ci=0.15))
    done = drain(seq, lambda i: float(i.trial == 1 or i.task.category == "b"))
    done[3].status, done[3].reward = "infrastructure_error", None  # rebuilt as unscored too
    results = [(tag(r), line(r)) for r in done]
    live = plan(tasks({"a": 30, "b": 10}), 2, 5, {}, Settings(target_ci=0.15))
    for rec in done:
        live.next_item()
        live.observe(rec)
    seq = live
    header = seq.tracker.header()
    end = {"adaptive": seq.tracker.summary()}
    out = rebuild([{"adaptive": header}], [end], results)
    assert out is not None and out["summary"] == seq.tracker.summary()
    assert Tracker.from_header(header).sizes == {"a": 60, "b": 20}
    assert rebuild([{}], [], results) is None


def test_cost_view_scales_spent_to_the_full_run() -> None:
    view = cost_view(25, 100, 1000, 0.5)
    assert view["full_estimate"] == {"task_trials": 100, "tokens": 4000, "cost_usd": 2.0}
    assert view["saved"] == {"task_trials": 75, "tokens": 3000, "cost_usd": 1.5}
    assert cost_view(10, 10, 7, None)["full_estimate"]["cost_usd"] is None


def _mixed_value(item: Any) -> float:
    """Tasks 0-9 pass every trial, 10-19 fail every trial, 20-29 pass odd trials."""
    n = int(item.task.task_id.split("-")[1])
    return 1.0 if n < 10 else 0.0 if n < 20 else float(item.trial % 2)


def test_neyman_with_trials_prefers_tasks_with_mixed_outcomes() -> None:
    seq = plan(tasks({"a": 30}), 4, 9, {}, Settings(allocate="neyman"))
    assert seq.weighted
    done = drain(seq, _mixed_value, limit=80)
    mixed = sum(int(r.task_id.split("-")[1]) >= 20 for r in done[40:])
    assert mixed > 40 * 0.4  # a third of the task-trials, drawn twice as often once seen mixed
    assert all(r.adaptive["rank"] == -1 and r.adaptive["scale"] > 0 for r in done)
    # the report rebuilds the same bounds from the tags
    results = [(tag(r), line(r)) for r in done]
    out = rebuild([{"adaptive": seq.tracker.header()}], [], results)
    assert out is not None and out["summary"]["lower"] == seq.tracker.summary()["lower"]


def test_neyman_with_trials_resumes_with_void_picks() -> None:
    suite = tasks({"a": 10, "b": 10})
    live = plan(suite, 3, 2, {}, Settings(allocate="neyman", target_ci=0.3))
    started = [live.next_item() for _ in range(12)]
    finished = [result(i, float(n % 2)) for n, i in enumerate(started) if n != 5]
    for rec in finished:
        live.observe(rec)
    records = [{"task_id": r.task_id, "trial": r.trial, "status": r.status,
                "reward": r.reward, "adaptive": r.adaptive} for r in finished]
    resumed = plan(suite, 3, 2, {}, Settings(allocate="neyman", target_ci=0.3))
    resumed.replay(records, retry_errors=False)
    assert resumed.tracker.voids == [5]  # its task-trial went back among those left
    assert started[5] in resumed.left[stratum_of(started[5].task)]
    assert live.tracker.fed == 5  # live: waiting for pick 5
    assert resumed.tracker.fed == 11  # resumed: pick 5 void, the rest counted


def test_a_plan_too_large_to_hold_is_refused() -> None:
    from a2abench.errors import ConfigError
    from a2abench.run.adaptive.sequence import MAX_UNITS, start

    config = SimpleNamespace(num_trials=MAX_UNITS, seed=1, target_ci=0.1, fail_under=None,
                             adaptive_gate=False, allocate="proportional", retry_errors=False,
                             baseline=None)
    with pytest.raises(ConfigError, match="at most 100,000 task-trials"):
        start(config, tasks({"a": 2}), {}, None)
