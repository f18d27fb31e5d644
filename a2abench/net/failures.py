"""Whose failure a transport exception is, for httpx and the lean client alike.

    whose(exc, answered=outcome.status is not None)   # "peer", "lost" or "network"

- "peer": a reply began and broke HTTP/1.1 (a malformed head, bad framing, a body cut short
  by a close or a reset, a switch of protocol nobody asked for). The peer's server did it;
  sending the request again would not help and might act on it twice.
- "lost": the connection closed or was reset before any byte of a reply. One such failure
  may be the network's; the same one on every attempt is the peer's (the callers decide).
- "network": no connection at all, a timeout, anything else: plausibly the network's.

The rule and its reasons: docs/run-semantics.md, "Transport failures".
"""

from __future__ import annotations

from typing import Literal

import httpx

from a2abench.net.h1 import WireConnectError, WireError, WireFrameError

Whose = Literal["peer", "lost", "network"]
# httpcore's words for a connection closed before any byte of a reply (the lean client uses
# the same); every other RemoteProtocolError means a reply began and broke.
NO_REPLY = "Server disconnected without sending a response"


def whose(exc: httpx.HTTPError | WireError, *, answered: bool) -> Whose:
    """`answered`: the reply's status line and headers had arrived when `exc` was raised."""
    if isinstance(exc, WireError):
        if isinstance(exc, WireFrameError):
            return "peer"
        return "network" if isinstance(exc, WireConnectError) else "lost"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "lost" if str(exc).startswith(NO_REPLY) and not answered else "peer"
    if isinstance(exc, httpx.DecodingError):
        return "peer"
    if isinstance(exc, httpx.ReadError | httpx.WriteError):
        return "peer" if answered else "lost"
    return "network"
