"""`a2abench-example-agent mcp`: an MCP-native white agent (docs/mcp.md).

Run a2abench with `--tool-channel mcp` against it. The first message of a conversation names
the MCP server of that task-trial (a `{"mcp": {"url", "headers"}}` DataPart); every turn, the
agent connects with the official `mcp` SDK, calls tools natively while its A2A request is in
flight, and answers with text.

- LLM-driven (`--model`, `--base-url`): any OpenAI-compatible Chat Completions endpoint. The
  MCP tools become chat-completions tools; each tool call the model makes goes to the MCP
  server and its result back to the model, until the model answers in text. After a round of
  calls it lists the tools again (tau2 banking's unlocked tools join the list): unlike a
  `subscriptions/listen` stream, that works on every protocol revision and through proxies
  that buffer whole responses, such as the AgentBeats controller.
- Scripted (`--scripted`): deterministic rules for the demo and the tests: the demo task
  tracker's two request shapes (tau2) and the demo's CRMArena rules, each query a tool call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from a2abench.demo import crm_rules
from a2abench.demo.agent import TRANSFER, tau2_action
from a2abench.mcp.client import connect, find_pointer, result_text

MAX_TOOL_ROUNDS = 30  # model calls per turn before the agent gives up and says so


@dataclass
class Conversation:
    """One A2A context: where its tools are and what the model has seen."""

    pointer: dict[str, Any] | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    memory: dict[str, Any] = field(default_factory=dict)


class Brain(Protocol):
    async def turn(self, chat: Conversation, text: str) -> str: ...


def chat_tools(tools: list[Any]) -> list[dict[str, Any]]:
    """MCP tools as Chat Completions function tools."""
    return [{"type": "function", "function": {
        "name": t.name, "description": t.description or "",
        "parameters": t.input_schema}}
        for t in tools]


class LLMBrain:
    """The model decides; MCP runs the calls (see the module docstring)."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    async def turn(self, chat: Conversation, text: str) -> str:
        if not chat.messages:
            chat.messages.append({"role": "system", "content": text})
        else:
            chat.messages.append({"role": "user", "content": text})
        if chat.pointer is None:  # no tools: plain chat
            result = await self.llm.chat(chat.messages)
            chat.messages.append(result.to_message())
            return str(result.content or "")
        async with connect(chat.pointer) as client:
            for _ in range(MAX_TOOL_ROUNDS):
                tools = chat_tools((await client.list_tools()).tools)
                result = await self.llm.chat(chat.messages, tools=tools)
                chat.messages.append(result.to_message())
                if not result.tool_calls:
                    return str(result.content or "")
                for call in result.tool_calls:
                    chat.messages.append({"role": "tool", "tool_call_id": call.id,
                                          "content": await _call(client, call.name,
                                                                 call.arguments)})
        return "I could not finish this request."


async def _call(client: Any, name: str, arguments: dict[str, Any]) -> str:
    """A tool's text result; a refused call's error message (the model may correct it)."""
    from mcp.shared.exceptions import MCPError

    try:
        return result_text(await client.call_tool(name, arguments))
    except MCPError as exc:
        return f"Error: {exc}"


class ScriptedBrain:
    """Deterministic rules (see the module docstring)."""

    async def turn(self, chat: Conversation, text: str) -> str:
        if chat.pointer is None:
            return "I have no tools for this conversation."
        async with connect(chat.pointer) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            if "soql_query" in names:
                return await self._crm(client, chat.memory, text)
            words = text.rsplit("\n", 1)[-1]
            call = tau2_action(words)
            got = await _call(client, call["name"], call["arguments"])
        if call["name"] == "transfer_to_human_agents":
            return TRANSFER
        return "Done. " + got

    async def _crm(self, client: Any, memory: dict[str, Any], text: str) -> str:
        action = json.loads(crm_rules.next_action(memory, text))
        while action["action"] == "execute":
            query = action["query"]
            tool = "sosl_search" if query.lstrip().upper().startswith("FIND") else "soql_query"
            observation = await _call(client, tool, {"query": query})
            action = json.loads(crm_rules.next_action(memory, observation))
        return str(action["answer"])


def build_app(base_url: str, brain: Brain, mcp_url: str | None = None) -> Any:
    """The Starlette app of the MCP-native agent whose public URL is `base_url`; its card
    declares MCP client support (a skill tagged `mcp`). `mcp_url` replaces the URL of every
    pointer (its headers kept): where this agent reaches the green agent's MCP export when
    only a declared binding leads there (an Amber scenario's slot)."""
    from a2a.helpers import get_data_parts, new_message, new_text_part
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue

    from a2abench.demo._app import jsonrpc_app

    chats: dict[str, Conversation] = {}

    class Executor(AgentExecutor):
        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            chat = chats.setdefault(context.context_id or "", Conversation())
            parts = list(context.message.parts) if context.message else []
            if chat.pointer is None:
                chat.pointer = find_pointer(get_data_parts(parts))
                if chat.pointer is not None and mcp_url:
                    chat.pointer["url"] = mcp_url
            text = context.get_user_input() if context.message else ""
            answer = await brain.turn(chat, text)
            await event_queue.enqueue_event(new_message([new_text_part(answer)],
                                                        context_id=context.context_id))

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            return None

    return jsonrpc_app(
        base_url, Executor(), name="a2abench MCP example agent",
        description="Calls its tools over MCP (a2abench --tool-channel mcp).",
        skill={"id": "mcp-tools", "name": "MCP tools",
               "description": "Loads the tools named in a message from their MCP server and "
                              "calls them natively.",
               "tags": ["mcp", "mcp-client", "example"]})
