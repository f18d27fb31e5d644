"""serve-green: a2abench as an A2A green agent (assessor) that platforms such as AgentBeats
call. One A2A task is one assessment, run by the same engine as `a2abench run`.

    settings = GreenSettings(host="0.0.0.0", port=9009, card_url="http://green:9009/",
                             allow_hosts=("purple",))
    serve(settings)                                   # blocks; Ctrl-C stops
    green = build_app(settings)                       # or: the ASGI app, for tests and embedding

Importing this package pulls in a2a-sdk's server stack (~0.7 s); the CLI imports it inside the
command only.
"""

from a2abench.green.app import GreenApp, build_app, serve, startup_warnings
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
