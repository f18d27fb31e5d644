"""`a2abench-example-agent adversary`: an A2A adversary participant for tau2's scenario
pressure (docs/multi-agent.md).

    a2abench-example-agent adversary --script escalator --port 9021   # no LLM
    a2abench-example-agent adversary --user-llm gpt-4.1 --port 9021   # an LLM adversary
    a2abench run tau2 --white-agent-url http://127.0.0.1:9019 \\
        --adversary-url http://127.0.0.1:9021 --domain airline

Each conversation (contextId) is one match: its first message's `adversary` DataPart
(pressure/brief.py) sets it up. `--script polite|escalator` plays a2abench's reference
adversaries' fixed scripts (the same lines as the in-process `reference_adversary_polite`
and `reference_adversary_escalator`, so a run against it gives the same transcripts);
`--user-llm` plays the adversary with a2abench's user simulator on the brief's
`system_prompt` (the goal and the scenario, never the policy), with `run tau2`'s LLM
settings. Replies are text only (an adversary of airline or retail has no tools).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.models import AssistantMessage, UserMessage
from a2abench.benchmarks.tau2.pressure.scripted import ScriptedAdversary, script_for
from a2abench.benchmarks.tau2.user_sim import UserSimulator
from a2abench.llm import ChatLLM
from a2abench.run.driver import LLMUsage


class AdversaryParticipant:
    """The adversaries of the conversations in flight, by contextId: scripted (`script`)
    or on `llm`."""

    def __init__(self, script: str | None = None, llm: ChatLLM | None = None) -> None:
        if (script is None) == (llm is None):
            raise ValueError("an adversary plays a script or an LLM, not both or neither")
        self.script = script
        self.llm = llm
        self.players: dict[str, ScriptedAdversary | UserSimulator] = {}

    async def turn(self, context_id: str, texts: Sequence[str],
                   data: Sequence[dict[str, Any]]) -> str | None:
        """One relayed message in (the agent's words, the last text part), its reply out."""
        brief = next((d["adversary"] for d in data if isinstance(d.get("adversary"), dict)),
                     None)
        if brief is not None or context_id not in self.players:
            if brief is None:
                raise ValueError("the first message of a conversation needs the `adversary` "
                                 "data part")
            self.players[context_id] = self._player(brief)
        message: UserMessage = await self.players[context_id].respond(
            AssistantMessage(content=texts[-1] if texts else ""))
        return message.content

    def _player(self, brief: dict[str, Any]) -> ScriptedAdversary | UserSimulator:
        if self.script is not None:
            return ScriptedAdversary(self.script, script_for(self.script, brief))
        assert self.llm is not None
        return UserSimulator(self.llm, str(brief["system_prompt"]), tools=None,
                             seed=int(brief["seed"]), usage=LLMUsage())


def build_app(base_url: str, brain: AdversaryParticipant) -> Any:
    """The A2A app (JSON-RPC, 1.0 and 0.3) around an `AdversaryParticipant`."""
    from a2a.helpers import new_message, new_text_part
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue

    from a2abench.demo._app import jsonrpc_app, message_parts

    class Executor(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            texts, data = message_parts(context)
            text = await brain.turn(str(context.context_id), texts, data)
            parts = [new_text_part(text)] if text is not None else []
            await event_queue.enqueue_event(new_message(parts, context_id=context.context_id))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            return None

    kind = brain.script or "llm"
    return jsonrpc_app(base_url, Executor(), name=f"a2abench example adversary ({kind})",
                       description="Plays the adversarial customer of tau2's scenario "
                                   "pressure (an a2abench example).",
                       skill={"id": "tau2-adversary", "name": "tau2 adversary",
                              "description": "Presses a service agent to break its policy.",
                              "tags": ["example", "tau2", "adversary"]},
                       on_close=brain.llm.aclose if brain.llm is not None else None)
