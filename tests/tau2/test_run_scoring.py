"""Scoring options through `run tau2`: the NL judge, nl_skipped, classic basis, rescoring."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.models import Task
from a2abench.run.config import trial_seed
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve
from tests.tau2 import gold_agent
from tests.tau2.test_golden import TEST_PROMPT

TASKS = ["36", "70"]


@pytest.fixture(scope="module")
def retail() -> Any:
    return load_domain("retail", data_dir=shared_data("tau2").parent)


@pytest.fixture
def judged(retail: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Our own stand-in for upstream's judge prompt (upstream text is never committed).
    monkeypatch.setattr(retail, "judge_prompt", TEST_PROMPT)


@pytest.fixture(scope="module")
def llm(retail: Any) -> Iterator[FakeLLMServer]:
    tasks: dict[str, Task] = {t.id: t for t in retail.tasks(task_ids=TASKS)}
    seeds = {trial_seed(300, i, 0): i for i in tasks}
    judged: list[dict[str, Any]] = []

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        if body["model"] == "judge":
            judged.append(body)
            user = body["messages"][1]["content"]
            assertions = [a for t in tasks.values() for a in t.evaluation_criteria.nl_assertions
                          if a in user]  # type: ignore[union-attr]
            return completion(json.dumps({"results": [
                {"expectedOutcome": a, "reasoning": "stated", "metExpectation": True}
                for a in assertions]}))
        task_id = seeds[body["seed"]]
        if not [m for m in body["messages"] if m["role"] == "assistant"]:
            return completion(f"TASK:{task_id} hi")
        return completion("###STOP###")

    server = FakeLLMServer(handler=handler)
    server.judged = judged  # type: ignore[attr-defined]
    with server.running():
        yield server


def run(llm: FakeLLMServer, base: str, out: Path, *extra: str) -> Any:
    return run_cli("run", "tau2", "--white-agent-url", base, "--domain", "retail",
                   "--data-dir", str(shared_data("tau2").parent), "--user-llm", "user",
                   "--user-llm-base-url", llm.base_url, "--output", str(out),
                   "--task-ids", TASKS[0], "--task-ids", TASKS[1], *extra)


def tasks_of(path: Path) -> dict[str, dict[str, Any]]:
    return {r["task_id"]: r for r in map(json.loads, path.read_text().splitlines())
            if r["type"] == "task"}


def agent(retail: Any) -> Any:
    tasks = {t.id: t for t in retail.tasks(task_ids=TASKS)}
    return lambda base: gold_agent.app(base, tasks, "gold")[0]


def test_the_judge_scores_nl_assertions(tmp_path: Path, retail: Any, judged: None,
                                        llm: FakeLLMServer) -> None:
    out = tmp_path / "judged.jsonl"
    with serve(agent(retail)) as base:
        r = run(llm, base, out, "--judge-llm", "judge")
    assert r.code == 0, r.err
    records = tasks_of(out)
    assert all(v["reward"] == 1.0 and v["labels"] == [] for v in records.values())
    assert records["36"]["reward_components"] == {"DB": 1.0, "NL_ASSERTION": 1.0}
    request = llm.judged[-1]  # type: ignore[attr-defined]
    assert request["temperature"] == 0.0 and "assistant: All done." in \
        request["messages"][1]["content"]


def test_without_a_judge_nl_is_skipped_and_reported(tmp_path: Path, retail: Any,
                                                    llm: FakeLLMServer) -> None:
    out = tmp_path / "skipped.jsonl"
    with serve(agent(retail)) as base:
        r = run(llm, base, out)
    assert r.code == 0, r.err
    assert all(v["labels"] == ["nl_skipped"] for v in tasks_of(out).values())
    assert "2 task-trial(s) were scored without their NL assertions" in r.err
    report = json.loads(run_cli("report", str(out), "--format", "json").out)
    assert report["scoring_labels"] == {"nl_skipped": 2}


def test_rescoring_adds_the_judge_later(tmp_path: Path, retail: Any, judged: None,
                                        llm: FakeLLMServer) -> None:
    out = tmp_path / "later.jsonl"
    with serve(agent(retail)) as base:
        assert run(llm, base, out).code == 0
    rescored = tmp_path / "rescored.jsonl"
    r = run_cli("report", str(out), "--rescore", "--scoring", "judge_llm=judge",
                "--rescored-output", str(rescored), "--format", "json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["scoring_labels"] == {}
    assert all(v["reward_components"].get("NL_ASSERTION") == 1.0
               for v in tasks_of(rescored).values())


def test_classic_basis_scores_retail_like_v0_2(tmp_path: Path, retail: Any,
                                               llm: FakeLLMServer) -> None:
    out = tmp_path / "classic.jsonl"
    with serve(agent(retail)) as base:
        r = run(llm, base, out, "--reward-basis", "classic")
    assert r.code == 0, r.err
    records = tasks_of(out)
    assert all(v["labels"] == ["classic"] for v in records.values())
    assert set(records["70"]["reward_components"]) == {"DB", "COMMUNICATE"}
    run_record = json.loads(out.read_text().splitlines()[0])
    assert run_record["models"]["reward_basis"] == "classic"


def test_tau2_results_export(tmp_path: Path, retail: Any, llm: FakeLLMServer) -> None:
    out = tmp_path / "export.jsonl"
    with serve(agent(retail)) as base:
        assert run(llm, base, out).code == 0
    target = tmp_path / "results.json"
    assert run_cli("report", str(out), "--format", "tau2", "--output", str(target)).code == 0
    results = json.loads(target.read_text())
    assert {t["id"] for t in results["tasks"]} == set(TASKS)
    sims = results["simulations"]
    assert len(sims) == 2 and sims[0]["termination_reason"] == "user_stop"
    assert sims[0]["reward_info"]["reward_basis"] == ["DB", "NL_ASSERTION"]
    assert results["info"]["environment_info"]["domain_name"] == "retail"
