"""The green's side of delegation (issue 38, scenario team), in-process: what a front agent
may send and what it gets for a refused call; what makes a specialist forfeit; where the
specialist's calls enter the trajectory."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import load_domain
from a2abench.benchmarks.tau2.environment import tool_call_pairs
from a2abench.benchmarks.tau2.models import AssistantMessage, ToolCall, ToolMessage, UserMessage
from a2abench.benchmarks.tau2.team.orchestrator import TeamOrchestrator
from a2abench.benchmarks.tau2.team.specialist import GoldSpecialist, requested_calls
from a2abench.benchmarks.tau2.team.split import front_schemas
from a2abench.errors import Forfeit
from a2abench.net.limits import DEFAULT_MAX_TOOL_CALLS
from a2abench.run.delegation import (
    BudgetSpent,
    DelegateRefused,
    DelegationOptions,
    Delegations,
)
from tests.conftest import shared_data


def budget(**limits: Any) -> Delegations:
    return Delegations(DelegationOptions(**limits), "specialist")


@pytest.mark.parametrize(("arguments", "said"), [
    ({"to": "manager", "message": "hi"}, "unknown role 'manager'"),
    ({"to": "specialist", "message": "  "}, "`message` must be non-empty text"),
    ({"to": "specialist", "message": 7}, "`message` must be non-empty text"),
    ("cancel it", "delegate takes an object"),
    ({"to": "specialist", "message": "x" * 5000}, "--max-delegation-bytes"),
])
def test_a_refused_delegate_call_is_a_tool_error_not_a_crash(arguments: Any, said: str
                                                              ) -> None:
    b = budget(max_delegation_bytes=4096)
    with pytest.raises(DelegateRefused, match=said.replace("(", r"\(").replace(")", r"\)")):
        b.request(arguments)
    assert b.stats.refused == 1 and b.stats.delegations == 0


def test_a_flood_of_delegate_calls_stops_at_the_limit() -> None:
    b = budget(max_delegations=3)
    for _ in range(3):
        b.request({"to": "specialist", "message": "run it"})
    for _ in range(50):
        with pytest.raises(DelegateRefused, match="--max-delegations"):
            b.request({"to": "specialist", "message": "run it"})
    assert (b.stats.delegations, b.stats.refused) == (3, 50)


def test_a_specialist_over_the_budget_or_the_turns_forfeits() -> None:
    b = budget(max_delegation_bytes=2048, max_specialist_turns=2)
    with pytest.raises(Forfeit, match="--max-delegation-bytes") as found:
        b.received("y" * 4096)
    assert found.value.role == "specialist" and found.value.participant == "specialist"
    with pytest.raises(Forfeit, match="--max-specialist-turns 2"):
        b.turn_allowed(2)


def test_a_budget_the_front_agent_filled_ends_the_delegation_not_in_a_forfeit() -> None:
    """The front agent's messages fill the byte budget: the specialist's next reply (or the
    results of its calls) ends the delegation with a tool error for the front agent, never
    the specialist's forfeit; its replies alone over the budget still forfeit."""
    b = budget(max_delegation_bytes=2048)
    b.request({"to": "specialist", "message": "x" * 2000})
    with pytest.raises(BudgetSpent, match="--max-delegation-bytes") as spent:
        b.received("y" * 100)
    assert not isinstance(spent.value, Forfeit) and b.spent is spent.value
    c = budget(max_delegation_bytes=2048)
    c.request({"to": "specialist", "message": "x" * 2000})
    with pytest.raises(BudgetSpent):
        c.sent("tool results " * 10)
    with pytest.raises(DelegateRefused, match="--max-delegation-bytes"):
        c.request({"to": "specialist", "message": "more"})  # nothing passes afterwards


async def test_a_specialist_that_never_answers_forfeits_at_the_deadline() -> None:
    never = asyncio.Event()
    b = budget(delegation_timeout=0.05)  # an injected deadline; the wait is on an event
    with pytest.raises(Forfeit, match="--delegation-timeout"):
        await b.timed(never.wait)


def test_requested_calls_are_read_exactly_and_bounded() -> None:
    text = ('run {"tool_call": {"name": "a", "arguments": {"x": 1}}} and '
            '{"tool_calls": [{"name": "b"}, {"name": 3}, "junk"]} {not json')
    assert requested_calls(text) == [{"name": "a", "arguments": {"x": 1}},
                                     {"name": "b", "arguments": {}}]
    flood = '{"tool_call": {"name": "a", "arguments": {}}}' * 5000
    assert len(requested_calls(flood)) == DEFAULT_MAX_TOOL_CALLS


class Front:
    """A front agent that delegates as told, one call per turn, then says goodbye."""

    def __init__(self, moves: Sequence[dict[str, Any]]) -> None:
        self.moves = list(moves)
        self.turns = 0

    async def respond(self, incoming: Any, calls: Sequence[ToolCall] = ()) -> AssistantMessage:
        self.turns += 1
        if self.moves:
            return AssistantMessage(content=None, tool_calls=[ToolCall(
                id=f"f{self.turns}", name="delegate", arguments=self.moves.pop(0))])
        return AssistantMessage(content="Done.")

    def is_stop(self, message: AssistantMessage) -> bool:
        return False


class User:
    def __init__(self) -> None:
        self.said = 0

    async def respond(self, incoming: Any) -> UserMessage:
        self.said += 1
        return UserMessage(content="Hello" if self.said == 1 else "Bye ###STOP###")


async def test_the_specialists_calls_follow_the_delegate_result_and_replay() -> None:
    domain = load_domain("airline", data_dir=shared_data("tau2").parent)
    task = domain.tasks(task_ids=["8"])[0]
    env = domain.new_environment(task)
    ask = ('{"tool_call": {"name": "get_user_details", "arguments": '
           '{"user_id": "mia_li_3668"}}}')
    front = Front([{"to": "manager", "message": "x"}, {"to": "specialist", "message": ask}])
    b = budget()
    orch = TeamOrchestrator(env, User(), front, specialist=GoldSpecialist(), budget=b)
    outcome = await orch.run()
    msgs = outcome.messages
    refused = next(m for m in msgs if isinstance(m, ToolMessage) and m.id == "f1")
    assert refused.error and "unknown role 'manager'" in (refused.content or "")
    answer = next(m for m in msgs if isinstance(m, ToolMessage) and m.id == "f2")
    assert not answer.error and (answer.content or "").startswith("get_user_details: ")
    (first, result) = (msgs[i] for i in orch.specialist_messages)
    assert msgs.index(first) == msgs.index(answer) + 1  # right after the front's result
    assert first.content is None and first.tool_calls[0].name == "get_user_details"
    assert isinstance(result, ToolMessage) and result.id == first.tool_calls[0].id
    tool_call_pairs(msgs)  # a valid trajectory: upstream's replay accepts it
    assert (b.stats.delegations, b.stats.refused, b.stats.specialist_tool_calls) == (1, 1, 1)


def test_the_front_agent_has_no_write_tool_but_delegate() -> None:
    domain = load_domain("airline", data_dir=shared_data("tau2").parent)
    schemas = domain.agent_tool_schemas()
    names = [s["function"]["name"] for s in front_schemas(domain, schemas)]
    types = domain.tool_types()
    assert names[-1] == "delegate" and "get_user_details" in names
    assert not [n for n in names if types.get(n) == "write"]
    assert {n for n, t in types.items() if t == "write"} & {
        s["function"]["name"] for s in schemas} == {
        n for n in (s["function"]["name"] for s in schemas) if types.get(n) == "write"}


@pytest.mark.parametrize(("mode", "urls", "pairings"), [
    ("face", {"agent": "a", "specialist": "s"}, ["agent+specialist", "agent+no_specialist"]),
    ("vs_reference", {"agent": "a", "specialist": "s"},
     ["agent+specialist", "agent+no_specialist", "agent+reference_specialist",
      "reference_agent+specialist"]),
    ("cross", {"agent": "a", "agent_2": "b", "specialist": "s", "specialist_2": "t"},
     ["agent+specialist", "agent+specialist_2", "agent_2+specialist", "agent_2+specialist_2",
      "agent+no_specialist", "agent_2+no_specialist"]),
])
def test_every_pairing_mode_adds_the_solo_baseline_once_per_front_agent(
        mode: str, urls: dict[str, str], pairings: list[str]) -> None:
    from a2abench.benchmarks.tau2.team.split import TEAM
    from a2abench.run.roles import lineup

    found = lineup(TEAM, urls, mode)
    assert [q.id for q in found.pairings] == pairings
    assert found.primary.id == "agent+specialist"  # the headline: the team
    baseline = found.participant("no_specialist")
    assert (baseline.role, baseline.builtin, baseline.reference) == (
        "specialist", "no_specialist", False)


async def test_the_example_specialist_runs_crmarena_queries_it_is_given() -> None:
    from a2abench.benchmarks.crmarena.team import specialist_preamble
    from a2abench.demo.specialist_agent import NO_QUERY, SpecialistBrain

    first = specialist_preamble("Account(Id, Name)", DelegationOptions())
    query = "SELECT Id FROM Account WHERE Name = 'Acme'"
    brain = SpecialistBrain()
    ask = first + 'Please run {"action": "execute", "query": "' + query + '"}'
    assert await brain.turn("c", [ask], []) == (None, {"action": "execute", "query": query})
    seen = "Salesforce instance output: [{'Id': '001'}]"
    assert await brain.turn("c", [seen], []) == (
        None, {"action": "respond", "answer": "[{'Id': '001'}]"})
    assert await brain.turn("d", [first + "How many accounts?"], []) == (
        None, {"action": "respond", "answer": NO_QUERY})
    broken = SpecialistBrain("wrong-arguments")
    _, action = await broken.turn("e", [ask], [])
    assert action is not None and action["query"] == query + "-WRONG"
