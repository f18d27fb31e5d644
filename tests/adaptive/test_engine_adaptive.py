"""Adaptive runs of the scripted benchmark against a deterministic loopback A2A agent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from a2abench.report import build_report, render
from a2abench.run.registry import unregister
from tests.clihelp import run_cli
from tests.engine.conftest import agent, scripted_benchmark  # noqa: F401 - autouse fixture
from tests.engine.scripted import install


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def run(base: str, out: Path, *extra: str) -> Any:
    return run_cli("run", "scripted", "--white-agent-url", base, "--output", str(out),
                   "--retry-delay", "0.01", "--option", "turns=1", *extra)


# t000..t0xx: the agent echoes wrongly for ids in `wrong`, so those tasks always fail.
WRONG = frozenset(f"t{i:03d}" for i in range(0, 60, 3))  # every cat0 task: 1/3 fail


def test_target_ci_stops_early_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    with agent(wrong_for=WRONG) as (_, base):
        r = run(base, out, "--option", "tasks=60", "--num-trials", "4", "--target-ci",
                "0.2", "--concurrency", "2")
    assert r.code == 0, r.err
    recs = records(out)
    tasks = [x for x in recs if x["type"] == "task"]
    end = recs[-1]
    assert end["type"] == "run_end" and end["adaptive"]["stop_reason"] == "target_ci"
    assert len(tasks) < 240 and end["adaptive"]["n"] == len(tasks)
    assert end["adaptive"]["half_width"] <= 0.2
    assert recs[0]["adaptive"]["strata"] == {"cat0": 80, "cat1": 80, "cat2": 80}
    # stratified: every stratum within one (plus in-flight) of its share
    counts = {c: sum(t["category"] == c for t in tasks) for c in ("cat0", "cat1", "cat2")}
    assert max(counts.values()) - min(counts.values()) <= 2
    rep = build_report([out])
    assert rep.adaptive is not None and rep.adaptive["summary"]["n"] == len(tasks)
    assert rep.adaptive["summary"]["lower"] <= 2 / 3 <= rep.adaptive["summary"]["upper"]
    assert "PARTIAL" in r.out and "adaptive stop after" in r.out + r.err
    for fmt in ("markdown", "html", "junit", "json"):
        text = render(rep, fmt, [out])
        assert "of 240 task-trials" in text, fmt


@pytest.mark.parametrize(("threshold", "code", "decision"), [(0.4, 0, "pass"),
                                                              (0.9, 3, "fail")])
def test_adaptive_gate_decides_early(tmp_path: Path, threshold: float, code: int,
                                     decision: str) -> None:
    out = tmp_path / "m.jsonl"
    with agent(wrong_for=WRONG) as (_, base):
        r = run(base, out, "--option", "tasks=60", "--num-trials", "4", "--fail-under",
                str(threshold), "--adaptive-gate", "--allocate", "neyman")
    assert r.code == code, r.err
    end = records(out)[-1]
    assert end["adaptive"]["stop_reason"] == f"gate_{decision}"
    assert end["adaptive"]["n"] < 240
    assert f"Gate --fail-under {threshold:g}: {decision}" in r.out


@pytest.mark.slow
def test_kill_9_then_resume_continues_the_sequence(tmp_path: Path) -> None:
    from tests.engine.test_durability import resume, spawn, wait_for_tasks

    out = tmp_path / "m.jsonl"
    flags = ("--option", "tasks=60", "--option", "turns=1", "--num-trials", "4",
             "--target-ci", "0.2", "--concurrency", "3")
    with agent(wrong_for=WRONG, delay=0.05) as (_, base):
        proc = spawn(base, out, *flags)
        wait_for_tasks(out, 8, proc)
        proc.kill()  # SIGKILL: no run_end, task-trials in flight never recorded
        proc.communicate()
        # In this process: what is proved is the file it continues (the kill is the run's).
        resume(base, out, *flags)
    recs = records(out)
    tasks = [x for x in recs if x["type"] == "task"]
    picks = sorted(t["adaptive"]["pick"] for t in tasks)
    assert len(set(picks)) == len(picks)  # every pick recorded once
    voids = {p for r in recs if r["type"] == "run" for p in r["adaptive"]["void_picks"]}
    assert set(range(max(picks) + 1)) == set(picks) | voids  # no hole left in the path
    end = recs[-1]["adaptive"]
    assert recs[-1]["type"] == "run_end" and end["stop_reason"] == "target_ci"
    rep = build_report([out])
    summary = rep.adaptive["summary"]  # type: ignore[index]
    assert (summary["n"], summary["lower"], summary["upper"]) == (
        end["n"], end["lower"], end["upper"])  # the report rebuilds what the engine saw


def _baseline(base: str, out: Path) -> None:
    r = run(base, out, "--option", "tasks=60", "--num-trials", "4", "--seed", "9")
    assert r.code == 0, r.err


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One full run of the WRONG agent (seed 9), the baseline of every A/B test here: each
    built the same one. Read only; a test that changes it works on a copy."""
    first = tmp_path_factory.mktemp("baseline") / "base"
    install()  # the autouse fixture registers it for each test, after this one is made
    try:
        with agent(wrong_for=WRONG) as (_, base):
            _baseline(base, first)
    finally:
        unregister("scripted")
    return first


@pytest.mark.slow
@pytest.mark.parametrize(("wrong", "code", "reason"), [
    (frozenset(), 0, "gate_pass"),  # better: cat0's failures now pass
    (WRONG, 0, "gate_pass"),  # the same agent: equal within the margin
    (frozenset(f"t{i:03d}" for i in range(0, 60, 2)), 3, "gate_fail"),  # worse
])
def test_ab_against_a_baseline_run(tmp_path: Path, baseline: Path, wrong: frozenset[str],
                                   code: int, reason: str) -> None:
    first, second = baseline, tmp_path / "ab.jsonl"
    with agent(wrong_for=wrong) as (_, base):
        r = run(base, second, "--option", "tasks=60", "--baseline", str(first),
                "--adaptive-gate", "--target-ci", "0.05", "--concurrency", "3")
    assert r.code == code, r.err
    recs = records(second)
    baseline_tasks = {(t["task_id"], t["trial"]): t for t in records(first / "metrics.jsonl")
                      if t["type"] == "task"}
    tasks = [x for x in recs if x["type"] == "task"]
    for t in tasks:  # the baseline's task-trials, with its seeds and rewards
        mine = baseline_tasks[(t["task_id"], t["trial"])]
        assert t["seed"] == mine["seed"] and t["adaptive"]["baseline"] == mine["reward"]
    end = recs[-1]["adaptive"]
    assert end["stop_reason"] == reason and end["n"] < end["N"] == 240
    assert recs[0]["adaptive"]["baseline"]["score"] == pytest.approx(1 - 20 / 60)
    rep = build_report([second])
    text = render(rep, "markdown", [second])
    assert "A/B: difference new − baseline" in text and "Flipped:" in text
    flips = rep.adaptive["summary"]["paired"]["flipped"]  # type: ignore[index]
    if wrong == frozenset():  # every flip is a cat0 task now passing
        assert flips["to_fail"]["count"] == 0 < flips["to_pass"]["count"]
        html = render(rep, "html", [second])
        assert "Fail → pass against the baseline: <a href=\"#trial=" in html
    if code == 3:
        assert "worse than the baseline" in r.err


@pytest.mark.slow
def test_ab_resume_refuses_a_changed_baseline(tmp_path: Path, baseline: Path) -> None:
    first, second = tmp_path / "base", tmp_path / "ab.jsonl"
    shutil.copytree(baseline, first)  # changed below
    with agent(wrong_for=WRONG) as (_, base):
        r = run(base, second, "--option", "tasks=60", "--baseline", str(first),
                "--target-ci", "0.3")
        assert r.code == 0, r.err
        with (first / "metrics.jsonl").open("a") as f:  # the baseline grows a result
            f.write(json.dumps({"type": "task", "run_id": "x", "benchmark": "scripted",
                                "task_id": "t000", "trial": 7, "seed": 1, "status": "ok",
                                "reward": 1.0, "success": True}) + "\n")
        again = run(base, second, "--option", "tasks=60", "--baseline", str(first),
                    "--target-ci", "0.3", "--resume")
    assert again.code != 0 and "holds other results than when this run started" in again.err


def test_every_run_draws_a_fresh_order_unless_seed_is_given(tmp_path: Path) -> None:
    seeds = []
    with agent() as (_, base):
        for name, extra in (("a", ()), ("b", ()), ("c", ("--seed", "5"))):
            out = tmp_path / f"{name}.jsonl"
            r = run(base, out, "--option", "tasks=6", "--target-ci", "0.4", *extra)
            assert r.code == 0, r.err
            seeds.append(records(out)[0]["adaptive"]["order_seed"])
    assert seeds[0] != seeds[1] and seeds[2] == 5


def test_unscored_results_keep_counting_and_the_report_says_so(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    with agent() as (_, base):  # t001 raises a harness bug: both its trials are unscored
        r = run(base, out, "--option", "tasks=12", "--option", "boom_task=t001",
                "--num-trials", "2", "--allocate", "uniform", "--concurrency", "2")
    assert r.code == 0, r.err
    recs = records(out)
    tasks = [t for t in recs if t["type"] == "task"]
    end = recs[-1]["adaptive"]
    assert sum(t["status"] == "harness_error" for t in tasks) == 2 == end["errors"]
    assert end["n"] == len(tasks) == 24 and end["stop_reason"] == "exhausted"
    assert (end["lower"], end["upper"]) == (pytest.approx(22 / 24), pytest.approx(1.0))
    assert recs[0]["adaptive"]["strata"] == {"all": 24}
    text = render(build_report([out]), "markdown", [out])
    assert "Errors: 2 unscored task-trial(s)" in text
