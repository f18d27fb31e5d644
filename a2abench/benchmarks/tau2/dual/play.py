"""One match of scenario dual: who plays the user and the agent, and what the record adds.

The conversation is today's tau2 episode (the same Orchestrator, environment and evaluator);
only the seats change. The user seat is a remote participant (`ParticipantUser`) or the
built-in LLM user simulator (`reference_user`); the agent seat is a remote agent (as in a
single-agent run) or the offline gold agent (`reference_agent`). The record gains the
forfeit, the user role's violations, and the user participant's A2A turns for the viewer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.benchmarks.tau2.dual.mcp_user import (
    McpParticipantUser,
    UserTools,
    bind,
    mcp_preamble,
)
from a2abench.benchmarks.tau2.dual.reference import GoldAgent
from a2abench.benchmarks.tau2.dual.relay import ParticipantUser, first_parts
from a2abench.benchmarks.tau2.dual.violations import user_violations
from a2abench.benchmarks.tau2.environment import Tau2Environment
from a2abench.benchmarks.tau2.episode import Orchestrator, Outcome
from a2abench.benchmarks.tau2.models import Task
from a2abench.benchmarks.tau2.numbers import parameters_by_tool
from a2abench.benchmarks.tau2.user_sim import UserSimulator, system_prompt
from a2abench.plugin import ChatLLM, ConfigError, TaskContext, TaskOutcome
from a2abench.plugin.provisional import McpChannel, Scenario, ToolSession

__all__ = ["DUAL", "against_gold", "bind", "check", "finish", "needs_llm_user",
           "participant_channel", "plays_gold", "start_of", "user_for"]

LLM_USER, GOLD_AGENT = "llm_user", "gold_agent"
DUAL = Scenario(
    "dual", ("agent", "user"), {"user": LLM_USER, "agent": GOLD_AGENT},
    "two-sided tau2: the customer is an A2A participant too; its reference partner is the "
    "built-in LLM user simulator, the agent's a2abench's offline gold-replaying agent")
Scorer = Callable[[Task, Outcome, TaskContext], Awaitable[TaskOutcome]]
Finisher = Callable[..., TaskOutcome]


def check(builtins: set[str] | None, solo: bool) -> None:
    """What a dual run cannot be (raised before the first task): a solo run has no user.
    `builtins`: the lineup's built-in partners (None: a single-agent run)."""
    if builtins is not None and solo:
        raise ConfigError("--solo has no user: it cannot be combined with a user participant "
                          "or --pairing", hint="Drop --solo, or the other participants.")


def needs_llm_user(builtins: set[str] | None) -> bool:
    """Whether some match seats the built-in LLM user (single-agent runs: every one)."""
    return builtins is None or LLM_USER in builtins


@contextmanager
def participant_channel(mcp: McpChannel, ctx: TaskContext, task: Task, role: str
                        ) -> Iterator[ToolSession | None]:
    """The MCP session of a participant's own tools (a user's, a team's specialist's; with
    --tool-channel mcp), open for the match; None otherwise (a single-agent run, a
    built-in partner in the seat)."""
    seat = ctx.seat(role)
    if not mcp.enabled or seat is None or not seat.remote or ctx.pairing is None:
        yield None
        return
    with mcp.session(f"{task.id}#{ctx.trial}#{ctx.pairing.id}#{role}") as session:
        yield session


def user_for(ctx: TaskContext, task: Task, env: Tau2Environment, history: Sequence[Any],
             domain: Tau2Domain, llm: Callable[[], ChatLLM],
             session: ToolSession | None = None, mcp_url: str = ""
             ) -> UserSimulator | ParticipantUser:
    """The match's user: the participant in the user seat (its tools over MCP on `session`
    when there is one and it has tools), else the built-in simulator on `llm()`."""
    guidelines = domain.guidelines_for(env)
    seat = ctx.seat("user")
    if seat is None or not seat.remote:
        return UserSimulator(llm(), system_prompt(guidelines, str(task.user_scenario)),
                             tools=env.user_tool_schemas(), seed=ctx.seed, usage=ctx.usage,
                             history=history)
    tools = env.user_tool_schemas()
    preamble = first_parts(task, domain.name, guidelines, ctx.seed, tools, history)
    parameters = parameters_by_tool(domain.user_tool_schemas())
    chat = ctx.conversation(role="user")
    if session is not None and tools:
        backend = UserTools(tools, parameters, session, seat.id)
        return McpParticipantUser(chat, mcp_preamble(preamble, mcp_url,
                                                     session.pointer(mcp_url)), seat.id, backend)
    return ParticipantUser(chat, preamble, seat.id, parameters=parameters)


def plays_gold(ctx: TaskContext) -> bool:
    seat = ctx.seat("agent")
    return seat is not None and seat.builtin == GOLD_AGENT


async def against_gold(ctx: TaskContext, task: Task, env: Tau2Environment,
                       user: UserSimulator | ParticipantUser, history: Sequence[Any], *,
                       domain: Tau2Domain, max_steps: int, max_errors: int,
                       scored: Scorer, finish_with: Finisher | None = None) -> TaskOutcome:
    """The match with the offline reference agent in the agent seat."""
    outcome = await bind(user, Orchestrator(env, user, GoldAgent(task), history=history,
                                            max_steps=max_steps, max_errors=max_errors)).run()
    result = await scored(task, outcome, ctx)
    return (finish_with or finish)(result, outcome, task, env, domain, user, start_of(history))


def start_of(history: Sequence[Any]) -> int:
    """The transcript index where the match's own messages begin (after the greeting)."""
    return len(history) if history else 1


def finish(result: TaskOutcome, outcome: Outcome, task: Task, env: Tau2Environment,
           domain: Tau2Domain, user: UserSimulator | ParticipantUser,
           start: int) -> TaskOutcome:
    """The match's forfeit, the user role's violations, the user participant's turns."""
    if outcome.forfeit is not None:
        result.forfeit = outcome.forfeit
    allowed = {s["function"]["name"] for s in env.user_tool_schemas()}
    result.violations = {"user": user_violations(task, outcome, domain, allowed, start)}
    if isinstance(user, ParticipantUser):  # each A2A reply's state and latency
        result.details["user_turns"] = user.chat.log
    return result
