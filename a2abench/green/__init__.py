"""serve-green: a2abench as an A2A green agent (assessor) that platforms such as AgentBeats
call. One A2A task is one assessment, run by the same engine as `a2abench run`.

    settings = GreenSettings(host="0.0.0.0", port=9009, card_url="http://green:9009/",
                             allow_hosts=("purple",))
    serve(settings)                                   # blocks; Ctrl-C stops
    green = build_app(settings)                       # or: the ASGI app, for tests and embedding

The names below load on first use: `serve` answers the card before a2a-sdk's server stack
(~0.7 s), the benchmarks and the MCP server are imported (green/starting.py), and the CLI reads
`GreenSettings` without them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from a2abench.green.app import GreenApp, build_app
    from a2abench.green.card import build_card
    from a2abench.green.executor import AssessmentExecutor
    from a2abench.green.request import (
        ACCEPTED_FORMATS,
        AssessmentRequest,
        RequestRejected,
        parse_request,
        plan_run,
    )
    from a2abench.green.settings import GreenSettings, parse_presets
    from a2abench.green.starting import serve, startup_warnings

_WHERE = {
    "ACCEPTED_FORMATS": "request", "AssessmentExecutor": "executor",
    "AssessmentRequest": "request", "GreenApp": "app", "GreenSettings": "settings",
    "RequestRejected": "request", "build_app": "app", "build_card": "card",
    "parse_presets": "settings", "parse_request": "request", "plan_run": "request",
    "serve": "starting", "startup_warnings": "starting",
}

__all__ = [
    "ACCEPTED_FORMATS",
    "AssessmentExecutor",
    "AssessmentRequest",
    "GreenApp",
    "GreenSettings",
    "RequestRejected",
    "build_app",
    "build_card",
    "parse_presets",
    "parse_request",
    "plan_run",
    "serve",
    "startup_warnings",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
