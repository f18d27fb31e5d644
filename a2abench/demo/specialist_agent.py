"""`a2abench-example-agent specialist`: an A2A specialist for scenario team
(docs/multi-agent.md), without a model: it runs the calls a request carries as JSON.

    a2abench-example-agent specialist --port 9021
    a2abench run tau2 --white-agent-url http://127.0.0.1:9019 \\
        --specialist-url http://127.0.0.1:9021 --domain airline --user-llm gpt-4.1

Each conversation (contextId) is one match. A request (the front agent's message, the last
text part) that carries `{"tool_call": {"name", "arguments"}}` or `{"tool_calls": [...]}`
gets those calls back as a `{"tool_calls": [...]}` DataPart (arguments as JSON text, so
integers survive a protobuf Struct); their results (a `tool_results` DataPart) get a text
report, "<tool>: <result>" per line, which is the front agent's answer. A request without
a call gets a text saying so.

On CRMArena (a first message with the instance's schema) a request that carries
`{"action": "execute", "query": "..."}` gets that action back, and the observation gets a
`respond` action with it as the answer; a request without one gets a `respond` saying so.

With `--tool-channel mcp` (a first message with an `{"mcp": ...}` DataPart) it makes the
same calls on its MCP session while it holds the turn, and its text reply is the same
answer: the tau2 report, or the CRMArena observation (`soql_query` / `sosl_search`).
`--mcp-url` replaces the session's URL (its headers kept).

`--broken` plays a faulty specialist, to see a team's score and attribution move:
`wrong-arguments` runs the requested tools with every text argument altered, `silent`
answers with an empty message (a forfeit). The hostile modes `loop` (calls a tool forever),
`huge` (answers more than any budget) and `hang` (never answers) exist for tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from a2abench.benchmarks.crmarena.actions import from_json, scan_json
from a2abench.benchmarks.crmarena.prompt import OBSERVATION_PREFIX, SYSTEM
from a2abench.benchmarks.tau2.team.specialist import NO_CALLS, requested_calls
from a2abench.mcp.client import connect, find_pointer, result_text

BROKEN = ("wrong-arguments", "silent")
HOSTILE = ("loop", "huge", "hang")
HUGE_BYTES = 2_000_000
NO_QUERY = ("I run queries given as JSON in the request, {\"action\": \"execute\", "
            "\"query\": \"...\"}; this request has none, so I did nothing.")


def _altered(value: Any) -> Any:
    """Wrong arguments: every text value changed, so ids name nothing."""
    if isinstance(value, str):
        return value + "-WRONG"
    if isinstance(value, dict):
        return {k: _altered(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_altered(v) for v in value]
    return value


class SpecialistBrain:
    """The specialist's moves per conversation (see the module docstring)."""

    def __init__(self, mode: str = "gold", mcp_url: str | None = None) -> None:
        self.mode = mode
        self.mcp_url = mcp_url
        self.pending: dict[str, list[dict[str, Any]]] = {}  # context -> calls sent
        self.seen: dict[str, int] = {}  # context -> its messages so far (call ids from it)
        self.crm: set[str] = set()  # the contexts of CRMArena matches
        self.pointers: dict[str, dict[str, Any]] = {}  # context -> its MCP session
        self.turns = 0
        self.mcp_calls = 0

    async def turn(self, context_id: str, texts: list[str], data: list[dict[str, Any]]
                   ) -> tuple[str | None, dict[str, Any] | None]:
        """(its text, its tool-call data) for one message."""
        self.turns += 1
        n = self.seen[context_id] = self.seen.get(context_id, 0) + 1
        if self.mode == "hang":
            await asyncio.Event().wait()
        if self.mode == "silent":
            return None, None
        if self.mode == "huge":
            return "x" * HUGE_BYTES, None
        last = texts[-1] if texts else ""
        if n == 1 and f"# {SYSTEM} description" in last:
            self.crm.add(context_id)
        pointer = find_pointer(data) if n == 1 else None
        if pointer is not None:
            self.pointers[context_id] = {**pointer, "url": self.mcp_url or pointer["url"]}
        if context_id in self.pointers:
            return await self._over_mcp(self.pointers[context_id], last,
                                        context_id in self.crm), None
        if context_id in self.crm:
            return None, self._crm(last)
        results = next((d["tool_results"] for d in data
                        if isinstance(d.get("tool_results"), list)), None)
        if self.mode == "loop":
            return None, {"tool_calls": [{"id": f"loop_{n}", "name": "think",
                                          "arguments": json.dumps({"thought": "..."})}]}
        if results is not None:
            self.pending.pop(context_id, None)
            return "\n".join(f"{r.get('name')}: {'ERROR: ' if r.get('error') else ''}"
                             f"{r.get('content')}" for r in results), None
        asked = requested_calls(texts[-1] if texts else "")
        if not asked:
            return NO_CALLS, None
        if self.mode == "wrong-arguments":
            asked = [{**c, "arguments": _altered(c["arguments"])} for c in asked]
        self.pending[context_id] = asked
        return None, {"tool_calls": [
            {"id": f"spec_{n}_{i}", "name": c["name"],
             "arguments": json.dumps(c["arguments"])} for i, c in enumerate(asked)]}


    async def _over_mcp(self, pointer: dict[str, Any], request: str, crm: bool) -> str:
        """The same work with the calls on the MCP session; the answer as text."""
        from mcp.shared.exceptions import MCPError

        async with connect(pointer) as client:
            if self.mode == "loop":  # until the green refuses a call (its turn limit)
                tools = (await client.list_tools()).tools
                tool = next((t for t in tools if not (t.input_schema or {}).get("required")),
                            tools[0])  # one it can call without arguments (crm: soql_query)
                arguments = {"query": "SELECT Id FROM Case"} if crm else {}
                with contextlib.suppress(MCPError):
                    while True:
                        self.mcp_calls += 1
                        await client.call_tool(tool.name, arguments)
                return "I kept working."
            if crm:
                action = self._crm(request.rsplit("# Request\n", 1)[-1])
                if action["action"] != "execute":
                    return str(action["answer"])
                query = str(action["query"])
                tool = "sosl_search" if query.lstrip().upper().startswith("FIND") \
                    else "soql_query"
                self.mcp_calls += 1
                found = result_text(await client.call_tool(tool, {"query": query}))
                return found.removeprefix(OBSERVATION_PREFIX)
            calls = requested_calls(request)
            if not calls:
                return NO_CALLS
            if self.mode == "wrong-arguments":
                calls = [{**c, "arguments": _altered(c["arguments"])} for c in calls]
            lines = []
            for c in calls:
                self.mcp_calls += 1
                result = await client.call_tool(c["name"], c["arguments"])
                error = "ERROR: " if getattr(result, "is_error", False) else ""
                lines.append(f"{c['name']}: {error}{result_text(result)}")
            return "\n".join(lines)

    def _crm(self, text: str) -> dict[str, Any]:
        """CRMArena: the requested query as an action, then the observation as the answer."""
        if text.startswith(OBSERVATION_PREFIX):
            return {"action": "respond", "answer": text[len(OBSERVATION_PREFIX):]}
        request = text.rsplit("# Request\n", 1)[-1]
        asked = next((a for a in map(lambda o: from_json(o, "json"), scan_json(request))
                      if a is not None and a.name == "execute"), None)
        if asked is None:
            return {"action": "respond", "answer": NO_QUERY}
        query = _altered(asked.content) if self.mode == "wrong-arguments" else asked.content
        return {"action": "execute", "query": query}


def build_app(base_url: str, mode: str = "gold", mcp_url: str | None = None) -> Any:
    """The A2A app (JSON-RPC, 1.0 and 0.3) around a `SpecialistBrain`."""
    from a2abench.demo._app import jsonrpc_app, parts_executor

    brain = SpecialistBrain(mode, mcp_url)
    app = jsonrpc_app(base_url, parts_executor(brain.turn), name="a2abench example specialist",
                      description="Runs the tool calls a team's front agent asks for "
                                  "(scenario team; an a2abench example).",
                      skill={"id": "team-specialist", "name": "team specialist",
                             "description": "Runs requested tool calls and reports them.",
                             "tags": ["example", "team", "specialist"]})
    app.state.brain = brain
    return app
