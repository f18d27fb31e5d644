"""The ASGI app of `serve-green` and the uvicorn loop that serves it.

Routes: the card at /.well-known/agent-card.json and the legacy /.well-known/agent.json (also
under the card URL's path); A2A JSON-RPC (1.0 and, on the same endpoint, 0.3) at `/` and at the
card URL's path, each with and without a trailing slash, or only at `--rpc-path` when the
operator names one. Serving at `/` whatever the card says is what a2a-sdk's own apps do, and
what a prefix-stripping proxy (the AgentBeats controller) needs: it advertises
`http://ctrl/to_agent/<id>` but forwards `/to_agent/<id>/<path>` as `/<path>`.
Middleware: bearer auth (when a token is set), then the body-size limit.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any

from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCard
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from a2abench.errors import ConfigError
from a2abench.green import bindings
from a2abench.green.card import build_card
from a2abench.green.executor import AssessmentExecutor
from a2abench.green.guard import BearerAuth, BodyLimit
from a2abench.green.monitoring import LogFormat, Monitoring, Redactor, StructuredFormatter
from a2abench.green.request import RUN_KEYS, secret_keys
from a2abench.green.settings import GreenSettings, normalized_card_url, rpc_path
from a2abench.green.status_page import CountRequests, Readiness
from a2abench.green.status_page import routes as status_routes
from a2abench.green.tck import TckRouter
from a2abench.net.embedded import listen

logger = logging.getLogger("a2abench.green")
CARD_CACHE_CONTROL = "public, max-age=300"


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
    """Fail at startup, not at the first request, on a misspelt --option."""
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


def build_app(settings: GreenSettings, url: str | None = None,
              benchmarks: Callable[[], list[str]] | None = None,
              grpc_port: int | None = None) -> GreenApp:
    """The serve-green app whose card advertises `url` (default: settings.advertised_url()),
    JSON-RPC and HTTP+JSON on the app, and gRPC on `grpc_port` when given."""
    from a2abench.run.registry import names

    list_benchmarks = benchmarks or names
    check_presets(settings, list_benchmarks())
    url = normalized_card_url(url or settings.advertised_url())
    card = build_card(url, list_benchmarks(), auth=settings.auth_token is not None,
                      tck=settings.tck, rest_url=bindings.rest_url(url),
                      grpc_url=bindings.grpc_url(url, grpc_port) if grpc_port else None,
                      a2a_03=settings.a2a_03)
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
    # validate_input_modes: parts whose media type the card does not declare are refused
    # with ContentTypeNotSupportedError (-32005 / its REST and gRPC forms), as A2A requires.
    handler = DefaultRequestHandler(agent_executor=agent, task_store=InMemoryTaskStore(),
                                    agent_card=card, validate_input_modes=True)
    routes: list[BaseRoute] = [card_route(card, path) for path in card_paths(url)]
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

    middleware = [Middleware(BodyLimit, limit=settings.max_request_bytes)]
    if settings.auth_token is not None:
        middleware.insert(0, Middleware(BearerAuth, token=settings.auth_token.get_secret_value(),
                                        public=frozenset(card_paths(url)),
                                        own_auth=frozenset(mcp_paths(url))))
    if metrics is not None:
        middleware.insert(0, Middleware(CountRequests, metrics=metrics))
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    return GreenApp(app, card, executor, url, monitoring, metrics, mcp_url)


def mcp_paths(url: str) -> list[str]:
    """Where the MCP endpoint answers: `/mcp`, and under the card URL's path for proxies that
    forward without stripping their prefix."""
    return list(dict.fromkeys(["/mcp", rpc_path(url).rstrip("/") + "/mcp"]))


def _mcp_endpoint(url: str, metrics: Any | None) -> tuple[Any, str]:
    """The MCP endpoint of this server and its public URL, derived from the card URL: behind
    the AgentBeats controller `http://ctrl/to_agent/<id>/mcp` reaches our `/mcp`."""
    from a2abench.mcp.server import McpEndpoint
    from a2abench.mcp.session import ToolRegistry

    on_call = metrics.count_mcp_call if metrics is not None else None
    return McpEndpoint(ToolRegistry(on_call)), url.rstrip("/") + "/mcp"


def _monitoring(settings: GreenSettings) -> tuple[Monitoring, Any | None]:
    """Live state and logs always; Prometheus metrics only when asked for (an import)."""
    metrics = None
    if settings.metrics or settings.metrics_port is not None:
        from a2abench.green.prom import GreenMetrics

        metrics = GreenMetrics()
    return Monitoring(metrics), metrics


def card_route(card: AgentCard, path: str) -> Route:
    """a2a-sdk's card route (ETag, If-None-Match, Cache-Control) plus Last-Modified: the card
    is fixed for the life of the process, so its start time is when it last changed."""
    (sdk_route,) = create_agent_card_routes(card, card_url=path,
                                            cache_control=CARD_CACHE_CONTROL)
    endpoint = sdk_route.endpoint
    modified = formatdate(time.time(), usegmt=True)

    async def serve_card(request: Request) -> Response:
        response: Response = await endpoint(request)
        response.headers["Last-Modified"] = modified
        return response

    return Route(path, serve_card, methods=["GET"])


def card_paths(url: str) -> list[str]:
    """The card's well-known paths at the root and, when the card URL has a path, under it
    (for proxies that forward without stripping the prefix)."""
    prefixes = dict.fromkeys(["", rpc_path(url).rstrip("/")])
    return [f"{prefix}/.well-known/{name}" for prefix in prefixes
            for name in ("agent-card.json", "agent.json")]


def serving_paths(url: str, explicit: str | None = None) -> list[str]:
    """Where JSON-RPC answers: `explicit` alone when given, else `/` and the card URL's path;
    each with and without a trailing slash (Starlette would answer the other with a 307 that
    JSON-RPC clients do not follow)."""
    wanted = [explicit] if explicit is not None else ["/", rpc_path(url)]
    out: list[str] = []
    for path in wanted:
        bare = path.rstrip("/")
        for variant in ([bare, bare + "/"] if bare else ["/"]):
            if variant not in out:
                out.append(variant)
    return out


def startup_warnings(settings: GreenSettings) -> list[str]:
    out = []
    if settings.exposed() and not settings.allow_hosts:
        out.append(f"serving on {settings.host} without --allow-host: anyone who can reach "
                   "this server can make it contact any host (SSRF); pass --allow-host")
    if settings.exposed() and settings.auth_token is None:
        out.append(f"serving on {settings.host} without --auth-token: anyone who can reach "
                   "this server can start assessments")
    if settings.metrics_port is not None and settings.exposed():
        out.append(f"--metrics-port {settings.metrics_port} serves /metrics on {settings.host} "
                   "without the bearer token; keep that port behind a firewall")
    if settings.card_url is None and settings.exposed():
        out.append("no --card-url: the card advertises a loopback URL that other machines "
                   "cannot use")
    return out


def bind(settings: GreenSettings) -> socket.socket:
    """Bind the listening socket first, so port 0 resolves before the card is built."""
    return listen(settings.host, settings.port, backlog=2048, what="listen",
                  hint="Choose another --port or --host.")


def _grpc_port(settings: GreenSettings) -> int | None:
    """The gRPC port to serve on, or None: gRPC is on unless --no-grpc, and needs grpcio (an
    explicit --grpc-port without it is an error; the default just goes without)."""
    if not settings.grpc:
        return None
    if not bindings.grpc_installed():
        if settings.grpc_port is not None:
            raise ConfigError("--grpc-port needs grpcio, which is not installed",
                              hint=bindings.GRPC_HINT)
        logger.warning("gRPC is not served: grpcio is not installed (%s)", bindings.GRPC_HINT)
        return None
    return bindings.pick_grpc_port(settings.host, settings.grpc_port)


def _log_to_stderr(level: str, fmt: LogFormat = "text", token: str | None = None) -> None:
    """Structured lines per assessment and task event, beside uvicorn's own log (unless
    logging is set up); with json, uvicorn's lines become JSON objects too."""
    if fmt == "json":
        from a2abench.green import jsonlog

        formatter = jsonlog.install(level, token)
    else:
        formatter = StructuredFormatter(fmt, Redactor([token] if token else []))
    if fmt == "text" and not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(formatter)
        logger.addHandler(handler)
        logger.setLevel(level.upper())
    if fmt == "json":
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
            uvicorn_logger = logging.getLogger(name)
            uvicorn_logger.handlers = [logging.StreamHandler()]
            uvicorn_logger.handlers[0].setFormatter(formatter)
            uvicorn_logger.propagate = False
            uvicorn_logger.setLevel(level.upper())


def serve(settings: GreenSettings, on_ready: Callable[[GreenApp, list[str]], Any] | None = None,
          log_level: str = "info") -> None:
    """Serve until interrupted. `on_ready(green, warnings)` is called once bound."""
    import uvicorn

    fmt: LogFormat = "json" if settings.log_format == "json" else "text"
    token = settings.auth_token.get_secret_value() if settings.auth_token else None
    _log_to_stderr(log_level, fmt, token)
    grpc_port = _grpc_port(settings)
    sock = bind(settings)
    try:
        green = build_app(settings, settings.advertised_url(sock.getsockname()[1]),
                          grpc_port=grpc_port)
        if settings.metrics_port is not None and green.metrics is not None:
            start_metrics_server(green.metrics, settings.host, settings.metrics_port)
        if on_ready is not None:
            on_ready(green, startup_warnings(settings))
        others = [f"{i.protocol_binding} {i.protocol_version} at {i.url}"
                  for i in green.card.supported_interfaces if i.protocol_binding != "JSONRPC"]
        logger.info("also serving %s", ", ".join(others))
        config = uvicorn.Config(green.app, log_level=log_level, timeout_graceful_shutdown=15,
                                log_config=None if fmt == "json" else uvicorn.config.LOGGING_CONFIG)
        server = uvicorn.Server(config)
        if green.monitoring is not None:
            green.monitoring.stopping = lambda: server.should_exit
        server.run(sockets=[sock])  # re-raises Ctrl-C after a clean shutdown
    finally:
        sock.close()


def start_metrics_server(metrics: Any, host: str, port: int) -> Any:
    """/metrics on a port of its own (a daemon thread of prometheus-client); the server."""
    from prometheus_client import start_http_server

    try:
        server, _ = start_http_server(port, addr=host.strip("[]"), registry=metrics.registry)
        return server
    except OSError as exc:
        raise ConfigError(f"cannot serve metrics on {host}:{port}: {exc.strerror}",
                          hint="Choose another --metrics-port.") from None
