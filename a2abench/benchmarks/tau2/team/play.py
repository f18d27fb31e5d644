"""One match of scenario team: who sits where, and what the record adds.

The conversation is today's tau2 episode with the built-in LLM user; the front agent is a
remote agent or the reference front agent (reference.py), with the read tools and
`delegate`; the specialist is a remote participant or the gold executor (specialist.py).
`no_specialist` is the solo baseline: the front agent alone with every tool, as in a
single-agent run. The record gains the forfeit, `delegation` (the traffic between the
agents, docs/multi-agent.md) and the specialist's A2A turns and messages for the viewer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.benchmarks.tau2.environment import Tau2Environment
from a2abench.benchmarks.tau2.episode import Outcome
from a2abench.benchmarks.tau2.models import Task, TerminationReason
from a2abench.benchmarks.tau2.numbers import parameters_by_tool
from a2abench.benchmarks.tau2.team.mcp_specialist import McpRemoteSpecialist, specialist_over
from a2abench.benchmarks.tau2.team.orchestrator import TeamOrchestrator
from a2abench.benchmarks.tau2.team.reference import DelegatingGoldAgent
from a2abench.benchmarks.tau2.team.specialist import (
    GoldSpecialist,
    RemoteSpecialist,
    Specialist,
    first_parts,
)
from a2abench.benchmarks.tau2.team.split import TEAM, TEAM_NOTE, front_schemas, writes
from a2abench.plugin import TaskContext, TaskOutcome
from a2abench.plugin.provisional import (
    DELEGATING_AGENT,
    GOLD_SPECIALIST,
    NO_SPECIALIST,
    SPECIALIST,
    DelegationOptions,
    Delegations,
    Lineup,
    ToolSession,
)

Remote = RemoteSpecialist | McpRemoteSpecialist  # a specialist participant, A2A or MCP

__all__ = ["TEAM", "TeamMatch", "finish", "match_for", "needs_llm_user"]


def needs_llm_user(lineup: Lineup | None) -> bool:
    """A team match's user is always the built-in LLM user simulator."""
    return lineup is not None and lineup.scenario.name == TEAM.name


@dataclass
class TeamMatch:
    """The delegation side of one team match."""

    specialist: Specialist
    budget: Delegations
    remote: Remote | None = None
    front: DelegatingGoldAgent | None = None  # the reference front agent, when it plays
    orch: TeamOrchestrator | None = None

    def orchestrator(self, env: Tau2Environment, user: Any, agent: Any,
                     **limits: Any) -> TeamOrchestrator:
        self.orch = TeamOrchestrator(env, user, self.front or agent,
                                     specialist=self.specialist, budget=self.budget, **limits)
        return self.orch

    def front_tools(self, domain: Tau2Domain, schemas: list[dict[str, Any]], policy: str
                    ) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
        """The front agent's schemas, their parameters and its policy with the team note."""
        front = front_schemas(domain, schemas)
        return front, parameters_by_tool(front), policy + TEAM_NOTE


def match_for(ctx: TaskContext, task: Task, domain: Tau2Domain,
              schemas: list[dict[str, Any]], limits: DelegationOptions,
              session: ToolSession | None = None, url: str = "") -> TeamMatch | None:
    """The match's delegation side; None outside team and for the solo baseline. A remote
    specialist's tools are on `session` when there is one (--tool-channel mcp)."""
    seat = ctx.seat(SPECIALIST)
    if seat is None or seat.builtin == NO_SPECIALIST:
        return None
    budget = Delegations(limits, seat.id)
    front_seat = ctx.seat("agent")
    front = (DelegatingGoldAgent(task, writes(domain))
             if front_seat is not None and front_seat.builtin == DELEGATING_AGENT else None)
    if seat.builtin == GOLD_SPECIALIST:
        return TeamMatch(GoldSpecialist(), budget, front=front)
    chat, turns = ctx.conversation(role=SPECIALIST), limits.max_specialist_turns
    remote: Remote
    if session is not None:
        remote = specialist_over(chat, seat.id, session, url, domain.name, schemas,
                                 parameters_by_tool(schemas), turns, limits.delegation_timeout)
    else:
        remote = RemoteSpecialist(chat, seat.id, first_parts(
            domain.name, schemas, turns, limits.delegation_timeout), parameters_by_tool(schemas))
    return TeamMatch(remote, budget, remote, front)


def finish(result: TaskOutcome, outcome: Outcome, match: TeamMatch | None) -> TaskOutcome:
    """The match's forfeit, its delegation traffic, the specialist's turns for the viewer."""
    if outcome.forfeit is not None:
        result.forfeit = outcome.forfeit
        if result.termination == TerminationReason.USER_ERROR.value:
            result.termination = TerminationReason.AGENT_ERROR.value  # the team's side
    if match is None:  # the solo baseline: nothing passed between agents
        result.details["delegation"] = {"baseline": True}
        return result
    result.details["delegation"] = match.budget.stats.as_dict()
    if match.orch is not None:
        result.details["specialist_messages"] = match.orch.specialist_messages
    if match.remote is not None:
        result.details["specialist_turns"] = match.remote.chat.log
    return result
