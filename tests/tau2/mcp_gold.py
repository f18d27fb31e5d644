"""The gold agent's MCP modes: the same gold actions, called natively through a real `mcp`
client while the agent holds the turn, then the same words as text.

- "mcp": every gold action of the task in its first turn, in order, then the words;
- "mcp-alias": as "mcp", but banking's discoverable calls go to the unlocked tool by its
  own name once `notifications/tools/list_changed` has announced it;
- "mcp-solo": a solo run: every gold action, then `done`;
- "mcp-team": a team's front agent (scenario team): a gold call whose tool is not listed is
  delegated to the specialist with the `delegate` tool, as the reference front agent words it;
A suffix names the protocol of the in-process `mcp` 2.x client (a2abench.mcp.client
`Protocol`): "mcp@legacy", "mcp-alias@2026-07-28" (default "auto"). With `caller` set (a
tests.mcp.real_clients.ToolCaller), another process's client makes the calls instead.
Every call's name, arguments, result text and error flag is kept in `calls` (per task).
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from typing import Any

from a2a.helpers import get_data_parts, new_text_part

from a2abench.benchmarks.tau2.models import Task
from a2abench.mcp.client import PROTOCOLS, Protocol, connect, find_pointer, result_text


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    text: str
    is_error: bool
    refused: bool = False  # an MCP error instead of a result (`text` is its message)


@dataclass
class McpGold:
    tasks: dict[str, Task]
    mode: str
    plans: dict[str, list[tuple[str, dict[str, Any]]]]
    first_messages: list[str]
    contexts: dict[str, str] = field(default_factory=dict)  # context -> task id
    pointers: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: dict[str, list[Call]] = field(default_factory=dict)
    tool_lists: dict[str, list[list[str]]] = field(default_factory=dict)
    changes: dict[str, int] = field(default_factory=dict)  # list_changed notifications
    caller: Any = None  # another process's MCP client (tests.mcp.real_clients.ToolCaller)
    # Listen for list changes (2026-07-28: a listen stream, which a proxy that buffers whole
    # responses never delivers); without, banking's unlocks are seen by listing again only.
    listen: bool = True
    protocols: dict[str, str] = field(default_factory=dict)  # task id -> revision spoken
    protocol: Protocol = field(init=False, default="auto")

    def __post_init__(self) -> None:
        self.mode, _, protocol = self.mode.partition("@")
        if protocol:
            assert protocol in PROTOCOLS, protocol
            self.protocol = protocol  # type: ignore[assignment]

    async def turn(self, ctx: str, text: str, message: Any) -> list[Any]:
        if ctx not in self.contexts:
            self.first_messages.append(text)
            self.pointers[ctx] = find_pointer(get_data_parts(list(message.parts))) or {}
            self.contexts[ctx] = self._task_id(text)
            task_id = self.contexts[ctx]
            await self._call_all(task_id, self.pointers[ctx])
            if self.mode == "mcp-solo":
                return [new_text_part("Done.")]
        task = self.tasks[self.contexts[ctx]]
        said = " ".join(task.evaluation_criteria.communicate_info or [])  # type: ignore[union-attr]
        return [new_text_part(f"All done. {said}".strip())]

    def _task_id(self, text: str) -> str:
        match = re.search(r"TASK:(\S+)", text)
        if match:
            return match.group(1)
        ticket = re.search(r"<ticket>\n(.*?)\n</ticket>", text, re.S)
        by_ticket = {str(t.ticket): i for i, t in self.tasks.items()}
        return by_ticket.get(ticket.group(1), "?") if ticket else "?"

    def _actions(self, task_id: str) -> list[tuple[str, dict[str, Any]]]:
        task = self.tasks[task_id]
        wanted = None if self.mode == "mcp-solo" else "assistant"
        return self.plans.get(task_id) or [
            (a.name, a.arguments) for a in task.evaluation_criteria.actions or []  # type: ignore[union-attr]
            if wanted is None or a.requestor == wanted]

    async def _call_all(self, task_id: str, pointer: dict[str, Any]) -> None:
        plan = self._actions(task_id) + ([("done", {})] if self.mode == "mcp-solo" else [])
        if self.caller is not None:
            await self._call_elsewhere(task_id, pointer, plan)
            return
        changed = asyncio.Event()

        def on_change() -> None:
            self.changes[task_id] = self.changes.get(task_id, 0) + 1
            changed.set()

        calls = self.calls.setdefault(task_id, [])
        async with connect(pointer, on_change if self.listen else None,
                           self.protocol) as client:
            self.protocols[task_id] = client.protocol_version
            names = [t.name for t in (await client.list_tools()).tools]
            self.tool_lists.setdefault(task_id, []).append(names)
            for name, arguments in plan:
                target = arguments.get("agent_tool_name")
                if self.mode == "mcp-alias" and name == "call_discoverable_agent_tool" \
                        and target in names:
                    name, arguments = target, json.loads(arguments.get("arguments", "{}"))
                if self.mode == "mcp-team" and name not in names and "delegate" in names:
                    from a2abench.benchmarks.tau2.team.reference import request

                    name, arguments = "delegate", {"to": "specialist",
                                                   "message": request(name, arguments)}
                result = await client.call_tool(name, arguments)
                calls.append(Call(name, arguments, result_text(result), bool(result.is_error)))
                if name == "unlock_discoverable_agent_tool":
                    after = [t.name for t in (await client.list_tools()).tools]
                    if after != names:  # the next list shows it, and it is announced
                        if self.listen:
                            await asyncio.wait_for(changed.wait(), 60)
                            changed.clear()
                        names = after
                        self.tool_lists[task_id].append(names)

    async def _call_elsewhere(self, task_id: str, pointer: dict[str, Any],
                              plan: list[tuple[str, dict[str, Any]]]) -> None:
        """The same calls, made by the real client in `caller`'s process."""
        got = await self.caller.turn({**pointer, "calls": plan,
                                      "alias": self.mode == "mcp-alias"})
        self.protocols[task_id] = got["protocol"]
        self.tool_lists.setdefault(task_id, []).extend(got["lists"])
        self.changes[task_id] = self.changes.get(task_id, 0) + got["changes"]
        self.calls.setdefault(task_id, []).extend(
            Call(c["name"], c["arguments"], c.get("text", c.get("error", "")),
                 bool(c.get("is_error", True)), "error" in c) for c in got["calls"])
