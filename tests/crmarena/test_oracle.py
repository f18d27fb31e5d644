"""An oracle that answers every reference task (../shared/data/crmarena/tasks) with its ground
truth scores 1.0: single-answer exact_match tasks through the fast path, free-text tasks with
F1 1.0, multi-answer tasks (activity_priority lists) by extraction, privacy tasks by refusing.

Every task goes through the reply parser and the evaluator in-process (3,310 tasks in about a
second); a sample of every category also runs over A2A through `a2abench run crmarena`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.crmarena.actions import parse_reply
from a2abench.benchmarks.crmarena.evaluator import Evaluator
from a2abench.benchmarks.crmarena.synthetic import generate_org
from a2abench.benchmarks.crmarena.tasks import CRMTask, read_rows, tasks_from_rows
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.crmarena import crm_agent
from tests.servers import serve

FILES = {"b2b": "crmarenapro_b2b_tasks.json", "original": "crmarena_original_tasks_natural.json"}
EXPECTED_PATHS = {
    "b2b": {("exact_match", "fast_path"): 1620, ("exact_match", "offline_extraction"): 80,
            ("fuzzy_match", "fuzzy"): 200, ("privacy_rejection", "offline_refusal"): 240},
    "original": {("exact_match", "fast_path"): 1040, ("fuzzy_match", "fuzzy"): 130},
}


def reference(org: str) -> tuple[Path, list[CRMTask]]:
    path = shared_data("crmarena", "tasks", FILES[org])
    return path, tasks_from_rows(read_rows(path))


@pytest.mark.parametrize("org", ["b2b", "original"])
async def test_every_reference_task_scores_one(org: str) -> None:
    _, tasks = reference(org)
    evaluator = Evaluator(None, None)
    paths: Counter[tuple[str, str]] = Counter()
    for task in tasks:
        text, data = crm_agent.oracle_reply(task)
        action = parse_reply(text, [data] if data else [])
        assert action is not None and action.name == "respond"
        v = await evaluator.evaluate(category=task.category, metric=task.reward_metric,
                                     truth=task.answer, proposed=action.content,
                                     trajectory=[action.content])
        assert v.reward == 1.0, (task.idx, task.answer, v)
        if task.reward_metric == "fuzzy_match":
            assert v.components["f1"] == 1.0 and v.components["em"] is True
        paths[(task.reward_metric, v.path)] += 1
    assert paths == EXPECTED_PATHS[org]


def sample(tasks: list[CRMTask], per_category: int) -> list[int]:
    seen: Counter[str] = Counter()
    out = []
    for t in tasks:
        if seen[t.category] < per_category:
            seen[t.category] += 1
            out.append(t.idx)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("org", ["b2b", "original"])
def test_the_oracle_over_a2a(tmp_path: Path, org: str) -> None:
    path, tasks = reference(org)
    chosen = sample(tasks, 6)
    db = tmp_path / f"{org}.db"
    generate_org(db, org=org, seed=0, scale="tiny")  # the oracle never queries
    ids = [a for i in chosen for a in ("--task-ids", str(i))]
    out = tmp_path / "oracle.jsonl"
    with serve(lambda base: crm_agent.app(base, tasks, "oracle")[0]) as base:
        r = run_cli("run", "crmarena", "--white-agent-url", base, "--org", org,
                    "--tasks-file", str(path), "--crm-db", str(db), "--judge-llm", "offline",
                    "--output", str(out), "--concurrency", "8", *ids)
    assert r.code == 0, r.err
    recs: dict[str, dict[str, Any]] = {}
    for line in out.read_text().splitlines():
        rec = json.loads(line)
        if rec["type"] == "task":
            recs[rec["task_id"]] = rec
    assert sorted(recs) == sorted(str(i) for i in chosen)
    by_idx = {t.idx: t for t in tasks}
    for key, rec in recs.items():
        task = by_idx[int(key)]
        assert (rec["reward"], rec["category"], rec["domain"]) == (1.0, task.category, org)
        if task.reward_metric == "exact_match" and len(task.answer) == 1:
            assert rec["details"]["scoring_path"] == "fast_path"
    assert "1.0000" in r.out
