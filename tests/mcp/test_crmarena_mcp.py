"""CRMArena over MCP: the org's queries as `soql_query` / `sosl_search` tools give
byte-equal observations and the same scores as the A2A channel; both backends answer
through the same query path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.crmarena.synthetic import generate_org
from a2abench.mcp.channel import McpChannel
from a2abench.mcp.client import connect, result_text
from tests.clihelp import run_cli
from tests.crmarena import crm_agent
from tests.crmarena.test_oracle import reference, sample
from tests.crmarena.test_run_e2e import org, records, shaped_texts, with_agent
from tests.mcp.test_endpoint import channel, raises_mcp_error
from tests.servers import serve

__all__ = ["channel", "org", "shaped_texts"]  # fixtures used here


def env_texts(rec: dict[str, Any]) -> list[str]:
    return [e["text"] for e in rec["transcript"] if e["role"] == "environment"]


@pytest.mark.slow
def test_queries_over_mcp_observe_and_score_as_over_a2a(tmp_path: Path,
                                                        org: dict[str, Any]) -> None:
    a2a_out, mcp_out = tmp_path / "a2a.jsonl", tmp_path / "mcp.jsonl"
    result, _ = with_agent(org, "sql", a2a_out, "--judge-llm", "offline")
    assert result.code == 0, result.err
    result, agent = with_agent(org, "mcp-sql@2026-07-28", mcp_out, "--judge-llm", "offline",
                               "--tool-channel", "mcp")
    assert result.code == 0, result.err
    assert agent.mcp_protocols and set(agent.mcp_protocols.values()) == {"2026-07-28"}
    run_a2a, over_a2a = records(a2a_out)
    run_mcp, over_mcp = records(mcp_out)
    assert run_mcp["compat_key"]["options"]["tool_channel"] == "mcp"
    assert run_a2a["compat_key"]["options"]["tool_channel"] == "a2a"
    assert set(over_mcp) == set(over_a2a)
    for task_id, a2a in over_a2a.items():
        mcp = over_mcp[task_id]
        assert (mcp["status"], mcp["reward"], mcp["termination"]) == (
            a2a["status"], a2a["reward"], a2a["termination"]) == ("ok", 1.0, "respond")
        assert env_texts(mcp) == env_texts(a2a) == agent.mcp_results[int(task_id)]
        assert mcp["tool_calls"] == a2a["tool_calls"]
        assert mcp["details"]["answer"] == a2a["details"]["answer"]
        entries = [mcp["transcript"][i] for i in mcp["details"]["mcp_calls"]]
        assert all(e["mcp"] and e["action"]["name"] == "execute" for e in entries)
    # The first message names the tools' endpoint and carries no schema or action formats.
    first = agent.first_messages[0]
    assert "soql_query" in first and "<execute>" not in first and "CREATE" not in first
    assert "# Actions" not in first


@pytest.mark.slow
@pytest.mark.parametrize("org_name", ["b2b", "original"])
def test_the_oracle_over_mcp(tmp_path: Path, org_name: str) -> None:
    path, tasks = reference(org_name)
    chosen = sample(tasks, 3)
    db = tmp_path / f"{org_name}.db"
    generate_org(db, org=org_name, seed=0, scale="tiny")
    ids = [a for i in chosen for a in ("--task-ids", str(i))]
    out = {}
    for mode, extra in (("oracle", ()), ("mcp-oracle", ("--tool-channel", "mcp"))):
        out[mode] = tmp_path / f"{mode}.jsonl"
        with serve(lambda base, mode=mode: crm_agent.app(base, tasks, mode)[0]) as base:
            r = run_cli("run", "crmarena", "--white-agent-url", base, "--org", org_name,
                        "--tasks-file", str(path), "--crm-db", str(db), "--judge-llm",
                        "offline", "--output", str(out[mode]), "--concurrency", "4", *ids,
                        *extra)
        assert r.code == 0, r.err
    recs = {mode: {x["task_id"]: x for x in map(json.loads, p.read_text().splitlines())
                   if x["type"] == "task"} for mode, p in out.items()}
    assert len(recs["oracle"]) == len(chosen)
    for task_id, a2a in recs["oracle"].items():
        mcp = recs["mcp-oracle"][task_id]
        assert mcp["reward"] == a2a["reward"] == 1.0, task_id
        assert mcp["reward_components"] == a2a["reward_components"]


async def test_the_salesforce_backend_answers_through_the_same_query_path(
        channel: McpChannel) -> None:
    from a2abench.benchmarks.crmarena.backends import SalesforceUnavailable
    from a2abench.benchmarks.crmarena.episode import EpisodeResult
    from a2abench.benchmarks.crmarena.mcp_tools import RULE, McpEpisode
    from tests.crmarena.test_backends import backend, org_route

    org_backend, fake = backend(org_route)
    with channel.session("7#0") as session:
        episode = McpEpisode(None, org_backend, RULE, 5, session=session,  # type: ignore[arg-type]
                             schema_text="THE SCHEMA TEXT")
        episode._out = EpisodeResult("max_turns", None, [], episode.transcript)
        session.backend = episode
        soql = "SELECT Id, Subject, Account.Name, Reason FROM Case"
        sosl = "FIND {refund} RETURNING Knowledge__kav(Id, Title)"
        async with connect(session.pointer(channel.url)["mcp"]) as client:
            tools = (await client.list_tools()).tools
            assert [t.name for t in tools] == ["soql_query", "sosl_search"]
            assert all("THE SCHEMA TEXT" in (t.description or "") for t in tools)
            with pytest.raises(SalesforceUnavailable, match="INVALID_SESSION_ID"):
                async with session.turn():
                    got = [result_text(await client.call_tool("soql_query", {"query": soql})),
                           result_text(await client.call_tool("sosl_search", {"query": sosl}))]
                    with raises_mcp_error("cannot serve queries"):
                        await client.call_tool("soql_query",
                                               {"query": "SELECT Id FROM Expired"})
    assert got == ["Salesforce instance output: " + await org_backend.observe(q, None)
                   for q in (soql, sosl)]
    assert [path for path, _ in fake.seen][:2] == ["/services/data/v59.0/query/",
                                                   "/services/data/v59.0/search/"]
    assert [a.content for a in episode._out.actions] == [soql, sosl, "SELECT Id FROM Expired"]
