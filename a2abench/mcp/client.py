"""The agent's side, for a2abench's own MCP-native agents (the example agent, the tests):
find the `{"mcp": ...}` DataPart of a first message and connect to it with the official SDK.
"""

from __future__ import annotations

import contextlib
import functools
import os
import ssl
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, Literal

# "auto": the SDK's own choice (server/discover first, the handshake if that fails: against
# a2abench, 2026-07-28); "legacy": the initialize handshake only; "2026-07-28": that revision
# only (no fallback), as a client built on it alone would.
Protocol = Literal["auto", "legacy", "2026-07-28"]
PROTOCOLS: tuple[Protocol, ...] = ("auto", "legacy", "2026-07-28")


def find_pointer(data: Iterable[Any]) -> dict[str, Any] | None:
    """`{"url": ..., "headers": {...}}` from the DataParts of a message, or None."""
    for item in data:
        found = item.get("mcp") if isinstance(item, dict) else None
        if isinstance(found, dict) and isinstance(found.get("url"), str):
            headers = found.get("headers") or {}
            return {"url": found["url"], "headers": {str(k): str(v) for k, v in
                                                      headers.items()}}
    return None


@contextlib.asynccontextmanager
async def connect(pointer: dict[str, Any],
                  on_tools_changed: Callable[[], None] | None = None,
                  protocol: Protocol = "auto") -> AsyncIterator[Any]:
    """A connected `mcp.Client` on the pointer's URL with its headers, speaking `protocol`.
    `on_tools_changed` is called on `notifications/tools/list_changed`: on the changing
    call's response stream (handshake revisions) or on a `subscriptions/listen` stream kept
    open while connected (2026-07-28, where the server advertises `listChanged`)."""
    import httpx2
    import mcp_types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    async def on_message(message: Any) -> None:
        if on_tools_changed is not None and isinstance(message, types.ToolListChangedNotification):
            on_tools_changed()

    verify = _verified(os.environ.get("SSL_CERT_FILE") or None,
                       os.environ.get("SSL_CERT_DIR") or None)
    async with httpx2.AsyncClient(headers=pointer["headers"], verify=verify,
                                  timeout=httpx2.Timeout(30.0, read=300.0)) as http:
        transport = streamable_http_client(pointer["url"], http_client=http)
        async with Client(transport, message_handler=on_message, mode=protocol) as client:
            if protocol in MODERN_PROTOCOL_VERSIONS:  # pinned: learn what the server offers
                raw = await client.session.send_discover(protocol)
                client.session.adopt(types.DiscoverResult.model_validate(raw))
            tools = client.server_capabilities.tools
            if on_tools_changed is None or client.protocol_version not in \
                    MODERN_PROTOCOL_VERSIONS or tools is None or not tools.list_changed:
                yield client
                return
            # Its notifications reach on_message as well (the SDK tees them).
            async with client.listen(tools_list_changed=True):
                yield client


@functools.cache
def _verified(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """httpx2's own default context (the same trust: SSL_CERT_FILE / SSL_CERT_DIR, else the
    system's CAs), built once per setting: a client made without one loads the CA bundle
    anew (~30 ms of CPU, for every connection an agent makes)."""
    import httpx2

    return httpx2.create_ssl_context(verify=True, trust_env=True)


def result_text(result: Any) -> str:
    """The text of a `tools/call` result (a2abench sends exactly one text content)."""
    return "".join(getattr(c, "text", "") for c in result.content)
