"""Adaptive assessment end to end: `run tau2`, `run crmarena` and serve-green against real
deterministic A2A agents on loopback (tau2's gold agent with a scripted fake user LLM;
CRMArena's SQL agent on the synthetic org)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.crmarena import upstream
from a2abench.benchmarks.crmarena.upstream import TextSource
from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.models import Task
from a2abench.green import GreenSettings
from a2abench.report import build_report, render
from a2abench.run.config import trial_seed
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.crmarena import crm_agent
from tests.crmarena.orgs import small_b2b
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.green.helpers import (
    STATE,
    agentbeats,
    green_server,
    metrics_of,
    result_of,
    sdk_client,
    send,
)
from tests.servers import serve
from tests.tau2 import gold_agent

pytestmark = pytest.mark.slow

TASKS = ["3", "14", "19"]
TRIALS = 12  # 36 task-trials: enough for the sequence to decide before the end


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def airline() -> dict[str, Task]:
    domain = load_domain("airline", data_dir=shared_data("tau2").parent)
    return {t.id: t for t in domain.tasks(task_ids=TASKS)}


@pytest.fixture(scope="module")
def user_llm(airline: dict[str, Task]) -> Iterator[FakeLLMServer]:
    """Names the task on the first turn, stops once the agent has spoken (every trial)."""
    seeds = {trial_seed(300, t, k): t for t in airline for k in range(TRIALS)}

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        if not [m for m in body["messages"][1:] if m["role"] == "assistant"]:
            return completion(f"TASK:{seeds[body['seed']]} I need help with my booking.")
        return completion("Thanks, that is all. ###STOP###")

    server = FakeLLMServer(handler=handler)
    with server.running():
        yield server


def tau2(agent: str, llm: FakeLLMServer, out: Path, *extra: str) -> Any:
    ids = [a for t in TASKS for a in ("--task-ids", t)]
    return run_cli("run", "tau2", "--white-agent-url", agent, "--domain", "airline",
                   "--data-dir", str(shared_data("tau2").parent), "--user-llm", "fake-user",
                   "--user-llm-base-url", llm.base_url, "--output", str(out), *ids,
                   "--num-trials", str(TRIALS), "--retry-delay", "0.01", *extra)


@pytest.mark.parametrize(("mode", "code", "decision"), [("gold", 0, "pass"),
                                                         ("silent", 3, "fail")])
def test_tau2_adaptive_gate_with_neyman_and_target(tmp_path: Path, airline: dict[str, Task],
                                                   user_llm: FakeLLMServer, mode: str,
                                                   code: int, decision: str) -> None:
    out = tmp_path / "m.jsonl"
    with serve(lambda base: gold_agent.app(base, airline, mode)[0]) as base:
        r = tau2(base, user_llm, out, "--target-ci", "0.1", "--adaptive-gate",
                 "--fail-under", "0.5", "--allocate", "neyman", "--concurrency", "2")
    assert r.code == code, r.err
    recs = lines(out)
    tasks = [x for x in recs if x["type"] == "task"]
    end = recs[-1]["adaptive"]
    assert end["stop_reason"] == f"gate_{decision}" and end["decision"] == decision
    assert len(tasks) < len(TASKS) * TRIALS and end["N"] == len(TASKS) * TRIALS
    assert all(t["adaptive"]["stratum"] == "airline" for t in tasks)
    assert recs[0]["adaptive"]["settings"]["allocate"] == "neyman"
    assert f"Gate --fail-under 0.5: {decision}" in r.out
    assert f"of {len(TASKS) * TRIALS} task-trials (PARTIAL run, not a full one)" in r.out
    # report, alone, says the same and gates the same (exit code 0 / 3)
    again = run_cli("report", str(out), "--fail-under", "0.5")
    assert again.code == code, again.err
    assert "Cost: task-trials" in again.out


def test_tau2_resume_continues_the_same_sequence(tmp_path: Path, airline: dict[str, Task],
                                                 user_llm: FakeLLMServer) -> None:
    out = tmp_path / "m.jsonl"
    with serve(lambda base: gold_agent.app(base, airline, "gold")[0]) as base:
        first = tau2(base, user_llm, out, "--target-ci", "0.3", "--concurrency", "1")
        assert first.code == 0, first.err
        n = lines(out)[-1]["adaptive"]["n"]
        # A narrower target on resume would change the plan: refused like any change.
        refused = tau2(base, user_llm, out, "--target-ci", "0.2", "--resume")
        assert refused.code != 0 and "target_ci" in refused.err
        same = tau2(base, user_llm, out, "--target-ci", "0.3", "--resume")
    assert same.code == 0, same.err
    assert lines(out)[-1]["adaptive"]["n"] == n  # the rule was already met: nothing more ran
    rep = build_report([out])
    assert rep.adaptive is not None and rep.adaptive["summary"]["n"] == n


def test_shard_with_adaptive_modes_is_refused(tmp_path: Path) -> None:
    r = run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:9", "--domain",
                "airline", "--target-ci", "0.05", "--shard", "1/2", "--output",
                str(tmp_path / "m.jsonl"))
    assert r.code == 2  # a usage error, before anything is written
    assert "--shard cannot be combined with --target-ci" in r.err
    assert not (tmp_path / "m.jsonl").exists()


async def test_serve_green_tau2_target_ci(tmp_path: Path, airline: dict[str, Task],
                                          user_llm: FakeLLMServer) -> None:
    settings = GreenSettings(output_dir=tmp_path, max_trials=TRIALS, presets={"tau2": {
        "data_dir": str(shared_data("tau2").parent), "user_llm_base_url": user_llm.base_url,
        "user_llm": "fake-user"}})
    with serve(lambda base: gold_agent.app(base, airline, "gold")[0]) as gold, \
            green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            out = await send(client, agentbeats(
                gold, benchmark="tau2", domain="airline", task_ids=TASKS, num_trials=TRIALS,
                user_llm="fake-user", target_ci=0.25, adaptive_gate=True, fail_under=0.5,
                allocate="neyman"))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    text, data = result_of(out.task)  # type: ignore[arg-type]
    adaptive = data["adaptive"]
    assert adaptive["partial"] and adaptive["N"] == 36 and adaptive["n"] < 36
    assert adaptive["stop_reason"] in ("target_ci", "gate_pass")
    assert adaptive["confidence"] == 0.95 and adaptive["lower"] <= 1.0 <= adaptive["upper"]
    assert data["config"]["target_ci"] == 0.25 and data["config"]["allocate"] == "neyman"
    assert "PARTIAL run" in text and "95% confidence sequence" in text
    metrics = lines(Path(metrics_of(tmp_path, out.task)))  # type: ignore[arg-type]
    assert metrics[0]["adaptive"]["settings"]["target_ci"] == 0.25


async def test_serve_green_ab_against_an_earlier_assessment(
        tmp_path: Path, airline: dict[str, Task], user_llm: FakeLLMServer) -> None:
    settings = GreenSettings(output_dir=tmp_path, max_trials=TRIALS, presets={"tau2": {
        "data_dir": str(shared_data("tau2").parent), "user_llm_base_url": user_llm.base_url,
        "user_llm": "fake-user"}})
    request = {"benchmark": "tau2", "domain": "airline", "task_ids": TASKS, "num_trials": 4,
               "user_llm": "fake-user"}
    with serve(lambda base: gold_agent.app(base, airline, "gold")[0]) as gold, \
            green_server(settings) as (base, _):
        async with sdk_client(base) as client:
            first = await send(client, agentbeats(gold, **request))
            assert first.state == STATE.TASK_STATE_COMPLETED, first.final_text()
            out = await send(client, agentbeats(
                gold, **request, baseline=first.task.id,  # type: ignore[union-attr]
                target_ci=0.2, adaptive_gate=True))
            path = await send(client, agentbeats(gold, **request, baseline="../../etc"))
    assert out.state == STATE.TASK_STATE_COMPLETED, out.final_text()
    text, data = result_of(out.task)  # type: ignore[arg-type]
    paired = data["adaptive"]["paired"]
    assert paired["lower"] <= 0.0 <= paired["upper"] and paired["baseline_score"] == 1.0
    assert data["adaptive"]["decision"] == "pass" and data["adaptive"]["N"] == 12
    assert "difference against the baseline" in text
    assert path.state == STATE.TASK_STATE_REJECTED
    assert "task id of an earlier assessment" in path.final_text()


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return small_b2b(tmp_path_factory.mktemp("crm_adaptive"))


def test_crmarena_target_ci_over_categories(tmp_path: Path, org: dict[str, Any],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upstream, "resolve_texts",
                        lambda base_url=None: TextSource(org["texts"]))
    out = tmp_path / "m.jsonl"
    with serve(lambda base: crm_agent.app(base, org["tasks"], "sql")[0]) as base:
        r = run_cli("run", "crmarena", "--white-agent-url", base, "--tasks-file",
                    str(org["file"]), "--crm-db", str(org["db"]), "--output", str(out),
                    "--judge-llm", "offline", "--num-trials", "6", "--target-ci", "0.3",
                    "--allocate", "neyman", "--retry-delay", "0.01", "--concurrency", "2")
    assert r.code == 0, r.err
    recs = lines(out)
    header, end = recs[0]["adaptive"], recs[-1]["adaptive"]
    categories = {t.category for t in org["tasks"]}
    assert set(header["strata"]) == categories
    # the headline is a macro average: each scored category weighs the same, the
    # confidentiality categories (scored apart) nothing
    assert sorted(set(header["weights"].values()))[0] == 0.0
    assert end["stop_reason"] == "target_ci" and end["n"] < end["N"] == 6 * len(categories)
    rep = build_report([out])
    assert rep.score == rep.adaptive["summary"]["estimate"] == 1.0  # type: ignore[index]
    html = render(rep, "html", [out])
    assert "Adaptive: adaptive (target ±0.3, neyman allocation)" in html


def test_benchmark_formats_refuse_a_partial_adaptive_run(tmp_path: Path,
                                                         airline: dict[str, Task],
                                                         user_llm: FakeLLMServer) -> None:
    out = tmp_path / "m.jsonl"
    with serve(lambda base: gold_agent.app(base, airline, "gold")[0]) as base:
        assert tau2(base, user_llm, out, "--target-ci", "0.3").code == 0
    r = run_cli("report", str(out), "--format", "tau2")
    assert r.code == 2 and "partial adaptive run" in r.err and "no way to say so" in r.err
