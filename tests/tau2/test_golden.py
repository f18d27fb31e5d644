"""a2abench's tau2 tools and scoring against hashes recorded from upstream tau2-bench.

The corpus (tau2_corpus.py) was run once through upstream at the pinned commit; golden/*.json
holds sha256 of every tool output, the error flag, the final DB hashes, the rewards of the
synthetic trajectories and the sha256 of every tool schema (with and without descriptions).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from a2abench.benchmarks.tau2.evaluator import evaluate
from a2abench.benchmarks.tau2.toolkit import strip_descriptions
from a2abench.benchmarks.tau2.upstream import JudgePrompt
from tests.tau2 import tau2_corpus as corpus
from tests.tau2 import tau2_harness as harness
from tests.tau2.tau2_support import data_root, domain, upstream_domain

DOMAINS = ["airline", "retail", "mock", "telecom"]
# Over 2 s of CPU alone (telecom's trajectories each replay on a deep DB): the full suite's.
SLOW_REWARDS = [*DOMAINS[:3], pytest.param("telecom", marks=pytest.mark.slow)]
# Our own stand-in for the judge prompt: the verdicts come from the fake judge either way.
TEST_PROMPT = JudgePrompt("Judge the conversation.",
                          ("conversation:\n", None, "\nexpectedOutcomes:\n", None))


@pytest.mark.parametrize("name", DOMAINS)
def test_tool_outputs_errors_and_db_hashes_match_upstream(name: str) -> None:
    d = domain(name)
    expected = harness.golden(name)["sequences"]
    seqs = corpus.sequences(data_root(), name)
    assert {s["id"] for s in seqs} == set(expected)
    mismatched = [s["id"] for s in seqs
                  if not harness.matches(harness.run_sequence(d, s), expected[s["id"]])]
    assert mismatched == []


@pytest.mark.parametrize("name", SLOW_REWARDS)
def test_rewards_match_upstream(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    d = domain(name)
    monkeypatch.setattr(d, "judge_prompt", TEST_PROMPT)
    expected = harness.golden(name)["trajectories"]
    mismatched = []
    # One event loop for them all: asyncio.run per trajectory made a loop each time, and its
    # SIGINT bookkeeping formatted the finished task's repr (the whole RewardInfo).
    with asyncio.Runner() as runner:
        for traj in corpus.trajectories(data_root(), name):
            got = _score(d, traj, runner.get_loop())
            if got != expected[traj["id"]]:
                mismatched.append((traj["id"], got, expected[traj["id"]]))
    assert mismatched == []


def _score(d: Any, traj: dict[str, Any], loop: asyncio.AbstractEventLoop) -> dict[str, Any]:
    try:
        task, messages = harness.build_trajectory(d, traj)
        info = loop.run_until_complete(evaluate(task, messages, traj["termination"], domain=d,
                                                judge=harness.all_true_judge))
    except Exception as exc:  # upstream raised too for these (recorded as "exception")
        return {"exception": f"{type(exc).__name__}: {exc}"[:300]}
    assert not info.nl_skipped
    return {"reward": info.reward,
            "breakdown": {k.value: v for k, v in (info.reward_breakdown or {}).items()},
            "db_match": info.db_check.db_match if info.db_check else None,
            "basis": [b.value for b in info.reward_basis] if info.reward_basis else None}


@pytest.mark.parametrize("name", DOMAINS)
def test_schemas_are_structurally_identical_to_upstream(name: str) -> None:
    d = domain(name)
    expected = harness.golden(name)["schemas"]
    schemas = d.agent_tool_schemas() + d.user_tool_schemas()
    assert sorted(s["function"]["name"] for s in schemas) == sorted(expected)
    for schema in schemas:
        digest = harness.sha(harness.canon(strip_descriptions(schema)))
        assert digest == expected[schema["function"]["name"]]["stripped"], schema


@pytest.mark.parametrize("name", DOMAINS)
def test_schemas_with_upstream_text_are_identical_to_upstream(name: str) -> None:
    d = upstream_domain(name)
    assert d.tool_text_source == "upstream"
    expected = harness.golden(name)["schemas"]
    for schema in d.agent_tool_schemas() + d.user_tool_schemas():
        assert harness.sha(harness.canon(schema)) == expected[schema["function"]["name"]]["full"]


def test_tool_counts() -> None:
    assert len(domain("airline").agent_tool_schemas()) == 14
    assert len(domain("retail").agent_tool_schemas()) == 16
    mock, telecom = domain("mock"), domain("telecom")
    assert [len(mock.agent_tool_schemas()), len(mock.user_tool_schemas())] == [4, 2]
    assert [len(telecom.agent_tool_schemas()), len(telecom.user_tool_schemas())] == [13, 30]
