"""The half-duplex conversation loop of tau2.md §5, with the white agent over A2A.

One step moves one message: user -> agent, agent -> user, or a batch of tool calls -> the
environment and their results back to the caller. After each step the environment syncs
(telecom), then the limits are checked (not while tool results are pending, as upstream).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from a2abench.benchmarks.tau2.actions import EmptyReply, ToolCallFormat
from a2abench.benchmarks.tau2.environment import Tau2Environment
from a2abench.benchmarks.tau2.models import (
    AssistantMessage,
    TerminationReason,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from a2abench.benchmarks.tau2.numbers import parameters_by_tool
from a2abench.benchmarks.tau2.profiles import Profile, get_profile
from a2abench.benchmarks.tau2.prompt import GREETING
from a2abench.benchmarks.tau2.user_sim import is_stop
from a2abench.plugin import A2ABenchError, AgentError, Conversation, Part, TaskStatus, agent_input
from a2abench.plugin.provisional import ErrorInfo, Forfeit


class Role(Enum):
    AGENT = "agent"
    USER = "user"
    ENV = "env"


class AgentLink:
    """The white agent as a tau2 participant: tau2 messages in, an AssistantMessage out."""

    def __init__(self, chat: Conversation, policy: str, schemas: list[dict[str, Any]],
                 history: Sequence[Any] = (), *,
                 tool_call_format: ToolCallFormat = "any",
                 preamble: list[Part] | None = None, profile: Profile | None = None,
                 tools: dict[str, Any] | None = None) -> None:
        """`tools`: `parameters_by_tool(schemas)` when the caller keeps it (the run's own)."""
        self.chat = chat
        # The message format (profiles.py); a given preamble (solo) replaces its first message.
        self.profile = profile or get_profile("a2abench", tool_call_format)
        self._preamble = preamble
        self._first: tuple[str, list[dict[str, Any]], Sequence[Any]] | None = (
            None if preamble else (policy, schemas, history))
        self.tools = tools if tools is not None else parameters_by_tool(schemas)
        self.turns = 0

    async def respond(self, incoming: UserMessage | list[ToolMessage] | None,
                      calls: Sequence[ToolCall] = ()) -> AssistantMessage:
        """The agent's answer to the user's words or to tool results (None: the preamble
        alone, a solo run's first message)."""
        if self._first is not None and incoming is not None:
            parts = self.profile.first(*self._first, incoming, calls)
        else:
            parts = list(self._preamble or []) + self.profile.follow(incoming, calls)
        self._first = self._preamble = None
        reply = await self.chat.send(*parts)
        self.turns += 1
        with agent_input("reply"):
            return self.profile.parse(reply, self.tools)

    def is_stop(self, message: AssistantMessage) -> bool:
        return self.profile.is_stop(message)


class UserSide(Protocol):
    """Who plays the user: the built-in simulator, or a participant (dual/relay.py)."""

    async def respond(self, incoming: AssistantMessage | list[ToolMessage]) -> UserMessage: ...


class AgentSide(Protocol):
    """Who plays the agent: `AgentLink` over A2A, or the offline gold agent (dual/)."""

    turns: int

    async def respond(self, incoming: Any, calls: Sequence[ToolCall] = ()
                      ) -> AssistantMessage: ...

    def is_stop(self, message: AssistantMessage) -> bool: ...


@dataclass
class Outcome:
    messages: list[Any]
    termination: TerminationReason
    steps: int
    errors: int
    agent_turns: int
    error: ErrorInfo | None = None
    status: TaskStatus = "ok"  # ok | agent_error | infrastructure_error | forfeit
    notes: dict[str, Any] = field(default_factory=dict)
    forfeit: str | None = None  # the role of a participant that forfeited (scenario dual)


class Orchestrator:
    """One tau2 conversation: routes messages between the user simulator, the agent (over
    A2A, through `AgentLink`) and the environment's tools, as upstream's `Orchestrator` does.

    After the fixed greeting the user speaks; a tool call goes to the environment and its
    results back to the caller; the run ends on the user's stop token, `max_steps` steps or
    `max_errors` tool errors (checked after every step, as upstream). `run()` returns an
    `Outcome`; agent errors and infrastructure failures become outcomes, never exceptions.
    """

    def __init__(self, env: Tau2Environment, user: UserSide, agent: AgentSide, *,
                 history: Sequence[Any] = (), max_steps: int = 200,
                 max_errors: int = 10) -> None:
        self.env, self.user, self.agent = env, user, agent
        self.max_steps, self.max_errors = max_steps, max_errors
        self.steps = self.errors = 0
        self.done = False
        self.termination = TerminationReason.USER_STOP
        self.trajectory: list[Any] = list(history)
        self._route(history)

    def _route(self, history: Sequence[Any]) -> None:
        """Who speaks next: after the fixed greeting the user does; after a pre-existing
        history, whoever the last message was meant for (upstream's initialize)."""
        if not history:
            greeting = AssistantMessage(content=GREETING, cost=0.0)
            self.trajectory = [greeting]
            self.message: Any = greeting
            self.source, self.target = Role.AGENT, Role.USER
            return
        last = history[-1]
        self.message = last
        if isinstance(last, AssistantMessage):
            self.source = Role.AGENT
            self.target = Role.ENV if last.is_tool_call() else Role.USER
        elif isinstance(last, UserMessage):
            self.source = Role.USER
            self.target = Role.ENV if last.is_tool_call() else Role.AGENT
            if is_stop(last):
                self.done = True
        else:
            self.source = Role.ENV
            self.target = Role.AGENT if last.requestor == "assistant" else Role.USER
            self.message = [m for m in history if isinstance(m, ToolMessage)
                            and m.requestor == last.requestor][-1:]

    async def run(self) -> Outcome:
        """Step until the conversation ends; the trajectory and why it ended."""
        try:
            while not self.done:
                await self.step()
                self._check_limits()
        except AgentError as exc:
            return self._fail("agent_error", TerminationReason.AGENT_ERROR, exc)
        except Forfeit as exc:  # a user participant failed (docs/multi-agent.md)
            outcome = self._fail("forfeit", TerminationReason.USER_ERROR, exc)
            outcome.error = ErrorInfo(error=type(exc.cause).__name__, kind=exc.kind,
                                      message=exc.message, hint=exc.hint)
            outcome.forfeit = exc.role
            return outcome
        except A2ABenchError as exc:
            if exc.kind != "infrastructure":
                raise
            reason = (TerminationReason.USER_ERROR if self.target is Role.USER
                      else TerminationReason.INFRASTRUCTURE_ERROR)
            return self._fail("infrastructure_error", reason, exc)
        return Outcome(self.trajectory, self.termination, self.steps, self.errors,
                       self.agent.turns)

    def _fail(self, status: TaskStatus, reason: TerminationReason, exc: A2ABenchError) -> Outcome:
        return Outcome(self.trajectory, reason, self.steps, self.errors, self.agent.turns,
                       error=ErrorInfo(error=type(exc).__name__, kind=exc.kind,
                                       message=exc.message, hint=exc.hint), status=status)

    async def step(self) -> None:
        msg: UserMessage | AssistantMessage
        if self.target is Role.USER:
            msg = await self.user.respond(self.message)
            if self.done:  # a user's tool call over MCP during its turn ended the conversation
                return
            self.trajectory.append(msg)
            if is_stop(msg):
                self.done, self.termination = True, TerminationReason.USER_STOP
            self._advance(msg, Role.USER)
        elif self.target is Role.AGENT:
            calls = self._pending_calls() if self.source is Role.ENV else ()
            try:
                msg = await self.agent.respond(self.message, calls)
            except EmptyReply as exc:  # kept in the transcript, as upstream keeps it
                self.trajectory.append(exc.reply)
                raise
            if self.done:  # a tool call over MCP during the turn ended the conversation
                return
            self.trajectory.append(msg)
            if self.agent.is_stop(msg):  # upstream: agent.is_stop -> AGENT_STOP
                self.done, self.termination = True, TerminationReason.AGENT_STOP
            self._advance(msg, Role.AGENT)
        else:
            results = await self._execute(list(self.message.tool_calls))
            self.message = results
            self.source, self.target = Role.ENV, self.source
        self.steps += 1
        self.env.sync_tools()

    async def _execute(self, calls: list[ToolCall]) -> list[ToolMessage]:
        """Run calls in the environment; their results enter the trajectory."""
        results = await self._run(calls)
        self.errors += sum(r.error for r in results)
        self.trajectory.extend(results)
        return results

    async def _run(self, calls: list[ToolCall]) -> list[ToolMessage]:
        """Run calls in the environment, off the event loop when its tools block."""
        if not self.env.blocking:
            return [self.env.execute(call) for call in calls]
        try:  # e.g. banking KB_search calling an embeddings endpoint
            return await asyncio.to_thread(lambda: [self.env.execute(c) for c in calls])
        except asyncio.CancelledError:  # --task-timeout: stop what the thread runs
            self.env.cancelled.set()
            raise

    async def run_mcp_call(self, call: ToolCall) -> ToolMessage:
        """One call the agent made over MCP while holding the turn (docs/mcp.md): it enters
        the trajectory as a DataPart call would, as the assistant's call message (a step)
        and its result (a step), and the limits are checked after it as after those."""
        self.trajectory.append(AssistantMessage(content=None, tool_calls=[call]))
        self._count_agent_step()
        return await self._mcp_result(call)

    async def run_user_mcp_call(self, call: ToolCall) -> ToolMessage:
        """A user participant's call over MCP while it holds its turn (scenario dual): as
        its DataPart call would, the user's call message (a step) and its result (a step),
        the limits checked after it."""
        self.trajectory.append(UserMessage(content=None, tool_calls=[call]))
        self.steps += 1
        return await self._mcp_result(call)

    async def _mcp_result(self, call: ToolCall) -> ToolMessage:
        """Run a call made over MCP (its message is in the trajectory, counted): its result
        is a step, and the limits are checked after it."""
        self.env.sync_tools()
        (result,) = await self._execute([call])
        self.steps += 1
        self.env.sync_tools()
        self._check_limits()
        return result

    def _count_agent_step(self) -> None:
        self.steps += 1

    def _advance(self, msg: Any, source: Role) -> None:
        self.message, self.source = msg, source
        if msg.is_tool_call():
            self.target = Role.ENV
        else:
            self.target = Role.AGENT if source is Role.USER else Role.USER

    def _pending_calls(self) -> list[ToolCall]:
        for m in reversed(self.trajectory):
            if isinstance(m, AssistantMessage) and m.tool_calls:
                return list(m.tool_calls)
        return []

    def _check_limits(self) -> None:
        # Upstream checks even after a stop token: a ###STOP### on the last allowed step
        # still ends as max_steps (unscored).
        if self.target is Role.ENV:
            return
        if self.steps >= self.max_steps:
            self.done, self.termination = True, TerminationReason.MAX_STEPS
        if self.errors >= self.max_errors:
            self.done, self.termination = True, TerminationReason.TOO_MANY_ERRORS
