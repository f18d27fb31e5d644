"""`a2abench-example-agent user`: an A2A user participant for tau2's scenario dual
(docs/multi-agent.md) that wraps a2abench's own LLM user simulator.

    a2abench-example-agent user --user-llm gpt-4.1 --port 9020
    a2abench run tau2 --white-agent-url http://127.0.0.1:9019 \\
        --user-agent-url http://127.0.0.1:9020 --domain airline

Each conversation (contextId) is one task-trial's customer: its first message's
`user_scenario` DataPart builds a `UserSimulator` exactly as `run tau2` builds its own
(upstream's guidelines and the task's scenario as the system prompt, the user's tools, the
trial's seed, the conversation so far), on the same LLM settings (`--user-llm`,
`--user-llm-base-url`, `--user-llm-args`, `--llm-cache`), so a run with it as the user
gives the transcripts and rewards of the built-in simulator: the plumbing of the relay is
what such a run tests.

Replies: the simulator's words as one text part (as written, stop tokens included), its
tool calls as a `{"tool_calls": [...]}` DataPart whose `arguments` are JSON text (so
integers stay integers through a protobuf Struct). With `--tool-channel mcp` the first
message names an MCP session (`{"mcp": ...}`): the simulator's tool calls then run there
while the request is in flight, their results go back to it, and only its words are sent.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from a2abench.benchmarks.tau2.models import AssistantMessage, Message, ToolMessage, UserMessage
from a2abench.benchmarks.tau2.user_sim import UserSimulator, system_prompt
from a2abench.llm import ChatLLM
from a2abench.mcp.client import connect, find_pointer, result_text
from a2abench.run.driver import LLMUsage

MAX_TOOL_ROUNDS = 30  # the user's own tool calls in one turn over MCP before it gives up


class UserParticipant:
    """The simulators of the conversations in flight, by contextId (and the MCP session of
    each, when its tools are served there). `mcp_url` replaces every session's URL (its
    headers kept): an Amber scenario's slot."""

    def __init__(self, llm: ChatLLM, mcp_url: str | None = None) -> None:
        self.llm = llm
        self.mcp_url = mcp_url
        self.users: dict[str, UserSimulator] = {}
        self.pointers: dict[str, dict[str, Any]] = {}

    async def turn(self, context_id: str, texts: Sequence[str],
                   data: Sequence[dict[str, Any]]) -> tuple[str | None, dict[str, Any] | None]:
        """One relayed message in, the user's reply out: (its text, its tool-call data)."""
        scenario = next((d for d in data if isinstance(d.get("user_scenario"), dict)), None)
        if scenario is not None or context_id not in self.users:
            if scenario is None:
                raise ValueError("the first message of a conversation needs the "
                                 "`user_scenario` data part")
            self.users[context_id] = self._simulator(scenario)
            pointer = find_pointer(data)
            if pointer is not None:
                self.pointers[context_id] = {**pointer, "url": self.mcp_url or pointer["url"]}
        results = next((d["tool_results"] for d in data
                        if isinstance(d.get("tool_results"), list)), None)
        incoming: AssistantMessage | list[ToolMessage]
        if results is not None:
            incoming = [ToolMessage(id=str(r.get("id")), content=r.get("content"),
                                    requestor="user", error=bool(r.get("error")))
                        for r in results]
        else:  # the agent's words: the last text part, verbatim
            incoming = AssistantMessage(content=texts[-1] if texts else "")
        message = await self.users[context_id].respond(incoming)
        pointer = self.pointers.get(context_id)
        if pointer is None or not message.tool_calls:
            return message.content, _calls(message)
        return await self._over_mcp(self.users[context_id], message, pointer), None

    async def _over_mcp(self, user: UserSimulator, message: UserMessage,
                        pointer: dict[str, Any]) -> str | None:
        """Run the simulator's tool calls on its MCP session until it speaks."""
        async with connect(pointer) as client:
            for _ in range(MAX_TOOL_ROUNDS):
                if not message.tool_calls:
                    return message.content
                results = []
                for call in message.tool_calls:
                    text, error = await _call(client, call.name, call.arguments)
                    results.append(ToolMessage(id=call.id, content=text, requestor="user",
                                               error=error))
                message = await user.respond(results)
        return message.content if not message.tool_calls else None

    def _simulator(self, data: dict[str, Any]) -> UserSimulator:
        prompt = system_prompt(str(data["simulation_guidelines"]), str(data["scenario_text"]))
        history = [_message(m) for m in data.get("history") or []]
        return UserSimulator(self.llm, prompt, tools=data.get("tools") or None,
                             seed=int(data["seed"]), usage=LLMUsage(), history=history)


def _message(raw: dict[str, Any]) -> Any:
    """A history message of the DataPart: tool-call arguments arrive as JSON text."""
    from pydantic import TypeAdapter

    calls = raw.get("tool_calls")
    if isinstance(calls, list):
        raw = {**raw, "tool_calls": [
            {**c, "arguments": json.loads(c["arguments"]) if isinstance(c.get("arguments"), str)
             else c.get("arguments")} for c in calls]}
    return TypeAdapter(Message).validate_python(raw)


async def _call(client: Any, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """A tool's text result and whether it is an error (a refused call: its message)."""
    from mcp.shared.exceptions import MCPError

    try:
        result = await client.call_tool(name, arguments)
    except MCPError as exc:
        return f"Error: {exc}", True
    return result_text(result), bool(getattr(result, "is_error", False))


def _calls(message: UserMessage) -> dict[str, Any] | None:
    if not message.tool_calls:
        return None
    return {"tool_calls": [{"id": c.id, "name": c.name, "arguments": json.dumps(c.arguments)}
                           for c in message.tool_calls]}


def build_app(base_url: str, llm: ChatLLM, mcp_url: str | None = None) -> Any:
    """The A2A app (JSON-RPC, 1.0 and 0.3) around a `UserParticipant`."""
    from a2abench.demo._app import jsonrpc_app, parts_executor

    brain = UserParticipant(llm, mcp_url)
    return jsonrpc_app(base_url, parts_executor(brain.turn), name="a2abench example user",
                       description="Plays the customer of tau2's scenario dual with "
                                   "a2abench's LLM user simulator (an a2abench example).",
                       skill={"id": "tau2-user", "name": "tau2 user",
                              "description": "Plays the tau2 customer from a user scenario.",
                              "tags": ["example", "tau2", "user"]},
                       on_close=llm.aclose)
