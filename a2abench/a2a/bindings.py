"""Which of an agent's interfaces to use, and one small interface over the three bindings.

A2A offers three protocol bindings (JSON-RPC, HTTP+JSON, gRPC), each in 1.0 and 0.3
(JSON-RPC also in 0.2). `select_interface` picks one from the card; `Binding` is what the
client calls on it: `send`, `stream`, `get_task`, `cancel_task`, each returning the JSON
shapes `dialects.py` parses, whatever travelled on the wire.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urljoin, urlsplit

import httpx

from a2abench.a2a import dialects
from a2abench.a2a.config import BindingName, check_http_url
from a2abench.a2a.metrics import MetricsHook
from a2abench.a2a.models import AgentCard, AgentInterface, Dialect
from a2abench.a2a.transport import JsonRpcTransport, LeanWire
from a2abench.errors import AgentCardInvalid, NoUsableInterface
from a2abench.net.limits import ReplyLimits
from a2abench.net.retry import RetryPolicy

_ALIASES: dict[str, BindingName] = {
    "JSONRPC": "JSONRPC", "JSON-RPC": "JSONRPC", "JSON_RPC": "JSONRPC",
    "HTTP+JSON": "HTTP+JSON", "HTTP_JSON": "HTTP+JSON", "HTTPJSON": "HTTP+JSON",
    "REST": "HTTP+JSON", "GRPC": "GRPC",
}
_BINDING_RANK: dict[BindingName, int] = {"JSONRPC": 0, "HTTP+JSON": 1, "GRPC": 2}
_DIALECT_RANK: dict[Dialect, int] = {"1.0": 0, "0.3": 1, "0.2": 2}
_HOST_PORT = re.compile(r"^\[?[A-Za-z0-9.\-:]+\]?:\d+$")


def binding_name(raw: str) -> BindingName | None:
    """The canonical binding name of a card's `protocolBinding`/`transport`, None if unknown."""
    return _ALIASES.get(raw.strip().upper())


def is_grpc_target(url: str) -> bool:
    """`host:port` without a scheme: how a2a-sdk's samples publish a gRPC interface."""
    return "://" not in url and bool(_HOST_PORT.match(url))


def resolve_url(iface: AgentInterface, card_url: str) -> str:
    """An interface URL made absolute. gRPC `host:port` targets are absolute already;
    other relative URLs resolve against the card URL."""
    if binding_name(iface.binding) == "GRPC" and (is_grpc_target(iface.url)
                                                  or iface.url.startswith(("grpc://",
                                                                           "grpcs://"))):
        return iface.url
    try:
        return urljoin(card_url, iface.url)
    except ValueError:  # e.g. "http://[::1/rpc": checked (and named) by select_interface
        return iface.url


def host_check_url(url: str, binding: BindingName) -> str:
    """The URL the host policy judges: gRPC targets as http(s)://host:port."""
    if binding != "GRPC":
        return url
    from a2abench.a2a.grpc_binding import grpc_target

    target, secure = grpc_target(url)
    return f"{'https' if secure else 'http'}://{target}"


@dataclass(frozen=True)
class InterfaceChoice:
    """One usable interface: binding, dialect, absolute URL, tenant, and its card index."""

    binding: BindingName
    dialect: Dialect
    url: str
    index: int
    tenant: str | None = None

    def to_dict(self) -> dict[str, str]:
        return {"binding": self.binding, "dialect": self.dialect, "url": self.url}


def interface_dialect(card: AgentCard, iface: AgentInterface) -> Dialect:
    # An unversioned interface on a 1.0 card is read as 0.3, as a2a-sdk's parse_agent_card does.
    return (dialects.dialect_of_version(iface.protocol_version)
            or ("0.3" if card.dialect == "1.0" else card.dialect))


def unsupported_reason(binding: BindingName | None, dialect: Dialect) -> str | None:
    """Why a2abench cannot use an interface, or None when it can."""
    if binding is None:
        return "unsupported binding"
    if binding != "JSONRPC" and dialect == "0.2":
        return f"{binding} before A2A 0.3 is not defined"
    if binding == "GRPC":
        from a2abench.a2a.grpc_binding import grpc_available

        if not grpc_available():
            return 'gRPC needs the extra: pip install "a2abench[grpc]"'
    return None


def interface_options(card: AgentCard, card_url: str) -> list[InterfaceChoice]:
    """Every interface a2abench can use, in the card's order."""
    out = []
    for index, iface in enumerate(card.interfaces):
        binding = binding_name(iface.binding)
        dialect = interface_dialect(card, iface)
        if binding is None or unsupported_reason(binding, dialect) is not None:
            continue
        out.append(InterfaceChoice(binding, dialect, resolve_url(iface, card_url), index,
                                   iface.tenant))
    return out


def _preference(card: AgentCard, choice: InterfaceChoice) -> tuple[int, int, int, int]:
    """1.0 over 0.3 over 0.2; then the card's preference (a 1.0 card's order; a 0.x card's
    `url`/`preferredTransport` before its unordered `additionalInterfaces`); then JSON-RPC
    over HTTP+JSON over gRPC; then card order."""
    card_rank = choice.index if card.dialect == "1.0" else min(choice.index, 1)
    return (_DIALECT_RANK[choice.dialect], card_rank, _BINDING_RANK[choice.binding],
            choice.index)


def select_interface(card: AgentCard, card_url: str,
                     transport: BindingName | None = None) -> InterfaceChoice:
    """The interface to use: the best usable one, or the best of `transport` if forced."""
    options = interface_options(card, card_url)
    offered = ", ".join(sorted({i.binding for i in card.interfaces})) or "none"
    if transport is not None:
        forced = [o for o in options if o.binding == transport]
        if not forced:
            if transport == "GRPC" and any(binding_name(i.binding) == "GRPC"
                                           for i in card.interfaces):
                from a2abench.a2a.grpc_binding import require_grpc
                require_grpc()
            raise NoUsableInterface(f"the agent offers no usable {transport} interface "
                                   f"(offered: {offered})",
                                   hint="Drop --transport to use what the card offers.")
        options = forced
    if not options:
        grpc_only = [i for i in card.interfaces if binding_name(i.binding) == "GRPC"]
        if grpc_only:
            from a2abench.a2a.grpc_binding import require_grpc
            require_grpc()
        raise NoUsableInterface(f"the agent offers no interface a2abench can use "
                               f"(offered: {offered})",
                               hint="a2abench speaks JSONRPC, HTTP+JSON and GRPC; enable one.")
    choice = min(options, key=lambda o: _preference(card, o))
    if choice.binding != "GRPC":
        try:  # a card's URL is agent input: an unusable one is the card's fault, said once
            check_http_url(choice.url)
        except ValueError as exc:
            raise AgentCardInvalid(f"the card's {choice.binding} interface URL {exc}",
                                   hint="Fix the interface URL in the agent's card.") from None
    return choice


class Binding(Protocol):
    """What the client needs from a binding; results are in `dialects`' JSON shapes."""

    binding: str
    url: str
    dialect: Dialect

    async def send(self, params: dict[str, Any], *, context_id: str | None = None) -> Any: ...

    def stream(self, params: dict[str, Any], *,
               context_id: str | None = None) -> AsyncGenerator[Any, None]: ...

    async def get_task(self, task_id: str) -> Any: ...

    async def cancel_task(self, task_id: str) -> Any: ...


class JsonRpcBinding:
    """The JSON-RPC transport behind the Binding interface."""

    binding = "JSONRPC"

    def __init__(self, transport: JsonRpcTransport) -> None:
        self.transport = transport
        self.url = transport.url
        self.dialect = transport.dialect
        self._methods = dialects.METHODS[transport.dialect]

    async def send(self, params: dict[str, Any], *, context_id: str | None = None) -> Any:
        return await self.transport.call(self._methods["send"], params, context_id=context_id)

    async def stream(self, params: dict[str, Any], *,
                     context_id: str | None = None) -> AsyncGenerator[Any, None]:
        async with contextlib.aclosing(self.transport.stream(
                self._methods["stream"], params, context_id=context_id)) as events:
            async for event in events:
                yield event

    async def get_task(self, task_id: str) -> Any:
        return await self.transport.call(self._methods["get"], {"id": task_id})

    async def cancel_task(self, task_id: str) -> Any:
        return await self.transport.call(self._methods["cancel"], {"id": task_id})


def open_binding(choice: InterfaceChoice, http: httpx.AsyncClient, *,
                 headers: dict[str, str], timeout: float, retry: RetryPolicy,
                 on_request: MetricsHook | None,
                 before_request: Callable[[], Awaitable[None]] | None,
                 check_url: Callable[[str], None] | None = None,
                 limits: ReplyLimits | None = None, wire: LeanWire | None = None) -> Binding:
    """A Binding for `choice` (gRPC opens its channel on first use). `check_url` is the host
    policy; httpx applies it to every HTTP request, gRPC calls it before every call. `wire`
    is the lean HTTP/1.1 client for JSON-RPC calls and REST's message:send
    (a2abench/net/h1.py)."""
    if choice.binding == "HTTP+JSON":
        from a2abench.a2a.rest import RestTransport

        return RestTransport(http, choice.url, choice.dialect, headers=headers, timeout=timeout,
                             retry=retry, on_request=on_request, before_request=before_request,
                             tenant=choice.tenant, limits=limits, wire=wire)
    if choice.binding == "GRPC":
        from a2abench.a2a.grpc_binding import GrpcTransport

        return GrpcTransport(choice.url, choice.dialect, headers=headers, timeout=timeout,
                             retry=retry, on_request=on_request, before_request=before_request,
                             tenant=choice.tenant, check_url=check_url, limits=limits)
    return JsonRpcBinding(JsonRpcTransport(http, choice.url, choice.dialect, headers=headers,
                                           timeout=timeout, retry=retry, on_request=on_request,
                                           before_request=before_request, limits=limits,
                                           wire=wire))


def url_is_relative(iface: AgentInterface) -> bool:
    """True when an interface URL must be resolved against the card URL (gRPC `host:port`
    targets are not relative)."""
    if binding_name(iface.binding) == "GRPC" and is_grpc_target(iface.url):
        return False
    parts = urlsplit(iface.url)
    return not parts.scheme or not parts.netloc
