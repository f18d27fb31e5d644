"""The A2A client benchmarks use: one agent, many conversations, every dialect.

    async with A2AClient(A2AConfig.create("http://127.0.0.1:9999")) as client:
        chat = client.conversation()
        reply = await chat.send("hello")        # AgentReply: text, data, state, artifacts
        reply = await chat.send("and then?")    # same contextId as the agent returned
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from a2abench.a2a import dialects
from a2abench.a2a._limits import ReplyLimits, check_count, current_task_deadline
from a2abench.a2a.card import MAX_REDIRECTS, CardFetch, fetch_card
from a2abench.a2a.config import A2AConfig, check_http_url
from a2abench.a2a.hosts import HostPolicy
from a2abench.a2a.metrics import MetricsHook
from a2abench.a2a.models import (
    AgentCard,
    AgentInterface,
    Artifact,
    ArtifactUpdate,
    DataPart,
    Dialect,
    FilePart,
    Message,
    Part,
    StatusUpdate,
    Task,
    TaskState,
    TextPart,
)
from a2abench.a2a.transport import JsonRpcTransport
from a2abench.errors import AgentCardInvalid, HostNotAllowed, ProtocolError, ReplyTooSlow

_DIALECT_RANK: dict[Dialect, int] = {"1.0": 0, "0.3": 1, "0.2": 2}


def select_interface(card: AgentCard, card_url: str) -> tuple[str, Dialect]:
    """The JSON-RPC interface we speak best: 1.0 over 0.3 over 0.2, card order breaking ties.

    Relative URLs resolve against the card URL.
    """
    options: list[tuple[int, int, str, Dialect]] = []
    for index, iface in enumerate(card.interfaces):
        if iface.binding.upper() not in ("JSONRPC", "JSON-RPC", "JSON_RPC"):
            continue
        dialect = (dialects.dialect_of_version(iface.protocol_version)
                   or ("0.3" if card.dialect == "1.0" else card.dialect))
        try:
            url = urljoin(card_url, iface.url)
        except ValueError:  # e.g. "http://[::1/rpc": checked (and named) below
            url = iface.url
        options.append((_DIALECT_RANK[dialect], index, url, dialect))
    if not options:
        offered = ", ".join(sorted({i.binding for i in card.interfaces})) or "none"
        raise AgentCardInvalid(f"the agent offers no JSON-RPC interface (offered: {offered})",
                               hint="a2abench speaks A2A over JSON-RPC; enable that binding.")
    _, _, url, dialect = min(options)
    try:  # a card's URL is agent input: unusable ones are the card's fault, said once
        check_http_url(url)
    except ValueError as exc:
        raise AgentCardInvalid(f"the card's JSON-RPC interface URL {exc}",
                               hint="Fix the interface URL in the agent's card.") from None
    return url, dialect


def interface_for(card: AgentCard, url: str) -> AgentInterface | None:
    return next((i for i in card.interfaces if i.url == url), None)


@dataclass
class AgentReply:
    """What the agent answered to one message, however it was shaped on the wire."""

    message: Message | None = None
    task: Task | None = None
    latency_ms: float = 0.0
    events: int = 1

    @property
    def context_id(self) -> str | None:
        if self.task is not None:
            return self.task.context_id
        return self.message.context_id if self.message else None

    @property
    def state(self) -> TaskState | None:
        return self.task.status.state if self.task else None

    @property
    def kind(self) -> str:
        return "task" if self.task is not None else "message"

    @property
    def parts(self) -> list[Part]:
        """The reply's content: a Message's parts, or a Task's status message then artifacts
        (or, when both are empty, the last agent message in its history)."""
        if self.task is None:
            return list(self.message.parts) if self.message else []
        out: list[Part] = []
        if self.task.status.message is not None:
            out.extend(self.task.status.message.parts)
        # An artifact repeating the status message's part is shown once; compared by value
        # through a set, so a reply with many parts costs linear time, not quadratic.
        seen = {_part_key(p) for p in out}
        for artifact in self.task.artifacts:
            for part in artifact.parts:
                key = _part_key(part)
                if key not in seen:
                    seen.add(key)
                    out.append(part)
        if not out:
            agent_turns = [m for m in self.task.history if m.role == "agent"]
            if agent_turns:
                out.extend(agent_turns[-1].parts)
        return out

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def data(self) -> list[Any]:
        return [p.data for p in self.parts if isinstance(p, DataPart)]

    def shape(self) -> dict[str, Any]:
        """A summary for humans and probes: kind, state, part counts."""
        parts = self.parts
        return {"kind": self.kind, "state": self.state.value if self.state else None,
                "text_parts": sum(isinstance(p, TextPart) for p in parts),
                "data_parts": sum(isinstance(p, DataPart) for p in parts),
                "file_parts": sum(isinstance(p, FilePart) for p in parts),
                "artifacts": len(self.task.artifacts) if self.task else 0}


def _part_key(part: Part) -> str:
    return part.model_dump_json()


def precheck(raw: Any, limits: ReplyLimits) -> Any:
    """Count limits on a wire result before any model is built: rejecting 20,000 artifacts
    costs microseconds here, but a second of the event loop once they are parsed."""
    if not isinstance(raw, dict):
        return raw
    task = raw.get("task")
    body: dict[str, Any] = task if isinstance(task, dict) else raw
    artifacts, status = body.get("artifacts"), body.get("status")
    if isinstance(artifacts, list):
        check_count(len(artifacts), limits.max_artifacts, "artifacts")
    parts = 0
    for group in (artifacts, body.get("history"), [body], [body.get("message")],
                  [status.get("message")] if isinstance(status, dict) else []):
        for item in group if isinstance(group, list) else []:
            if isinstance(item, dict) and isinstance(item.get("parts"), list):
                parts += len(item["parts"])
    check_count(parts, limits.max_parts, "parts")
    return raw


def check_reply(reply: AgentReply, limits: ReplyLimits) -> AgentReply:
    """Raise ReplyLimitExceeded when a reply holds more parts or artifacts than allowed."""
    task, message = reply.task, reply.message
    parts = len(message.parts) if message else 0
    if task is not None:
        check_count(len(task.artifacts), limits.max_artifacts, "artifacts")
        parts += sum(len(a.parts) for a in task.artifacts)
        parts += sum(len(m.parts) for m in task.history)
        if task.status.message is not None:
            parts += len(task.status.message.parts)
    check_count(parts, limits.max_parts, "parts")
    return reply


def _as_parts(items: tuple[Part | str | dict[str, Any], ...]) -> list[Part]:
    out: list[Part] = []
    for item in items:
        if isinstance(item, str):
            out.append(TextPart(text=item))
        elif isinstance(item, dict):
            out.append(DataPart(data=item))
        else:
            out.append(item)
    return out


class A2AClient:
    """A client for one agent. Create conversations with `conversation()`."""

    def __init__(self, config: A2AConfig, *, card: CardFetch | None = None,
                 on_request: MetricsHook | None = None, http: httpx.AsyncClient | None = None,
                 before_request: Callable[[], Awaitable[None]] | None = None,
                 pool_size: int = 1, host_policy: HostPolicy | None = None) -> None:
        """`pool_size` httpx clients serve the conversations round-robin: httpcore scans
        its whole connection pool on every request, so a few small pools beat one big pool
        when many conversations run at once (benchmarks/engine_overhead.py)."""
        self.config = config
        self.host_policy = host_policy
        self.on_request = on_request
        self.before_request = before_request
        self._fetched = card
        self._owns_http = http is None
        self._pool = [http] if http is not None else [self._new_http()
                                                      for _ in range(max(1, pool_size))]
        self._http = self._pool[0]
        self._transports: list[JsonRpcTransport] = []
        self._next = 0
        self._lock = asyncio.Lock()

    def _new_http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=httpx.Timeout(self.config.timeout, connect=min(self.config.timeout, 10.0)),
            verify=self.config.verify_ssl, follow_redirects=True, max_redirects=MAX_REDIRECTS,
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=16),
            trust_env=False, event_hooks={"request": [self._check_host]})

    async def _check_host(self, request: httpx.Request) -> None:
        """Refuse any request (card, interface, redirect) outside the host policy, and send
        the bearer token only where it may go."""
        if self.host_policy is not None and not self.host_policy.allows(str(request.url)):
            raise HostNotAllowed(f"{request.url.host} is not an allowed host "
                                 f"(requested {request.url})",
                                 hint="The agent's card or a redirect points outside "
                                      "--allow-host; allow that host or fix the card.")
        if "authorization" in request.headers and not self.may_receive_token(str(request.url)):
            del request.headers["authorization"]

    def may_receive_token(self, url: str) -> bool:
        """The token goes to the host the user gave, or to hosts allowed explicitly
        (--allow-host), never merely because the agent's card names them."""
        host = (urlsplit(url).hostname or "").lower()
        if host and host == (urlsplit(self.config.endpoint).hostname or "").lower():
            return True
        policy = self.host_policy
        return policy is not None and not policy.open and policy.allows(url)

    async def token_withheld(self) -> str | None:
        """The interface host that will not get the bearer token, if the card points away
        from the host the user gave (None when no token is set or it goes everywhere)."""
        if self.config.auth_token is None:
            return None
        url = (await self.transport()).url
        return None if self.may_receive_token(url) else host_of(url)

    async def __aenter__(self) -> A2AClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            for http in self._pool:
                await http.aclose()

    async def card(self) -> CardFetch:
        """The agent's card, fetched once (legacy path included)."""
        async with self._lock:
            if self._fetched is None:
                self._fetched = await fetch_card(self._http, self.config.endpoint,
                                                 headers=self.config.headers(),
                                                 timeout=self.config.timeout,
                                                 max_depth=self.config.limits.max_depth)
            return self._fetched

    async def transport(self, lane: int = 0) -> JsonRpcTransport:
        """The transport of pool lane `lane` (one per httpx client)."""
        if not self._transports:
            fetched = await self.card()
            url, dialect = select_interface(fetched.card, fetched.card_url)
            self._transports = [JsonRpcTransport(
                http, url, dialect, headers=self.config.headers(),
                timeout=self.config.timeout, retry=self.config.retry,
                on_request=self.on_request, before_request=self.before_request,
                limits=self.config.limits)
                for http in self._pool]
        return self._transports[lane % len(self._transports)]

    def conversation(self) -> Conversation:
        self._next += 1
        return Conversation(self, lane=self._next)

    async def send_message(self, message: Message, *, stream: bool | None = None,
                           lane: int = 0) -> AgentReply:
        """Send one message; return the settled reply (polling or streaming as needed)."""
        transport = await self.transport(lane)
        fetched = await self.card()
        use_stream = self.config.streaming if stream is None else stream
        use_stream = use_stream and bool(fetched.card.capabilities.streaming)
        params = dialects.send_params(message, transport.dialect)
        iface = interface_for(fetched.card, transport.url)
        if iface is not None and iface.tenant and transport.dialect == "1.0":
            params["tenant"] = iface.tenant
        started = time.perf_counter()
        if use_stream:
            reply = await self._send_streaming(transport, params, message.context_id)
        else:
            method = dialects.METHODS[transport.dialect]["send"]
            result = await transport.call(method, params, context_id=message.context_id)
            parsed = dialects.parse_result(precheck(result, self.config.limits))
            reply = check_reply(AgentReply(**_reply_fields(parsed)), self.config.limits)
        if reply.task is not None and not reply.task.status.state.settled:
            reply.task = await self._poll(reply.task, started, lane)
            check_reply(reply, self.config.limits)
        reply.latency_ms = (time.perf_counter() - started) * 1000
        return reply

    async def _send_streaming(self, transport: JsonRpcTransport, params: dict[str, Any],
                              context_id: str | None) -> AgentReply:
        method = dialects.METHODS[transport.dialect]["stream"]
        assembler = _StreamAssembler(self.config.limits)
        async with contextlib.aclosing(transport.stream(method, params,
                                                        context_id=context_id)) as events:
            async for result in events:
                assembler.add(dialects.parse_stream_event(precheck(result,
                                                                   self.config.limits)))
        return check_reply(assembler.reply(), self.config.limits)

    async def get_task(self, task_id: str, lane: int = 0) -> Task:
        transport = await self.transport(lane)
        result = await transport.call(dialects.METHODS[transport.dialect]["get"],
                                      {"id": task_id})
        parsed = dialects.parse_result(precheck(result, self.config.limits))
        if not isinstance(parsed, Task):
            raise ProtocolError(f"tasks/get for {task_id} did not return a Task")
        return parsed

    async def _poll(self, task: Task, started: float, lane: int) -> Task:
        delay = 0.05
        while not task.status.state.settled:
            if time.perf_counter() - started > self.config.timeout:
                # The agent answers every poll but never finishes: the same as a stream of
                # "working" events that never ends, so the same (agent's) error.
                raise ReplyTooSlow(f"task {task.id} still {task.status.state.value} after "
                                   f"{self.config.timeout:g} s",
                                   hint="Raise --timeout if the agent is just slow.")
            deadline = current_task_deadline()  # sleep no later than it: the poll reports it
            await asyncio.sleep(min(delay, max(0.0, deadline.remaining())) if deadline
                                else delay)
            delay = min(delay * 2, 2.0)
            task = await self.get_task(task.id, lane)
        return task


def _reply_fields(result: Task | Message) -> dict[str, Any]:
    return {"task": result} if isinstance(result, Task) else {"message": result}


class _StreamAssembler:
    """Builds one reply from streamed Task / Message / status / artifact events."""

    def __init__(self, limits: ReplyLimits | None = None) -> None:
        self.limits = limits or ReplyLimits()
        self.task: Task | None = None
        self.message: Message | None = None
        self.events = 0
        self._artifact_index: dict[str, int] = {}  # artifact id -> position, for linear merges
        self._parts = 0  # parts appended to artifacts so far

    def add(self, event: Task | Message | StatusUpdate | ArtifactUpdate) -> None:
        self.events += 1
        if isinstance(event, Message):
            self.message = event
        elif isinstance(event, Task):
            self.task = event
            self._artifact_index = {a.artifact_id: i for i, a in enumerate(event.artifacts)
                                    if a.artifact_id}
            self._parts = sum(len(a.parts) for a in event.artifacts)
        else:
            task = self._ensure_task(event.task_id, event.context_id)
            if isinstance(event, StatusUpdate):
                task.status = event.status
            else:
                self._merge_artifact(task, event)

    def _ensure_task(self, task_id: str | None, context_id: str | None) -> Task:
        if self.task is None:
            self.task = Task(id=task_id or f"stream-{uuid.uuid4()}", context_id=context_id)
        return self.task

    def _merge_artifact(self, task: Task, event: ArtifactUpdate) -> None:
        self._parts += len(event.artifact.parts)
        check_count(self._parts, self.limits.max_parts, "parts")
        artifact_id = event.artifact.artifact_id
        index = self._artifact_index.get(artifact_id) if artifact_id else None
        if index is not None:
            if event.append:
                task.artifacts[index].parts.extend(event.artifact.parts)
            else:
                task.artifacts[index] = event.artifact
            return
        check_count(len(task.artifacts) + 1, self.limits.max_artifacts, "artifacts")
        if artifact_id:
            self._artifact_index[artifact_id] = len(task.artifacts)
        task.artifacts.append(Artifact.model_validate(event.artifact.model_dump()))

    def reply(self) -> AgentReply:
        if self.task is None and self.message is None:
            raise ProtocolError("the agent's stream ended without a Task or Message")
        # A stream that answers with a Message after a Task: the Message is the reply.
        if self.message is not None and self.task is None:
            return AgentReply(message=self.message, events=self.events)
        return AgentReply(task=self.task, message=self.message, events=self.events)


class Conversation:
    """One A2A conversation: the agent's contextId is reused, and an interrupted task
    (input-required) is continued by sending its taskId."""

    def __init__(self, client: A2AClient, lane: int = 0) -> None:
        self.client = client
        self.lane = lane
        self.context_id: str | None = None
        self.task_id: str | None = None
        self.turns = 0
        # One small entry per reply (kind, A2A task state, latency) for the report viewer.
        self.log: list[dict[str, Any]] = []

    async def send(self, *content: Part | str | dict[str, Any],
                   stream: bool | None = None) -> AgentReply:
        message = Message(role="user", parts=_as_parts(content), message_id=str(uuid.uuid4()),
                          context_id=self.context_id, task_id=self.task_id)
        reply = await self.client.send_message(message, stream=stream, lane=self.lane)
        self.turns += 1
        self.log.append({"kind": reply.kind, "state": reply.state.value if reply.state else None,
                         "latency_ms": round(reply.latency_ms, 3)})
        if reply.context_id:
            self.context_id = reply.context_id
        state = reply.state
        # Continue an interrupted task; a finished task cannot take more messages (a2a.md §1.5).
        self.task_id = reply.task.id if reply.task and state and state.interrupted else None
        return reply


def host_of(url: str) -> str:
    return urlsplit(url).hostname or ""
