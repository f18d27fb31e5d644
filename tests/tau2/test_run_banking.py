"""`a2abench run tau2 --domain banking_knowledge` end to end: a real a2a-sdk white agent (the
gold agent), the real fake user LLM, an offline retrieval variant."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer
from tests.servers import serve
from tests.tau2 import gold_agent

# Tasks whose gold actions are all the agent's: log_verification, unlock, discoverable calls.
TASKS = ["task_046", "task_085"]


def _tasks() -> dict[str, Any]:
    d = load_domain("banking_knowledge", data_dir=shared_data("tau2").parent,
                    retrieval_variant="bm25")
    return {t.id: t for t in d.tasks(task_ids=TASKS)}


def _run(base: str, llm: FakeLLMServer, out: Path, variant: str) -> Any:
    return run_cli("run", "tau2", "--white-agent-url", base, "--domain", "banking_knowledge",
                   "--retrieval-variant", variant,
                   "--data-dir", str(shared_data("tau2").parent), "--user-llm", "fake-user",
                   "--user-llm-base-url", llm.base_url, "--output", str(out),
                   "--task-ids", TASKS[0], "--task-ids", TASKS[1], "--retry-delay", "0.01")


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("variant", ["bm25", "grep_only"])
def test_gold_agent_scores_one_with_an_offline_variant(tmp_path: Path, variant: str) -> None:
    tasks = _tasks()
    holder: dict[str, Any] = {}

    def factory(base: str) -> Any:
        app, holder["executor"] = gold_agent.app(base, tasks, "gold")
        return app

    server = FakeLLMServer(handler=gold_agent.gold_user(tasks))
    out = tmp_path / "gold.jsonl"
    with server.running(), serve(factory) as base:
        r = _run(base, server, out, variant)
    assert r.code == 0, r.err
    records = _records(out)
    run = next(x for x in records if x["type"] == "run")
    assert json.dumps(run).count(f'"retrieval_variant": "{variant}"') >= 1
    tasks_done = {x["task_id"]: x for x in records if x["type"] == "task"}
    assert {k: v["reward"] for k, v in tasks_done.items()} == {t: 1.0 for t in TASKS}
    first = holder["executor"].first_messages[0]
    assert ("KB_search" in first) == (variant == "bm25") and "unlock_discoverable" in first
    exported = tmp_path / "results.json"
    r = run_cli("report", str(out), "--format", "tau2", "--output", str(exported))
    assert r.code == 0, r.err
    results = json.loads(exported.read_text())
    assert results["info"]["retrieval_config"] == variant
    assert [s["reward_info"]["reward"] for s in results["simulations"]] == [1.0, 1.0]


def test_silent_agent_scores_zero(tmp_path: Path) -> None:
    tasks = _tasks()
    server = FakeLLMServer(handler=gold_agent.gold_user(tasks))
    out = tmp_path / "silent.jsonl"
    with server.running(), serve(lambda base: gold_agent.app(base, tasks, "silent")[0]) as base:
        r = _run(base, server, out, "bm25")
    assert r.code == 0, r.err
    assert all(x["reward"] == 0.0 for x in _records(out) if x["type"] == "task")


def test_unknown_and_online_variants_are_usage_errors(tmp_path: Path) -> None:
    for variant in ("nope", "openai_embeddings"):
        r = run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:1", "--domain",
                    "banking_knowledge", "--retrieval-variant", variant, "--data-dir",
                    str(shared_data("tau2").parent), "--user-llm", "x", "--output",
                    str(tmp_path / "x.jsonl"))
        assert r.code == 2, (variant, r.err)
        assert "bm25" in r.err
