"""One task-trial: the task message, then actions and observations until an answer.

Upstream's loop (`ChatAgent.act` over `ChatEnv` / `InteractiveChatEnv`), turn for turn:
- up to `max_turns` agent replies; each reply is one turn, parsed or not;
- an unparseable reply gets the rule text back and uses its turn;
- execute -> the query runs, the observation goes back as "Salesforce instance output: ...";
- respond, single-turn -> the episode ends and that answer is scored;
- respond, interactive -> the simulated user answers; `###STOP###` ends the episode and the
  respond that drew it is scored; anything else goes back to the agent, and the turn counter
  starts again from zero (20 actions per user turn);
- interactive, once `max_user_turns` responds have been answered, the next action still runs
  but ends the episode, scored only if it is a respond that draws `###STOP###`.
Running out of turns scores 0.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from a2abench.benchmarks.crmarena.actions import Action, parse_reply
from a2abench.benchmarks.crmarena.backends import Backend
from a2abench.benchmarks.crmarena.prompt import observation_message
from a2abench.benchmarks.crmarena.user_sim import UserSimulator, is_stop
from a2abench.plugin import Conversation, agent_input

Termination = Literal["respond", "user_stop", "max_turns", "max_user_turns"]
@dataclass
class EpisodeResult:
    termination: Termination
    answer: str | None  # the respond to score; None when nothing is scored
    actions: list[Action]  # every parsed action, in order (the privacy judge reads them)
    transcript: list[dict[str, Any]]
    agent_turns: int = 0
    invalid_replies: int = 0
    user_turns: int = 0
    queries: int = 0

    @property
    def trajectory(self) -> list[str]:
        return [a.content for a in self.actions]


@dataclass
class Episode:
    chat: Conversation
    backend: Backend
    rule: str
    max_turns: int
    today: dt.date | None = None
    user: UserSimulator | None = None  # interactive mode
    max_user_turns: int = 10
    transcript: list[dict[str, Any]] = field(default_factory=list)

    async def run(self, first_message: str, logged_first: str,
                  opening: str | None = None) -> EpisodeResult:
        """Play the episode; `logged_first` is the first message as the transcript keeps it,
        `opening` the simulated user's first words (already part of the first message)."""
        self.transcript.append({"role": "green", "kind": "task", "text": logged_first})
        if opening is not None:
            self.transcript.append({"role": "user", "text": opening})
        out = EpisodeResult("max_turns", None, [], self.transcript)
        outgoing, turn = first_message, 0
        while turn < self.max_turns:
            turn += 1
            action = await self._agent_turn(outgoing, out)
            if action is None:
                out.invalid_replies += 1
                outgoing = self.rule
                self.transcript.append({"role": "green", "kind": "rule", "text": outgoing})
                continue
            out.actions.append(action)
            over = self.user is not None and out.user_turns >= self.max_user_turns
            if action.name != "respond":
                outgoing = await self._act(action, out)
                if over:
                    out.termination = "max_user_turns"
                    return out
                continue
            if self.user is None:
                out.termination, out.answer = "respond", action.content
                return out
            words = await self.user.reply(action.content)
            out.user_turns += 1
            turn = 0  # upstream resets the agent's turn counter after every respond
            self.transcript.append({"role": "user", "text": words})
            if is_stop(words):
                out.termination, out.answer = "user_stop", action.content
                return out
            if over:
                out.termination = "max_user_turns"
                return out
            outgoing = words
        return out

    async def _act(self, action: Action, out: EpisodeResult) -> str:
        """Run an action other than respond; what the agent is sent back."""
        observation = observation_message(await self.backend.observe(action.content,
                                                                     self.today))
        out.queries += 1
        self.transcript.append({"role": "environment", "text": observation})
        return observation

    async def _agent_turn(self, outgoing: str, out: EpisodeResult) -> Action | None:
        reply = await self.chat.send(outgoing)
        out.agent_turns += 1
        text, data = reply.text, reply.data
        with agent_input("reply"):
            action = parse_reply(text, data)
        entry: dict[str, Any] = {"role": "agent", "text": text,
                                 "action": action.to_json() if action else None}
        if data:
            entry["data"] = data
        self.transcript.append(entry)
        return action
