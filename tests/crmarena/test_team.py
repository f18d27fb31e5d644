"""Scenario team on CRMArena end to end (issue 38): the front agent has no query tools and
delegates through the green to the specialist, which queries the org. The reference
partners (the front agent that delegates the question, the specialist that answers it
correctly) score the gold reward on every selected task, beside the solo baseline; a
specialist that never gives an answer forfeits, and the attribution moves to it."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.crmarena.synthetic import generate_org
from a2abench.report import build_report
from tests.clihelp import run_cli
from tests.crmarena import crm_agent
from tests.crmarena.test_oracle import reference as _reference
from tests.crmarena.test_oracle import sample
from tests.multi.team_world import specialist
from tests.servers import serve

pytestmark = pytest.mark.slow

reference = functools.cache(_reference)  # the b2b tasks file, parsed once per process


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The b2b org every run here queries (read-only: the sandbox opens it `mode=ro`)."""
    db = tmp_path_factory.mktemp("org") / "b2b.db"
    generate_org(db, org="b2b", seed=0, scale="tiny")
    return db


def _run(tmp_path: Path, db: Path, spec_mode: str | None, *flags: str,
         categories: int | None = None) -> tuple[Any, Path, list[Any]]:
    path, tasks = reference("b2b")
    chosen = sample(tasks, 1)[:categories]  # one task of every category (or of the first few)
    ids = [a for i in chosen for a in ("--task-ids", str(i))]
    out = tmp_path / "team.jsonl"
    with serve(lambda base: crm_agent.app(base, tasks, "team")[0]) as front, \
            serve(lambda base: crm_agent.app(base, tasks, "oracle")[0]) as oracle, \
            specialist(spec_mode or "gold") as (example, _):
        spec = oracle if spec_mode is None else example
        r = run_cli("run", "crmarena", "--white-agent-url", front, "--specialist-url", spec,
                    "--org", "b2b", "--tasks-file", str(path), "--crm-db", str(db),
                    "--judge-llm", "offline", "--output", str(out), "--concurrency", "8",
                    "--pairing", "vs_reference", "--json", *flags, *ids)  # tables unread
    found = [json.loads(line) for line in out.read_text().splitlines()]
    return r, out, [x for x in found if x["type"] == "task"] + [chosen]


@pytest.fixture(scope="module")
def reference_team(tmp_path_factory: pytest.TempPathFactory, org: Path
                   ) -> tuple[Any, Path, list[Any]]:
    """The reference partners' run over A2A, once: what the first test checks and what the
    run over MCP must equal."""
    return _run(tmp_path_factory.mktemp("reference-team"), org, None)


def test_the_reference_partners_score_the_gold_on_every_category(
        reference_team: tuple[Any, Path, list[Any]]) -> None:
    r, out, found = reference_team
    assert r.code == 0, r.err
    chosen, records = found[-1], found[:-1]
    by: dict[str, list[dict[str, Any]]] = {}
    for x in records:
        by.setdefault(x["match"]["pairing"], []).append(x)
    assert set(by) == {"agent+specialist", "agent+no_specialist",
                       "agent+reference_specialist", "reference_agent+specialist"}
    for pairing, xs in by.items():
        assert sorted(int(x["task_id"]) for x in xs) == sorted(chosen), pairing
        assert {x["reward"] for x in xs} == {1.0}, (pairing, [
            (x["task_id"], x["reward"], x["details"].get("answer")) for x in xs
            if x["reward"] != 1.0])
    team = by["agent+specialist"]
    assert all(x["match"]["delegation"]["delegations"] == 1 for x in team)
    assert all(x["match"]["usage"]["specialist"]["requests"] == 1 for x in team)
    assert all(x["match"]["delegation"] == {"baseline": True}
               for x in by["agent+no_specialist"])
    report = build_report([out])
    assert report.score == 1.0


def test_a_specialist_that_never_answers_forfeits_and_takes_the_blame(tmp_path: Path,
                                                                     org: Path) -> None:
    # Three categories: what a silent specialist does to a match is the same in every one.
    r, out, found = _run(tmp_path, org, "silent", "--max-specialist-turns", "3", categories=3)
    assert r.code == 0, r.err
    records = found[:-1]
    team = [x for x in records if x["match"]["pairing"] == "agent+specialist"]
    assert team and all(x["status"] == "forfeit" and x["match"]["forfeit"] == "specialist"
                        and "--max-specialist-turns 3" in x["error"]["message"]
                        for x in team)
    assert all(x["transcript"] for x in team)  # kept, with what happened
    roles = build_report([out]).roles
    assert roles is not None
    agent = next(e for e in roles["roles"]["agent"] if e["participant"] == "agent")
    spec = next(e for e in roles["roles"]["specialist"] if e["participant"] == "specialist")
    assert agent["vs_reference"]["rate"] == 1.0 and spec["vs_reference"]["rate"] == 0.0


def _by_pairing(records: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(x["match"]["pairing"], x["task_id"]): x for x in records}


def test_over_mcp_the_front_agent_delegates_and_the_team_scores_as_over_a2a(
        tmp_path: Path, org: Path, reference_team: tuple[Any, Path, list[Any]]) -> None:
    """--tool-channel mcp: the front agent's only MCP tool is `delegate` (no query tool:
    the solo baseline alone gets them), the specialist queries the org on an MCP session
    of its own, and every pairing scores what the same scripted participants score over
    A2A: the gold reward on one task of every category."""
    r, _, found = reference_team
    assert r.code == 0, r.err
    over_a2a = _by_pairing(found[:-1])
    path, tasks = reference("b2b")
    chosen = found[-1]
    db = org  # the org the run over A2A queried
    ids = [a for i in chosen for a in ("--task-ids", str(i))]
    out = tmp_path / "mcp.jsonl"
    holders: dict[str, Any] = {}  # mode -> its executor, to see what it was offered

    def app(mode: str) -> Any:
        def factory(base: str) -> Any:
            built, holders[mode] = crm_agent.app(base, tasks, mode)
            return built
        return factory

    with serve(app("mcp-team")) as front, serve(app("mcp-check")) as spec:
        r = run_cli("run", "crmarena", "--white-agent-url", front, "--specialist-url", spec,
                    "--org", "b2b", "--tasks-file", str(path), "--crm-db", str(db),
                    "--judge-llm", "offline", "--output", str(out), "--concurrency", "8",
                    "--pairing", "vs_reference", "--tool-channel", "mcp", "--json", *ids)
    assert r.code == 0, r.err
    over_mcp = _by_pairing([x for x in map(json.loads, out.read_text().splitlines())
                            if x["type"] == "task"])
    assert set(over_mcp) == set(over_a2a)
    for key, x in over_mcp.items():
        assert x["reward"] == over_a2a[key]["reward"] == 1.0, (key, x["details"].get("answer"))
    front_exec, spec_exec = holders["mcp-team"], holders["mcp-check"]
    offered = [names for lists in front_exec.tool_lists.values() for names in lists]
    assert sorted(map(tuple, offered)) == sorted(  # with either specialist; alone
        [("delegate",)] * 2 * len(chosen) + [("soql_query", "sosl_search")] * len(chosen))
    assert all(spec_exec.mcp_results.get(i) for i in chosen)  # its queries ran over MCP
    for (pairing, _), x in over_mcp.items():
        if pairing != "agent+specialist":
            continue
        assert x["details"]["tool_channel"] == "mcp"
        delegate = x["transcript"][x["details"]["mcp_calls"][0]]
        assert delegate["action"]["name"] == "delegate" and delegate["mcp"]
        queries = [e for e in x["transcript"] if e.get("role") == "specialist" and e.get("mcp")]
        assert queries and all(e["action"]["name"] == "execute" for e in queries)
        assert x["match"]["delegation"]["specialist_tool_calls"] == len(queries)
