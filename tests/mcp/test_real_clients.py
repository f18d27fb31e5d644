"""Real MCP clients of both eras, each in an environment of its own (real_clients.py: the
official Python SDK 1.x on the handshake and 2.x pinned to 2026-07-28, the TypeScript SDK
likewise), replay gold trajectories over MCP in `run tau2`: airline, telecom in solo mode
(the user's tools too) and banking (its unlocked tools called by name). The rewards, the
transcripts and every tool text equal the A2A channel's, and each client spoke its era."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2.models import Task
from tests.mcp import real_clients
from tests.mcp.test_tau2_gold import (
    CASES,
    MODERN,
    Records,
    comparable,
    domain_tasks,
    gold_over_a2a,
    run_gold,
    run_solo,
    solo_over_a2a,
    solo_tasks,
)

DOMAINS = ["airline", "telecom", "banking_knowledge"]
_tasks: dict[str, dict[str, Task]] = {}


@pytest.fixture
def caller(request: pytest.FixtureRequest) -> Iterator[real_clients.ToolCaller]:
    """The client's process, one for all three domains (its start-up is most of the CPU, and
    a test per client starts it once in the session, whichever xdist worker runs it): each
    command connects anew, as an agent's turn does, so nothing carries from one domain to
    the next."""
    client: str = request.param
    try:
        argv = real_clients.command(client)
    except RuntimeError as exc:
        pytest.skip(f"the {client} MCP client is not available: {exc}")
    tool_caller = real_clients.ToolCaller(argv)
    yield tool_caller
    tool_caller.close()


def tasks_of(domain: str) -> dict[str, Task]:
    """The domain's tasks, loaded once for every client (the gold agent only reads them)."""
    if domain not in _tasks:
        ids, count, flags = CASES[domain]
        _tasks[domain] = (solo_tasks(domain, 3) if domain == "telecom"
                          else domain_tasks(domain, ids, count, flags))
    return _tasks[domain]


def replay(domain: str, out: Path, caller: Any) -> tuple[dict[str, dict[str, Any]], Any]:
    """`run tau2 --tool-channel mcp` of the domain's tasks, `caller` making the calls."""
    tasks, extra = tasks_of(domain), ("--tool-channel", "mcp")
    if domain == "telecom":
        return run_solo(domain, tasks, "mcp-solo", out, *extra, caller=caller)
    mode = "mcp-alias" if domain == "banking_knowledge" else "mcp"
    return run_gold(domain, tasks, mode, out, *CASES[domain][2], *extra, caller=caller)


def same_numbers(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`comparable`, with banking's JSON-text arguments read as JSON: JavaScript has one
    number type, so a TypeScript client sends the gold's `100.0` as `100`, and the call is
    recorded as the agent sent it (as the A2A channel records an agent's own JSON text)."""
    out = comparable(transcript)
    for message in out:
        for call in message.get("tool_calls") or []:
            inner = call["arguments"].get("arguments")
            if call["name"] == "call_discoverable_agent_tool" and isinstance(inner, str):
                call["arguments"] = {**call["arguments"], "arguments": json.loads(inner)}
    return out


def baseline(domain: str, factory: pytest.TempPathFactory) -> Records:
    """The A2A channel's records, once per session: test_tau2_gold's (for airline and
    banking the same tasks and flags; for solo telecom its first three tasks of four)."""
    if domain != "telecom":
        return gold_over_a2a(domain, factory)
    ours = tasks_of(domain)
    return {k: r for k, r in solo_over_a2a(domain, factory).items() if k in ours}


@pytest.mark.slow
@pytest.mark.parametrize("caller", real_clients.CLIENTS, indirect=True)
def test_a_real_client_replays_gold_as_the_a2a_channel_scores(
        tmp_path: Path, caller: real_clients.ToolCaller,
        tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> None:
    client = request.node.callspec.params["caller"]
    for domain in DOMAINS:
        replays_as_over_a2a(client, domain, caller, tmp_path / domain, tmp_path_factory)


def replays_as_over_a2a(client: str, domain: str, caller: real_clients.ToolCaller,
                        tmp_path: Path, factory: pytest.TempPathFactory) -> None:
    tmp_path.mkdir()
    over_a2a = baseline(domain, factory)
    over_mcp, agent = replay(domain, tmp_path / "mcp.jsonl", caller)
    spoken = MODERN if client in real_clients.MODERN else "2025-11-25"
    assert set(agent.mcp.protocols.values()) == {spoken}, domain
    assert set(over_mcp) == set(over_a2a), domain
    same = comparable if client.startswith("python") else same_numbers
    for task_id, a2a in over_a2a.items():
        mcp = over_mcp[task_id]
        assert (mcp["reward"], mcp["reward_components"], mcp["termination"]) == (
            a2a["reward"], a2a["reward_components"], a2a["termination"]), (domain, task_id)
        assert same(mcp["transcript"]) == same(a2a["transcript"]), (domain, task_id)
        calls = agent.mcp.calls[task_id]
        assert not [c for c in calls if c.refused], (domain, task_id)
        # What the client got back is byte for byte the transcript's tool message.
        made = [(c, i) for c, i in zip(calls, mcp["details"]["mcp_calls"], strict=True)
                if c.name != "done"]
        assert [(c.text, c.is_error) for c, _ in made] == [
            (mcp["transcript"][i + 1]["content"], mcp["transcript"][i + 1]["error"])
            for _, i in made], (domain, task_id)
    if domain == "banking_knowledge":
        for task_id, calls in agent.mcp.calls.items():
            unlocked = {c.arguments["agent_tool_name"] for c in calls
                        if c.name == "unlock_discoverable_agent_tool"}
            assert agent.mcp.changes[task_id] == len(unlocked), task_id
            assert unlocked & {c.name for c in calls}, "no unlocked tool was called by name"
            assert unlocked <= set(agent.mcp.tool_lists[task_id][-1])
