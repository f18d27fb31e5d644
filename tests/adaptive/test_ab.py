"""Adaptive A/B against a baseline run (`--baseline`): the baseline's task-trials replayed in a
fresh order, the paired difference's sequence, the gate, flips, the order seed, and the
serve-green `baseline` key."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from a2abench.errors import ConfigError, ResumeMismatch, ScoreBelowThreshold
from a2abench.green.request import RequestRejected, earlier_run
from a2abench.report import gate
from a2abench.report.adaptive import rebuild
from a2abench.report.aggregate import Report
from a2abench.run.adaptive.baseline import Baseline, Unit, load
from a2abench.run.adaptive.sequence import Sequence, order_seed, start
from a2abench.run.adaptive.tracker import Settings
from a2abench.run.driver import TaskSpec
from a2abench.run.plan import Item


def suite(n: int) -> list[TaskSpec]:
    return [TaskSpec(task_id=f"t{i}", domain="d", category="c") for i in range(n)]


def base_of(rewards: dict[tuple[str, int], float]) -> Baseline:
    return Baseline("base.jsonl", "r1", {k: Unit(7, v, v == 1.0) for k, v in rewards.items()},
                    "fp")


def paired(n: int, base: dict[tuple[str, int], float], settings: Settings) -> Sequence:
    tasks = {t.task_id: t for t in suite(n)}
    units = [Item(tasks[k[0]], k[1], 7) for k in base]
    return Sequence(units, 1, {}, settings, base_of(base))


def drain(seq: Sequence, new: dict[tuple[str, int], float | None]) -> list[Any]:
    done = []
    while (item := seq.next_item()) is not None:
        value = new[item.key]
        rec = SimpleNamespace(task_id=item.task.task_id, trial=item.trial,
                              status="ok" if value is not None else "infrastructure_error",
                              reward=value)
        seq.observe(rec)
        done.append(rec)
    return done


def keys(n: int) -> list[tuple[str, int]]:
    return [(f"t{i}", 0) for i in range(n)]


def test_a_full_ab_run_is_the_exact_difference() -> None:
    base = {k: float(i % 2) for i, k in enumerate(keys(40))}  # 0.5
    new = {k: float(i % 4 != 0) for i, k in enumerate(keys(40))}  # 0.75
    seq = paired(40, base, Settings())
    done = drain(seq, new)  # type: ignore[arg-type]
    summary = seq.tracker.summary()
    assert len(done) == 40 and summary["stop_reason"] == "exhausted"
    assert summary["paired"]["lower"] == pytest.approx(0.25, abs=1e-9)
    assert summary["paired"]["upper"] == pytest.approx(0.25, abs=1e-9)
    assert summary["paired"]["baseline_score"] == 0.5
    assert summary["lower"] == pytest.approx(0.75) == summary["estimate"]
    assert done[0].adaptive["baseline"] in (0.0, 1.0) and "baseline_success" in done[0].adaptive


def test_the_difference_holds_before_the_end_and_the_target_stops() -> None:
    base = {k: float(i % 3 != 0) for i, k in enumerate(keys(300))}
    new = {k: float(i % 3 != 0 or i % 2 == 0) for i, k in enumerate(keys(300))}
    truth = (sum(new.values()) - sum(base.values())) / 300
    seq = paired(300, base, Settings(target_ci=0.1))
    drain(seq, new)  # type: ignore[arg-type]
    summary = seq.tracker.summary()
    assert summary["stop_reason"] == "target_ci" and summary["n"] < 300
    assert summary["paired"]["lower"] <= truth <= summary["paired"]["upper"]
    assert summary["paired"]["half_width"] <= 0.1


@pytest.mark.parametrize(("shift", "decision"), [(0.2, "pass"), (0.0, "pass"),
                                                 (-0.2, "fail")])
def test_the_gate_decides_better_equal_or_worse(shift: float, decision: str) -> None:
    """Better, or equal within the margin (--target-ci), passes; worse fails."""
    base = {k: float(i % 10 < 5) for i, k in enumerate(keys(400))}
    cut = 5 + round(shift * 10)
    new = {k: float(i % 10 < cut) for i, k in enumerate(keys(400))}
    seq = paired(400, base, Settings(target_ci=0.05, gate=True))
    done = drain(seq, new)  # type: ignore[arg-type]
    assert seq.tracker.stop_reason == f"gate_{decision}" and len(done) < 400
    assert seq.tracker.decision() == decision


def test_an_unscored_new_result_counts_at_its_worst_against_its_baseline() -> None:
    base = {("t0", 0): 1.0, ("t1", 0): 0.0}
    seq = paired(2, base, Settings())
    drain(seq, {("t0", 0): None, ("t1", 0): 0.0})
    paired_view = seq.tracker.summary()["paired"]
    # t0: new anywhere in [0, 1] against 1: d in [-1, 0]; t1: d = 0
    assert paired_view["lower"] == pytest.approx(-0.5) and paired_view["upper"] == 0.0
    assert seq.tracker.errors == 1


def test_report_rebuilds_the_pairs_and_lists_the_flips() -> None:
    base = {k: float(i % 2) for i, k in enumerate(keys(60))}
    new = {k: float(i % 3 != 0) for i, k in enumerate(keys(60))}
    seq = paired(60, base, Settings(target_ci=0.2))
    done = drain(seq, new)  # type: ignore[arg-type]
    results = [((r.adaptive["stratum"], r.adaptive["rank"], r.adaptive["pick"], None, None,
                 r.adaptive["baseline"], r.adaptive["baseline_success"]),
                SimpleNamespace(status=r.status, reward=r.reward, success=r.reward == 1.0,
                                task_id=r.task_id, trial=r.trial)) for r in done]
    out = rebuild([{"adaptive": seq.header()}], [{"adaptive": seq.tracker.summary()}], results)
    assert out is not None
    summary = out["summary"]
    flips = summary["paired"].pop("flipped")
    assert summary == seq.tracker.summary()
    to_pass = [r for r in done if r.reward == 1.0 and not r.adaptive["baseline_success"]]
    to_fail = [r for r in done if r.reward == 0.0 and r.adaptive["baseline_success"]]
    assert flips["to_pass"]["count"] == len(to_pass) > 0
    assert flips["to_fail"]["count"] == len(to_fail) > 0
    assert flips["to_pass"]["task_trials"] == sorted([r.task_id, r.trial] for r in to_pass)


def test_a_paired_result_without_its_baseline_is_refused_by_the_rebuild() -> None:
    seq = paired(4, {k: 1.0 for k in keys(4)}, Settings())
    done = drain(seq, dict.fromkeys(keys(4), 1.0))
    results = [((r.adaptive["stratum"], r.adaptive["rank"], r.adaptive["pick"], None, None,
                 None, None), SimpleNamespace(status="ok", reward=1.0, success=True,
                                              task_id=r.task_id, trial=0)) for r in done]
    out = rebuild([{"adaptive": seq.header()}], [], results)
    assert out is not None and out["summary"] is None and "baseline" in out["error"]


def report_with(summary: dict[str, Any], margin: float = 0.05) -> Report:
    header = {"confidence": 0.95, "settings": {"paired": True, "gate": True,
                                               "target_ci": margin}}
    return Report.model_construct(score=0.5, adaptive={"header": header, "summary": summary})


def test_the_ab_gate_exit_code() -> None:
    view = {"n": 50, "N": 100, "paired": {"lower": -0.03, "upper": 0.1}}
    gate.check_baseline(report_with(view | {"decision": "pass"}))
    with pytest.raises(ScoreBelowThreshold, match="worse than the baseline"):
        gate.check_baseline(report_with(view | {"decision": "fail"}))
    with pytest.raises(ScoreBelowThreshold, match="undecided"):
        gate.check_baseline(report_with(view | {"decision": None}))
    with pytest.raises(ScoreBelowThreshold, match="no paired difference"):
        gate.check_baseline(Report.model_construct(score=0.5, adaptive=None))


def write_run(path: Path, records: list[dict[str, Any]], benchmark: str = "scripted") -> None:
    run = {"type": "run", "run_id": "r1", "benchmark": benchmark, "schema_version": 1}
    path.write_text("".join(json.dumps(r) + "\n" for r in [run, *records]))


def task(tid: str, trial: int, status: str = "ok", reward: float | None = 1.0,
         seed: Any = 11) -> dict[str, Any]:
    return {"type": "task", "run_id": "r1", "benchmark": "scripted", "task_id": tid,
            "trial": trial, "seed": seed, "status": status, "reward": reward,
            "success": reward == 1.0}


def test_load_keeps_scored_task_trials_deduplicated_as_report_does(tmp_path: Path) -> None:
    path = tmp_path / "run" / "metrics.jsonl"
    path.parent.mkdir()
    write_run(path, [task("a", 0, "infrastructure_error", None),
                     task("a", 0, reward=0.0), task("a", 0, "infrastructure_error", None),
                     task("b", 0, reward=2.0),  # a forged reward: not a score
                     task("c", 1, reward=1.0000001, seed=5),
                     task("d", 0, seed="x"),  # no usable seed
                     task("e", 0, "harness_error", None)])
    base = load(path.parent, "scripted")  # the run directory works too
    assert base.units == {("a", 0): Unit(11, 0.0, False), ("c", 1): Unit(5, 1.0, False)}
    assert base.trials == 2 and len(base.fingerprint) == 16
    with pytest.raises(ConfigError, match="a scripted run, not tau2"):
        load(path, "tau2")
    empty = tmp_path / "empty.jsonl"
    write_run(empty, [task("a", 0, "infrastructure_error", None)])
    with pytest.raises(ConfigError, match="no scored task-trial"):
        load(empty, "scripted")
    with pytest.raises(ConfigError, match="no metrics file"):
        load(tmp_path / "missing", "scripted")


def config(**kw: Any) -> SimpleNamespace:
    values = {"num_trials": 1, "seed": 300, "target_ci": 0.1, "fail_under": None,
              "adaptive_gate": False, "allocate": "proportional", "retry_errors": False,
              "baseline": None, "benchmark": "scripted", "model_fields_set": set()}
    return SimpleNamespace(**(values | kw))


def test_start_pairs_the_baseline_with_this_runs_tasks(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    write_run(path, [task(f"t{i}", k, seed=100 + i) for i in range(6) for k in range(2)])
    seq = start(config(baseline=path), suite(4), {}, None)
    assert len(seq) == 8 and {i.seed for i in seq.items()} == {100, 101, 102, 103}
    assert seq.notes == ["4 of the baseline's 12 scored task-trials are not in this run's "
                         "task selection: compared on the other 8"]
    assert seq.header()["baseline"]["fingerprint"] == load(path, "scripted").fingerprint
    with pytest.raises(ConfigError, match="the baseline ran 2 trial"):
        start(config(baseline=path, num_trials=3), suite(4), {}, None)
    with pytest.raises(ConfigError, match="none of its scored task-trials"):
        start(config(baseline=path), [TaskSpec(task_id="other")], {}, None)


def test_a_resume_refuses_a_baseline_that_changed(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    write_run(path, [task(f"t{i}", 0) for i in range(4)])
    seq = start(config(baseline=path), suite(4), {}, None)
    records = [{"type": "run", "adaptive": seq.header()}]
    start(config(baseline=path), suite(4), {}, records)  # the same baseline: fine
    write_run(path, [task(f"t{i}", 0, reward=0.0) for i in range(4)])
    with pytest.raises(ResumeMismatch, match="holds other results"):
        start(config(baseline=path), suite(4), {}, records)


def test_the_order_seed_is_fresh_unless_seed_is_given() -> None:
    fresh = {order_seed(config(), None) for _ in range(5)}
    assert len(fresh) == 5  # a new order every run
    assert order_seed(config(model_fields_set={"seed"}), None) == 300  # --seed reproduces
    assert order_seed(config(), {"order_seed": 42}) == 42  # resume: the recorded one
    assert order_seed(config(), {"settings": {}}) == 300  # recorded before order seeds
    seq = start(config(), suite(4), {}, None)
    assert isinstance(seq.header()["order_seed"], int)


def test_uniform_order_is_refused_where_it_does_not_estimate_the_headline() -> None:
    with pytest.raises(ConfigError, match="macro average"):
        start(config(allocate="uniform"), suite(4), {"headline": "macro_category_mean"}, None)
    with pytest.raises(ConfigError, match="scored apart"):
        start(config(allocate="uniform"), suite(4),
              {"separate": {"confidentiality": ["c"]}}, None)


def test_serve_green_baseline_names_an_earlier_assessment_never_a_path(
        tmp_path: Path) -> None:
    run = tmp_path / "20260101T000000Z_tau2_airline_abcd1234"
    run.mkdir()
    (run / "metrics.jsonl").write_text("")
    assert earlier_run("abcd1234-0000-4000-8000-000000000000", tmp_path) == \
        run / "metrics.jsonl"
    assert earlier_run(None, tmp_path) is None
    for bad in ("../etc/passwd", "/abs/path", "*", 5, "abc"):
        with pytest.raises(RequestRejected, match="task id of an earlier assessment"):
            earlier_run(bad, tmp_path)
    with pytest.raises(RequestRejected, match="no earlier assessment"):
        earlier_run("ffff0000-0000", tmp_path)
