"""One task-trial's tools as an MCP session, and the registry of live sessions.

A `ToolSession` is opened when a task-trial starts and closed when it ends: its random bearer
token names it on the endpoint and dies with it. The benchmark's episode plugs in a
`ToolBackend` (the tools of that task-trial's environment, and how a call runs there) and
holds the turn (`async with session.turn():`) while an A2A request of its conversation is in
flight; a call is accepted only then. Calls of one session run one at a time, in arrival
order, so the trajectory order is the execution order.

Nothing here imports the MCP SDK: `server.py` turns `CallRejected` into MCP errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from a2abench.errors import A2ABenchError, Forfeit, InfrastructureError
from a2abench.net.limits import DEFAULT_MAX_TOOL_CALLS, lone_surrogate

Outcome = Literal["ok", "error", "rejected", "timeout"]
UNKNOWN_TOOL = "(unknown)"  # the metric label of names that are not tools (bounded labels)


@dataclass(frozen=True)
class McpLimits:
    """What one session accepts: arguments of at most `max_argument_bytes` (as compact
    JSON), `max_calls_per_turn` calls while the agent holds one turn (the A2A channel's
    limit on calls in one reply), each call finishing within `call_timeout_s`; at most
    `max_mcp_sessions` open handshake-era MCP sessions for its token."""

    max_argument_bytes: int = 64_000
    max_calls_per_turn: int = DEFAULT_MAX_TOOL_CALLS
    call_timeout_s: float = 120.0
    max_mcp_sessions: int = 16


@dataclass(frozen=True)
class ToolSpec:
    """One tool as `tools/list` shows it."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """A call's one text content; `is_error` where upstream records an error;
    `tools_changed` when the call changed the tool list (banking's unlocks)."""

    text: str
    is_error: bool = False
    tools_changed: bool = False


class ToolBackend(Protocol):
    """A task-trial's tools, provided by its benchmark episode."""

    def tools(self) -> list[ToolSpec]:
        """The tools the agent may call now (the A2A channel's list)."""
        ...

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one call in the task-trial's environment and record it in the trajectory;
        raise `CallRejected` to refuse it without changing anything."""
        ...


class CallRejected(Exception):
    """A call refused before it ran: nothing changed. `reason` is a short code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class ToolCallTimeout(InfrastructureError):
    """A tool call ran past the per-call deadline: the environment's state is unknown."""


def argument_bytes(arguments: dict[str, Any]) -> int:
    """The size the argument limit measures: compact JSON, UTF-8."""
    return len(json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode())


@dataclass
class ToolSession:
    """The MCP side of one task-trial (see the module docstring)."""

    token: str
    registry: ToolRegistry
    limits: McpLimits = field(default_factory=McpLimits)
    label: str = ""  # "<task id>#<trial>", for logs and errors
    backend: ToolBackend | None = None
    in_turn: bool = False
    calls_this_turn: int = 0
    calls: int = 0
    alive: bool = True
    # An infrastructure failure during a call (a deadline overrun): the episode raises it
    # once the turn is over, so the task-trial ends as an infrastructure error.
    failure: A2ABenchError | None = None
    # The handshake-era MCP sessions its token opened: id -> requests in flight, least
    # recently used first; and how many opening requests are in flight.
    mcp_sessions: OrderedDict[str, int] = field(default_factory=OrderedDict)
    mcp_opening: int = 0
    announces: bool = False  # its tool list can change: responses stream (list_changed)
    ended: bool = False  # a call ended the episode during the turn: its reply is not used
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def pointer(self, url: str) -> dict[str, Any]:
        """The first message's DataPart: where the tools are and the header to send."""
        return {"mcp": {"url": url, "headers": {"Authorization": f"Bearer {self.token}"}}}

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold the turn for the length of one A2A request of the conversation."""
        self.in_turn, self.calls_this_turn = True, 0
        try:
            yield
        except A2ABenchError:
            if isinstance(self.failure, Forfeit):  # a participant behind a call failed
                raise self.failure from None  # first: its forfeit, not the turn's error
            raise
        finally:
            self.in_turn = False
        if self.failure is not None:
            raise self.failure

    def tools(self) -> list[ToolSpec]:
        if not self.alive or self.backend is None:
            raise CallRejected("expired", "this task-trial has ended; its token is expired")
        return self.backend.tools()

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Check the limits, then run the call in the task-trial's environment."""
        known = self.backend is not None and any(t.name == name for t in self.backend.tools())
        label = name if known else UNKNOWN_TOOL
        try:
            self._admit(name, arguments, known)
            async with self._lock:
                if not self.alive or not self.in_turn:  # the turn ended while it waited
                    raise CallRejected("outside_turn", _OUTSIDE_TURN)
                self.calls_this_turn += 1
                self.calls += 1
                result = await self._run(name, arguments)
        except CallRejected:
            self.registry.count(label, "rejected")
            raise
        except ToolCallTimeout as exc:
            self.registry.count(label, "timeout")
            raise CallRejected("timeout", exc.message) from None
        except A2ABenchError as exc:  # e.g. the org went away: the task-trial ends with it
            self.registry.count(label, "error")
            raise CallRejected("failed", f"the call failed: {exc.message}") from None
        self.registry.count(label, "error" if result.is_error else "ok")
        return result

    def _admit(self, name: str, arguments: dict[str, Any], known: bool) -> None:
        if not self.alive or self.backend is None:
            raise CallRejected("expired", "this task-trial has ended; its token is expired")
        if not self.in_turn:
            raise CallRejected("outside_turn", _OUTSIDE_TURN)
        where = lone_surrogate(arguments)  # JSON-valid, but no text: it runs nowhere
        if where is not None:
            raise CallRejected("invalid_text", f"the arguments are not valid Unicode text: a "
                               f"lone surrogate ({where}), which UTF-8 cannot encode")
        size = argument_bytes(arguments)
        if size > self.limits.max_argument_bytes:
            raise CallRejected("too_large", f"the arguments are {size} bytes; the limit is "
                               f"{self.limits.max_argument_bytes}")
        if self.calls_this_turn >= self.limits.max_calls_per_turn:
            raise CallRejected("too_many_calls", f"more than {self.limits.max_calls_per_turn} "
                               "tool calls in one turn; reply to end the turn")
        if not known:
            raise CallRejected("unknown_tool", f"unknown tool {name!r}")

    async def _run(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        assert self.backend is not None
        try:
            async with asyncio.timeout(self.limits.call_timeout_s):  # no extra task
                return await self.backend.call(name, arguments)
        except TimeoutError:
            self.failure = ToolCallTimeout(
                f"the MCP tool call {name} of {self.label or 'a task-trial'} ran past the "
                f"{self.limits.call_timeout_s:g} s deadline",
                hint="The environment behind the tool did not answer; this task-trial is "
                     "not scored.")
        except CallRejected:
            raise
        except A2ABenchError as exc:
            self.failure = exc
        self.alive = False  # the task-trial ends with the failure once the turn is over
        raise self.failure

    def close(self) -> None:
        self.alive = False
        self.registry.forget(self.token)


_OUTSIDE_TURN = ("tool calls are accepted only while the agent holds the turn (an A2A "
                 "request of this conversation is in flight)")


class ToolRegistry:
    """The live sessions of one endpoint, by token, and the call counters by tool and
    outcome (`a2abench_mcp_calls_total`)."""

    def __init__(self, on_call: Callable[[str, Outcome], None] | None = None) -> None:
        self._sessions: dict[str, ToolSession] = {}
        self.counts: Counter[tuple[str, Outcome]] = Counter()
        self.on_call = on_call
        self.on_forget: list[Callable[[ToolSession], None]] = []  # a session closed

    def open(self, limits: McpLimits | None = None, label: str = "") -> ToolSession:
        token = secrets.token_urlsafe(32)
        session = ToolSession(token, self, limits or McpLimits(), label)
        self._sessions[token] = session
        return session

    def get(self, token: str) -> ToolSession | None:
        session = self._sessions.get(token)
        return session if session is not None and session.alive else None

    def forget(self, token: str) -> None:
        session = self._sessions.pop(token, None)
        if session is not None:
            for hook in self.on_forget:
                hook(session)

    def count(self, tool: str, outcome: Outcome) -> None:
        self.counts[(tool, outcome)] += 1
        if self.on_call is not None:
            self.on_call(tool, outcome)

    def __len__(self) -> int:
        return len(self._sessions)
