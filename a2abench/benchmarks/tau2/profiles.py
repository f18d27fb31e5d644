"""Prompt profiles: how the first message, the follow-ups and the agent's replies look.

- `a2abench` (default): our own format (py): instructions, policy, tools as text and
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

Both upstream texts are read at run time from upstream's own files, never shipped: the file at
a pinned commit, sha256-checked, downloaded from that repository's raw files into the cache
(or found beside --data-dir, or in the cache, then never fetched; see `data.optional_source`).
The agentify f-string is parsed with `ast`; the agentbeats `agent_prompt` f-string and the
opening that joins "Now here are the user messages:" to it are split with `fstrings.py` (the
file needs Python 3.12's parser) and their fields parsed with `ast`. When a file is
unavailable: agentify falls back to its text written from the format (tau2-bench is MIT);
agentbeats to a2abench's own wording (agentbeats-tutorial has no licence, so its prose is not
copied), which keeps only the lines agents written for the stock green agent key on ("Here's
a list of tools you can use", "Please respond in JSON format.", `<json>` examples, "Now here
are the user messages:", e.g. VlaTz/tau2-agentbeats-base-purple) in the same order: policy,
tools JSON, respond tool, reply rules, examples, user messages. The run record's
`data.prompt_text` says which text ran. tests/tau2/test_profiles_upstream.py checks the texts
read from the real files.
"""

from __future__ import annotations

import ast
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from a2abench.benchmarks.tau2.actions import RESPOND, ToolCallFormat, parse_reply
from a2abench.benchmarks.tau2.data import PinnedFile, optional_source
from a2abench.benchmarks.tau2.fstrings import module_strings, read_fstrings
from a2abench.benchmarks.tau2.models import AssistantMessage, ToolCall, ToolMessage, UserMessage
from a2abench.benchmarks.tau2.prompt import GREETING, first_message, tool_result_parts
from a2abench.plugin import AgentReply, Part, ProtocolError, TextPart

PromptStyle = Literal["a2abench", "agentbeats", "agentify"]
PROMPT_STYLES: tuple[str, ...] = ("a2abench", "agentbeats", "agentify")
Incoming = UserMessage | list[ToolMessage] | None  # None: no words yet (a solo run's start)

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
Template = tuple[str, ...]  # literal text and slots ("\0policy", ...), in order


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=2)  # upstream's json.dumps(..., indent=2): ASCII escapes


def _fill(template: Template, slots: Mapping[str, str]) -> str:
    return "".join(slots.get(piece, piece) for piece in template)


class Profile:
    """The a2abench format (py), with its `--tool-call-format`."""

    name: str = "a2abench"

    def __init__(self, tool_call_format: ToolCallFormat = "any") -> None:
        self.tool_call_format = tool_call_format

    def first(self, policy: str, schemas: Sequence[dict[str, Any]], history: Sequence[Any],
              incoming: Incoming, calls: Sequence[ToolCall]) -> list[Part]:
        return first_message(policy, schemas, history,
                                        tool_call_format=self.tool_call_format) + \
            self.follow(incoming, calls)

    def follow(self, incoming: Incoming, calls: Sequence[ToolCall]) -> list[Part]:
        if isinstance(incoming, list):
            return tool_result_parts(incoming, calls)
        return [] if incoming is None else [TextPart(text=incoming.content or "")]

    def parse(self, reply: AgentReply, tools: Mapping[str, Any] | None = None
              ) -> AssistantMessage:
        return parse_reply(reply, tools=tools,
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


# The stock AgentBeats tau2 green agent (agentbeats-tutorial, no licence): its text is read at
# run time from the pinned file, never shipped; without it a2abench's own wording is used.
AGENTBEATS_SOURCE = PinnedFile(
    repository="RDI-Foundation/agentbeats-tutorial",
    commit="9b9ca9367f88236518f293b0965fc29b03e1e7b8", path="scenarios/tau2/tau2_evaluator.py",
    sha256="269325943013887cadc796ad2bc3837ee98074f89854d7d0aee029c0e4e8588d",
    url_env="A2ABENCH_AGENTBEATS_DATA_URL")
# The lines agents written for the stock green agent look for (VlaTz/tau2-agentbeats-base-
# purple: the first two mark the first message, the tools JSON follows the first, the user's
# words the last). Our own wording keeps them word for word.
TOOLS_MARKER = "Here's a list of tools you can use"
JSON_MARKER = "Please respond in JSON format."
USER_MESSAGES_MARKER = "Now here are the user messages:"


@dataclass(frozen=True)
class AgentBeatsText:
    """The stock green agent's first message, read from its source: the prompt (slots
    "\0policy", "\0tools") and the opening that puts the prompt before the messages so far
    (slots "\0prompt", "\0messages", the messages joined by `separator`)."""

    prompt: Template
    opening: Template
    separator: str


def _agentbeats_fallback(policy: str, schemas: Sequence[dict[str, Any]]) -> str:
    """a2abench's own wording, in the stock message's order: policy, tools as JSON, the
    respond tool, reply rules, two `<json>` examples (the markers kept verbatim)."""
    respond = {"type": "function", "function": {
        "name": RESPOND, "description": "Send a message to the user (use it whenever you "
                                        "are not calling one of the tools above).",
        "parameters": {"type": "object", "title": "parameters", "required": ["content"],
                       "properties": {"content": {"type": "string", "title": "Content",
                                                  "description": "What to tell the user."}}}}}
    example = {"name": "get_order_details", "arguments": {"order_id": "#W0000000"}}
    said = {"name": RESPOND, "arguments": {"content": "Thanks! Could you tell me your order "
                                                      "number?"}}
    return (f"{policy}\n\n{TOOLS_MARKER} (one per turn):\n{_dumps(list(schemas))}\n\n"
            f"To write to the user, use this one instead:\n\n{_dumps(respond)}\n\n\n"
            f"{JSON_MARKER}\nEach reply is one JSON object, nothing around it, with two keys:\n"
            "- \"name\": the tool to call (\"respond\" to write to the user).\n"
            "- \"arguments\": that tool's arguments, as an object.\n\n"
            "Each turn does one thing: call one tool, or send the user one message, "
            "never both.\n\n"
            "Two sample replies, each shown inside json tags (send only the JSON; the tool "
            "name is an illustration):\n"
            f"<json>\n{_dumps(example)}\n</json>\n\n<json>\n{_dumps(said)}\n</json>\n")


class AgentBeatsProfile(Profile):
    name = "agentbeats"

    def __init__(self, tool_call_format: ToolCallFormat = "any",
                 text: AgentBeatsText | None = None) -> None:
        super().__init__(tool_call_format)
        self.text = text  # the stock green agent's text, when its source file was found

    def prompt(self, policy: str, schemas: Sequence[dict[str, Any]]) -> str:
        if self.text is None:
            return _agentbeats_fallback(policy, schemas)
        # upstream's tools_to_str: json.dumps of the tools' OpenAI schemas, indent=2
        return _fill(self.text.prompt, {"\0policy": policy, "\0tools": _dumps(list(schemas))})

    def first(self, policy: str, schemas: Sequence[dict[str, Any]], history: Sequence[Any],
              incoming: Incoming, calls: Sequence[ToolCall]) -> list[Part]:
        # Upstream's agent state starts with the greeting (or the task's history), and the
        # first message lists every message of that state, the greeting included.
        state = list(history) or [AssistantMessage(content=GREETING)]
        seen = [_text_of(m) for m in state] + [self._follow_text(incoming, calls)]
        # (incoming is never None here: the stock green agent has no solo mode)
        prompt = self.prompt(policy, schemas)
        if self.text is None:
            return [TextPart(text=f"{prompt}\n\n{USER_MESSAGES_MARKER}\n" + "\n".join(seen))]
        return [TextPart(text=_fill(self.text.opening, {
            "\0prompt": prompt, "\0messages": self.text.separator.join(seen)}))]

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


_AB_PROMPT = {"self.domain_policy": "\0policy", "tools_to_str(self.tools)": "\0tools"}
# the opening's join: the text of every message of the agent's state so far
_AB_MESSAGES = "[extract_text_from_message(message) for message in state.messages]"


def _template(pieces: Sequence[str | ast.expr], slots: Mapping[str, str]) -> Template:
    """f-string pieces with the expressions named in `slots` as slots, the others constant
    (`_constant_value`); each slot must occur exactly once."""
    if any(isinstance(p, ast.FormattedValue) for p in pieces):
        raise ValueError("unexpected conversion or format spec in upstream's prompt")
    out = [p if isinstance(p, str) else slots.get(ast.unparse(p)) or _constant_value(p)
           for p in pieces]
    if sorted(p for p in out if p.startswith("\0")) != sorted(slots.values()):
        raise ValueError(f"expected the fields {', '.join(slots)} once each")
    return tuple(out)


def extract_agentbeats_text(path: Path) -> AgentBeatsText:
    """The stock AgentBeats tau2 green agent's first message, from its source: the
    `agent_prompt` f-string and the opening f-string (`outgoing_text = f"{self.agent_prompt}
    ...{SEP.join(...)}"`). Raises ValueError when the source does not have that shape."""
    source = path.read_text(encoding="utf-8")
    name = module_strings(source).get("RESPOND_ACTION_NAME")
    if name != RESPOND:  # replies are parsed by that name
        raise ValueError(f"RESPOND_ACTION_NAME is {name!r} in {path}, not {RESPOND!r}")
    prompt: Template | None = None
    opening: tuple[Template, str] | None = None
    for fstring in read_fstrings(source):
        fields = fstring.fields()
        if prompt is None and fstring.before[-1:] == ("return",) and \
                set(_AB_PROMPT) <= set(fields):
            prompt = _template(fstring.pieces, _AB_PROMPT)
        elif (opening is None and fstring.before[-2:] == ("outgoing_text", "=")
              and fields[:1] == ["self.agent_prompt"] and len(fields) == 2):
            join = next(p for p in fstring.pieces if isinstance(p, ast.expr)
                        and ast.unparse(p) != "self.agent_prompt")
            if not (isinstance(join, ast.Call) and isinstance(join.func, ast.Attribute)
                    and join.func.attr == "join" and isinstance(join.func.value, ast.Constant)
                    and isinstance(join.func.value.value, str) and len(join.args) == 1
                    and ast.unparse(join.args[0]) == _AB_MESSAGES):
                raise ValueError(f"unexpected opening of the first message in {path}: "
                                 f"{ast.unparse(join)}")
            opening = (_template(fstring.pieces, {"self.agent_prompt": "\0prompt",
                                                  ast.unparse(join): "\0messages"}),
                       join.func.value.value)
    if prompt is None or opening is None:
        raise ValueError(f"no agent_prompt f-string and first-message opening in {path}")
    return AgentBeatsText(prompt, *opening)


class AgentifyProfile(Profile):
    name = "agentify"

    def __init__(self, tool_call_format: ToolCallFormat = "any",
                 template: Template | None = None) -> None:
        super().__init__(tool_call_format)
        self.template = template  # upstream's text, when its source file was found

    def prompt(self, policy: str, schemas: Sequence[dict[str, Any]], observation: str) -> str:
        tools = [*schemas, _DONE_SCHEMA]
        if self.template is not None:
            slots = {"\0policy": policy, "\0tools": _dumps(tools),
                     "\0observation": json.dumps(observation, indent=2)}
            return _fill(self.template, slots)
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
        message = parse_reply(reply, tool_call_format="tags")
        if message.tool_calls and any(c.name == _DONE for c in message.tool_calls):
            return AssistantMessage(content=STOP_TOKEN)  # upstream's _check_if_stop_toolcall
        return message

    def is_stop(self, message: AssistantMessage) -> bool:
        return not message.tool_calls and STOP_TOKEN in (message.content or "")


PROFILES: dict[str, type[Profile]] = {p.name: p for p in (Profile, AgentBeatsProfile,
                                                           AgentifyProfile)}


def get_profile(style: str, tool_call_format: ToolCallFormat = "any",
                source: Path | None = None) -> Profile:
    """The profile named `style`; `tool_call_format` shapes the a2abench one only. With
    `source` (the pinned upstream file of an agentify or agentbeats profile, verified) its
    text is read from that file (ValueError/SyntaxError/OSError when it cannot be read);
    without it, the fallback text is used."""
    if source is not None and style == "agentify":
        return AgentifyProfile(tool_call_format, extract_agentify_template(source))
    if source is not None and style == "agentbeats":
        return AgentBeatsProfile(tool_call_format, extract_agentbeats_text(source))
    return PROFILES[style](tool_call_format)


def load_profile(style: str, tool_call_format: ToolCallFormat,
                 data_dir: Path | None) -> tuple[Profile, str]:
    """The prompt profile, and where its text comes from (the run record's
    `data.prompt_text`): "a2abench", "upstream" (read from the pinned file), or the
    fallback's name with why the file was not used."""
    if style not in ("agentify", "agentbeats"):
        return get_profile(style, tool_call_format), "a2abench"
    source: str | PinnedFile = AGENTIFY_SOURCE if style == "agentify" else AGENTBEATS_SOURCE
    fallback = "written from the format" if style == "agentify" else "a2abench wording"
    path, why = optional_source(source, data_dir)
    if path is not None:
        try:
            return get_profile(style, tool_call_format, path), "upstream"
        except (ValueError, SyntaxError, OSError, UnicodeDecodeError) as exc:
            why = f"{path.name}: {exc}"  # a verified file of an unexpected shape
    return get_profile(style, tool_call_format), f"{fallback} ({why})"
