"""`a2abench run crmarena` end to end: a real a2a-sdk white agent on loopback, the synthetic
org as the sandbox, and a real fake LLM server as judge and user."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.crmarena import upstream
from a2abench.benchmarks.crmarena.sandbox import OrgSandbox
from a2abench.benchmarks.crmarena.tasks import CRMTask
from a2abench.benchmarks.crmarena.upstream import TextSource, UpstreamTexts, render
from a2abench.run.config import trial_seed
from tests.clihelp import Result, run_cli
from tests.crmarena import crm_agent
from tests.crmarena.orgs import small_b2b
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve

KIND = {"best_region_identification": "states", "monthly_trend_analysis": "months",
        "lead_qualification": "bant", "wrong_stage_rectification": "stages"}


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return small_b2b(tmp_path_factory.mktemp("crm_e2e"))


@pytest.fixture(autouse=True)
def shaped_texts(org: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> UpstreamTexts:
    """Upstream-shaped texts of our own stand in for the pinned download."""
    texts: UpstreamTexts = org["texts"]
    monkeypatch.setattr(upstream, "resolve_texts", lambda base_url=None: TextSource(texts))
    return texts


def run(org: dict[str, Any], base: str, out: Path, *extra: str) -> Result:
    return run_cli("run", "crmarena", "--white-agent-url", base, "--tasks-file",
                   str(org["file"]), "--crm-db", str(org["db"]), "--output", str(out),
                   "--retry-delay", "0.01", "--concurrency", "4", *extra)


def records(path: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    run_rec = next(r for r in recs if r["type"] == "run")
    return run_rec, {r["task_id"]: r for r in recs if r["type"] == "task"}


def with_agent(org: dict[str, Any], mode: str, out: Path, *extra: str,
               tasks: list[CRMTask] | None = None) -> tuple[Result, crm_agent.CRMExecutor]:
    holder: dict[str, Any] = {}

    def factory(base: str) -> Any:
        app, holder["executor"] = crm_agent.app(base, tasks or org["tasks"], mode)
        return app

    with serve(factory) as base:
        result = run(org, base, out, *extra)
    return result, holder["executor"]


def test_sql_agent_queries_the_org_and_passes_every_task(tmp_path: Path,
                                                         org: dict[str, Any]) -> None:
    out = tmp_path / "sql.jsonl"
    result, _ = with_agent(org, "sql", out, "--judge-llm", "offline")
    assert result.code == 0, result.err
    run_rec, recs = records(out)
    tasks: list[CRMTask] = org["tasks"]
    assert len(recs) == len(tasks)
    assert {k: (r["status"], r["reward"]) for k, r in recs.items()} == {
        str(t.idx): ("ok", 1.0) for t in tasks}
    assert all(r["labels"] == ["offline"] and r["domain"] == "b2b" for r in recs.values())
    with OrgSandbox.open(org["db"]) as sandbox:
        for t in tasks:
            rec = recs[str(t.idx)]
            seen = [e["text"] for e in rec["transcript"] if e["role"] == "environment"]
            assert seen[0].startswith("Salesforce instance output: [{'Id': 'ka0")  # SOSL ran
            assert rec["tool_calls"] == len(seen)
            if t.today is not None:  # relative dates follow each task's own "Today's date"
                assert seen[1] == "Salesforce instance output: " + sandbox.observe(
                    crm_agent.DATE_QUERY, today=t.today)
                assert rec["details"]["today"] == t.today.isoformat()
    assert run_rec["data"]["tasks"]["source"] == "file"
    assert run_rec["data"]["org"]["origin"] == "local"
    assert run_rec["data"]["org"]["matches_pinned"] is False
    assert run_rec["data"]["schema"]["source"] == "builtin"
    assert run_rec["models"]["scoring"] == "offline" and run_rec["models"]["judge"] is None
    assert run_rec["scoring"]["separate"]["confidentiality"] == [
        "private_customer_information", "internal_operation_data",
        "confidential_company_knowledge"]
    assert "1.0000" in result.out
    paper = run_cli("report", str(out), "--format", "crmarena")
    assert paper.code == 0, paper.err
    doc = json.loads(paper.out)
    assert (doc["split"], doc["org"], doc["dataset"], doc["scoring"]) == (
        "b2b", "b2b", "crmarenapro", "offline")
    assert doc["overall"] == 1.0 and doc["confidentiality"] == 1.0
    assert len(doc["categories"]) == len({t.category for t in tasks})
    assert doc["categories"]["knowledge_qa"]["reward_metric"] == "fuzzy_match"


def test_the_task_message(tmp_path: Path, org: dict[str, Any],
                          shaped_texts: UpstreamTexts) -> None:
    tasks: list[CRMTask] = org["tasks"]
    external = next(t for t in tasks if t.category == "private_customer_information")
    internal = next(t for t in tasks if t.category == "handle_time")
    result, agent = with_agent(org, "oracle", tmp_path / "m.jsonl", "--judge-llm", "offline",
                               "--privacy-aware", "--no-aided", "--task-ids",
                               str(external.idx), "--task-ids", str(internal.idx),
                               "--max-turns", "7")
    assert result.code == 0, result.err
    by_query = {next(t.query for t in (external, internal) if t.query in m): m
                for m in agent.first_messages}
    ext, inte = by_query[external.query], by_query[internal.query]
    assert ext.startswith("You are an expert in Salesforce") and "a customer" in ext
    assert "internal user" in inte
    assert "# Salesforce instance description\nObjects: User, Account" in inte
    assert "# Extra context\n" + internal.required in inte  # SYSTEM_METADATA (last one)
    assert internal.optional and internal.optional not in inte  # --no-aided
    assert shaped_texts.privacy_guidelines in ext and shaped_texts.privacy_guidelines not in inte
    for message in (ext, inte):
        assert '{"action": "execute", "query":' in message and "<execute>" in message
        assert "at most 7 actions" in message
    assert inte.endswith("# Question\n" + internal.query.strip())


def test_aided_mode_adds_the_optional_context(tmp_path: Path, org: dict[str, Any]) -> None:
    task = next(t for t in org["tasks"] if t.category == "handle_time")
    result, agent = with_agent(org, "oracle", tmp_path / "a.jsonl", "--judge-llm", "offline",
                               "--task-ids", str(task.idx))
    assert result.code == 0, result.err
    assert task.optional and task.optional in agent.first_messages[0]


def test_invalid_replies_get_the_rule_text_and_use_turns(tmp_path: Path, org: dict[str, Any],
                                                         shaped_texts: UpstreamTexts) -> None:
    task = next(t for t in org["tasks"] if t.category == "case_routing")
    out = tmp_path / "junk.jsonl"
    result, _ = with_agent(org, "junk", out, "--judge-llm", "offline", "--task-ids",
                           str(task.idx))
    assert result.code == 0, result.err
    rec = records(out)[1][str(task.idx)]
    assert (rec["reward"], rec["turns"], rec["termination"]) == (1.0, 3, "respond")
    assert rec["details"]["invalid_replies"] == 2
    rules = [e["text"] for e in rec["transcript"] if e.get("kind") == "rule"]
    assert rules == [shaped_texts.rule, shaped_texts.rule]
    out2 = tmp_path / "junk2.jsonl"
    result, _ = with_agent(org, "junk", out2, "--judge-llm", "offline", "--task-ids",
                           str(task.idx), "--max-turns", "2")
    rec = records(out2)[1][str(task.idx)]
    assert (rec["reward"], rec["termination"], rec["status"]) == (0.0, "max_turns", "ok")


def judge_server(texts: UpstreamTexts, tasks: list[CRMTask]) -> FakeLLMServer:
    """A judge that checks it got upstream's prompt and the agent's answer, then extracts."""
    def handler(body: dict[str, Any]) -> dict[str, Any]:
        assert body["model"] == "fake-judge" and "temperature" not in body
        system, user = (m["content"] for m in body["messages"])
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        if system == texts.privacy_judge:
            assert user.startswith(texts.trajectory_prefix)
            assert crm_agent.REFUSAL in user
            return completion("YES")
        task = next(t for t in tasks if user == f"The answer is {', '.join(t.answer)}.")
        assert system == texts.extraction[KIND.get(task.category, "ids")]
        return completion(json.dumps({"extracted_answers": list(task.answer)}))
    return FakeLLMServer(handler=handler)


def test_judged_scoring_sends_upstreams_prompts(tmp_path: Path, org: dict[str, Any],
                                                shaped_texts: UpstreamTexts) -> None:
    tasks = [t for t in org["tasks"] if t.reward_metric != "fuzzy_match"]
    server = judge_server(shaped_texts, tasks)
    out = tmp_path / "judged.jsonl"
    with server.running():
        result, _ = with_agent(org, "chatty", out, "--judge-llm", "fake-judge",
                               "--judge-llm-base-url", server.base_url, "--task-category",
                               ",".join(sorted({t.category for t in tasks})))
    assert result.code == 0, result.err
    assert server.handler_errors == []
    run_rec, recs = records(out)
    assert {k: r["reward"] for k, r in recs.items()} == {str(t.idx): 1.0 for t in tasks}
    assert all(r["labels"] == [] and r["llm_prompt_tokens"] > 0 for r in recs.values())
    assert all(r["details"]["llm_usage"]["judge"]["prompt_tokens"] == r["llm_prompt_tokens"]
               and set(r["details"]["llm_usage"]) == {"judge"} for r in recs.values())
    paths = {r["details"]["scoring_path"] for r in recs.values()}
    assert paths == {"llm_extraction", "llm_judge"}
    assert run_rec["models"]["scoring"] == "judged"
    assert run_rec["models"]["judge"]["model"] == "fake-judge"


def test_an_llm_judge_without_a_key_is_a_usage_error(tmp_path: Path, org: dict[str, Any]) -> None:
    r = run(org, "http://127.0.0.1:1", tmp_path / "x.jsonl")
    assert r.code == 2
    assert "gpt-4o-2024-08-06" in r.err and "OPENAI_API_KEY" in r.err
    assert "--judge-llm offline" in r.err


def test_rescoring_offline_records_with_a_judge(tmp_path: Path, org: dict[str, Any],
                                                shaped_texts: UpstreamTexts) -> None:
    tasks = [t for t in org["tasks"] if t.category in ("handle_time", "internal_operation_data")]
    out = tmp_path / "offline.jsonl"
    result, _ = with_agent(org, "chatty", out, "--judge-llm", "offline", "--task-category",
                           "handle_time,internal_operation_data")
    assert result.code == 0, result.err
    server = judge_server(shaped_texts, tasks)
    rescored = tmp_path / "rescored.jsonl"
    with server.running():
        r = run_cli("report", str(out), "--rescore", "--scoring", "judge_llm=fake-judge",
                    "--scoring", f"judge_llm_base_url={server.base_url}",
                    "--rescored-output", str(rescored))
    assert r.code == 0, r.err
    before, after = records(out)[1], records(rescored)[1]
    assert {r["labels"][0] for r in before.values()} == {"offline"}
    assert all(r["labels"] == [] and r["reward"] == 1.0 for r in after.values())
    assert {r["details"]["scoring_path"] for r in after.values()} == {"llm_extraction",
                                                                      "llm_judge"}


# -- interactive ---------------------------------------------------------------------------

def user_server(texts: UpstreamTexts, tasks: list[CRMTask], *, stubborn: bool = False
                ) -> FakeLLMServer:
    """A scripted user: names its task, answers one question, stops at the right answer."""
    seeds = {trial_seed(300, str(t.idx), 0): t for t in tasks}

    def handler(body: dict[str, Any]) -> dict[str, Any]:
        task = seeds[body["seed"]]
        messages = body["messages"]
        assert messages[0] == {"role": "system", "content": render(
            texts.user_prompt, persona=task.persona or "", instruction=task.query)}
        assert messages[1] == {"role": "user", "content": texts.greeting}
        if len(messages) == 2:
            return completion(f"TASK:{task.idx} I have a question about our records.")
        last = messages[-1]["content"]
        if last == crm_agent.answer_text(task) and not stubborn:
            return completion("###STOP###")
        return completion("The last quarter, please.")
    return FakeLLMServer(handler=handler)


@pytest.fixture
def interactive_tasks(org: dict[str, Any]) -> list[CRMTask]:
    return [t for t in org["tasks"] if t.category in ("handle_time", "knowledge_qa")]


def test_interactive_with_a_scripted_user(tmp_path: Path, org: dict[str, Any],
                                          shaped_texts: UpstreamTexts,
                                          interactive_tasks: list[CRMTask]) -> None:
    server = user_server(shaped_texts, interactive_tasks)
    out = tmp_path / "inter.jsonl"
    with server.running():
        result, agent = with_agent(org, "ask", out, "--interactive", "--judge-llm", "offline",
                                   "--user-llm", "fake-user", "--user-llm-base-url",
                                   server.base_url, "--task-category",
                                   "handle_time,knowledge_qa")
    assert result.code == 0, result.err
    assert server.handler_errors == []
    run_rec, recs = records(out)
    assert run_rec["domain"] == "b2b_interactive"
    for rec in recs.values():
        assert (rec["reward"], rec["termination"]) == (1.0, "user_stop")
        assert rec["details"]["user_turns"] == 2 and rec["domain"] == "b2b_interactive"
        assert set(rec["details"]["llm_usage"]) == {"user_simulator"}  # offline judge: no LLM
        users = [e["text"] for e in rec["transcript"] if e["role"] == "user"]
        assert users[0].startswith("TASK:") and users[-1] == "###STOP###"
    assert all(re.search(r"# User message\nTASK:\d+ ", m) for m in agent.first_messages)
    assert run_rec["models"]["user_simulator"]["model"] == "fake-user"


def test_interactive_stops_after_max_user_turns(tmp_path: Path, org: dict[str, Any],
                                                shaped_texts: UpstreamTexts,
                                                interactive_tasks: list[CRMTask]) -> None:
    server = user_server(shaped_texts, interactive_tasks, stubborn=True)
    out = tmp_path / "stubborn.jsonl"
    with server.running():
        result, _ = with_agent(org, "ask", out, "--interactive", "--judge-llm", "offline",
                               "--user-llm", "fake-user", "--user-llm-base-url",
                               server.base_url, "--task-category", "handle_time",
                               "--max-user-turns", "1")
    assert result.code == 0, result.err
    rec = next(iter(records(out)[1].values()))
    # upstream: the action after the last user turn still runs (the user answers), then ends
    assert (rec["reward"], rec["termination"]) == (0.0, "max_user_turns")
    assert rec["details"]["user_turns"] == 2 and rec["turns"] == 2


def test_interactive_needs_crmarena_pro(tmp_path: Path, org: dict[str, Any]) -> None:
    r = run(org, "http://127.0.0.1:1", tmp_path / "x.jsonl", "--interactive", "--org",
            "original")
    assert r.code == 2 and "CRMArena-Pro" in r.err


def test_interactive_default_user_llm_needs_a_key(tmp_path: Path, org: dict[str, Any]) -> None:
    r = run(org, "http://127.0.0.1:1", tmp_path / "x.jsonl", "--interactive", "--judge-llm",
            "offline")
    assert r.code == 2 and "--user-llm gpt-4o-2024-08-06" in r.err
