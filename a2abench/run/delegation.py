"""Delegation in scenario team (docs/multi-agent.md, "Scenario team"): the front agent's
`delegate` tool, the limits the green holds every match's inter-agent traffic to, and what
it counts. Benchmark-neutral: each benchmark runs the specialist's side with its own tools
(tau2: team/, CRMArena: team.py) and asks a `Delegations` whether a message may pass.

The front agent calls `delegate` with `{"to": "specialist", "message": "..."}` on its tool
channel (a DataPart tool call, or the MCP tool). A call the green refuses (an unknown role,
a message that is not text, the match's delegation or byte budget spent) comes back to the
front agent as a tool error and costs it nothing else; so does a delegation during which the
byte budget runs out (BudgetSpent: both agents' traffic fills it, so the front agent could
fill it on purpose). A specialist that does not answer in time, whose own replies alone
exceed the byte budget, or that keeps calling tools without replying forfeits the match
(its role scores 0; the front agent's score leaves the match out).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel

from a2abench.errors import A2ABenchError, Forfeit, ProtocolError
from a2abench.options import option
from a2abench.run.roles import AGENT, Scenario

DELEGATE = "delegate"
SPECIALIST = "specialist"
# The built-in partners of scenario team, the same names in every benchmark that has it:
# the reference specialist, the reference front agent, the solo baseline's empty seat.
GOLD_SPECIALIST, DELEGATING_AGENT, NO_SPECIALIST = (
    "gold_specialist", "delegating_agent", "no_specialist")
T = TypeVar("T")


def team_scenario(description: str) -> Scenario:
    """Scenario team (docs/multi-agent.md): a front agent and its specialist, their
    built-in reference partners, and the solo baseline."""
    return Scenario("team", (AGENT, SPECIALIST),
                    {SPECIALIST: GOLD_SPECIALIST, AGENT: DELEGATING_AGENT}, description,
                    baselines={SPECIALIST: NO_SPECIALIST})

DELEGATE_DESCRIPTION = (
    "Send a message to your specialist colleague, who holds the tools you lack, and wait for "
    "the reply. The reply is this tool's result. The specialist sees only your message, not "
    "the conversation: include every detail it needs. To have it run a tool exactly, put the "
    'call in the message as JSON: {"tool_call": {"name": "<tool>", "arguments": {...}}} '
    '(several: {"tool_calls": [...]}).')
DELEGATE_PARAMETERS: dict[str, Any] = {
    "type": "object", "required": ["to", "message"], "additionalProperties": False,
    "properties": {
        "to": {"type": "string", "enum": [SPECIALIST],
               "description": "Who receives the message: specialist."},
        "message": {"type": "string", "description": "What you ask of the specialist."}}}


class DelegationOptions(BaseModel):
    """The limits on the traffic between the agents of a team match (scenario team), one
    flag each; a benchmark with scenario team mixes them into its options."""

    max_delegations: int = option(
        10, "Scenario team: delegate calls the front agent may make per task-trial; more "
            "come back as a tool error.", ge=1, le=1000)
    max_specialist_turns: int = option(
        30, "Scenario team: replies (tool-call rounds) the specialist may send per "
            "delegation before it must answer; more forfeit its match.", ge=1, le=1000)
    max_delegation_bytes: int = option(
        1_000_000, "Scenario team: bytes of messages the two agents may exchange per "
                   "task-trial (both ways, tool results to the specialist included); a "
                   "front message over it is refused, a specialist over it forfeits.",
        ge=1024, le=1_000_000_000)
    delegation_timeout: float = option(
        300.0, "Scenario team: seconds one delegation may take, the specialist's tool calls "
               "included; a specialist over it forfeits.", gt=0, le=86_400)


class DelegateRefused(A2ABenchError):
    """A delegate call the green does not pass on: the front agent gets it as a tool error."""

    kind = "agent"


class BudgetSpent(DelegateRefused):
    """The match's delegation bytes ran out during a delegation, the specialist's own
    replies within them: the delegation ends there and the front agent's delegate call gets
    a tool error; the team plays on and is scored. Not the specialist's forfeit: the front
    agent's messages count towards the same budget, so a front agent that filled it could
    otherwise make its specialist forfeit a match the team was losing (and drop it from the
    front agent's score)."""


class SpecialistFault(ProtocolError):
    """What makes the specialist forfeit besides its own A2A failures (time, bytes, loops)."""


@dataclass
class DelegationStats:
    """A match's inter-agent traffic (the record's `match.delegation`)."""

    delegations: int = 0  # delegate calls passed on
    refused: int = 0  # delegate calls refused (tool errors)
    specialist_turns: int = 0  # the specialist's replies
    specialist_tool_calls: int = 0
    bytes_to_specialist: int = 0
    bytes_from_specialist: int = 0
    time_ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"delegations": self.delegations, "refused": self.refused,
                "specialist_turns": self.specialist_turns,
                "specialist_tool_calls": self.specialist_tool_calls,
                "bytes_to_specialist": self.bytes_to_specialist,
                "bytes_from_specialist": self.bytes_from_specialist,
                "time_ms": round(self.time_ms, 3)}


@dataclass
class Delegations:
    """One match's delegation budget: what may pass, and what did."""

    limits: DelegationOptions
    specialist: str  # the participant id in the specialist seat
    stats: DelegationStats = field(default_factory=DelegationStats)
    # A channel's own deadline on the delegate call (MCP's per-call limit): a delegation
    # ends before it, so that a slow specialist forfeits rather than voiding the match.
    channel_deadline_s: float | None = None
    spent: BudgetSpent | None = None  # the byte budget ran out (the delegation ended)

    def within(self, deadline_s: float) -> None:
        """The delegate call runs under a deadline of the front agent's channel."""
        self.channel_deadline_s = deadline_s - min(10.0, deadline_s / 4)

    def request(self, arguments: Any) -> str:
        """The message of a delegate call, counted; raises DelegateRefused (a tool error)."""
        args = arguments if isinstance(arguments, dict) else {}
        to, message = args.get("to"), args.get("message")
        problem = None
        if not isinstance(arguments, dict):
            problem = 'delegate takes an object {"to": "specialist", "message": "..."}'
        elif to != SPECIALIST:
            problem = (f"unknown role {str(to)[:40]!r}: this team has one colleague, "
                       f"{SPECIALIST!r}")
        elif not isinstance(message, str) or not message.strip():
            problem = "`message` must be non-empty text"
        elif self.stats.delegations >= self.limits.max_delegations:
            problem = (f"the delegation limit is reached ({self.limits.max_delegations} per "
                       "task, --max-delegations); finish with what you have")
        elif self._bytes_left() < len(message.encode()):
            problem = (f"the message is {len(message.encode())} bytes, more than the "
                       f"{self._bytes_left()} left of this task's delegation budget "
                       "(--max-delegation-bytes)")
        if problem is not None:
            self.stats.refused += 1
            raise DelegateRefused(problem)
        assert isinstance(message, str)
        self.stats.delegations += 1
        self.stats.bytes_to_specialist += len(message.encode())
        return message

    def sent(self, text: str) -> None:
        """Something else the green sends the specialist (its tool results): counted; over
        the budget the delegation ends (BudgetSpent)."""
        self.stats.bytes_to_specialist += len(text.encode())
        self._within_budget()

    def received(self, text: str) -> None:
        """A specialist reply: counted. Its replies alone over the budget: its forfeit (a
        flood of its own); the budget spent with the front agent's messages: BudgetSpent."""
        self.stats.specialist_turns += 1
        self.stats.bytes_from_specialist += len(text.encode())
        if self.stats.bytes_from_specialist > self.limits.max_delegation_bytes:
            self._forfeit(SpecialistFault(
                f"the specialist's replies exceed this task's delegation budget of "
                f"{self.limits.max_delegation_bytes} bytes (--max-delegation-bytes)"))
        self._within_budget()

    def _within_budget(self) -> None:
        if self._bytes_left() >= 0:
            return
        self.stats.refused += 1  # the delegate call ends in a tool error
        self.spent = BudgetSpent(
            f"this task's delegation budget of {self.limits.max_delegation_bytes} bytes "
            "(--max-delegation-bytes, both ways) is spent; the specialist's work so far "
            "stands, its last reply is not passed on; finish with what you have")
        raise self.spent

    def turn_allowed(self, turns: int) -> None:
        """Before the specialist's next turn of one delegation: loops forfeit."""
        if turns >= self.limits.max_specialist_turns:
            self._forfeit(SpecialistFault(
                f"the specialist took {turns} rounds (tool-call replies, or tool calls over "
                f"MCP) in one delegation without a final answer (--max-specialist-turns "
                f"{self.limits.max_specialist_turns})"))

    async def timed(self, work: Callable[[], Awaitable[T]]) -> T:
        """One delegation, within --delegation-timeout (over it: the specialist's forfeit)."""
        t0 = time.perf_counter()
        limit, why = self.limits.delegation_timeout, "--delegation-timeout"
        if self.channel_deadline_s is not None and self.channel_deadline_s < limit:
            limit, why = self.channel_deadline_s, "the MCP tool call's limit, less a margin"
        try:
            return await asyncio.wait_for(work(), limit)
        except TimeoutError:
            self._forfeit(SpecialistFault(
                f"the delegation took longer than {limit:g} s ({why})"))
        finally:
            self.stats.time_ms += (time.perf_counter() - t0) * 1000

    async def mcp_reply(self, turn: AbstractAsyncContextManager[None],
                        send: Callable[[], Awaitable[T]]) -> T:
        """A specialist's A2A request while it holds its MCP session's `turn` (its tool
        calls run meanwhile): its failures are its forfeit, but once the byte budget ran
        out during the request (its calls' results), the delegation ended there."""
        try:
            async with turn:
                reply = await send()
        except Forfeit:
            if self.spent is None:
                raise
            raise self.spent from None
        if self.spent is not None:
            raise self.spent
        return reply

    def _bytes_left(self) -> int:
        return (self.limits.max_delegation_bytes - self.stats.bytes_to_specialist
                - self.stats.bytes_from_specialist)

    def _forfeit(self, cause: A2ABenchError) -> NoReturn:
        raise Forfeit(SPECIALIST, self.specialist, cause)


def refusal_text(exc: DelegateRefused) -> str:
    """The tool error the front agent gets for a refused delegate call."""
    return f"Error: {exc.message}"
