"""The interactive user (upstream `LLMUserSimulationEnv`, crmarena.md §1.7).

The system prompt is upstream's `build_system_prompt(instruction=query, persona=persona)`;
the conversation starts with the agent's fixed greeting, sent to the LLM as a `user` message
(roles are inverted: the agent's words are `user`, the simulator's `assistant`). The
simulator ends the conversation by saying `###STOP###`.
"""

from __future__ import annotations

from typing import Any

from a2abench.benchmarks.crmarena.upstream import UpstreamTexts, render
from a2abench.plugin import ChatLLM, LLMError
from a2abench.plugin.provisional import LLMUsage

STOP = "###STOP###"
FALLBACK_GREETING = "Hello! How can I help you today?"
FALLBACK_PROMPT = """\
You are role-playing a user who talks with a support agent.
Your goal: {persona} {instruction}

Rules:
- Write one short message at a time, in your own words.
- Reveal the details of your goal a little at a time, starting with a general request.
- Never invent information that your goal does not give you (such as record Ids); say you \
do not know it instead.
- If the agent answers with a name where your goal asks for an Id, ask for the Id.
- When the agent has answered your goal, or says it found nothing ("None"), reply with \
exactly ###STOP### and nothing else."""


def system_prompt(texts: UpstreamTexts | None, query: str, persona: str | None) -> str:
    """Upstream's prompt for this persona and instruction (None becomes "")."""
    if texts is None:
        return FALLBACK_PROMPT.format(persona=persona or "", instruction=query)
    return render(texts.user_prompt, persona=persona or "", instruction=query or "")


class UserSimulator:
    """One simulated user for one task-trial."""

    def __init__(self, llm: ChatLLM, prompt: str, greeting: str, *, seed: int,
                 usage: LLMUsage) -> None:
        self.llm = llm
        self.seed = seed
        self.usage = usage
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": prompt},
                                               {"role": "user", "content": greeting}]

    async def start(self) -> str:
        """The user's first words (after the greeting)."""
        return await self._next()

    async def reply(self, agent_text: str) -> str:
        """The user's answer to the agent's respond action."""
        self.messages.append({"role": "user", "content": agent_text})
        return await self._next()

    async def _next(self) -> str:
        result = await self.llm.chat(self.messages, seed=self.seed)
        self.usage.add(result.usage.prompt_tokens, result.usage.completion_tokens,
                       result.cost_usd, role="user_simulator")
        if result.content is None:
            # Upstream crashes on None (TypeError) and records 0; a user LLM that says nothing
            # is not the agent's fault, so this task-trial is not scored.
            raise LLMError(f"the user simulator ({self.llm.config.model}) returned no text",
                           hint="Check the user LLM; this task-trial is not scored.")
        self.messages.append({"role": "assistant", "content": result.content})
        return result.content


def is_stop(text: str) -> bool:
    return STOP in text  # upstream: `"###STOP###" in observation`
