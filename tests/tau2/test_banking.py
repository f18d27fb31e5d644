"""banking_knowledge against hashes recorded from upstream tau2-bench (golden/banking_knowledge
.json, made by scripts/tau2_banking_golden.py from tests/tau2/banking_corpus.py).

Covers every gold action sequence of the 97 tasks and perturbed copies (error paths), the
rewards of those trajectories and of the do-nothing trajectory, BM25 rankings, grep outputs,
each offline variant's policy, and the tool schemas.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.domains.banking.retrieval import OFFLINE
from a2abench.benchmarks.tau2.evaluator import evaluate
from a2abench.benchmarks.tau2.models import (
    AssistantMessage,
    ToolCall,
    UserMessage,
)
from a2abench.errors import ConfigError
from tests.tau2 import banking_corpus as corpus
from tests.tau2 import tau2_harness as harness
from tests.tau2.tau2_support import data_root, upstream_domain

GREETING = "Hi! How can I help you today?"
# Per-call output and DB hashes are stored as sha256 prefixes (16 hex digits: a collision
# among a few thousand calls is out of reach) to keep the golden file small.
SHORT = 16


@cache
def golden() -> dict[str, Any]:
    return harness.golden("banking_knowledge")


def domain(variant: str = "bm25_grep") -> Any:
    return load_domain("banking_knowledge", data_dir=data_root(), retrieval_variant=variant)


def _run(d: Any, seq: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    task = next(t for t in d.tasks() if t.id == seq["task"])
    env = d.new_environment(task)
    calls: list[Any] = []
    messages: list[Any] = [AssistantMessage(role="assistant", content=GREETING),
                           UserMessage(role="user", content="Hello.")]
    for i, c in enumerate(seq["calls"]):
        call = ToolCall(id=f"c{i}", name=c["name"], arguments=c["arguments"],
                        requestor=c["requestor"])
        result = env.execute(call)
        content = result.content or ""
        if d.tool_text_source == "upstream":
            calls.append([harness.sha(content)[:SHORT], result.error])
        else:  # without upstream's source: everything but the docstring prose
            calls.append([harness.sha(corpus.prose_free(c, content))[:SHORT], result.error])
        cls = UserMessage if c["requestor"] == "user" else AssistantMessage
        messages += [cls(role=c["requestor"] if c["requestor"] == "user" else "assistant",
                         content=None, tool_calls=[call]), result]
    messages.append(UserMessage(role="user", content="Thanks. ###STOP###"))
    return {"calls": calls, "db": env.db_hash()[:SHORT]}, messages


def _expected_calls(d: Any, expected: dict[str, Any]) -> dict[str, Any]:
    full = d.tool_text_source == "upstream"
    return {"calls": [[c[0] if full else c[2], c[1]] for c in expected["calls"]],
            "db": expected["db"]}


_LOOP: list[asyncio.AbstractEventLoop] = []  # the module's, see `scoring_loop`


@pytest.fixture(scope="module", autouse=True)
def scoring_loop() -> Iterator[None]:
    """One event loop scores the module's trajectories (asyncio.run made one per call)."""
    loop = asyncio.new_event_loop()
    _LOOP.append(loop)
    yield
    _LOOP.remove(loop)
    loop.close()


def _score(d: Any, task_id: str, messages: list[Any]) -> dict[str, Any]:
    task = next(t for t in d.tasks() if t.id == task_id)
    try:
        nl_skipped, score = _LOOP[0].run_until_complete(_scored(d, task, messages))
    except Exception as exc:
        return {"exception": type(exc).__name__}
    assert not nl_skipped
    return score


async def _scored(d: Any, task: Any, messages: list[Any]) -> tuple[bool, dict[str, Any]]:
    info = await evaluate(task, messages, "user_stop", domain=d, judge=harness.all_true_judge)
    return info.nl_skipped, {
        "reward": info.reward,
        "breakdown": {k.value: v for k, v in (info.reward_breakdown or {}).items()},
        "db_match": info.db_check.db_match if info.db_check else None}


@pytest.fixture(params=["fallback", "upstream"])
def judged(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The domain without upstream's source (our CI) and, when TAU2_UPSTREAM_CHECKOUT is set,
    with it (every output then byte-equal)."""
    from tests.tau2.test_golden import TEST_PROMPT

    d = domain() if request.param == "fallback" else upstream_domain("banking_knowledge")
    monkeypatch.setattr(d, "judge_prompt", TEST_PROMPT)
    return d


@pytest.mark.slow
def test_tool_outputs_db_hashes_and_rewards_match_upstream(judged: Any) -> None:
    seqs = corpus.sequences(data_root())
    expected = golden()
    assert {s["id"] for s in seqs} == set(expected["sequences"])
    wrong_calls, wrong_rewards = [], []
    for seq in seqs:
        got, messages = _run(judged, seq)
        if got != _expected_calls(judged, expected["sequences"][seq["id"]]):
            wrong_calls.append(seq["id"])
        score = _score(judged, seq["task"], messages)
        if score != expected["trajectories"][seq["id"]]:
            wrong_rewards.append((seq["id"], score, expected["trajectories"][seq["id"]]))
    assert wrong_calls == []
    assert wrong_rewards == []


@pytest.mark.slow
def test_do_nothing_rewards_match_upstream(judged: Any) -> None:
    expected = golden()["trajectories"]
    wrong = []
    for task in judged.tasks():
        messages = [AssistantMessage(role="assistant", content=GREETING),
                    UserMessage(role="user", content="Bye. ###STOP###")]
        got = _score(judged, task.id, messages)
        if got != expected[f"nothing:{task.id}"]:
            wrong.append((task.id, got))
    assert wrong == []
    assert len(judged.tasks()) == 97


def test_gold_rewards_are_all_one_and_do_nothing_mostly_zero() -> None:
    expected = golden()["trajectories"]
    gold = [v["reward"] for k, v in expected.items() if k.startswith("gold:")]
    nothing = [v["reward"] for k, v in expected.items() if k.startswith("nothing:")]
    assert len(gold) == len(nothing) == 97
    assert sum(gold) > 90 and sum(nothing) < 10  # the corpus discriminates


def test_bm25_rankings_and_grep_match_upstream() -> None:
    kb = domain().kb
    expected = golden()
    for query, ranking in expected["bm25"].items():
        assert [[d, s] for d, s in kb.search_bm25(query, 10)] == ranking, query
    env = domain().fresh_environment()
    for pattern, digest in expected["grep"].items():
        out = env.execute(ToolCall(id="g", name="grep", arguments={"pattern": pattern}))
        assert harness.sha(out.content or "") == digest, pattern


def test_kb_search_output_is_upstream_format() -> None:
    env = domain().fresh_environment()
    out = env.execute(ToolCall(id="k", name="KB_search", arguments={"query": "annual fee"}))
    body, timing = (out.content or "").rsplit("\n\n[Timing: ", 1)
    assert body.startswith("1. ") and "   ID: " in body and "   Score: " in body
    assert timing.startswith("retrieval=") and timing.endswith("ms]")


@pytest.mark.parametrize("variant", ["no_knowledge", "full_kb", "golden_retrieval", "bm25",
                                     "bm25_grep", "grep_only"])
def test_policies_match_upstream(variant: str) -> None:
    d = domain(variant)
    first = d.tasks()[0]
    assert harness.sha(d.policy_for(first)) == golden()["policies"][variant]


def test_variants_share_what_they_read_alike() -> None:
    """One KB (one BM25 index, one grep pool), task list and base DB per process."""
    a, b = domain("bm25"), domain("grep_only")
    assert a is not b and a.kb is b.kb and a.base_db is b.base_db
    assert a.tasks() == b.tasks() and a.policy != b.policy


@pytest.mark.parametrize("variant", ["no_knowledge", "bm25", "bm25_grep", "grep_only"])
def test_schema_names_and_order_match_upstream(variant: str) -> None:
    names = [s["function"]["name"] for s in domain(variant).agent_tool_schemas()]
    assert names == golden()["schema_order"][variant]


def test_schemas_with_upstream_text_match_upstream() -> None:
    d = upstream_domain("banking_knowledge")
    assert d.tool_text_source == "upstream"
    for schema in d.agent_tool_schemas():
        name = schema["function"]["name"]
        assert (harness.sha(json.dumps(schema, sort_keys=True))
                == golden()["schemas"]["bm25_grep"][name]), name
    for schema in d.user_tool_schemas():
        name = schema["function"]["name"]
        assert harness.sha(json.dumps(schema, sort_keys=True)) == golden()["user_schemas"][name]


def test_online_variants_are_refused_with_a_hint() -> None:
    with pytest.raises(ConfigError) as err:
        load_domain("banking_knowledge", data_dir=data_root(), retrieval_variant="alltools")
    assert "bm25" in (err.value.hint or "")
    assert set(OFFLINE) == {"no_knowledge", "full_kb", "golden_retrieval", "bm25", "bm25_grep",
                            "grep_only"}


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["no_knowledge", "full_kb", "golden_retrieval", "bm25",
                                     "grep_only"])
def test_gold_and_do_nothing_rewards_on_every_offline_variant(variant: str,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """Upstream's scores do not depend on the variant (gold actions use no retrieval tool);
    ours must not either."""
    from tests.tau2.test_golden import TEST_PROMPT

    d = domain(variant)
    monkeypatch.setattr(d, "judge_prompt", TEST_PROMPT)
    expected = golden()
    wrong = []
    for seq in corpus.sequences(data_root()):
        if seq["id"].startswith("gold:"):
            _, messages = _run(d, seq)
            if _score(d, seq["task"], messages) != expected["trajectories"][seq["id"]]:
                wrong.append(seq["id"])
    for task in d.tasks():
        nothing = [AssistantMessage(role="assistant", content=GREETING),
                   UserMessage(role="user", content="Bye. ###STOP###")]
        if _score(d, task.id, nothing) != expected["trajectories"][f"nothing:{task.id}"]:
            wrong.append(task.id)
    assert wrong == []


def test_nl_assertion_task_without_a_judge_is_nl_skipped() -> None:
    """task_102 has DB + NL_ASSERTION: without a judge it is scored on DB alone and labelled,
    as retail's NL tasks are."""
    from a2abench.benchmarks.tau2.evaluator import evaluate_offline

    d = domain()
    seq = next(s for s in corpus.sequences(data_root()) if s["id"] == "gold:task_102")
    _, messages = _run(d, seq)
    task = next(t for t in d.tasks() if t.id == "task_102")
    info = evaluate_offline(task, messages, "user_stop", domain=d)
    assert info.nl_skipped and info.reward == 1.0
    assert {k.value: v for k, v in (info.reward_breakdown or {}).items()} == {"DB": 1.0}
