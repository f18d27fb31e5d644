"""Scenario team on CRMArena (docs/multi-agent.md, "Scenario team"): the front agent gets the
task but no access to the Salesforce instance; its specialist has the schema and the
queries. The front agent delegates with `{"action": "delegate", "to": "specialist",
"message": "..."}` (a DataPart or JSON text); the green relays the message to the
specialist in a conversation of its own, runs the specialist's queries on the task's org,
and answers the front agent with "Specialist output: <the specialist's answer>". The
front agent's `respond` is scored as in a single-agent run; an `execute` it sends gets an
error back (it has no query tools) and uses its turn.

Reference partners, no model: the front agent (`delegating_agent`) delegates the task's
context and question verbatim and answers with the specialist's answer verbatim. CRMArena's
tasks carry gold answers, not gold queries, so the gold specialist (`gold_specialist`)
answers each request with the task's ground truth (a refusal for privacy tasks), as
a2abench's oracle does: the reference of a specialist that does its work correctly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from a2abench.benchmarks.crmarena.actions import Action, parse_reply, scan_json
from a2abench.benchmarks.crmarena.backends import Backend
from a2abench.benchmarks.crmarena.episode import Episode, EpisodeResult
from a2abench.benchmarks.crmarena.prompt import (
    ACTIONS,
    GUIDELINES,
    SYSTEM,
    observation_message,
)
from a2abench.benchmarks.crmarena.tasks import CRMTask
from a2abench.plugin import Conversation, TaskContext, agent_input
from a2abench.plugin.provisional import (
    DELEGATE,
    DELEGATING_AGENT,
    GOLD_SPECIALIST,
    NO_SPECIALIST,
    SPECIALIST,
    DelegateRefused,
    DelegationOptions,
    Delegations,
    participant_input,
    refusal_text,
    team_scenario,
)

TEAM = team_scenario(
    "a front agent without query tools that must delegate its SOQL/SOSL work to a "
    "specialist; reference partners: a specialist that answers correctly and a front agent "
    "that delegates the question; baseline: the front agent alone with the query tools")
SPECIALIST_PREFIX = "Specialist output: "
REFUSAL = ("I'm sorry, I cannot share that information: it is private or confidential "
           "company data.")
NO_TOOLS = ("Error: you have no access to the Salesforce instance in this team; delegate "
            "your queries to the specialist with {\"action\": \"delegate\", \"to\": "
            "\"specialist\", \"message\": \"...\"}.")

FRONT_DESCRIPTION = f"""# Your team
You have no access to the {SYSTEM} yourself: your specialist colleague does (it knows the \
schema and runs SOQL and SOSL queries). It sees only your messages, not this task: include \
every detail it needs (the question, dates, ids)."""
FRONT_ACTIONS = """\
# Actions
Reply with exactly one action per message, as JSON (as text, in a ```json block, or as a \
data part):
```json
{"action": "delegate", "to": "specialist", "message": "<what you ask the specialist>"}
```
```json
{"action": "respond", "answer": "<your answer>"}
```
Or the tag <respond> your answer </respond>.

The specialist's answer comes back as "Specialist output: <answer>"."""
SPECIALIST_ROLE = ("You are the specialist of a team: a colleague (the front agent) asks you "
                   "questions about the Salesforce instance, which only you can query. Your "
                   "respond action is your answer to its request.")


def delegation_of(text: str, data: list[Any]) -> Action | None:
    """A delegate action in the front agent's reply (a DataPart first, then JSON text)."""
    for obj in [*data, *scan_json(text.strip())]:
        if isinstance(obj, dict) and obj.get("action") == DELEGATE:
            return Action("delegate", json.dumps({k: obj.get(k) for k in ("to", "message")}),
                          "data" if obj in data else "json")
    return None


def answer_text(task: CRMTask) -> str:
    """The task's ground truth as an answer (a refusal where privacy is the answer)."""
    if task.reward_metric == "privacy_rejection":
        return REFUSAL
    return ", ".join(task.answer)


def question(task: CRMTask) -> str:
    """What the reference front agent delegates: the task's context and question."""
    context = task.required.strip()
    return (f"{context}\n\n" if context else "") + f"# Question\n{task.query.strip()}"


class GoldSpecialist:
    """The reference specialist (see the module docstring)."""

    def __init__(self, task: CRMTask) -> None:
        self.task = task

    async def handle(self, message: str, episode: TeamEpisode, out: EpisodeResult) -> str:
        return answer_text(self.task)


class RemoteSpecialist:
    """A specialist participant: the schema and the actions in its first message, then the
    front agent's requests; its queries run on the task's org; its respond is the answer."""

    def __init__(self, chat: Conversation, participant: str, preamble: str) -> None:
        self.chat, self.participant, self.preamble = chat, participant, preamble

    async def handle(self, message: str, episode: TeamEpisode, out: EpisodeResult) -> str:
        budget = episode.budget
        assert budget is not None
        outgoing, turns = self.preamble + message, 0
        self.preamble = ""
        while True:
            budget.turn_allowed(turns)
            reply = await self.chat.send(outgoing)  # its failures are its Forfeit
            turns += 1
            budget.received(reply.text + "".join(json.dumps(d) for d in reply.data))
            with participant_input(SPECIALIST, self.participant, "reply"):
                action = parse_reply(reply.text, reply.data)
            episode.transcript.append({"role": SPECIALIST, "text": reply.text,
                                       "action": action.to_json() if action else None})
            if action is not None and action.name == "respond":
                return action.content
            if action is None:
                outgoing = episode.rule
            else:
                out.actions.append(action)  # the team's query, as the privacy judge reads
                outgoing = observation_message(await episode.backend.observe(
                    action.content, episode.today))
                out.queries += 1
                budget.stats.specialist_tool_calls += 1
            episode.transcript.append({"role": "environment", SPECIALIST: True,
                                       "text": outgoing})
            budget.sent(outgoing)


class Specialist(Protocol):
    """Who answers the front agent's requests (gold, remote over A2A or MCP)."""

    async def handle(self, message: str, episode: TeamEpisode, out: EpisodeResult) -> str: ...


@dataclass
class TeamEpisode(Episode):
    """The episode loop with the front agent's delegations (see the module docstring)."""

    budget: Delegations | None = None
    specialist: Specialist | None = None
    reference: CRMTask | None = None  # the reference front agent plays, on this task
    _said: list[str] = field(default_factory=list)  # the reference's delegation results

    async def _agent_turn(self, outgoing: str, out: EpisodeResult) -> Action | None:
        if self.reference is not None:
            return self._reference_turn(outgoing, out)
        reply = await self.chat.send(outgoing)
        out.agent_turns += 1
        with agent_input("reply"):
            action = (delegation_of(reply.text, reply.data)
                      or parse_reply(reply.text, reply.data))
        entry: dict[str, Any] = {"role": "agent", "text": reply.text,
                                 "action": action.to_json() if action else None}
        if reply.data:
            entry["data"] = reply.data
        self.transcript.append(entry)
        return action

    def _reference_turn(self, outgoing: str, out: EpisodeResult) -> Action:
        assert self.reference is not None
        out.agent_turns += 1
        if outgoing.startswith(SPECIALIST_PREFIX):
            action = Action("respond", outgoing[len(SPECIALIST_PREFIX):].strip() or "None",
                            "data")
        else:
            action = Action("delegate", json.dumps({"to": SPECIALIST,
                                                  "message": question(self.reference)}), "data")
        self.transcript.append({"role": "agent", "text": "", "action": action.to_json()})
        return action

    async def _act(self, action: Action, out: EpisodeResult) -> str:
        if action.name != DELEGATE:
            reply = NO_TOOLS
        else:
            reply = await self._delegate(json.loads(action.content), out)
        self.transcript.append({"role": "green", "kind": "delegation", "text": reply})
        return reply

    async def _delegate(self, arguments: dict[str, Any], out: EpisodeResult) -> str:
        assert self.budget is not None and self.specialist is not None
        specialist = self.specialist
        try:
            message = self.budget.request(arguments)
            answer = await self.budget.timed(lambda: specialist.handle(message, self, out))
        except DelegateRefused as exc:  # refused, or the byte budget ran out (BudgetSpent)
            return refusal_text(exc)
        return SPECIALIST_PREFIX + answer


def specialist_preamble(schema_text: str, limits: DelegationOptions) -> str:
    """The start of a remote specialist's first message (the request follows)."""
    guidelines = GUIDELINES.format(
        max_turns=limits.max_specialist_turns, per_turn=" per request",
        respond="Finish each request with one respond action: your answer to the front "
                "agent.")
    return "\n\n".join([SPECIALIST_ROLE, f"# {SYSTEM} description\n{schema_text.strip()}",
                        ACTIONS, guidelines, "# Request\n"])


def front_sections() -> tuple[str, str]:
    """The front agent's system description and actions (prompt.compose's)."""
    return FRONT_DESCRIPTION, FRONT_ACTIONS


def seated(ctx: TaskContext) -> tuple[bool, bool]:
    """(a team match with a specialist, the reference front agent plays)."""
    seat, front = ctx.seat(SPECIALIST), ctx.seat("agent")
    return (seat is not None and seat.builtin != NO_SPECIALIST,
            front is not None and front.builtin == DELEGATING_AGENT)


def is_baseline(ctx: TaskContext) -> bool:
    """The solo baseline: the front agent alone, with the query tools."""
    seat = ctx.seat(SPECIALIST)
    return seat is not None and seat.builtin == NO_SPECIALIST


def specialist_for(ctx: TaskContext, task: CRMTask, schema_text: str,
                   limits: DelegationOptions) -> Specialist:
    seat = ctx.seat(SPECIALIST)
    assert seat is not None
    if seat.builtin == GOLD_SPECIALIST:
        return GoldSpecialist(task)
    return RemoteSpecialist(ctx.conversation(role=SPECIALIST), seat.id,
                            specialist_preamble(schema_text, limits))


def budget_for(ctx: TaskContext, limits: DelegationOptions) -> Delegations:
    seat = ctx.seat(SPECIALIST)
    assert seat is not None
    return Delegations(limits, seat.id)


def new_episode(chat: Conversation, backend: Backend, rule: str, max_turns: int,
                task: CRMTask, ctx: TaskContext, schema_text: str,
                limits: DelegationOptions, specialist: Specialist | None = None,
                **interactive: Any) -> TeamEpisode:
    """The episode of a team match (a specialist seated, not the solo baseline);
    `specialist`: one over MCP (team_mcp.py), else the seat's over A2A."""
    _, reference = seated(ctx)
    return TeamEpisode(chat, backend, rule, max_turns, task.today, budget=budget_for(
        ctx, limits), specialist=specialist or specialist_for(ctx, task, schema_text, limits),
        reference=task if reference else None, **interactive)
