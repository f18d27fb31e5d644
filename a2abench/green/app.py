"""The ASGI app of `serve-green` and the uvicorn loop that serves it.

Routes: the card at /.well-known/agent-card.json and the legacy /.well-known/agent.json (also
under the card URL's path); A2A JSON-RPC (1.0 and, on the same endpoint, 0.3) at `/` and at the
card URL's path, each with and without a trailing slash, or only at `--rpc-path` when the
operator names one. Serving at `/` whatever the card says is what a2a-sdk's own apps do, and
what a prefix-stripping proxy (the AgentBeats controller) needs: it advertises
`http://ctrl/to_agent/<id>` but forwards `/to_agent/<id>/<path>` as `/<path>`.
Middleware: bearer auth (when a token is set), then the body-size limit.

`serve` (green/starting.py) answers the card before this module is imported, then builds
this app in the background.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCard
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Route

from a2abench.errors import ConfigError
from a2abench.green import bindings, caps, sdk_checks
from a2abench.green.card import CardDocument, card_for
from a2abench.green.executor import AssessmentExecutor
from a2abench.green.guard import BearerAuth, BodyLimit, NumberRange
from a2abench.green.monitoring import Monitoring
from a2abench.green.request import RUN_KEYS, secret_keys, server_only
from a2abench.green.settings import (
    GreenSettings,
    card_paths,
    normalized_card_url,
    rpc_path,
    serving_paths,
)
from a2abench.green.status_page import CountRequests, Readiness
from a2abench.green.status_page import routes as status_routes
from a2abench.green.tck import TckRouter
from a2abench.mcp.mount import LazyEndpoint
from a2abench.mcp.session import ToolRegistry


@dataclass
class GreenApp:
    """The app and the parts tests and the CLI look at."""

    app: Starlette
    card: AgentCard
    executor: AssessmentExecutor
    url: str
    monitoring: Monitoring | None = None
    metrics: Any | None = None  # GreenMetrics with --metrics / --metrics-port
    mcp_url: str = ""  # the tools of `tool_channel: "mcp"` assessments (docs/mcp.md)


def check_presets(settings: GreenSettings, benchmarks: list[str]) -> None:
    """Fail at startup, not at the first request, on a misspelt --option or --cap."""
    from a2abench.run.config import RunConfig
    from a2abench.run.registry import get_driver

    for bench, values in settings.presets.items():
        if bench not in benchmarks:
            raise ConfigError(f"--option {bench}.…: unknown benchmark {bench!r}",
                              hint=f"Registered: {', '.join(benchmarks) or 'none'}.")
        fields = set(get_driver(bench).options_model.model_fields) | RUN_KEYS
        unknown = sorted(set(values) - fields)
        if unknown:
            raise ConfigError(f"--option {bench}.{unknown[0]}: not an option of {bench}",
                              hint=f"Options: {', '.join(sorted(fields))}.")
        if secret_keys(values):
            raise ConfigError(f"--option {bench}.{secret_keys(values)[0]} looks like a secret",
                              hint="Secrets come from the environment (e.g. OPENAI_API_KEY).")
    if settings.caps:
        models = {}
        for bench in benchmarks:
            with contextlib.suppress(ConfigError):  # a broken plugin: its requests fail anyway
                model = get_driver(bench).options_model
                models[bench] = (model, frozenset(server_only(model)))
        caps.check_at_start(settings.caps, settings.presets, models, RunConfig, RUN_KEYS)


def build_app(settings: GreenSettings, url: str | None = None,
              benchmarks: Callable[[], list[str]] | None = None,
              grpc_port: int | None = None, card: CardDocument | None = None) -> GreenApp:
    """The serve-green app whose card advertises `url` (default: settings.advertised_url()),
    JSON-RPC and HTTP+JSON on the app, and gRPC on `grpc_port` when given. `card`: the card
    already served for these settings (`serve` builds it first), else it is built here."""
    from a2abench.run.registry import names

    list_benchmarks = benchmarks or names
    check_presets(settings, list_benchmarks())
    url = normalized_card_url(url or settings.advertised_url())
    document = card or CardDocument(card_for(settings, url, list_benchmarks(), grpc_port))
    monitoring, metrics = _monitoring(settings)
    mcp, mcp_url = _mcp_endpoint(url, metrics)
    executor = AssessmentExecutor(settings, list_benchmarks, monitoring, (mcp, mcp_url))
    if metrics is not None:
        metrics.bind(lambda: executor.admission.running, lambda: executor.admission.waiting)
        metrics.know(list_benchmarks())
    readiness = Readiness(lambda: executor.admission.waiting, settings.max_queued_assessments,
                          lambda: executor.admission.running,
                          settings.max_concurrent_assessments)
    agent: AgentExecutor = TckRouter(executor) if settings.tck else executor
    sdk_checks.install()
    # validate_input_modes: parts whose media type the card does not declare are refused
    # with ContentTypeNotSupportedError (-32005 / its REST and gRPC forms), as A2A requires.
    handler = DefaultRequestHandler(agent_executor=agent, task_store=InMemoryTaskStore(),
                                    agent_card=document.card, validate_input_modes=True)
    routes: list[BaseRoute] = [Route(path, document, methods=["GET"])
                               for path in card_paths(url)]
    # Operator routes first: a JSON-RPC endpoint at "/" must not shadow them.
    routes += status_routes(monitoring, readiness,
                            metrics if settings.metrics_port is None else None)
    for path in serving_paths(url, settings.rpc_path):
        routes += create_jsonrpc_routes(handler, rpc_url=path,
                                        enable_v0_3_compat=settings.a2a_03)
    for prefix in bindings.rest_prefixes(rpc_path(url), settings.rpc_path):
        routes += bindings.rest_routes(handler, prefix, a2a_03=settings.a2a_03)
    routes[:0] = [Route(path, mcp) for path in mcp_paths(url)]  # before JSON-RPC at "/"

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        grpc_server = None
        if grpc_port:
            token = settings.auth_token.get_secret_value() if settings.auth_token else None
            grpc_server = await bindings.start_grpc(
                handler, settings.host, grpc_port, token=token,
                max_request_bytes=settings.max_request_bytes, a2a_03=settings.a2a_03)
        readiness.started = True
        try:
            async with mcp.running():
                yield
        finally:
            readiness.started = False
            if grpc_server is not None:
                await grpc_server.stop(grace=5)
            await executor.shutdown()  # running assessments end FAILED with what finished
            await handler.aclose()

    middleware = [Middleware(BodyLimit, limit=settings.max_request_bytes),
                  Middleware(NumberRange, paths=frozenset(serving_paths(url, settings.rpc_path)))]
    if settings.auth_token is not None:
        middleware.insert(0, Middleware(BearerAuth, token=settings.auth_token.get_secret_value(),
                                        public=frozenset(card_paths(url)),
                                        own_auth=frozenset(mcp_paths(url))))
    if metrics is not None:
        middleware.insert(0, Middleware(CountRequests, metrics=metrics))
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    return GreenApp(app, document.card, executor, url, monitoring, metrics, mcp_url)


def mcp_paths(url: str) -> list[str]:
    """Where the MCP endpoint answers: `/mcp`, and under the card URL's path for proxies that
    forward without stripping their prefix."""
    return list(dict.fromkeys(["/mcp", rpc_path(url).rstrip("/") + "/mcp"]))


def _mcp_endpoint(url: str, metrics: Any | None) -> tuple[LazyEndpoint, str]:
    """The MCP endpoint of this server (built on its first request: mcp/mount.py) and its
    public URL, derived from the card URL: behind the AgentBeats controller
    `http://ctrl/to_agent/<id>/mcp` reaches our `/mcp`."""
    on_call = metrics.count_mcp_call if metrics is not None else None
    return LazyEndpoint(ToolRegistry(on_call)), url.rstrip("/") + "/mcp"


def _monitoring(settings: GreenSettings) -> tuple[Monitoring, Any | None]:
    """Live state and logs always; Prometheus metrics only when asked for (an import)."""
    metrics = None
    if settings.metrics or settings.metrics_port is not None:
        from a2abench.green.prom import GreenMetrics

        metrics = GreenMetrics()
    return Monitoring(metrics), metrics
