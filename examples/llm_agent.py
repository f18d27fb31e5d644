"""The reference white agent: an A2A agent backed by any OpenAI-compatible chat model.

It speaks both benchmarks' wire formats (docs/design.md §3) and keeps one chat history per A2A
contextId:

- tau2: the first message carries the instructions and policy as text and the tool schemas as a
  DataPart `{"tools": [...]}`. The model gets those schemas through native function calling; its
  tool calls go back as a DataPart `{"tool_calls": [{"id", "name", "arguments"}]}`, its words as
  text. Tool results (`{"tool_results": [...]}`) become `role: tool` messages.
- CRMArena: one text message with the schema, context, query and action format. Each reply is
  exactly one JSON action, `{"action": "execute", "query": ...}` or
  `{"action": "respond", "answer": ...}`; observations come back as text.
- Anything else is plain chat: the model's answer goes back as text.

Run it (the model's API key comes from A2ABENCH_LLM_API_KEY or OPENAI_API_KEY):

    python examples/llm_agent.py --port 9999 --model gpt-4.1 &
    a2abench run tau2 --white-agent-url http://127.0.0.1:9999 --domain airline --max-tasks 5
    a2abench run crmarena --white-agent-url http://127.0.0.1:9999 --max-tasks 5

Any OpenAI-compatible server works, e.g. `--base-url http://127.0.0.1:8000/v1` for vLLM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import re
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

from a2a.helpers import new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Message, Part
from a2a.utils.errors import UnsupportedOperationError
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette

from a2abench.errors import A2ABenchError, LLMError
from a2abench.llm import DEFAULT_BASE_URL, ChatLLM, LLMConfig

logger = logging.getLogger("a2abench.examples.llm_agent")

Mode = Literal["tau2", "crmarena", "chat"]
Reply = list[str | dict[str, Any]]  # each item a text part (str) or a data part (dict)

MAX_CONTEXTS = 2000  # conversations kept in memory; the least recently used go first

# Added after the benchmark's own instructions: the JSON reply format they describe is for
# agents without function calling; this one passes the schemas to the model natively.
TAU2_NOTE = ("You can call the tools listed above directly, through function calling. Call a "
             "tool that way instead of writing the JSON reply format; write plain text only for "
             "messages to the user.")

CRM_SYSTEM = """\
You are an expert Salesforce agent. Each of your replies is exactly one action, written as one \
JSON object and nothing else:
{"action": "execute", "query": "<one SOQL or SOSL query>"} runs a query; its result comes back \
as "Salesforce instance output: ...".
{"action": "respond", "answer": "<the answer>"} gives your final answer and ends the task.
Follow the task's own instructions about the form of the answer."""

CRM_REPAIR = ("Your last reply had no action. Reply with exactly one JSON object: "
              '{"action": "execute", "query": "..."} or {"action": "respond", "answer": "..."}.')

NO_RESULT = "No result was received for this tool call."
NO_CONTENT = ("I could not read this message: it has no text or data part "
              "(this agent reads text and JSON data only).")

# The tells of a CRMArena task message: the JSON action format or the official tags.
_CRM_MARKERS = re.compile(r'"action"\s*:\s*"(?:execute|respond)"|<execute>|<respond>')
_TAG = re.compile(r"<(execute|respond)>(.*?)</\1>", re.S)
_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n?(.*?)\n?```\s*$", re.S)


# --- reading A2A parts --------------------------------------------------------------------------

@dataclass(frozen=True)
class Piece:
    """One part of an incoming message: text, JSON data, or something this agent cannot read."""

    kind: Literal["text", "data", "other"]
    value: Any


def whole_numbers(value: Any) -> Any:
    """1.0 -> 1 throughout: protobuf stores every DataPart number as a double, and the schemas
    and results this agent shows its model read better with their integers back. (The harness
    itself restores integers only where a tool's schema says `integer`.)"""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_numbers(v) for v in value]
    return value


def read_parts(message: Message | None) -> list[Piece]:
    if message is None:
        return []
    pieces = []
    for part in message.parts:
        if part.HasField("text"):
            pieces.append(Piece("text", part.text))
        elif part.HasField("data"):
            pieces.append(Piece("data", whole_numbers(MessageToDict(part.data))))
        else:
            pieces.append(Piece("other", part.WhichOneof("content") or "unknown"))
    return pieces


def _tools_of(pieces: list[Piece]) -> list[dict[str, Any]] | None:
    for piece in pieces:
        if piece.kind == "data" and isinstance(piece.value, dict) \
                and isinstance(piece.value.get("tools"), list):
            return [_as_function(t) for t in piece.value["tools"] if isinstance(t, dict)]
    return None


def _as_function(schema: dict[str, Any]) -> dict[str, Any]:
    """`{"type": "function", "function": {...}}`, also from a bare `{"name", "parameters"}`."""
    if isinstance(schema.get("function"), dict):
        return {"type": "function", "function": schema["function"]}
    return {"type": "function", "function": schema}


def detect_mode(pieces: list[Piece]) -> Mode:
    """A `tools` DataPart means tau2; the CRMArena action format means CRMArena; else chat."""
    if _tools_of(pieces) is not None:
        return "tau2"
    text = "\n".join(p.value for p in pieces if p.kind == "text")
    return "crmarena" if _CRM_MARKERS.search(text) else "chat"


# --- CRMArena actions ---------------------------------------------------------------------------

def find_action(text: str) -> dict[str, str] | None:
    """The first action the model wrote: a JSON object (found by parsing at each `{`, so braces
    inside strings, as in SOSL, survive) or an official `<execute>`/`<respond>` tag."""
    found: list[tuple[int, dict[str, str]]] = []
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        action = _action_of(value)
        if action is not None:
            found.append((start, action))
            break
        start = text.find("{", end)
    for tag in _TAG.finditer(text):
        key = "query" if tag.group(1) == "execute" else "answer"
        content = tag.group(2).strip()
        if key == "answer" or content:  # an empty query is no action
            found.append((tag.start(), _clean({"action": tag.group(1), key: content})))
            break
    return min(found, key=lambda item: item[0])[1] if found else None


def _action_of(value: Any) -> dict[str, str] | None:
    """`{"action": ..., "query"|"answer": ...}`, also the official env's `{"name", "content"}`."""
    if not isinstance(value, dict):
        return None
    kind = value.get("action", value.get("name"))
    kind = kind.strip().lower() if isinstance(kind, str) else None
    if kind == "execute":
        query = value.get("query", value.get("content"))
        if isinstance(query, str) and query.strip():
            return _clean({"action": "execute", "query": query})
    elif kind == "respond":
        answer = value.get("answer", value.get("content"))
        if isinstance(answer, list):  # CRMArena wants several records as a comma list
            answer = ", ".join(str(a) for a in answer)
        elif isinstance(answer, int | float) and not isinstance(answer, bool):
            answer = str(answer)
        if isinstance(answer, str):
            return {"action": "respond", "answer": answer.strip()}
    return None


def _clean(action: dict[str, str]) -> dict[str, str]:
    if action["action"] == "execute":
        fenced = _FENCE.match(action["query"])
        query = fenced.group(1) if fenced else action["query"]
        return {"action": "execute", "query": query.strip()}
    return action


# --- conversations -----------------------------------------------------------------------------

@dataclass
class Conversation:
    """One A2A context: the chat so far, the tools (tau2), and tool calls awaiting results."""

    mode: Mode
    messages: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] | None = None
    pending: dict[str, str] = field(default_factory=dict)  # tool call id -> tool name
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class LLMAgent:
    """The agent's logic, free of A2A: pieces of a message in, reply parts out."""

    def __init__(self, llm: ChatLLM, *, max_contexts: int = MAX_CONTEXTS) -> None:
        self.llm = llm
        self.max_contexts = max_contexts
        self.conversations: OrderedDict[str, Conversation] = OrderedDict()

    def conversation(self, context_id: str, pieces: list[Piece]) -> Conversation:
        conv = self.conversations.get(context_id)
        if conv is None:
            conv = self.conversations[context_id] = Conversation(detect_mode(pieces))
            if conv.mode == "crmarena":
                conv.messages.append({"role": "system", "content": CRM_SYSTEM})
            while len(self.conversations) > self.max_contexts:
                self.conversations.popitem(last=False)
        self.conversations.move_to_end(context_id)
        return conv

    async def handle(self, context_id: str, pieces: list[Piece]) -> Reply:
        """Answer one incoming message of conversation `context_id`. Raises LLMError."""
        if not any(p.kind in ("text", "data") for p in pieces):
            return [NO_CONTENT]
        conv = self.conversation(context_id, pieces)
        async with conv.lock:  # one turn at a time per conversation
            if conv.mode == "tau2":
                return await self._tau2_turn(conv, pieces)
            text = _plain_text(pieces)
            if not text:
                return [NO_CONTENT]
            _add_user(conv, text)
            if conv.mode == "crmarena":
                return await self._crm_turn(conv)
            result = await self.llm.chat(conv.messages)
            return _text_reply(conv, result.content)

    async def _tau2_turn(self, conv: Conversation, pieces: list[Piece]) -> Reply:
        if not conv.messages:
            pieces = self._tau2_start(conv, pieces)
        _add_tau2_input(conv, pieces)
        result = await self.llm.chat(conv.messages, tools=conv.tools or None)
        if not result.tool_calls:
            return _text_reply(conv, result.content)
        conv.messages.append(result.to_message())
        conv.pending = {call.id: call.name for call in result.tool_calls}
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments}
                 for c in result.tool_calls]
        # Words beside tool calls stay with them, as upstream's mixed assistant message.
        words = [result.content.strip()] if result.content and result.content.strip() else []
        return [*words, {"tool_calls": calls}]

    @staticmethod
    def _tau2_start(conv: Conversation, pieces: list[Piece]) -> list[Piece]:
        """Texts before the `tools` DataPart are the system prompt; what follows is the turn."""
        conv.tools = _tools_of(pieces)
        index = next(i for i, p in enumerate(pieces) if p.kind == "data"
                     and isinstance(p.value, dict) and isinstance(p.value.get("tools"), list))
        system = [p.value for p in pieces[:index] if p.kind == "text"]
        conv.messages.append({"role": "system", "content": "\n\n".join([*system, TAU2_NOTE])})
        return pieces[index + 1:]

    async def _crm_turn(self, conv: Conversation) -> Reply:
        result = await self.llm.chat(conv.messages)
        action = find_action(result.content or "")
        if action is None:  # one reminder, then the text goes out as it is (see below)
            conv.messages.append({"role": "assistant", "content": result.content or "(empty)"})
            conv.messages.append({"role": "user", "content": CRM_REPAIR})
            result = await self.llm.chat(conv.messages)
            action = find_action(result.content or "")
        if action is None:
            # a2abench answers an action-less reply with CRMArena's official "Invalid output
            # format" rule, which costs a turn: the same as the official agent would get.
            return _text_reply(conv, result.content)
        text = json.dumps(action, ensure_ascii=False)
        conv.messages.append({"role": "assistant", "content": text})
        return [text]


def _add_user(conv: Conversation, text: str) -> None:
    if text:
        conv.messages.append({"role": "user", "content": text})


def _plain_text(pieces: list[Piece]) -> str:
    """Texts as they are; data parts as JSON; unreadable parts named so the model knows."""
    out = []
    for piece in pieces:
        if piece.kind == "text":
            out.append(piece.value)
        elif piece.kind == "data":
            out.append(json.dumps(piece.value, ensure_ascii=False))
        else:
            out.append(f"[a {piece.value} part this agent cannot read]")
    return "\n".join(out).strip()


def _add_tau2_input(conv: Conversation, pieces: list[Piece]) -> None:
    """Tool results become `tool` messages for the calls we made; every pending call gets an
    answer (the API requires one); everything else is the user's words."""
    results = [r for p in pieces if p.kind == "data" and isinstance(p.value, dict)
               and isinstance(p.value.get("tool_results"), list)
               for r in p.value["tool_results"] if isinstance(r, dict)]
    rest = [p for p in pieces if not _is_results(p)]
    if results:  # the "Tool result (id=...)" text repeats the DataPart for text-only agents
        rest = [p for p in rest if not (p.kind == "text" and p.value.startswith("Tool result"))]
    unknown = []
    answered: dict[str, str] = {}
    for r in results:
        call_id = str(r.get("id", ""))
        content = r.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        if call_id in conv.pending and call_id not in answered:
            answered[call_id] = text  # as upstream's agent: the content alone, error or not
        else:  # results of calls this model never made (e.g. a task's prior history)
            unknown.append(f"Tool result (id={call_id}, name={r.get('name', '')}): {text}")
    for call_id in conv.pending:
        conv.messages.append({"role": "tool", "tool_call_id": call_id,
                              "content": answered.get(call_id, NO_RESULT)})
    conv.pending = {}
    _add_user(conv, "\n".join([*unknown, _plain_text(rest)]).strip())


def _is_results(piece: Piece) -> bool:
    return piece.kind == "data" and isinstance(piece.value, dict) \
        and "tool_results" in piece.value


def _text_reply(conv: Conversation, content: str | None) -> Reply:
    if not content or not content.strip():
        logger.warning("the model returned an empty reply")
        return ["The model returned an empty reply."]  # not kept: the history stays valid
    conv.messages.append({"role": "assistant", "content": content})
    return [content]


# --- the A2A server ----------------------------------------------------------------------------

class LLMAgentExecutor(AgentExecutor):
    """Message mode: exactly one Message per request (a2a-sdk 1.x event contract)."""

    def __init__(self, agent: LLMAgent) -> None:
        self.agent = agent

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        context_id = context.context_id or str(uuid.uuid4())
        try:
            reply = await self.agent.handle(context_id, read_parts(context.message))
        except LLMError as exc:
            logger.warning("model call failed in context %s: %s", context_id, exc.render())
            reply = [f"Sorry, I could not get an answer from my language model "
                     f"({type(exc).__name__}): {exc.render()}"]
        except A2ABenchError as exc:
            logger.warning("context %s: %s", context_id, exc.render())
            reply = [f"Sorry, I could not handle this message: {exc.render()}"]
        except Exception as exc:  # a bug here must not leave the client without an answer
            logger.exception("the agent failed in context %s", context_id)
            reply = [f"Sorry, the agent failed on this message ({type(exc).__name__}: {exc})."]
        await event_queue.enqueue_event(new_message(_to_parts(reply), context_id=context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise UnsupportedOperationError(message="this agent answers with messages, not tasks")


def _to_parts(reply: Reply) -> list[Part]:
    return [new_text_part(r) if isinstance(r, str) else new_data_part(r) for r in reply]


def agent_card(base_url: str, model: str) -> AgentCard:
    rpc = base_url.rstrip("/") + "/a2a"
    return AgentCard(
        name="a2abench-llm-agent",
        description=f"a2abench's reference white agent: {model} behind A2A, for tau2-bench "
                    "(function calling) and CRMArena (execute/respond actions).",
        version="1.0.0", capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[AgentSkill(id="tau2", name="tau2-bench customer service",
                           description="Follows a domain policy and calls the given tools.",
                           tags=["tau2", "tools"]),
                AgentSkill(id="crmarena", name="CRMArena",
                           description="Answers CRM questions with SOQL/SOSL queries.",
                           tags=["crmarena", "salesforce"])],
        supported_interfaces=[
            AgentInterface(url=rpc, protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=rpc, protocol_binding="JSONRPC", protocol_version="0.3"),
        ])


def build_app(base_url: str, config: LLMConfig) -> Starlette:
    """The Starlette app of the agent whose public URL is `base_url`, calling `config.model`.

    `app.state.agent` is the LLMAgent (its conversations, its ChatLLM); the ChatLLM is closed
    when the app shuts down.
    """
    agent = LLMAgent(ChatLLM(config))
    card = agent_card(base_url, config.model)
    handler = DefaultRequestHandler(agent_executor=LLMAgentExecutor(agent),
                                    task_store=InMemoryTaskStore(), agent_card=card)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        await agent.llm.aclose()

    app = Starlette(lifespan=lifespan, routes=[
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, rpc_url="/a2a", enable_v0_3_compat=True),
        *create_jsonrpc_routes(handler, rpc_url="/a2a/", enable_v0_3_compat=True)])
    app.state.agent = agent
    return app


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9999)
    parser.add_argument("--card-url", default=None, help="public URL the card advertises")
    parser.add_argument("--model", default="gpt-4.1", help="chat model name (default gpt-4.1)")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL,
                        help="OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--cache", action=argparse.BooleanOptionalAction, default=False,
                        help="reuse cached model answers (off: trials must be independent)")
    args = parser.parse_args()
    try:
        config = LLMConfig(model=args.model, base_url=args.base_url, cache=args.cache,
                           args={"temperature": args.temperature})
    except A2ABenchError as exc:
        parser.error(exc.render())
    if config.api_key is None and config.base_url == DEFAULT_BASE_URL:
        parser.error("no API key: set OPENAI_API_KEY or A2ABENCH_LLM_API_KEY")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    base = args.card_url or f"http://{args.host}:{args.port}"
    uvicorn.run(build_app(base, config), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
