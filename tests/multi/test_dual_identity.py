"""The identity guarantee of scenario dual (issue 37): with a2abench's example user participant
(`a2abench-example-agent user`, which wraps the built-in LLM user simulator) in the user
seat, every transcript and reward equals the in-process user's, on the same tasks and seeds,
in all five tau2 domains; and the user LLM receives exactly the same requests, so a cache
filled by one run serves the other."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.multi.dual_world import (
    comparable,
    example_user,
    gold,
    records,
    run_tau2,
    tasks_of,
    user_llm,
)

pytestmark = pytest.mark.slow

MOCK_PLANS = {"update_task_with_history_and_env_assertions":
              [("update_task_status", {"task_id": "task_2", "status": "completed"})]}
CASES = {
    # domain: (task ids or None for the first N, N, trials, extra run flags, load options)
    "airline": (["0", "3", "14"], None, 2, (), {}),
    "retail": (["0", "1", "5"], None, 1, (), {}),
    "mock": (None, None, 1, (), {}),  # every task: message histories, user tools
    "telecom": (None, 4, 1, (), {}),  # the user fixes its own phone with its tools
    "banking_knowledge": (["task_001", "task_046"], None, 1,
                          ("--retrieval-variant", "bm25"), {"retrieval_variant": "bm25"}),
}


def _bodies(llm: FakeLLMServer, since: int) -> Counter[str]:
    return Counter(json.dumps(r.json, sort_keys=True) for r in llm.requests[since:])


@pytest.mark.parametrize("domain", list(CASES))
def test_the_example_user_gives_the_built_in_users_transcripts_and_rewards(
        tmp_path: Path, domain: str) -> None:
    ids, count, trials, flags, load = CASES[domain]
    tasks = tasks_of(domain, ids, count, **load)
    chosen = list(tasks)
    llm = FakeLLMServer(handler=user_llm(tasks, trials))
    plans = MOCK_PLANS if domain == "mock" else None
    common = ("--num-trials", str(trials), *flags)
    with llm.running(), gold(tasks, plans=plans) as agent:
        built_in = run_tau2(domain, agent, tmp_path / "built-in.jsonl", chosen, *common,
                            "--user-llm", "fake-user", "--user-llm-base-url", llm.base_url)
        assert built_in.code == 0, built_in.err
        asked = _bodies(llm, 0)
        before = len(llm.requests)
        with example_user(llm) as user:
            dual = run_tau2(domain, agent, tmp_path / "dual.jsonl", chosen, *common,
                            "--user-agent-url", user)
        assert dual.code == 0, dual.err
    assert llm.handler_errors == []
    assert _bodies(llm, before) == asked  # the same requests, one for one
    mine = {(r["task_id"], r["trial"]): comparable(r) for r in records(tmp_path / "built-in.jsonl")}
    theirs = {(r["task_id"], r["trial"]): comparable(r) for r in records(tmp_path / "dual.jsonl")}
    assert len(mine) == len(chosen) * trials
    assert theirs == mine
    assert any(r["reward"] == 1.0 for r in mine.values())  # the matches are real ones
    if domain in ("telecom", "banking_knowledge"):  # the user's own tools ran, on its side
        assert any(m["role"] == "tool" and m["requestor"] == "user"
                   for r in mine.values() for m in r["transcript"])
    dual_records = records(tmp_path / "dual.jsonl")
    assert all(r["match"]["roles"] == {"agent": "agent", "user": "user"}
               and r["match"]["pairing"] == "agent+user" for r in dual_records)
    assert all(r["match"]["usage"]["user"]["requests"] >= 1 for r in dual_records)
    run = records(tmp_path / "dual.jsonl", "run")[0]
    assert run["lineup"]["participants"]["user"]["url"] == user
    assert run["models"]["user_simulator"] is None  # nobody in-process played the user


def test_a_single_agent_runs_records_are_unchanged(tmp_path: Path) -> None:
    """The keys of a single-agent run's records are today's: no match block, no lineup, no
    multi-party settings in the run record."""
    tasks = tasks_of("airline", ["3"])
    llm = FakeLLMServer(handler=user_llm(tasks))
    with llm.running(), gold(tasks) as agent:
        r = run_tau2("airline", agent, tmp_path / "m.jsonl", ["3"], "--user-llm", "u",
                     "--user-llm-base-url", llm.base_url)
    assert r.code == 0, r.err
    (task,) = records(tmp_path / "m.jsonl")
    (run,) = records(tmp_path / "m.jsonl", "run")
    assert "match" not in task and "lineup" not in run
    assert not {"user_agent_url", "pairing", "scenario", "participant"} & set(run["config"])
    requests: list[dict[str, Any]] = records(tmp_path / "m.jsonl", "request")
    assert requests and all("participant" not in q for q in requests)


def test_the_user_participants_tools_over_mcp(tmp_path: Path) -> None:
    """--tool-channel mcp: the user participant's own tools are an MCP session of its own.
    The example user calls them there; the user LLM sees exactly what the built-in user's
    sees, and the rewards are the built-in user's."""
    tasks = tasks_of("telecom", None, 3)
    chosen = list(tasks)
    llm = FakeLLMServer(handler=user_llm(tasks))
    flags = ("--tool-channel", "mcp", "--mcp-port", "0")
    with llm.running(), gold(tasks, "mcp") as agent:
        built_in = run_tau2("telecom", agent, tmp_path / "built-in.jsonl", chosen, *flags,
                            "--user-llm", "fake-user", "--user-llm-base-url", llm.base_url)
        assert built_in.code == 0, built_in.err
        asked, before = _bodies(llm, 0), len(llm.requests)
        with example_user(llm) as user:
            dual = run_tau2("telecom", agent, tmp_path / "dual.jsonl", chosen, *flags,
                            "--user-agent-url", user)
        assert dual.code == 0, dual.err
    assert _bodies(llm, before) == asked
    mine = {r["task_id"]: r for r in records(tmp_path / "built-in.jsonl")}
    theirs = {r["task_id"]: r for r in records(tmp_path / "dual.jsonl")}
    assert {k: r["reward"] for k, r in theirs.items()} == {k: r["reward"] for k, r in mine.items()}
    assert all(r["reward"] == 1.0 for r in theirs.values())
    calls = [m for r in theirs.values() for m in r["transcript"]
             if m["role"] == "tool" and m["requestor"] == "user"]
    assert calls, "the user made no tool calls over MCP"
    for task_id, record in mine.items():  # the same tool results, in the same order
        assert [m["content"] for m in theirs[task_id]["transcript"] if m["role"] == "tool"] \
            == [m["content"] for m in record["transcript"] if m["role"] == "tool"]
