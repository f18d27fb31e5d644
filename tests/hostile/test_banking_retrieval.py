"""Hostile input to banking_knowledge retrieval (issue 23 items 1-2): pathological regexes
from a ReDoS corpus and giant queries are bounded in wall time, stopped when the task-trial
is cancelled, never freeze a run or serve-green (/healthz answers within 1 s meanwhile), and
every pattern that finishes still gives upstream's output byte for byte."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.domains.banking import grep_pool
from a2abench.benchmarks.tau2.domains.banking.retrieval import (
    MAX_PATTERN_CHARS,
    MAX_QUERY_WORDS,
    Document,
    KnowledgeBase,
)
from a2abench.benchmarks.tau2.models import ToolCall
from a2abench.green import GreenSettings
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer
from tests.green.helpers import STATE, agentbeats, green_server, sdk_client, send
from tests.servers import serve
from tests.tau2 import gold_agent
from tests.waits import HANG_S

# Catastrophic on the banking KB under Python's backtracking engine (each runs for minutes
# to hours on main); from the usual ReDoS corpora (OWASP, Davis et al.) and the review.
REDOS = [r"(\w+\s?)+$", r"(.*a){25}", r"^(\w+\s?)*$", r"([a-zA-Z]+)*[0-9]$", r"(\w+)*\$",
         r"(.*,)*;", r"(\s*\w+\s*)+\.\.\.", r"(?:[^\n]*\n?)*Z{9}"]
# Patterns that finish: upstream's output must come back unchanged.
BENIGN = ["credit.*card", "fee|charge", "Diamond Elite", "diamond elite", "APR", "k", "s",
          "-", "’", "[unclosed", "(unbalanced", "a b", "_\\d{4}\\b", "^#+ ", "(a+)+$",
          "((ab)*|b)*c", "KELVIN", "\\bfee\\b", "Fee-", "ATM", "x{0}"]
TASK = "task_046"


def upstream_grep(kb: KnowledgeBase, query: str, top_k: int = 10) -> list[tuple[str, float]]:
    """Upstream GrepRetriever.retrieve, in process (what our worker must reproduce)."""
    if not query.strip():
        return []
    try:
        pattern = re.compile(query, re.IGNORECASE)
    except re.error:
        pattern = re.compile(re.escape(query), re.IGNORECASE)
    results = [(d.id, float(len(pattern.findall(d.content)))) for d in kb.documents]
    results = [r for r in results if r[1]]
    results.sort(key=lambda r: r[1], reverse=True)
    return results[:top_k]


@pytest.fixture(scope="module")
def domain() -> Any:
    return load_domain("banking_knowledge", data_dir=shared_data("tau2").parent,
                       retrieval_variant="bm25_grep")


# What a loaded machine may add to a killed pattern's call (4 s was not enough, issue 35);
# far below the minutes to hours the patterns run without the deadline.
SLACK_S = 30.0


def grep(env: Any, pattern: str) -> Any:
    return env.execute(ToolCall(id="g", name="grep", arguments={"pattern": pattern}))


def bounded(fn: Any, limit_s: float = HANG_S) -> tuple[Any, float]:
    """Run fn in a daemon thread; fail (instead of hanging, as main did) past limit_s."""
    box: dict[str, Any] = {}
    start = time.monotonic()
    thread = threading.Thread(target=lambda: box.setdefault("out", fn()), daemon=True)
    thread.start()
    thread.join(limit_s)
    assert not thread.is_alive(), f"still running after {limit_s} s"
    return box["out"], time.monotonic() - start


def test_a_catastrophic_pattern_is_the_agents_error_within_the_deadline(
        domain: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grep_pool, "GREP_DEADLINE_S", 0.2)
    env = domain.fresh_environment()
    grep(env, "warm")  # the worker starts once per process
    msg, took = bounded(lambda: grep(env, REDOS[0]))
    assert msg.error and msg.content == "Error: grep timed out after 0.2 seconds"
    # The message proves the deadline fired; the bound only catches a wait for the pattern
    # itself (minutes), with room for a loaded machine (the suite runs on every core).
    assert took < 0.2 + SLACK_S
    after = grep(env, "Diamond Elite")  # a fresh worker replaces the killed one
    assert not after.error and "Diamond Elite" in after.content


@pytest.mark.slow
def test_the_redos_corpus_holds_the_deadline(domain: Any,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # Each pattern burns a core till the deadline (minutes to hours without it): a short one
    # proves the same stop (CPU time is read in 10 ms ticks) and burns less of the suite's CPU.
    monkeypatch.setattr(grep_pool, "GREP_DEADLINE_S", 0.05)
    env = domain.fresh_environment()
    grep(env, "warm")
    for pattern in REDOS:
        msg, took = bounded(lambda p=pattern: grep(env, p))
        assert msg.content == "Error: grep timed out after 0.05 seconds", pattern
        assert took < 0.05 + SLACK_S, (pattern, took)


def test_the_default_deadline_is_in_the_error() -> None:
    assert grep_pool.GREP_DEADLINE_S == 2.0  # docs/limits.md names it


def test_finished_patterns_match_upstream_on_the_knowledge_base(
        domain: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Outputs, not the deadline (tested above): `((ab)*|b)*c` takes ~0.2 s on a quiet machine
    # and passed the 2 s wall-clock deadline with every core busy.
    monkeypatch.setattr(grep_pool, "GREP_DEADLINE_S", HANG_S)
    kb = domain.kb
    for pattern in BENIGN:
        assert kb.search_grep(pattern) == upstream_grep(kb, pattern), pattern


def test_the_literal_shortcut_keeps_unicode_case_folding() -> None:
    # Python's IGNORECASE matches `k` to KELVIN SIGN and `s` to LONG S, `i` to a capital
    # dotted I (whose str.lower() is two characters): those documents keep the regex.
    docs = ["Kelvin \u212a and k and K", "long \u017f and s and S", "\u0130stanbul is in",
            "Stra\u00dfe STRASSE", "plain ascii: fee FEE Fee", "dash \u2011 fee \u2019s fee"]
    kb = KnowledgeBase([Document(str(i), f"t{i}", c) for i, c in enumerate(docs)])
    for pattern in ["k", "K", "s", "i", "is", "fee", "FEE", "strasse", "ss", "\u2019s",
                    "e and", "[k", "Fee-"]:
        assert kb.search_grep(pattern) == upstream_grep(kb, pattern), pattern


def test_cancelling_the_task_trial_stops_a_running_pattern(
        domain: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grep_pool, "GREP_DEADLINE_S", 60.0)
    env = domain.fresh_environment()
    grep(env, "warm")
    threading.Timer(0.3, env.cancelled.set).start()
    msg, took = bounded(lambda: grep(env, REDOS[0]))
    assert msg.error and msg.content == "Error: grep cancelled"
    assert took < 0.3 + SLACK_S  # not the 60 s deadline


def test_giant_queries_and_patterns_are_refused_at_once(
        domain: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    env = domain.fresh_environment()

    def no_work(*_: Any, **__: Any) -> Any:
        raise AssertionError("a refused query reached the search")

    # Refused before any work (11 s a call on main): the searches themselves must not run.
    monkeypatch.setattr(KnowledgeBase, "search_bm25", no_work)
    monkeypatch.setattr(grep_pool.GrepPool, "search", no_work)
    words = " ".join(["fee"] * 200_000)  # 11 s per call on main
    for name, key, value, what in [
            ("KB_search", "query", words, "KB_search query is 799999 characters long"),
            ("KB_search", "query", " ".join(["a"] * (MAX_QUERY_WORDS + 1)),
             f"KB_search query has more than {MAX_QUERY_WORDS} words"),
            ("grep", "pattern", "a" * 100_000,
             f"grep pattern is 100000 characters long; the limit is {MAX_PATTERN_CHARS}")]:
        msg, _ = bounded(lambda n=name, k=key, v=value:
                         env.execute(ToolCall(id="q", name=n, arguments={k: v})))
        assert msg.error and msg.content.startswith(f"Error: {what}"), msg.content
    monkeypatch.undo()
    at_limit = " ".join(["fee"] * MAX_QUERY_WORDS)
    msg, _ = bounded(lambda: env.execute(ToolCall(id="q", name="KB_search",
                                                  arguments={"query": at_limit})))
    assert not msg.error and msg.content.startswith("1. ")


# ----------------------------------------------------------------- runs and serve-green

@pytest.fixture(scope="module")
def tasks(domain: Any) -> dict[str, Any]:
    return {t.id: t for t in domain.tasks(task_ids=[TASK])}


@pytest.fixture
def hostile_agent(tasks: dict[str, Any]) -> Iterator[str]:
    """The gold agent, except that its one tool call is a catastrophic grep."""
    plans = {TASK: [("grep", {"pattern": REDOS[0]})]}
    with serve(lambda base: gold_agent.app(base, tasks, "gold", plans)[0]) as base:
        yield base


def plain_user(body: dict[str, Any]) -> dict[str, Any]:
    """A user who names the task, then stops once the agent has answered."""
    from tests.fakes.llm_server import completion

    said = [m for m in body["messages"] if m["role"] == "assistant"]
    if not any((m.get("content") or "").startswith("TASK:") for m in said):
        return completion(f"TASK:{TASK} I need help.")
    return completion("Thank you. ###STOP###")


def _task_record(out: Path) -> dict[str, Any]:
    return next(json.loads(x) for x in out.read_text().splitlines() if '"type":"task"' in x)


@pytest.mark.slow
def test_task_timeout_interrupts_a_running_pattern(
        tmp_path: Path, tasks: dict[str, Any], hostile_agent: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.clihelp import run_cli

    monkeypatch.setattr(grep_pool, "GREP_DEADLINE_S", 120.0)  # only --task-timeout can stop it
    out = tmp_path / "m.jsonl"
    llm = FakeLLMServer(handler=gold_agent.gold_user(tasks))
    with llm.running():
        r, took = bounded(lambda: run_cli(
            "run", "tau2", "--white-agent-url", hostile_agent, "--domain", "banking_knowledge",
            "--data-dir", str(shared_data("tau2").parent), "--user-llm", "fake",
            "--user-llm-base-url", llm.base_url, "--output", str(out), "--task-ids", TASK,
            "--task-timeout", "3"))
    # The deadline passed while a2abench (its grep) was working: not the agent's wait.
    assert r.code == 1 and "TaskTimeout" in r.err, r.err
    record = _task_record(out)
    assert (record["status"], record["termination"]) == ("infrastructure_error",
                                                         "task_timeout"), record
    assert took < 3 + SLACK_S  # not the 120 s pattern deadline


@pytest.mark.slow
async def test_healthz_answers_while_a_hostile_pattern_runs(
        tmp_path: Path, hostile_agent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grep_pool, "GREP_DEADLINE_S", 1.5)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    evaluating = threading.Event()  # set while a pattern is being evaluated
    search = grep_pool.GrepPool._search

    def watched(pool: Any, *args: Any) -> Any:
        evaluating.set()
        try:
            return search(pool, *args)
        finally:
            evaluating.clear()

    monkeypatch.setattr(grep_pool.GrepPool, "_search", watched)
    llm = FakeLLMServer(handler=plain_user)
    with llm.running():
        settings = GreenSettings(output_dir=tmp_path, progress_interval_s=0, presets={"tau2": {
            "data_dir": str(shared_data("tau2").parent), "user_llm_base_url": llm.base_url,
            "user_llm": "fake", "domain": "banking_knowledge"}})
        outcome, during = await _probe_while_running(settings, hostile_agent, evaluating)
    assert outcome.state == STATE.TASK_STATE_COMPLETED, outcome.final_text()
    # Probes answered while the pattern ran: none could be if it held the server's event
    # loop. Counted, not timed (a 1 s bound on each probe failed under load, issue 35).
    assert during >= 1
    metrics = next(tmp_path.rglob("*.jsonl"))
    transcript = json.dumps(_task_record(metrics)["transcript"])
    assert "Error: grep timed out after 1.5 seconds" in transcript


async def _probe_while_running(settings: GreenSettings, agent: str,
                               evaluating: threading.Event) -> tuple[Any, int]:
    """The assessment's outcome, and how many /healthz probes were answered while a pattern
    was being evaluated."""
    with green_server(settings) as (base, _):
        async with sdk_client(base) as client, httpx.AsyncClient(timeout=HANG_S) as http:
            run = asyncio.create_task(send(client, agentbeats(
                agent, benchmark="tau2", domain="banking_knowledge", task_ids=[TASK])))
            during = 0
            while not run.done():
                assert (await http.get(base + "/healthz")).status_code == 200
                during += evaluating.is_set()
                await asyncio.sleep(0.1)
            return await run, during


def test_a_fresh_workers_start_is_not_the_patterns_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 35: the deadline counted a fresh worker's start (an interpreter and the KB), so a
    # loaded machine turned a 5 ms pattern into "grep timed out", the agent's error. A worker
    # that takes 1 s to start, under a 0.3 s deadline: the pattern is still answered, and
    # the deadline still stops a catastrophic one.
    slow = tmp_path / "slow_worker.py"
    slow.write_text("import runpy, time\ntime.sleep(1.0)\n"
                    f"runpy.run_path({str(grep_pool._WORKER)!r}, run_name='__main__')\n")
    monkeypatch.setattr(grep_pool, "_WORKER", slow)
    pool = grep_pool.GrepPool(["a fee and a fee", "no match", "one fee", "a" * 40 + "!"])
    try:
        assert pool.search("fee", top_k=10, deadline_s=0.3) == [(0, 2), (2, 1)]
        with pytest.raises(grep_pool.GrepTimeout, match="after 0.3 seconds"):
            pool.search("(a+)+$", top_k=10, deadline_s=0.3)
    finally:
        pool.close()
