"""The MCP methods of a task-trial's tools, on the official SDK's lowlevel `Server`.

The endpoint runs two of these: one for the sessions whose tool list never changes and one
for those whose list can change (banking's unlocked tools), so that what each revision
advertises is true: `initialize` (the handshake revisions) and `server/discover`
(2026-07-28) say `tools.listChanged: true` exactly where the change is announced. Where it
is announced: on a handshake session, on the response stream of the call that changed the
list, before its result; on 2026-07-28, on the `subscriptions/listen` streams of the same
token (the one place that revision delivers list changes). Either way the next `tools/list`
shows the change: the list is a function of the task-trial's state, in a fixed order.

Every handler finds its task-trial again from the request's bearer token; nothing else is
kept between requests. List and discover results are `cacheScope: private` (they belong to
one token) with `ttlMs: 0`: a list can change within a turn, and a token's list must never
be served to another task-trial from a cache keyed by URL.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from a2abench._version import __version__
from a2abench.mcp.session import CallRejected, ToolRegistry, ToolSession

logger = logging.getLogger("a2abench.mcp")
# JSON-RPC codes of the refusals (the MCP spec's own where it has one).
INVALID_PARAMS = -32602
REJECTED = -32000  # a call refused by a limit or outside the turn: nothing changed
# Every revision the endpoint serves, newest first (what discover and -32022 name).
SERVED_VERSIONS = (*reversed(MODERN_PROTOCOL_VERSIONS), *reversed(HANDSHAKE_PROTOCOL_VERSIONS))
MAX_LISTENS_PER_TOKEN = 4  # open subscriptions/listen streams of one task-trial
INSTRUCTIONS = ("The tools of one a2abench task-trial; call them while you hold the turn of "
                "its A2A conversation.")
# The task-trial of the request being served, set by the endpoint for the SDK's 2026-07-28
# `Mcp-Param-*` check, which asks for a tool's schema without any request context.
CURRENT: contextvars.ContextVar[ToolSession | None] = contextvars.ContextVar(
    "a2abench_mcp_session", default=None)


def bearer(headers: Any) -> str | None:
    """The bearer token of an ASGI header list or a Starlette Headers object."""
    if isinstance(headers, list):
        raw = next((v.decode("latin-1") for k, v in headers if k.lower() == b"authorization"),
                   None)
    else:
        raw = headers.get("authorization")
    if not raw or raw[:7].lower() != "bearer ":
        return None
    return raw[7:].strip() or None


@dataclass
class _Listens:
    """A token's `subscriptions/listen` streams and the bus that feeds them."""

    bus: InMemorySubscriptionBus = field(default_factory=InMemorySubscriptionBus)
    handler: ListenHandler = field(init=False)

    def __post_init__(self) -> None:
        self.handler = ListenHandler(self.bus, max_subscriptions=MAX_LISTENS_PER_TOKEN)


class ToolServer(Server[Any]):
    """The tools of every live task-trial; `announces`: the server of the sessions whose
    tool list can change (see the module docstring)."""

    def __init__(self, registry: ToolRegistry, *, announces: bool) -> None:
        super().__init__(
            "a2abench", version=__version__, instructions=INSTRUCTIONS,
            get_tool_input_schema=_input_schema,
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_subscriptions_listen=self._listen if announces else None)
        self.add_request_handler("server/discover", types.RequestParams, self._discover)
        self.registry = registry
        self.announces = announces
        self._listens: dict[str, _Listens] = {}

    def create_initialization_options(
            self, notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None) -> InitializationOptions:
        """What `initialize` advertises: `listChanged` where the session announces."""
        options = notification_options or NotificationOptions(tools_changed=self.announces)
        return super().create_initialization_options(options, experimental_capabilities,
                                                     extensions)

    def forget(self, token: str) -> None:
        """The task-trial ended: its listen streams end (gracefully, with their result)."""
        listens = self._listens.pop(token, None)
        if listens is not None:
            listens.handler.close()

    def _session(self, ctx: ServerRequestContext[Any, Any]) -> ToolSession:
        request = ctx.request
        token = bearer(request.headers) if request is not None else None
        session = self.registry.get(token) if token else None
        if session is None:
            raise MCPError(REJECTED, "this task-trial has ended; its token is expired")
        return session

    async def _discover(self, ctx: ServerRequestContext[Any, Any],
                        params: types.RequestParams) -> types.DiscoverResult:
        self._session(ctx)
        return types.DiscoverResult(
            supported_versions=list(SERVED_VERSIONS),
            capabilities=self.get_capabilities(protocol_version=ctx.protocol_version),
            instructions=INSTRUCTIONS, ttl_ms=0, cache_scope="private")

    async def _list_tools(self, ctx: ServerRequestContext[Any, Any],
                          params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        session = self._session(ctx)
        try:
            specs = session.tools()
        except CallRejected as exc:
            raise MCPError(REJECTED, exc.message) from None
        return types.ListToolsResult(tools=[
            types.Tool(name=s.name, description=s.description, input_schema=s.input_schema)
            for s in specs], ttl_ms=0, cache_scope="private")

    async def _call_tool(self, ctx: ServerRequestContext[Any, Any],
                         params: types.CallToolRequestParams) -> types.CallToolResult:
        session = self._session(ctx)
        arguments = dict(params.arguments or {})
        try:
            result = await session.call(params.name, arguments)
        except CallRejected as exc:
            logger.info("MCP call %s of %s refused (%s): %s", params.name, session.label,
                        exc.reason, exc.message)
            code = (INVALID_PARAMS if exc.reason in ("too_large", "unknown_tool", "invalid_text")
                    else REJECTED)
            raise MCPError(code, exc.message, {"reason": exc.reason}) from None
        if result.tools_changed:
            await self._announce(ctx, session)
        return types.CallToolResult(content=[types.TextContent(type="text", text=result.text)],
                                    is_error=result.is_error)

    async def _announce(self, ctx: ServerRequestContext[Any, Any], session: ToolSession) -> None:
        """The tool list changed: tell the token's listen streams, and a handshake session
        on the call's own response stream, before its result (the agent lists again)."""
        listens = self._listens.get(session.token)
        if listens is not None:
            await listens.bus.publish(ToolsListChanged())
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            await ctx.session.send_notification(types.ToolListChangedNotification(),
                                                related_request_id=ctx.request_id)

    async def _listen(self, ctx: ServerRequestContext[Any, Any],
                      params: types.SubscriptionsListenRequestParams
                      ) -> types.SubscriptionsListenResult:
        session = self._session(ctx)
        # No await before the handler registers its stream: `forget` cannot slip in between.
        listens = self._listens.setdefault(session.token, _Listens())
        return await listens.handler(ctx, params)


def _input_schema(name: str) -> Mapping[str, Any] | None:
    """The schema the SDK checks a 2026-07-28 call's `Mcp-Param-*` headers against: the
    named tool's, of the task-trial being served (None: nothing to check)."""
    session = CURRENT.get()
    if session is None:
        return None
    try:
        tools = session.tools()
    except CallRejected:
        return None
    return next((t.input_schema for t in tools if t.name == name), None)
