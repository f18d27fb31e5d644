"""`a2abench serve-green`: a2abench as an A2A green agent (assessor) server."""

from __future__ import annotations

from typing import Annotated

from a2abench.cli import _common as c


def serve_green(
    host: Annotated[str, c.opt("--host", "Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, c.opt("--port", "Port to bind (0 picks a free one).", min=0,
                               max=65535)] = 9009,
    card_url: Annotated[str | None, c.opt("--card-url", "URL the agent card advertises.",
                                          show_default=False)] = None,
    auth_token: c.AuthToken = None,
    max_concurrent_assessments: Annotated[int, c.opt("--max-concurrent-assessments",
                                                     "Assessments run in parallel.", min=1)] = 1,
    allow_host: Annotated[list[str] | None, c.opt("--allow-host", "White-agent host pattern "
                                                                  "allowed (repeatable).",
                                                  show_default=False)] = None,
) -> None:
    """Serve a2abench as an A2A green agent that AgentBeats-style platforms call.

    Example: a2abench serve-green --host 0.0.0.0 --port 9009 --card-url http://green:9009/
    """
    from a2abench.errors import NotAvailableYet

    raise NotAvailableYet("`serve-green` is not available in this version yet",
                          hint="Run benchmarks locally with `a2abench run` meanwhile.")
