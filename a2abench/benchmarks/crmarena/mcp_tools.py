"""CRMArena with `--tool-channel mcp` (docs/mcp.md): the org's query tools as an MCP session.

Two tools, `soql_query` and `sosl_search`, whose descriptions carry the schema text the A2A
prompt carries; both run through the backend's one query path (`Backend.observe`: the
sandbox or a live org) and answer with exactly the observation the A2A channel sends back
("Salesforce instance output: ..."). Each call is one action, as an `execute` is: it counts
against `--max-turns`, enters the transcript and the trajectory the privacy judge reads,
and an action that exhausts the budget ends the episode as the A2A channel's would. The A2A
reply is the answer (the `respond`), as text; JSON or tags in it are text too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from a2abench.benchmarks.crmarena.actions import Action
from a2abench.benchmarks.crmarena.episode import Episode, EpisodeResult
from a2abench.benchmarks.crmarena.prompt import (
    SYSTEM,
    PromptOptions,
    compose,
    observation_message,
)
from a2abench.benchmarks.crmarena.tasks import CRMTask
from a2abench.benchmarks.crmarena.upstream import UpstreamTexts
from a2abench.benchmarks.crmarena.user_sim import is_stop
from a2abench.plugin import AgentError, AgentReply, DataPart, TextPart
from a2abench.plugin.provisional import CallRejected, ToolResult, ToolSession, ToolSpec

SOQL, SOSL = "soql_query", "sosl_search"
TOOL_TEXT = {
    SOQL: "Run one SOQL query (it starts with SELECT) on the Salesforce instance and return "
          "its rows.",
    SOSL: "Run one SOSL search (it starts with FIND) on the Salesforce instance, e.g. "
          "FIND {Joe Smith} IN NAME FIELDS RETURNING Lead(Name, Phone).",
}
_QUERY_SCHEMA = {"type": "object", "required": ["query"], "properties": {
    "query": {"type": "string", "description": "One SOQL or SOSL statement."}}}

GUIDELINES = """\
# Guidelines
- Query the Salesforce instance with the MCP tools `soql_query` and `sosl_search` of the \
server named below, while you hold the turn (before you reply).
- You may take at most {max_turns} actions{per_turn}: each tool call is one, and so is \
your reply.
- {respond}
- If several records match, answer with a comma-separated list; if none does, answer None."""
RESPOND_SINGLE = ("Your reply is your answer: ONLY the answer, with no full sentence and no "
                  "explanation.")
RESPOND_INTERACTIVE = ("Your reply is a message to the user, who may answer. Ask for "
                       "clarification when the request is unclear; give the final answer as "
                       "a reply containing ONLY the answer.")
RULE = ("Empty reply. Reply with your answer as text; query the Salesforce instance with the "
        "MCP tools soql_query and sosl_search.")


def task_message(task: CRMTask, texts: UpstreamTexts | None, options: PromptOptions,
                 url: str, opening: str | None = None) -> str:
    """The first message over MCP: as the A2A one, with the schema text moved into the tool
    descriptions and the action formats replaced by where the tools are."""
    description = (f"# {SYSTEM} description\nThe schema of the Salesforce instance is in the "
                   f"descriptions of the MCP tools `{SOQL}` and `{SOSL}`, served at {url} "
                   "(connect with the URL and headers of this message's `mcp` data part).")
    return compose(task, texts, options, opening, description=description, actions=None,
                   guidelines=GUIDELINES, respond=(RESPOND_SINGLE, RESPOND_INTERACTIVE))


def tool_specs(schema_text: str) -> list[ToolSpec]:
    return [ToolSpec(name, f"{TOOL_TEXT[name]}\n\n# {SYSTEM} description\n"
                           f"{schema_text.strip()}", _QUERY_SCHEMA) for name in (SOQL, SOSL)]


@dataclass
class McpEpisode(Episode):
    """The episode loop of `episode.py` with queries over MCP (see the module docstring)."""

    session: ToolSession | None = None
    pointer: dict[str, Any] = field(default_factory=dict)  # the first message's DataPart
    schema_text: str = ""
    turn: int = 0
    ended: bool = False
    mcp_entries: list[int] = field(default_factory=list)
    _out: EpisodeResult | None = None
    _specs: list[ToolSpec] = field(default_factory=list)

    def tools(self) -> list[ToolSpec]:
        if not self._specs:  # the schema text is long: build the two descriptions once
            self._specs = tool_specs(self.schema_text)
        return self._specs

    def finished(self) -> bool:
        return self.ended

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        query = arguments.get("query")
        if not isinstance(query, str) or not query.strip():
            raise CallRejected("invalid", "`query` must be a non-empty SOQL or SOSL string")
        out, over = self._action(Action("execute", query.strip(), "mcp"), name)
        observation = observation_message(await self.backend.observe(query.strip(),
                                                                     self.today))
        out.queries += 1
        self.transcript.append({"role": "environment", "text": observation})
        self._after_action(out, over)
        return ToolResult(observation)

    def _action(self, action: Action, tool: str) -> tuple[EpisodeResult, bool]:
        """A call over MCP is one action: counted, recorded (the episode's result and
        whether the user's turns were used up before it)."""
        out = self._out
        if self.ended or out is None:
            raise CallRejected("ended", "the episode has ended; reply to finish")
        self.turn += 1
        out.actions.append(action)
        self.mcp_entries.append(len(self.transcript))
        self.transcript.append({"role": "agent", "text": "", "action": action.to_json(),
                                "tool": tool, "mcp": True})
        return out, self.user is not None and out.user_turns >= self.max_user_turns

    def _after_action(self, out: EpisodeResult, over: bool) -> None:
        if over:
            out.termination, self.ended = "max_user_turns", True
        elif self.turn >= self.max_turns:
            self.ended = True  # out of actions: max_turns, as an execute on the last turn

    async def run(self, first_message: str, logged_first: str,
                  opening: str | None = None) -> EpisodeResult:
        self.transcript.append({"role": "green", "kind": "task", "text": logged_first})
        if opening is not None:
            self.transcript.append({"role": "user", "text": opening})
        out = self._out = EpisodeResult("max_turns", None, [], self.transcript)
        outgoing = first_message
        while not self.ended and self.turn < self.max_turns:
            answer = await self._reply_turn(outgoing, out)
            if self.finished():  # a query during the turn used the last action
                break
            self.turn += 1
            if answer is None:
                out.invalid_replies += 1
                outgoing = RULE
                self.transcript.append({"role": "green", "kind": "rule", "text": outgoing})
                continue
            action = Action("respond", answer, "text")
            out.actions.append(action)
            over = self.user is not None and out.user_turns >= self.max_user_turns
            if self.user is None:
                out.termination, out.answer = "respond", answer
                break
            words = await self.user.reply(answer)
            out.user_turns += 1
            self.turn = 0  # upstream resets the agent's turn counter after every respond
            self.transcript.append({"role": "user", "text": words})
            if is_stop(words):
                out.termination, out.answer = "user_stop", answer
                break
            if over:
                out.termination = "max_user_turns"
                break
            outgoing = words
        return out

    async def _reply_turn(self, outgoing: str, out: EpisodeResult) -> str | None:
        assert self.session is not None
        parts: list[Any] = [outgoing]
        if not out.agent_turns:  # the first message carries where the tools are
            parts = [TextPart(text=outgoing), DataPart(data=self.pointer)]
        try:
            async with self.session.turn():
                reply = await self.chat.send(*parts)
        except AgentError:
            if not self.ended:
                raise
            reply = None  # a query during the turn used the last action: the reply is moot
        out.agent_turns += 1
        if reply is None or self.finished():
            return None
        reply.raise_for_state()
        answer = answer_of(reply)
        self.transcript.append({"role": "agent", "text": reply.text,
                                "action": Action("respond", answer, "text").to_json()
                                if answer else None, **({"data": reply.data}
                                                        if reply.data else {})})
        return answer


def answer_of(reply: AgentReply) -> str | None:
    """The reply's text, stripped (a reply of data parts only: the first as JSON)."""
    text = reply.text.strip()
    if not text and reply.data:
        text = json.dumps(reply.data[0], ensure_ascii=False)
    return text or None
