"""Scenario team on CRMArena over `--tool-channel mcp` (docs/multi-agent.md, "Scenario team").

The front agent's MCP session holds one tool, `delegate` (`{"to": "specialist", "message":
...}`), and no query tool. A delegate call is one of its actions, as the A2A channel's
delegate action is: counted against `--max-turns`, recorded in the transcript and the
trajectory, relayed by the green to the specialist, its result exactly what the A2A channel
sends back ("Specialist output: <answer>", or the refusal "Error: ..."). Its A2A reply is
its answer, as text.

A remote specialist has an MCP session of its own per match, bound to its conversation: the
two query tools (`soql_query`, `sosl_search`, the schema in their descriptions, as a single
agent's), accepted only while one of its A2A requests is in flight. Each call is one of its
rounds (`--max-specialist-turns` per delegation), runs on the task's org, enters the
transcript and the team's trajectory as the A2A channel's execute does, and its result
counts towards `--max-delegation-bytes`. Its A2A reply, as text, is its answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from a2abench.benchmarks.crmarena.actions import Action
from a2abench.benchmarks.crmarena.backends import Backend
from a2abench.benchmarks.crmarena.episode import EpisodeResult
from a2abench.benchmarks.crmarena.mcp_tools import (
    RESPOND_INTERACTIVE,
    RESPOND_SINGLE,
    McpEpisode,
    answer_of,
    tool_specs,
)
from a2abench.benchmarks.crmarena.prompt import SYSTEM, PromptOptions, compose, observation_message
from a2abench.benchmarks.crmarena.tasks import CRMTask
from a2abench.benchmarks.crmarena.team import (
    SPECIALIST_PREFIX,
    SPECIALIST_ROLE,
    Specialist,
    TeamEpisode,
    budget_for,
)
from a2abench.benchmarks.crmarena.team import specialist_for as specialist_of
from a2abench.benchmarks.crmarena.upstream import UpstreamTexts
from a2abench.plugin import Conversation, DataPart, ProtocolError, TaskContext, TextPart
from a2abench.plugin.provisional import (
    DELEGATE,
    DELEGATE_PARAMETERS,
    SPECIALIST,
    BudgetSpent,
    CallRejected,
    DelegationOptions,
    ToolResult,
    ToolSession,
    ToolSpec,
    participant_input,
)

DELEGATE_SPEC = ToolSpec(DELEGATE, (
    "Send a request to your specialist colleague, who can query the Salesforce instance "
    "(it knows the schema and runs SOQL and SOSL), and wait for its answer, which is this "
    "tool's result (\"Specialist output: <answer>\"). It sees only your message, not the "
    "task: include every detail it needs (the question, dates, ids)."), DELEGATE_PARAMETERS)
FRONT_DESCRIPTION = f"""# Your team
You have no access to the {SYSTEM} yourself: your specialist colleague does. Ask it with \
the MCP tool `delegate` of the server at {{url}} (connect with the URL and headers of this \
message's `mcp` data part)."""
FRONT_GUIDELINES = """\
# Guidelines
- Call `delegate` while you hold the turn (before you reply).
- You may take at most {max_turns} actions{per_turn}: each delegate call is one, and so is \
your reply.
- {respond}
- If several records match, answer with a comma-separated list; if none does, answer None."""
SPECIALIST_GUIDELINES = """\
# Guidelines
- Query the {system} with the MCP tools `soql_query` and `sosl_search` of the server at \
{url} (connect with the URL and headers of this conversation's first `mcp` data part), \
while you hold the turn (before you reply).
- At most {turns} queries per request, within {timeout:g} s.
- Your reply, as text, is your answer to the front agent's request."""


def front_message(task: CRMTask, texts: UpstreamTexts | None, options: PromptOptions,
                  url: str, opening: str | None) -> str:
    """The front agent's first message over MCP (the `mcp` DataPart goes with it)."""
    return compose(task, texts, options, opening, description=FRONT_DESCRIPTION.format(url=url),
                   actions=None, guidelines=FRONT_GUIDELINES,
                   respond=(RESPOND_SINGLE, RESPOND_INTERACTIVE))


@dataclass
class McpTeamEpisode(McpEpisode, TeamEpisode):
    """The front agent over MCP: its one tool is `delegate` (see the module docstring)."""

    def tools(self) -> list[ToolSpec]:
        return [DELEGATE_SPEC]

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        delegated = {k: arguments.get(k) for k in ("to", "message")}
        out, over = self._action(Action("delegate", json.dumps(delegated), "mcp"), name)
        reply = await self._delegate(arguments, out)
        self.transcript.append({"role": "green", "kind": "delegation", "text": reply})
        self._after_action(out, over)
        return ToolResult(reply, is_error=not reply.startswith(SPECIALIST_PREFIX))


class SpecialistQueries:
    """The `ToolBackend` of a remote specialist's session: the query tools; a call runs
    only within a delegation (`open`), as one of the specialist's rounds."""

    def __init__(self, session: ToolSession, participant: str, schema_text: str) -> None:
        self.session, self.participant = session, participant
        self.specs = tool_specs(schema_text)
        self.episode: TeamEpisode | None = None
        self.out: EpisodeResult | None = None
        self.rounds = 0

    def tools(self) -> list[ToolSpec]:
        return self.specs

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        episode, out = self.episode, self.out
        if episode is None or episode.budget is None or out is None:
            raise CallRejected("outside_turn", "no request of the front agent is open")
        query = arguments.get("query")
        if not isinstance(query, str) or not query.strip():
            raise CallRejected("invalid", "`query` must be a non-empty SOQL or SOSL string")
        budget = episode.budget
        budget.turn_allowed(self.rounds)  # past --max-specialist-turns: its forfeit
        self.rounds += 1
        action = Action("execute", query.strip(), "mcp")
        out.actions.append(action)  # the team's query, as the privacy judge reads
        episode.transcript.append({"role": SPECIALIST, "text": "", "action": action.to_json(),
                                   "tool": name, "mcp": True})
        observation = observation_message(await episode.backend.observe(action.content,
                                                                        episode.today))
        out.queries += 1
        budget.stats.specialist_tool_calls += 1
        episode.transcript.append({"role": "environment", SPECIALIST: True,
                                   "text": observation})
        try:
            budget.sent(observation)
        except BudgetSpent as exc:  # the delegation ends once it replies (handle)
            raise CallRejected("budget", exc.message) from None
        return ToolResult(observation)


class McpRemoteSpecialist:
    """A specialist participant whose queries are on its MCP session: each delegation is
    one A2A request, during which it queries; its reply is the answer."""

    def __init__(self, chat: Conversation, participant: str, preamble: str,
                 queries: SpecialistQueries, pointer: dict[str, Any]) -> None:
        self.chat, self.participant, self.queries = chat, participant, queries
        self._first: list[Any] = [preamble, pointer]

    async def handle(self, message: str, episode: TeamEpisode, out: EpisodeResult) -> str:
        budget = episode.budget
        assert budget is not None
        parts: list[Any] = [TextPart(text=message)]
        if self._first:
            preamble, pointer = self._first
            parts = [TextPart(text=preamble + message), DataPart(data=pointer)]
            self._first = []
        q = self.queries
        q.episode, q.out, q.rounds = episode, out, 0
        try:
            reply = await budget.mcp_reply(q.session.turn(), lambda: self.chat.send(*parts))
        finally:
            q.episode = q.out = None
        budget.received(reply.text + "".join(json.dumps(d) for d in reply.data))
        with participant_input(SPECIALIST, self.participant, "reply"):
            answer = answer_of(reply)
            if answer is None:
                raise ProtocolError("the specialist's reply is empty")
        episode.transcript.append({"role": SPECIALIST, "text": reply.text, "action": Action(
            "respond", answer, "text").to_json()})
        return answer


def specialist_preamble(url: str, limits: DelegationOptions) -> str:
    """The start of a remote specialist's first message over MCP (the request follows)."""
    guidelines = SPECIALIST_GUIDELINES.format(system=SYSTEM, url=url,
                                              turns=limits.max_specialist_turns,
                                              timeout=limits.delegation_timeout)
    description = (f"# {SYSTEM} description\nThe schema of the {SYSTEM} is in the "
                   "descriptions of the MCP tools `soql_query` and `sosl_search`.")
    return "\n\n".join([SPECIALIST_ROLE, description, guidelines, "# Request\n"])


RULE = ("Empty reply. Reply with your answer as text; ask your specialist with the MCP tool "
        "delegate.")


def remote_specialist(ctx: TaskContext) -> bool:
    seat = ctx.seat(SPECIALIST)
    return seat is not None and seat.remote


def specialist_for(ctx: TaskContext, session: ToolSession, url: str, schema_text: str,
                   limits: DelegationOptions) -> McpRemoteSpecialist:
    """The remote specialist of a match, its queries on `session` (its own)."""
    seat = ctx.seat(SPECIALIST)
    assert seat is not None
    queries = SpecialistQueries(session, seat.id, schema_text)
    session.backend = queries
    return McpRemoteSpecialist(ctx.conversation(role=SPECIALIST), seat.id,
                               specialist_preamble(url, limits), queries, session.pointer(url))


def front_episode(chat: Conversation, backend: Backend, task: CRMTask, ctx: TaskContext,
                  session: ToolSession, url: str, max_turns: int, limits: DelegationOptions,
                  specialist: Specialist | None, schema_text: str,
                  **interactive: Any) -> McpTeamEpisode:
    """The episode of a remote front agent over MCP; `specialist`: the seat's over MCP
    (None: the gold specialist, or the seat's over A2A)."""
    budget = budget_for(ctx, limits)
    budget.within(session.limits.call_timeout_s)  # a delegation ends before the call's limit
    episode = McpTeamEpisode(
        chat, backend, RULE, max_turns, task.today, budget=budget,
        specialist=specialist or specialist_of(ctx, task, schema_text, limits),
        session=session, pointer=session.pointer(url), **interactive)
    session.backend = episode
    return episode
