"""The evaluator, exactly as upstream's (crmarena.md §1.6), with a scripted judge."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from a2abench.benchmarks.crmarena.evaluator import Evaluator, Judge, parse_extraction
from a2abench.benchmarks.crmarena.upstream import Slot, UpstreamTexts

TEXTS = UpstreamTexts(
    schema_template="{object_names}\n{object_fields}\n", metadata_template="{system_metadata}",
    rule="Bad format.\n", privacy_guidelines="# Privacy",
    extraction={k: f"EXTRACT {k.upper()}" for k in ("ids", "months", "states", "bant",
                                                   "stages")},
    privacy_judge="DID IT REFUSE?", trajectory_prefix="Trajectory:\n",
    user_prompt=("Be ", Slot("persona"), " and ", Slot("instruction")), greeting="Hi")
AGENT = "005Wt000003NDqDIAW"


class ScriptedJudge:
    def __init__(self, *replies: str | None) -> None:
        self.replies = list(replies)
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, system: str, user: str) -> str | None:
        self.calls.append((system, user))
        return self.replies.pop(0)


async def score(judge: Judge | None, proposed: str, truth: Sequence[str],
                category: str = "handle_time", metric: str = "exact_match",
                trajectory: Sequence[str] = ()) -> tuple[float, str, object, str | None]:
    v = await Evaluator(judge, TEXTS).evaluate(category=category, metric=metric, truth=truth,
                                               proposed=proposed,
                                               trajectory=list(trajectory) or [proposed])
    return v.reward, v.path, v.parsed, v.upstream_error


@pytest.mark.parametrize("proposed", [AGENT, f"  {AGENT} ", f'"{AGENT}"', f"'{AGENT}'"])
async def test_the_fast_path_needs_no_judge(proposed: str) -> None:
    judge = ScriptedJudge()
    assert await score(judge, proposed, [AGENT]) == (1.0, "fast_path", [AGENT], None)
    assert judge.calls == []


@pytest.mark.parametrize(("category", "kind"), [
    ("handle_time", "IDS"), ("best_region_identification", "STATES"),
    ("monthly_trend_analysis", "MONTHS"), ("lead_qualification", "BANT"),
    ("wrong_stage_rectification", "STAGES"), ("activity_priority", "IDS"),
])
async def test_extraction_uses_the_task_types_prompt(category: str, kind: str) -> None:
    judge = ScriptedJudge('{"extracted_answers": ["x"]}')
    await score(judge, "The answer is x.", ["y"], category)
    assert judge.calls == [(f"EXTRACT {kind}", "The answer is x.")]


async def test_case_differences_go_to_the_judge() -> None:
    judge = ScriptedJudge(f'{{"extracted_answers": ["{AGENT}"]}}')
    assert await score(judge, AGENT.lower(), [AGENT]) == (1.0, "llm_extraction", [AGENT], None)


async def test_many_answers_compare_as_sorted_lists() -> None:
    judge = ScriptedJudge('{"extracted_answers": ["b", "a"]}', '{"extracted_answers": ["a"]}')
    assert (await score(judge, "b and a", ["a", "b"], "activity_priority"))[0] == 1.0
    assert (await score(judge, "a", ["a", "b"], "activity_priority"))[0] == 0.0


@pytest.mark.parametrize(("reply", "truth", "reward", "parsed"), [
    ('{"extracted_answers": ["None"]}', ["None"], 1.0, ["None"]),
    ('{"extracted_answers": [null]}', ["None"], 1.0, ["None"]),
    ('{"extracted_answers": [null, "x"]}', ["None"], 1.0, ["None"]),  # first None wins all
    ('["Authority"]', ["Authority"], 0.0, ['["Authority"]']),  # a bare list is not a dict
    ('```json\n{"extracted_answers": ["Need"]}\n```', ["Need"], 0.0,
     ['```json\n{"extracted_answers": ["Need"]}\n```']),  # fences defeat json.loads
    ("Authority", ["Authority"], 1.0, ["Authority"]),  # raw text is the fallback answer
    ("", ["None"], 1.0, ["None"]),
    ("  none ", ["None"], 1.0, ["None"]),
    ('{"extracted_answers": "None"}', ["None"], 0.0, "None"),  # sorted("None") is letters
])
async def test_upstreams_parse_quirks(reply: str, truth: list[str], reward: float,
                                      parsed: object) -> None:
    got = await score(ScriptedJudge(reply), "some reply", truth, "lead_qualification")
    assert got[:3] == (reward, "llm_extraction", parsed)


@pytest.mark.parametrize(("reply", "why"), [
    ('{"extracted_answers": []}', "IndexError"), ('{"extracted_answers": 5}', "TypeError"),
    ('{"extracted_answers": ""}', "IndexError"), (None, "AttributeError"),
    ('{"extracted_answers": ["a", 1]}', "TypeError"),
])
async def test_where_upstream_crashes_the_task_scores_zero(reply: str | None,
                                                           why: str) -> None:
    reward, path, _, error = await score(ScriptedJudge(reply), "x", ["a"])
    assert (reward, path) == (0.0, "llm_extraction") and error is not None and why in error
    assert parse_extraction('{"extracted_answers": ["a"]}') == ["a"]


async def test_multi_factor_ground_truth_only_matches_the_fast_path() -> None:
    # b2b has answers like ["Authority, Need"]: one string, so extraction can never match
    judge = ScriptedJudge('{"extracted_answers": ["Authority", "Need"]}')
    assert (await score(judge, "Authority, Need", ["Authority, Need"],
                        "lead_qualification"))[:2] == (1.0, "fast_path")
    assert (await score(judge, "Need and Authority", ["Authority, Need"],
                        "lead_qualification"))[0] == 0.0


async def test_fuzzy_match_scores_token_f1() -> None:
    v = await Evaluator(None, None).evaluate(
        category="knowledge_qa", metric="fuzzy_match", truth=["Advanced encryption protocols"],
        proposed="encryption protocols", trajectory=[])
    assert v.reward == pytest.approx(0.8) and v.path == "fuzzy"
    assert set(v.components) == {"f1", "em", "bleu", "rouge-1", "rouge-2", "rouge-l"}
    empty = await Evaluator(None, None).evaluate(
        category="knowledge_qa", metric="fuzzy_match", truth=["x y"], proposed="the",
        trajectory=[])
    assert empty.reward == 0.0 and "empty" in (empty.upstream_error or "")


@pytest.mark.parametrize(("reply", "reward"), [
    ("YES", 1.0), ("NO", 0.0), ("Yes.", 1.0), ("no", 0.0),
    ("No, though one could say yes", 1.0),  # upstream tests the substring "yes"
    (None, 0.0),
])
async def test_privacy_judge_reads_the_whole_trajectory(reply: str | None,
                                                        reward: float) -> None:
    judge = ScriptedJudge(reply)
    got = await score(judge, "I cannot share that.", ["None"], "private_customer_information",
                      "privacy_rejection",
                      ["SELECT Id FROM Contact", "I cannot share that."])
    assert got[:2] == (reward, "llm_judge")
    assert judge.calls == [("DID IT REFUSE?",
                            "Trajectory:\nSELECT Id FROM Contact\nI cannot share that.")]


async def test_offline_scoring_is_deterministic_and_says_so() -> None:
    ev = Evaluator(None, TEXTS)
    assert ev.offline
    got = await score(None, f"It is {AGENT}.", [AGENT])
    assert got == (1.0, "offline_extraction", [AGENT], None)
    assert (await score(None, "I can't share personal data.", ["None"],
                        "private_customer_information", "privacy_rejection"))[:2] == (
        1.0, "offline_refusal")
    # a judge without upstream prompts cannot judge: offline
    assert Evaluator(ScriptedJudge(), None).offline
