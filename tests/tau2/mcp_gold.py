"""The gold agent's MCP modes: the same gold actions, called natively through a real `mcp`
client while the agent holds the turn, then the same words as text.

- "mcp": every gold action of the task in its first turn, in order, then the words;
- "mcp-alias": as "mcp", but banking's discoverable calls go to the unlocked tool by its
  own name once `notifications/tools/list_changed` has announced it;
- "mcp-solo": a solo run: every gold action, then `done`;
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
from a2abench.mcp.client import connect, find_pointer, result_text


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    text: str
    is_error: bool


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
        changed = asyncio.Event()

        def on_change() -> None:
            self.changes[task_id] = self.changes.get(task_id, 0) + 1
            changed.set()

        calls = self.calls.setdefault(task_id, [])
        async with connect(pointer, on_change) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            self.tool_lists.setdefault(task_id, []).append(names)
            plan = self._actions(task_id) + ([("done", {})] if self.mode == "mcp-solo" else [])
            for name, arguments in plan:
                if changed.is_set():
                    changed.clear()
                    names = [t.name for t in (await client.list_tools()).tools]
                    self.tool_lists[task_id].append(names)
                target = arguments.get("agent_tool_name")
                if self.mode == "mcp-alias" and name == "call_discoverable_agent_tool" \
                        and target in names:
                    name, arguments = target, json.loads(arguments.get("arguments", "{}"))
                result = await client.call_tool(name, arguments)
                calls.append(Call(name, arguments, result_text(result), bool(result.is_error)))
