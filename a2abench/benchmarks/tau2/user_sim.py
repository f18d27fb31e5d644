"""The tau2 user simulator (tau2.md §6): an LLM that plays the customer.

System prompt = upstream's guidelines file + the task's `<scenario>`. The LLM sees the dialogue
with roles flipped (the agent's words as `user`, its own as `assistant`), never the agent's
tool calls or results; in domains with user tools it calls its own tools, tagged
`requestor="user"`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.models import AssistantMessage, ToolCall, ToolMessage, UserMessage
from a2abench.plugin import ChatLLM, LLMError
from a2abench.plugin.provisional import LLMUsage

STOP, TRANSFER, OUT_OF_SCOPE = "###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"


def system_prompt(guidelines: str, scenario: str) -> str:
    """Upstream's layout: guidelines, a blank line, then the scenario in <scenario> tags."""
    return f"{guidelines}\n\n<scenario>\n{scenario}\n</scenario>".strip()


def is_stop(message: UserMessage) -> bool:
    """Any of the three stop tokens in a text message ends the conversation (USER_STOP)."""
    if message.is_tool_call() or message.content is None:
        return False
    return any(token in message.content for token in (STOP, TRANSFER, OUT_OF_SCOPE))


def flip(history: Sequence[Any]) -> list[dict[str, Any]]:
    """The user's view of the dialogue as OpenAI chat messages, roles flipped."""
    out: list[dict[str, Any]] = []
    for m in history:
        if isinstance(m, UserMessage):
            entry: dict[str, Any] = {"role": "assistant", "content": m.content}
            if m.tool_calls:
                entry["tool_calls"] = [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                    for c in m.tool_calls]
            out.append(entry)
        elif isinstance(m, AssistantMessage) and not m.is_tool_call():
            out.append({"role": "user", "content": m.content})
        elif isinstance(m, ToolMessage) and m.requestor == "user":
            out.append({"role": "tool", "tool_call_id": m.id, "content": m.content})
    return out


class UserSimulator:
    """One simulated customer for one task-trial."""

    def __init__(self, llm: ChatLLM, prompt: str, *, tools: list[dict[str, Any]] | None,
                 seed: int, usage: LLMUsage, history: Sequence[Any] = ()) -> None:
        self.llm = llm
        self.prompt = prompt
        self.tools = tools or None
        self.seed = seed
        self.usage = usage
        self.history: list[Any] = [m for m in history if _visible_to_user(m)]
        self.scripted = False  # the demo's scripted user answered: the run is labelled so

    async def respond(self, incoming: AssistantMessage | list[ToolMessage]) -> UserMessage:
        """The user's next message after the agent's words or the user's own tool results."""
        if isinstance(incoming, list):
            self.history.extend(incoming)
        elif incoming.has_text_content() or incoming.is_tool_call():
            self.history.append(incoming)
        messages = [{"role": "system", "content": self.prompt}, *flip(self.history)]
        result = await self.llm.chat(messages, tools=self.tools, seed=self.seed)
        self.scripted = self.scripted or result.scripted
        self.usage.add(result.usage.prompt_tokens, result.usage.completion_tokens,
                       result.cost_usd, role="user_simulator")
        calls = [ToolCall(id=c.id, name=c.name, arguments=c.arguments, requestor="user")
                 for c in result.tool_calls] or None
        message = UserMessage(content=result.content, tool_calls=calls, cost=result.cost_usd,
                              usage={"prompt_tokens": result.usage.prompt_tokens,
                                     "completion_tokens": result.usage.completion_tokens})
        if not message.has_text_content() and not message.is_tool_call():
            # Upstream's validate() raises here and the run ends as an infrastructure error.
            raise LLMError(f"the user simulator ({self.llm.config.model}) returned an empty "
                           "message", hint="Check the user LLM; this task-trial is not scored.")
        self.history.append(message)
        return message


def _visible_to_user(m: Any) -> bool:
    return (isinstance(m, UserMessage) or (isinstance(m, AssistantMessage)
                                           and not m.is_tool_call())
            or (isinstance(m, ToolMessage) and m.requestor == "user"))
