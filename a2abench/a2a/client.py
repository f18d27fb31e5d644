"""The A2A client benchmarks use: one agent, many conversations, every dialect (0.2, 0.3,
1.0) over every binding (JSON-RPC, HTTP+JSON, gRPC; see `bindings.py`).

    async with A2AClient(A2AConfig.create("http://127.0.0.1:9999")) as client:
        chat = client.conversation()
        reply = await chat.send("hello")        # AgentReply: text, data, state, artifacts
        reply = await chat.send("and then?")    # same contextId as the agent returned
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from a2abench.a2a import bindings, dialects
from a2abench.a2a.bindings import Binding, InterfaceChoice
from a2abench.a2a.card import MAX_REDIRECTS, CardFetch, fetch_card
from a2abench.a2a.config import A2AConfig, BindingName, transport_choice
from a2abench.a2a.metrics import MetricsHook
from a2abench.a2a.models import (
    AgentCard,
    Artifact,
    ArtifactUpdate,
    DataPart,
    FilePart,
    Message,
    Part,
    StatusUpdate,
    Task,
    TaskState,
    TextPart,
)
from a2abench.a2a.transport import LeanWire, jsonrpc_headers
from a2abench.errors import HostNotAllowed, ProtocolError, ReplyTooSlow
from a2abench.net import h1 as _h1
from a2abench.net.coding import ACCEPT_ENCODING, drop_redirect_body
from a2abench.net.egress import HostPolicy
from a2abench.net.limits import (
    ReplyLimits,
    check_count,
    current_task_deadline,
    lone_surrogate,
)
from a2abench.net.tls import verified_context


def select_interface(card: AgentCard, card_url: str,
                     transport: BindingName | None = None) -> InterfaceChoice:
    """The interface a2abench uses (see `bindings.select_interface`)."""
    return bindings.select_interface(card, card_url, transport)


# An A2A task that ends like this is the agent failing at the protocol level: its text is
# not an answer to score (nor a reply to parse).
FAILED_STATES = frozenset({TaskState.FAILED, TaskState.REJECTED, TaskState.CANCELED,
                           TaskState.AUTH_REQUIRED})


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

    def raise_for_state(self) -> AgentReply:
        """Raise `ProtocolError` (the agent's failure) when the reply's A2A task ended
        failed, rejected, canceled or auth-required; else return the reply."""
        if self.state in FAILED_STATES:
            assert self.state is not None
            detail = self.text[:200] or "no message"
            raise ProtocolError(f"the agent's A2A task ended {self.state.value}: {detail}")
        return self

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
    costs microseconds here, but a second of the event loop once they are parsed. Then its
    text: a lone surrogate anywhere makes the reply the agent's malformed reply (below)."""
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
    check_text(raw)
    return raw


def check_text(raw: Any) -> None:
    """Raise ProtocolError when a wire result holds a lone surrogate (JSON escapes allow one;
    gRPC's UTF-8 strings cannot carry one). Its text would fail wherever it goes next (the
    user simulator's LLM request, a judge, a record): the agent's error, caught here once for
    every benchmark and binding, never a harness failure later."""
    where = lone_surrogate(raw)
    if where is not None:
        raise ProtocolError(f"the agent's reply is not valid Unicode text: a lone surrogate "
                            f"({where}), which UTF-8 cannot encode",
                            hint="Send text UTF-8 can encode: a \\uD800-\\uDFFF JSON escape "
                                 "is valid only as half of a surrogate pair.")


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
                 pool_size: int = 1, host_policy: HostPolicy | None = None,
                 interface: InterfaceChoice | None = None) -> None:
        """`pool_size` httpx clients serve the conversations round-robin: httpcore scans
        its whole connection pool on every request, so a few small pools beat one big pool
        when many conversations run at once (perf/engine_overhead.py).
        `interface` pins one of the card's interfaces (discover probes each)."""
        self.config = config
        self.host_policy = host_policy
        self.on_request = on_request
        self.before_request = before_request
        self._fetched = card
        self._owns_http = http is None
        # One TLS context for every lane (and client) of the process: httpx loads the CA
        # bundle for each client it builds, which at --concurrency 256 (64 lanes) took seconds.
        # SSL_CERT_FILE / SSL_CERT_DIR and --ca-cert are honoured as httpx and curl do.
        self._verify: ssl.SSLContext | bool = (
            verified_context(ca_cert=config.ca_cert) if config.verify_ssl and http is None
            else False)
        self._pool = [http] if http is not None else [self._new_http()
                                                      for _ in range(max(1, pool_size))]
        self._http = self._pool[0]
        self._transports: list[Binding] = []
        self._wires: list[LeanWire] = []
        self.interface: InterfaceChoice | None = None
        self._pinned = interface
        self._next = 0
        self._lock = asyncio.Lock()

    def _new_http(self) -> httpx.AsyncClient:
        # The hook has nothing to do without a host policy or a token (every host allowed, no
        # Authorization header to withhold): not installed then, it costs each request nothing.
        checks = self.host_policy is not None or self.config.auth_token is not None
        return httpx.AsyncClient(
            timeout=httpx.Timeout(self.config.timeout, connect=min(self.config.timeout, 10.0)),
            verify=self._verify, follow_redirects=True, max_redirects=MAX_REDIRECTS,
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=16),
            headers={"Accept-Encoding": ACCEPT_ENCODING}, trust_env=False,
            event_hooks={"request": [self._check_host] if checks else [],
                         "response": [drop_redirect_body]})

    async def _check_host(self, request: httpx.Request) -> None:
        """Refuse any request (card, interface, redirect) outside the host policy, and send
        the bearer token only where it may go."""
        url = str(request.url)
        self._check_url(url)
        self._withhold_token(url, request.headers)

    def _withhold_token(self, url: str, headers: MutableMapping[str, str]) -> None:
        """The token rule of every request to the agent, whichever client sends it (the
        httpx hook, the lean client's fixed headers): no token where it may not go."""
        names = [name for name in headers if name.lower() == "authorization"]
        if names and not self.may_receive_token(url):
            for name in names:
                del headers[name]

    def _check_url(self, url: str) -> None:
        if self.host_policy is not None and not self.host_policy.allows(url):
            host = urlsplit(url).hostname or url
            raise HostNotAllowed(f"{host} is not an allowed host (requested {url})",
                                 hint="The agent's card or a redirect points outside "
                                      "--allow-host; allow that host or fix the card.")

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
        transport = await self.transport()
        url = bindings.host_check_url(transport.url,
                                      "GRPC" if transport.binding == "GRPC" else "JSONRPC")
        return None if self.may_receive_token(url) else host_of(url)

    async def __aenter__(self) -> A2AClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for transport in self._transports[:1]:  # gRPC: one shared channel
            close = getattr(transport, "aclose", None)
            if close is not None:
                await close()
        for wire in self._wires:
            await wire.pool.aclose()
        if self._owns_http:
            for http in self._pool:
                await http.aclose()

    async def card(self) -> CardFetch:
        """The agent's card, fetched once (legacy path included)."""
        if self._fetched is not None:  # every call asks: no lock once it is known
            return self._fetched
        async with self._lock:
            if self._fetched is None:
                self._fetched = await fetch_card(self._http, self.config.endpoint,
                                                 headers=self.config.headers(),
                                                 timeout=self.config.timeout,
                                                 max_depth=self.config.limits.max_depth)
            return self._fetched

    async def transport(self, lane: int = 0) -> Binding:
        """The binding of pool lane `lane` (one per httpx client; gRPC shares one channel)."""
        if not self._transports:
            fetched = await self.card()
            choice = self._pinned or select_interface(
                fetched.card, fetched.card_url, transport_choice(self.config.transport))
            self.interface = choice
            pool = self._pool[:1] if choice.binding == "GRPC" else self._pool
            headers = self.config.headers()
            if choice.binding == "GRPC" and not self.may_receive_token(
                    bindings.host_check_url(choice.url, "GRPC")):
                # gRPC metadata skips httpx's hook: withhold the token here, as it does.
                headers.pop("Authorization", None)
            wire = self._new_wire(choice, headers)
            self._wires = [wire] if wire is not None else []
            self._transports = [bindings.open_binding(
                choice, http, headers=headers, timeout=self.config.timeout,
                retry=self.config.retry, on_request=self.on_request,
                before_request=self.before_request, check_url=self._check_url,
                limits=self.config.limits, wire=wire)
                for http in pool]
        return self._transports[lane % len(self._transports)]

    def _new_wire(self, choice: InterfaceChoice, headers: dict[str, str]) -> LeanWire | None:
        """The lean HTTP/1.1 pool every lane shares for the JSON-RPC calls, or REST's
        message:send, to an http or https interface (a2abench/net/h1.py), when we own the
        httpx clients it stands in for."""
        if not (self._owns_http and choice.binding in ("JSONRPC", "HTTP+JSON")
                and _h1.enabled()):
            return None
        if choice.binding == "JSONRPC":
            url, sent = choice.url, jsonrpc_headers(choice.dialect, headers)
        else:
            from a2abench.a2a.rest import rest_base, rest_headers

            url = rest_base(choice.url, choice.dialect, choice.tenant) + "/message:send"
            sent = rest_headers(choice.dialect, headers)
        self._withhold_token(url, sent)  # the URL is fixed: once is every time
        if not _h1.usable(url, sent):
            return None
        tls = self._verify if isinstance(self._verify, ssl.SSLContext) else None
        https = url.lower().startswith("https:")
        if https and tls is None:
            return None  # certificates unchecked (verify_ssl off): httpx only
        check = self._check_url if self.host_policy is not None else None
        return LeanWire(_h1.WirePool(url, sent, check=check,
                                     connect_timeout=min(self.config.timeout, 10.0),
                                     tls=tls if https else None))

    def conversation(self, *, raise_for_state: bool = True) -> Conversation:
        """A new conversation; see `Conversation` for `raise_for_state`."""
        self._next += 1
        return Conversation(self, lane=self._next, raise_for_state=raise_for_state)

    async def send_message(self, message: Message, *, stream: bool | None = None,
                           lane: int = 0) -> AgentReply:
        """Send one message; return the settled reply (polling or streaming as needed)."""
        transport = await self.transport(lane)
        fetched = await self.card()
        use_stream = self.config.streaming if stream is None else stream
        use_stream = use_stream and bool(fetched.card.capabilities.streaming)
        params = dialects.send_params(message, transport.dialect)
        choice = self.interface
        if (choice is not None and choice.tenant and transport.dialect == "1.0"
                and choice.binding == "JSONRPC"):  # REST and gRPC place the tenant themselves
            params["tenant"] = choice.tenant
        started = time.perf_counter()
        if use_stream:
            reply = await self._send_streaming(transport, params, message.context_id)
        else:
            result = await transport.send(params, context_id=message.context_id)
            parsed = dialects.parse_result(precheck(result, self.config.limits))
            reply = check_reply(AgentReply(**_reply_fields(parsed)), self.config.limits)
        if reply.task is not None and not reply.task.status.state.settled:
            reply.task = await self._poll(reply.task, started, lane)
            check_reply(reply, self.config.limits)
        reply.latency_ms = (time.perf_counter() - started) * 1000
        return reply

    async def _send_streaming(self, transport: Binding, params: dict[str, Any],
                              context_id: str | None) -> AgentReply:
        assembler = _StreamAssembler(self.config.limits)
        async with contextlib.aclosing(transport.stream(params,
                                                        context_id=context_id)) as events:
            async for result in events:
                assembler.add(dialects.parse_stream_event(precheck(result,
                                                                   self.config.limits)))
        return check_reply(assembler.reply(), self.config.limits)

    async def get_task(self, task_id: str, lane: int = 0) -> Task:
        transport = await self.transport(lane)
        return _as_task(precheck(await transport.get_task(task_id), self.config.limits),
                        f"getting task {task_id}")

    async def cancel_task(self, task_id: str, lane: int = 0) -> Task:
        transport = await self.transport(lane)
        return _as_task(precheck(await transport.cancel_task(task_id), self.config.limits),
                        f"canceling task {task_id}")

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


def _as_task(result: Any, what: str) -> Task:
    # JSON-RPC returns a bare Task; a {"task": ...} wrapper is tolerated as well.
    parsed = dialects.parse_result(result)
    if not isinstance(parsed, Task):
        raise ProtocolError(f"{what} did not return a Task")
    return parsed


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
    (input-required) is continued by sending its taskId.

    With `raise_for_state` (the default) a reply whose task ended failed, rejected, canceled
    or auth-required raises `ProtocolError` after it is logged (`AgentReply.raise_for_state`);
    probes that report such replies open the conversation with `raise_for_state=False`."""

    def __init__(self, client: A2AClient, lane: int = 0, *,
                 raise_for_state: bool = True) -> None:
        self.client = client
        self.lane = lane
        self.raise_for_state = raise_for_state
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
        return reply.raise_for_state() if self.raise_for_state else reply


def host_of(url: str) -> str:
    return urlsplit(url).hostname or ""
