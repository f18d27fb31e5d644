"""Every tau2 domain's gold trajectories, replayed through MCP by a real `mcp` client speaking
only 2026-07-28 (the 2.x SDK pinned to it), give the same rewards, the same transcripts and
byte-equal tool outputs as the same calls over the A2A channel (whose outputs test_golden.py
pins to upstream's); banking's unlocks reach it through subscriptions/listen, and a
handshake-era session through the unlocking call's own stream. tests/mcp/test_real_clients.py
replays the same through the SDKs of both eras in environments of their own."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.models import Task
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer
from tests.servers import serve
from tests.session_once import once_per_session
from tests.tau2 import gold_agent
from tests.tau2.test_run_mock import PLANS

MODERN = "2026-07-28"
CASES: dict[str, tuple[list[str] | None, int, tuple[str, ...]]] = {
    # domain: (task ids or None for the first `count`, count, extra flags)
    "airline": (["3", "14", "19"], 3, ()),
    "retail": (None, 4, ()),
    "mock": (None, 10, ()),
    "telecom": (None, 4, ()),
    "banking_knowledge": (["task_046", "task_085"], 2, ("--retrieval-variant", "bm25")),
}


def domain_tasks(name: str, ids: list[str] | None, count: int,
                 flags: tuple[str, ...] = ()) -> dict[str, Task]:
    variant = flags[1] if flags else None
    d = load_domain(name, data_dir=shared_data("tau2").parent, retrieval_variant=variant)
    chosen = d.tasks(task_ids=ids) if ids else d.tasks(max_tasks=count)
    return {t.id: t for t in chosen}


def run_gold(name: str, tasks: dict[str, Task], mode: str, out: Path, *flags: str,
             caller: Any = None) -> tuple[dict[str, dict[str, Any]], Any]:
    """`run tau2` of `tasks` against the gold agent in `mode` (its MCP calls made by
    `caller`, a real_clients.ToolCaller, if given); task records and executor."""
    holder: dict[str, Any] = {}

    def factory(base: str) -> Any:
        app, holder["executor"] = gold_agent.app(base, tasks, mode, PLANS)
        holder["executor"].mcp.caller = caller
        return app

    ids = [a for t in tasks for a in ("--task-ids", t)]
    server = FakeLLMServer(handler=gold_agent.gold_user(tasks))
    with server.running(), serve(factory) as base:
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", name,
                    "--data-dir", str(shared_data("tau2").parent), "--user-llm", "u",
                    "--user-llm-base-url", server.base_url, "--output", str(out), *ids,
                    *flags)
    assert r.code == 0, r.err
    records = [json.loads(x) for x in out.read_text().splitlines()]
    return {x["task_id"]: x for x in records if x["type"] == "task"}, holder["executor"]


def solo_tasks(name: str, count: int = 4) -> dict[str, Task]:
    """The first `count` solo tasks with tickets of their own (the gold agent finds its
    task by the ticket)."""
    from a2abench.benchmarks.tau2.solo import is_solo_task

    domain = load_domain(name, data_dir=shared_data("tau2").parent, solo=True)
    by_ticket = {str(t.ticket): t for t in reversed(domain.tasks()) if is_solo_task(t)}
    return {t.id: t for t in list(reversed(by_ticket.values()))[:count]}


def run_solo(name: str, tasks: dict[str, Task], mode: str, out: Path, *flags: str,
             caller: Any = None) -> tuple[dict[str, dict[str, Any]], Any]:
    """`run tau2 --solo` of `tasks` against the gold agent in `mode`, as `run_gold`."""
    holder: dict[str, Any] = {}

    def factory(base: str) -> Any:
        app, holder["executor"] = gold_agent.app(base, tasks, mode)
        holder["executor"].mcp.caller = caller
        return app

    with serve(factory) as base:
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", name, "--solo",
                    "--data-dir", str(shared_data("tau2").parent), "--output", str(out),
                    *[a for t in tasks for a in ("--task-ids", t)], *flags)
    assert r.code == 0, r.err
    records = [json.loads(x) for x in out.read_text().splitlines()]
    return {x["task_id"]: x for x in records if x["type"] == "task"}, holder["executor"]


Records = dict[str, dict[str, Any]]
_made: dict[str, Records] = {}


def once(key: str, make: Callable[[Path], Records], factory: pytest.TempPathFactory) -> Records:
    """The task records `make(out)` returns, made once per session: by the first xdist worker
    that needs them, read from a file by the others (an A2A gold run is deterministic but for
    timestamps and ids, which the comparisons drop)."""
    if key not in _made:
        _made[key] = json.loads(once_per_session(
            factory, f"mcp-gold-{key}",
            lambda: json.dumps(make(factory.mktemp(key) / "a2a.jsonl"))))
    return _made[key]


def gold_over_a2a(name: str, factory: pytest.TempPathFactory) -> Records:
    """`run_gold` of CASES[name] over the A2A channel, once per session."""
    ids, count, flags = CASES[name]
    return once(f"a2a-{name}", lambda out: run_gold(
        name, domain_tasks(name, ids, count, flags), "gold", out, *flags)[0], factory)


def solo_over_a2a(name: str, factory: pytest.TempPathFactory) -> Records:
    """`run_solo` of `solo_tasks(name)` over the A2A channel, once per session. A task's
    record does not depend on the others run with it: a test of fewer of them (its first
    ones) compares its own."""
    return once(f"a2a-solo-{name}", lambda out: run_solo(
        name, solo_tasks(name), "solo", out)[0], factory)


def comparable(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A transcript without what differs by construction: timestamps and call ids."""
    out = []
    for m in transcript:
        m = {k: v for k, v in m.items() if k not in ("timestamp", "id")}
        if m.get("tool_calls"):
            m["tool_calls"] = [{k: v for k, v in c.items() if k != "id"}
                               for c in m["tool_calls"]]
        out.append(m)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_gold_over_mcp_scores_and_answers_as_over_a2a(
        tmp_path: Path, name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    ids, count, flags = CASES[name]
    tasks = domain_tasks(name, ids, count, flags)
    over_a2a = gold_over_a2a(name, tmp_path_factory)
    over_mcp, agent = run_gold(name, tasks, f"mcp@{MODERN}", tmp_path / "mcp.jsonl",
                               "--tool-channel", "mcp", *flags)
    assert set(over_mcp) == set(over_a2a) == set(tasks)
    assert set(agent.mcp.protocols.values()) == {MODERN}
    for task_id, a2a in over_a2a.items():
        mcp = over_mcp[task_id]
        assert (mcp["reward"], mcp["reward_components"], mcp["termination"]) == (
            a2a["reward"], a2a["reward_components"], a2a["termination"]), task_id
        assert comparable(mcp["transcript"]) == comparable(a2a["transcript"]), task_id
        # What the agent got back over MCP is byte for byte the transcript's tool message.
        indices = mcp["details"]["mcp_calls"]
        results = [mcp["transcript"][i + 1] for i in indices]
        got = agent.mcp.calls.get(task_id, [])
        assert [(c.text, c.is_error) for c in got] == [
            (m["content"], m["error"]) for m in results], task_id
        assert mcp["details"]["tool_channel"] == "mcp"
        assert mcp["tool_calls"] == a2a["tool_calls"] and len(indices) == len(got)
    # Gold rewards: the A2A channel's own results, which test_run_* hold to upstream.
    assert {k: r["reward"] for k, r in over_mcp.items()} == {
        k: r["reward"] for k, r in over_a2a.items()}


@pytest.mark.slow
@pytest.mark.parametrize("protocol", [MODERN, "legacy"])
def test_banking_unlocked_tools_are_announced_and_listed(
        tmp_path: Path, protocol: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """After `unlock_discoverable_agent_tool` the tool is listed by its own name, announced
    with notifications/tools/list_changed (2026-07-28: on subscriptions/listen; handshake:
    on the unlocking call's stream); calling it scores as the gold's
    `call_discoverable_agent_tool` does."""
    ids, count, flags = CASES["banking_knowledge"]
    tasks = domain_tasks("banking_knowledge", ids, count, flags)
    over_a2a = gold_over_a2a("banking_knowledge", tmp_path_factory)
    over_mcp, agent = run_gold("banking_knowledge", tasks, f"mcp-alias@{protocol}",
                               tmp_path / "m.jsonl", "--tool-channel", "mcp", *flags)
    assert set(agent.mcp.protocols.values()) == {MODERN if protocol == MODERN else "2025-11-25"}
    for task_id, task in tasks.items():
        unlocked = [a.arguments["agent_tool_name"] for a in task.evaluation_criteria.actions
                    if a.name == "unlock_discoverable_agent_tool"]
        assert unlocked, task_id
        assert agent.mcp.changes[task_id] == len(set(unlocked))
        first, *later = agent.mcp.tool_lists[task_id]
        assert not set(unlocked) & set(first) and set(unlocked) <= set(later[-1])
        by_name = [c.name for c in agent.mcp.calls[task_id]]
        assert set(unlocked) & set(by_name), "the agent never called an unlocked tool by name"
        assert over_mcp[task_id]["reward"] == over_a2a[task_id]["reward"] == 1.0
        assert comparable(over_mcp[task_id]["transcript"]) == comparable(
            over_a2a[task_id]["transcript"])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mock", "telecom"])
def test_solo_over_mcp_scores_as_over_a2a(tmp_path: Path, name: str,
                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    tasks = solo_tasks(name)
    over_a2a = solo_over_a2a(name, tmp_path_factory)
    over_mcp, agent = run_solo(name, tasks, f"mcp-solo@{MODERN}", tmp_path / "mcp.jsonl",
                               "--tool-channel", "mcp")
    assert set(over_a2a) == set(over_mcp) == set(tasks)
    assert set(agent.mcp.protocols.values()) == {MODERN}
    for task_id, a2a in over_a2a.items():
        mcp = over_mcp[task_id]
        assert (mcp["reward"], mcp["termination"]) == (a2a["reward"], a2a["termination"])
        assert mcp["details"]["steps"] == a2a["details"]["steps"], task_id
        assert comparable(mcp["transcript"]) == comparable(a2a["transcript"]), task_id


@pytest.mark.slow
@pytest.mark.parametrize("limit", [("--max-steps", "4"), ("--max-errors", "1")])
def test_limits_count_mcp_calls_as_a2a_calls(tmp_path: Path, limit: tuple[str, str]) -> None:
    """A limit reached by a call over MCP ends the conversation where the same DataPart call
    would: same termination, steps, errors and transcript (the reply to that turn unused)."""
    tasks = domain_tasks("airline", ["3", "14", "19"], 3)
    if limit[0] == "--max-errors":  # a failing call first: upstream's error text, counted
        bad = [("get_reservation_details", {"reservation_id": "NOPE00"})]
        plans = {t: bad + [(a.name, a.arguments) for a in tasks[t].evaluation_criteria.actions]
                 for t in tasks}  # type: ignore[union-attr]
        PLANS.update(plans)
    try:
        over_a2a, _ = run_gold("airline", tasks, "gold", tmp_path / "a.jsonl", *limit)
        over_mcp, _ = run_gold("airline", tasks, "mcp", tmp_path / "m.jsonl",
                               "--tool-channel", "mcp", *limit)
    finally:
        for t in tasks:
            PLANS.pop(t, None)
    for task_id, a2a in over_a2a.items():
        mcp = over_mcp[task_id]
        assert a2a["termination"] in ("max_steps", "too_many_errors")
        assert (mcp["termination"], mcp["details"]["steps"], mcp["details"]["tool_errors"]) \
            == (a2a["termination"], a2a["details"]["steps"], a2a["details"]["tool_errors"])
        assert comparable(mcp["transcript"]) == comparable(a2a["transcript"]), task_id
