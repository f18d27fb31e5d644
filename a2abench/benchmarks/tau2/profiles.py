"""Prompt profiles: how the first message, the follow-ups and the agent's replies look.

- `a2abench` (default): our own format (translator.py): instructions, policy, tools as text and
  as a DataPart, tool results as text plus a DataPart; many reply shapes accepted.
- `agentbeats`: the stock AgentBeats tau2 green agent (RDI-Foundation agentbeats-tutorial
  `scenarios/tau2/tau2_evaluator.py` at 9b9ca93): one TextPart per message; the policy, the
  tool list as indented JSON, the `respond` pseudo-tool, "Please respond in JSON format.", two
  `<json>` examples, then "Now here are the user messages:". Replies: the whole text as JSON
  `{"name", "arguments"}`; anything else is a message to the user.
- `agentify`: tau2-bench's own `src/experiments/agentify_tau_bench` green agent (at the pinned
  commit): the policy, the tools, the `<json>` reply rules, then "User message:" with the gym
  observation as a JSON string; follow-ups are gym observations (`user: ...`, `tool: ...`).
  Replies: the `<json>...</json>` tag's `{"name", "arguments"}`; a reply without it is an
  agent error (upstream's green agent fails the task there).

The agentify text is read at run time from upstream's file when it is available (pinned and
sha256-checked, see `data.optional_source`), else written from its format; the agentbeats text
is written from its format (that repository has no licence). Both follow their formats line by
line (tests/tau2/test_profiles_upstream.py checks them against the sources), because agents
written for the stock green agents find their way by these lines (e.g. "Here's a list of tools
you can use" and "Please respond in JSON format." mark the first message for agents such as
VlaTz/tau2-agentbeats-base-purple).
"""

from __future__ import annotations

import ast
import json
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from a2abench.a2a.client import AgentReply
from a2abench.a2a.models import Part, TextPart
from a2abench.benchmarks.tau2 import translator
from a2abench.benchmarks.tau2.models import AssistantMessage, ToolCall, ToolMessage, UserMessage
from a2abench.errors import ProtocolError

PromptStyle = Literal["a2abench", "agentbeats", "agentify"]
PROMPT_STYLES: tuple[str, ...] = ("a2abench", "agentbeats", "agentify")
RESPOND = translator.RESPOND
Incoming = UserMessage | list[ToolMessage] | None  # None: no words yet (a solo run's start)

_RESPOND_SCHEMA = {
    "type": "function",
    "function": {
        "name": RESPOND,
        "description": "Respond directly to the user with a message instead of calling a tool.",
        "parameters": {
            "properties": {"content": {"description": "The message content to send to the user.",
                                       "title": "Content", "type": "string"}},
            "required": ["content"], "title": "parameters", "type": "object"}}}
# tau2's GymAgent appends this tool (`as_tool(done)`) to the agent's tools; calling it stops
# the conversation (AGENT_STOP), which the agentify green agent's tool list therefore shows.
_DONE = "done"
_DONE_SCHEMA = {"type": "function", "function": {
    "name": _DONE, "description": "Call this function when you are done with the task.",
    "parameters": {"properties": {}, "title": "parameters", "type": "object"}}}
STOP_TOKEN = "###STOP###"
_TOOL_EXAMPLE = {"name": "find_user_id_by_name_zip",
                 "arguments": {"first_name": "Yusuf", "last_name": "Rossi", "zip_code": "19122"}}
_RESPOND_EXAMPLE_ARGS = {"content": "Hello, how can I help you today?"}


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=2)  # upstream's json.dumps(..., indent=2): ASCII escapes


class Profile:
    """The a2abench format (translator.py), with its `--tool-call-format`."""

    name: str = "a2abench"

    def __init__(self, tool_call_format: translator.ToolCallFormat = "any") -> None:
        self.tool_call_format = tool_call_format

    def first(self, policy: str, schemas: Sequence[dict[str, Any]], history: Sequence[Any],
              incoming: Incoming, calls: Sequence[ToolCall]) -> list[Part]:
        return translator.first_message(policy, schemas, history,
                                        tool_call_format=self.tool_call_format) + \
            self.follow(incoming, calls)

    def follow(self, incoming: Incoming, calls: Sequence[ToolCall]) -> list[Part]:
        if isinstance(incoming, list):
            return translator.tool_result_parts(incoming, calls)
        return [] if incoming is None else [TextPart(text=incoming.content or "")]

    def parse(self, reply: AgentReply, tools: Mapping[str, Any] | None = None
              ) -> AssistantMessage:
        return translator.parse_reply(reply, tools=tools,
                                      tool_call_format=self.tool_call_format)

    def is_stop(self, message: AssistantMessage) -> bool:
        """Whether the agent ended the conversation (only the agentify format has a way)."""
        return False


def _action(action: Any, raw: str) -> AssistantMessage:
    """`{"name", "arguments"}` as upstream turns it into a tau2 message."""
    if not isinstance(action, dict) or not isinstance(action.get("name"), str):
        raise ProtocolError(f"the reply is not a {{\"name\", \"arguments\"}} object: {raw[:120]}")
    arguments = action.get("arguments")
    if action["name"] == RESPOND:
        content = arguments.get("content") if isinstance(arguments, dict) else None
        if not isinstance(content, str):
            raise ProtocolError("`respond` needs arguments {\"content\": text}")
        return AssistantMessage(content=content)
    if not isinstance(arguments, dict):
        raise ProtocolError(f"arguments of {action['name']} must be a JSON object")
    call = ToolCall(id=f"call_{uuid.uuid4().hex[:8]}", name=action["name"], arguments=arguments)
    return AssistantMessage(content=None, tool_calls=[call])


def _text_of(message: Any) -> str:
    """Upstream agentbeats' extract_text_from_message for one tau2 message: a user message's
    content, a lone tool result's content, anything else `str(content)` (so `None` for a
    tool-call turn in a history, as upstream)."""
    return str(message.content) if not isinstance(message, UserMessage) else (
        message.content or "")


class AgentBeatsProfile(Profile):
    name = "agentbeats"

    def prompt(self, policy: str, schemas: Sequence[dict[str, Any]]) -> str:
        return (f"{policy}\n\nHere's a list of tools you can use (you can use at most one tool "
                f"at a time):\n{_dumps(list(schemas))}\n\nand \n\n{_dumps(_RESPOND_SCHEMA)}"
                "\n\n\nPlease respond in JSON format.\nThe JSON should contain:\n"
                "- \"name\": the tool call function name.\n"
                "- \"arguments\": the arguments for the tool call.\n\n"
                "You should only use one tool at a time!\n"
                "You cannot respond to user and use a tool at the same time!\n\n"
                f"Examples of responses:\n<json>\n{_dumps(_TOOL_EXAMPLE)}\n</json>\n\n"
                f"<json>\n{_dumps({'name': RESPOND, 'arguments': _RESPOND_EXAMPLE_ARGS})}\n"
                "</json>\n")

    def first(self, policy: str, schemas: Sequence[dict[str, Any]], history: Sequence[Any],
              incoming: Incoming, calls: Sequence[ToolCall]) -> list[Part]:
        # Upstream's agent state starts with the greeting (or the task's history), and the
        # first message lists every message of that state, the greeting included.
        state = list(history) or [AssistantMessage(content=translator.GREETING)]
        seen = [_text_of(m) for m in state] + [self._follow_text(incoming, calls)]
        # (incoming is never None here: the stock green agent has no solo mode)
        text = f"{self.prompt(policy, schemas)}\n\nNow here are the user messages:\n" + \
            "\n".join(seen)
        return [TextPart(text=text)]

    def follow(self, incoming: Incoming, calls: Sequence[ToolCall]) -> list[Part]:
        return [TextPart(text=self._follow_text(incoming, calls))]

    @staticmethod
    def _follow_text(incoming: Incoming, calls: Sequence[ToolCall]) -> str:
        if incoming is None:
            return ""
        if not isinstance(incoming, list):
            return incoming.content or ""
        if len(incoming) == 1:  # tau2 passes a lone ToolMessage, whose str(content) is sent
            return str(incoming[0].content)
        names = {c.id: c.name for c in calls}
        return "\n".join(f"Tool '{names.get(m.id, '')}' result: {m.content}" for m in incoming)

    def parse(self, reply: AgentReply, tools: Mapping[str, Any] | None = None
              ) -> AssistantMessage:
        text = reply.text
        try:
            action = json.loads(text)
            name = action["name"]
            if name != RESPOND:
                return _action({"name": name, "arguments": action["arguments"]}, text)
            return AssistantMessage(content=action["arguments"]["content"])
        except (ValueError, KeyError, TypeError):
            # Upstream: text that is not that JSON goes to the user as it is.
            if not text.strip():
                raise ProtocolError("the agent's reply is empty (no text)",
                                    hint="Reply with the JSON action.") from None
            return AssistantMessage(content=text)


# Where tau2's agentify green agent keeps its first message (an f-string), read at run time.
AGENTIFY_SOURCE = ("src/experiments/agentify_tau_bench/src/agentify_tau_bench/green_agent/"
                   "agent.py")
Template = tuple[str, ...]  # literal text, with the slots "\0policy", "\0tools", "\0observation"
_SLOTS = {"info['policy']": "\0policy", "tools_to_str(info['tools'])": "\0tools",
          "json.dumps(observation, indent=2)": "\0observation"}


class _RespondName(ast.NodeTransformer):
    """The name RESPOND_ACTION_NAME as its value (a string constant spelling it stays)."""

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return ast.Constant(RESPOND) if node.id == "RESPOND_ACTION_NAME" else node


def _constant_value(node: ast.expr) -> str:
    """A slot of upstream's f-string that is a constant once RESPOND_ACTION_NAME is known:
    the name itself, or json.dumps(<literal>, indent=2)."""
    if isinstance(node, ast.Name) and node.id == "RESPOND_ACTION_NAME":
        return RESPOND
    if (isinstance(node, ast.Call) and ast.unparse(node.func) == "json.dumps"
            and len(node.args) == 1 and [k.arg for k in node.keywords] == ["indent"]):
        return _dumps(ast.literal_eval(_RespondName().visit(node.args[0])))
    raise ValueError(f"unexpected expression in upstream's prompt: {ast.unparse(node)}")


def extract_agentify_template(path: Path) -> Template:
    """The first message of upstream's agentify green agent (`task_description` in
    `ask_agent_to_solve`), as literal pieces and slots. Raises ValueError when not found."""
    module = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(module):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.JoinedStr)
                and any(isinstance(t, ast.Name) and t.id == "task_description"
                        for t in node.targets)):
            pieces: list[str] = []
            for value in node.value.values:
                if isinstance(value, ast.Constant):
                    pieces.append(str(value.value))
                elif isinstance(value, ast.FormattedValue):
                    slot = _SLOTS.get(ast.unparse(value.value))
                    pieces.append(slot or _constant_value(value.value))
            if sorted(p for p in pieces if p.startswith("\0")) == sorted(_SLOTS.values()):
                return tuple(pieces)
    raise ValueError(f"no agentify task_description f-string in {path}")


class AgentifyProfile(Profile):
    name = "agentify"

    def __init__(self, tool_call_format: translator.ToolCallFormat = "any",
                 template: Template | None = None) -> None:
        super().__init__(tool_call_format)
        self.template = template  # upstream's text, when its source file was found

    def prompt(self, policy: str, schemas: Sequence[dict[str, Any]], observation: str) -> str:
        tools = [*schemas, _DONE_SCHEMA]
        if self.template is not None:
            slots = {"\0policy": policy, "\0tools": _dumps(tools),
                     "\0observation": json.dumps(observation, indent=2)}
            return "".join(slots.get(piece, piece) for piece in self.template)
        return (f"\n{policy}\nHere's a list of tools you can use (you can use at most one tool "
                f"at a time):\n{_dumps(tools)}\n"
                "Please response in the JSON format. Please wrap the JSON part with "
                "<json>...</json> tags.\nThe JSON should contain:\n"
                f"- \"name\": the tool call function name, or \"{RESPOND}\" if you want to "
                "respond directly.\n"
                "- \"arguments\": the arguments for the tool call, or {\"content\": \"your "
                "message here\"} if you want to respond directly.\n"
                "You should only use one tool at a time!!\n"
                "You cannot respond to user and use a tool at the same time!!\n\n"
                f"Examples of responses:\n<json>\n{_dumps(_TOOL_EXAMPLE)}\n</json>\n\n"
                # upstream writes the name as a plain "{RESPOND_ACTION_NAME}" string here
                f"<json>\n{_dumps({'name': '{RESPOND_ACTION_NAME}', 'arguments': _RESPOND_EXAMPLE_ARGS})}"  # noqa: E501
                "\n</json>\n\nNext, I'll provide you with the user message and tool call "
                f"results.\nUser message: {json.dumps(observation, indent=2)}\n    ")

    def first(self, policy: str, schemas: Sequence[dict[str, Any]], history: Sequence[Any],
              incoming: Incoming, calls: Sequence[ToolCall]) -> list[Part]:
        return [TextPart(text=self.prompt(policy, schemas, self._observation(incoming)))]

    def follow(self, incoming: Incoming, calls: Sequence[ToolCall]) -> list[Part]:
        return [TextPart(text=self._observation(incoming))]

    @staticmethod
    def _observation(incoming: Incoming) -> str:
        """The gym observation: the messages since the agent's last turn, `role: content`."""
        if incoming is None:
            return ""
        if isinstance(incoming, list):
            return "\n".join(f"tool: {m.content}" for m in incoming)
        return f"user: {incoming.content}"

    def parse(self, reply: AgentReply, tools: Mapping[str, Any] | None = None
              ) -> AssistantMessage:
        # upstream's parse_tags semantics, shared with `--tool-call-format tags`
        message = translator.parse_reply(reply, tool_call_format="tags")
        if message.tool_calls and any(c.name == _DONE for c in message.tool_calls):
            return AssistantMessage(content=STOP_TOKEN)  # upstream's _check_if_stop_toolcall
        return message

    def is_stop(self, message: AssistantMessage) -> bool:
        return not message.tool_calls and STOP_TOKEN in (message.content or "")


PROFILES: dict[str, type[Profile]] = {p.name: p for p in (Profile, AgentBeatsProfile,
                                                           AgentifyProfile)}


def get_profile(style: str, tool_call_format: translator.ToolCallFormat = "any",
                agentify_source: Path | None = None) -> Profile:
    """The profile named `style`; `tool_call_format` shapes the a2abench one only. With
    `agentify_source` (upstream's file, pinned and verified) the agentify text is read from
    it; without it, or when it cannot be read, the text written from its format is used."""
    if style == "agentify" and agentify_source is not None:
        return AgentifyProfile(tool_call_format, extract_agentify_template(agentify_source))
    return PROFILES[style](tool_call_format)
