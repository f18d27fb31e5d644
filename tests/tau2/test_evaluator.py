"""Scoring modes: NL judge present/absent, classic basis, COMMUNICATE and ACTION rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from a2abench.benchmarks.tau2.evaluator import evaluate, evaluate_offline, render_trajectory
from a2abench.benchmarks.tau2.models import (
    Action,
    AssistantMessage,
    RewardType,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from a2abench.benchmarks.tau2.upstream import JudgePrompt
from a2abench.errors import LLMError
from tests.tau2 import tau2_harness as harness
from tests.tau2.tau2_support import domain

PROMPT = JudgePrompt("sys", ("conv:\n", None, "\nexpectedOutcomes:\n", None))


def _retail_nl_task() -> Any:
    d = domain("retail")
    return d, next(t for t in d.tasks() if t.evaluation_criteria
                   and RewardType.NL_ASSERTION in t.evaluation_criteria.reward_basis
                   and t.evaluation_criteria.nl_assertions)


def _gold(d: Any, task: Any) -> list[Any]:
    script = [["call", {"name": a.name, "arguments": a.arguments, "requestor": a.requestor}]
              for a in task.evaluation_criteria.actions or []]
    return harness.build_trajectory(d, {"task": task.id, "script": [*script, ["say", "ok"]]})[1]


async def test_without_a_judge_nl_is_skipped_never_passed() -> None:
    d, task = _retail_nl_task()
    info = await evaluate(task, _gold(d, task), "user_stop", domain=d, judge=None)
    assert info.nl_skipped and info.nl_assertions is None
    assert RewardType.NL_ASSERTION not in (info.reward_breakdown or {})
    assert info.reward == 1.0 and info.reward_basis_mode == "official"


async def test_the_judge_decides_nl(monkeypatch: pytest.MonkeyPatch) -> None:
    d, task = _retail_nl_task()
    monkeypatch.setattr(d, "judge_prompt", PROMPT)
    seen: list[tuple[str, str]] = []

    async def judge(system: str, user: str) -> str:
        seen.append((system, user))
        return json.dumps({"results": [{"expectedOutcome": a, "reasoning": "no",
                                        "metExpectation": False}
                                       for a in task.evaluation_criteria.nl_assertions]})

    messages = _gold(d, task)
    info = await evaluate(task, messages, "user_stop", domain=d, judge=judge)
    assert not info.nl_skipped and info.reward == 0.0
    assert info.reward_breakdown == {RewardType.DB: 1.0, RewardType.NL_ASSERTION: 0.0}
    assert seen[0][0] == "sys"
    assert seen[0][1] == ("conv:\n" + render_trajectory(messages) + "\nexpectedOutcomes:\n"
                          + str(task.evaluation_criteria.nl_assertions))


async def test_a_malformed_judge_reply_is_an_llm_error(monkeypatch: pytest.MonkeyPatch) -> None:
    d, task = _retail_nl_task()
    monkeypatch.setattr(d, "judge_prompt", PROMPT)

    async def judge(system: str, user: str) -> str:
        return "sure!"

    with pytest.raises(LLMError, match="not the expected JSON"):
        await evaluate(task, _gold(d, task), "user_stop", domain=d, judge=judge)


async def test_classic_mode_scores_retail_on_db_and_communicate() -> None:
    d, task = _retail_nl_task()
    info = await evaluate(task, _gold(d, task), "user_stop", domain=d, judge=None,
                          reward_basis_mode="classic")
    assert info.reward_basis == [RewardType.DB, RewardType.COMMUNICATE]
    assert not info.nl_skipped and info.reward_basis_mode == "classic"


def test_render_trajectory_is_role_colon_content() -> None:
    messages = [AssistantMessage(content="hi"), UserMessage(content=None,
                                                            tool_calls=[]),
                ToolMessage(id="1", content="x")]
    assert render_trajectory(messages) == "assistant: hi\nuser: None\ntool: x"


def test_communicate_strips_commas_and_ignores_case() -> None:
    d = domain("airline")
    task = next(t for t in d.tasks() if t.evaluation_criteria
                and t.evaluation_criteria.communicate_info)
    wanted = task.evaluation_criteria.communicate_info  # type: ignore[union-attr]
    said = [AssistantMessage(content=" ".join(w.upper() for w in wanted))]
    info = evaluate_offline(task, said, "user_stop", domain=d)
    assert info.communicate_checks and all(c.met for c in info.communicate_checks)
    info = evaluate_offline(task, [UserMessage(content=" ".join(wanted))], "user_stop", domain=d)
    assert info.communicate_checks and not any(c.met for c in info.communicate_checks)


def test_thousands_separator_is_removed_before_matching() -> None:
    d = domain("airline")
    task = d.tasks()[0].model_copy(deep=True)
    assert task.evaluation_criteria is not None
    task.evaluation_criteria.communicate_info = ["1093"]
    ok = evaluate_offline(task, [AssistantMessage(content="That is $1,093.")], "user_stop",
                          domain=d)
    words = evaluate_offline(task, [AssistantMessage(content="one thousand ninety-three")],
                             "user_stop", domain=d)
    assert ok.communicate_checks[0].met and not words.communicate_checks[0].met  # type: ignore


def test_compare_args() -> None:
    call = ToolCall(name="f", arguments={"a": 1, "b": 2})
    assert Action(action_id="x", name="f", arguments={"a": 1, "b": 3},
                  compare_args=["a"]).compare_with_tool_call(call)
    assert Action(action_id="x", name="f", arguments={}, compare_args=[]).compare_with_tool_call(
        call)
    assert not Action(action_id="x", name="f", arguments={"a": 1}).compare_with_tool_call(call)
    assert not Action(action_id="x", name="g", arguments={}, compare_args=[]
                      ).compare_with_tool_call(call)


def test_replayed_results_compare_as_upstreams_json_loads() -> None:
    from a2abench.benchmarks.tau2.environment import _same_result

    assert _same_result(None, None) and _same_result("Error: x", "Error: x")
    assert _same_result('{"a":1}', '{"a": 1.0}')  # parsed values, not texts
    assert not _same_result('{"a": 1}', '{"a": 2}') and not _same_result("1", None)
    # As upstream's parsed comparison: NaN is unequal to itself, but json's one NaN object
    # inside a list is the same object on both sides
    assert not _same_result("NaN", "NaN") and _same_result("[NaN]", "[NaN]")
