"""serve-green's start: the card first, everything else in the background.

A cold start imports a2a-sdk's server stack, the run engine, the benchmarks and the MCP
server: about 3 CPU-seconds, 18 s of wall time on a saturated machine, against the
AgentBeats gateway's fixed 30 s wait for the card. So `serve` binds, builds the card from
light parts (green/card.py) and serves it at once through `StartingApp`, while a background
thread builds the full app (`app.build_app`). Until that is done:

* the card's paths and `/healthz` answer at once, `/readyz` answers 503 `starting`;
* every other request waits for the full app and then goes through it, its bearer auth and
  body limit included: the front answers only what the full app serves to anyone;
* if the build fails, waiting requests get 503 with the reason, the server stops, and
  `serve` raises the error (a misspelt `--option` is still a usage error, exit 2).

Once built, the full app answers everything, the card too (the same `CardDocument`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
from collections.abc import Callable, Iterable, MutableMapping
from typing import TYPE_CHECKING, Any, TypeVar

from a2abench.errors import ConfigError
from a2abench.green import bindings
from a2abench.green.card import CardDocument, card_for
from a2abench.green.guard import error_response
from a2abench.green.monitoring import LogFormat, Redactor, StructuredFormatter
from a2abench.green.settings import (
    GreenSettings,
    card_paths,
    normalized_card_url,
    serving_paths,
)

if TYPE_CHECKING:
    from a2abench.green.app import GreenApp

logger = logging.getLogger("a2abench.green")
Scope = MutableMapping[str, Any]
T = TypeVar("T")


class StartingApp:
    """The ASGI app uvicorn serves: the card and the probes from the first moment, the rest
    through the full app once `build` (run in a thread) has made it. `on_built(green)` and
    `on_failed(error)` are called on the event loop."""

    def __init__(self, card: CardDocument, paths: Iterable[str], build: Callable[[], GreenApp],
                 on_built: Callable[[GreenApp], None] | None = None,
                 on_failed: Callable[[BaseException], None] | None = None) -> None:
        self.card, self.paths = card, frozenset(paths)
        self._build, self._on_built, self._on_failed = build, on_built, on_failed
        self.green: GreenApp | None = None
        self.failure: BaseException | None = None
        self._done: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if self.green is None and await self._early(scope, receive, send):
            return
        if self.green is None:
            await self._wait()
        if self.green is None:
            reason = f"{self.failure}" if self.failure is not None else "stopping"
            if scope["type"] == "http":
                await error_response(send, 503, f"serve-green could not start: {reason}")
            return
        await self.green.app(scope, receive, send)

    async def _early(self, scope: Scope, receive: Any, send: Any) -> bool:
        """Answer what needs nothing heavy: GETs of the card and the probes."""
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD"):
            return False
        path = scope.get("path")
        if path in self.paths:
            await self.card(scope, receive, send)
        elif path == "/healthz":
            await _json(send, 200, {"status": "ok"})
        elif path == "/readyz":
            reason = "starting" if self.failure is None else f"failed: {self.failure}"
            await _json(send, 503, {"status": "unready", "reason": reason})
        else:
            return False
        return True

    def start(self) -> None:
        """Begin building the full app (once; lifespan startup calls it)."""
        if self._task is None:
            self._done = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _wait(self) -> None:
        self.start()
        assert self._done is not None
        await self._done.wait()

    async def _run(self) -> None:
        """Build the full app, run its lifespan until `stop`: one task, because its parts
        (the MCP server's task group) must be left in the task that entered them."""
        assert self._done is not None
        try:
            green = await _in_thread(self._build)
            async with green.app.router.lifespan_context(green.app):
                if self._on_built is not None:
                    self._on_built(green)
                self.green = green
                self._done.set()
                await self._stopping.wait()
        except Exception as exc:
            if self.green is not None:
                raise  # the shutdown failed: stop() raises it to uvicorn's lifespan
            self.failure = exc  # reported through on_failed; serve() raises it
            if self._on_failed is not None:
                self._on_failed(exc)
        finally:
            self._done.set()

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.start()  # never awaited here: uvicorn serves the card meanwhile
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    await self.stop()
                except Exception as exc:
                    await send({"type": "lifespan.shutdown.failed", "message": repr(exc)})
                    raise
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def stop(self) -> None:
        """Shut the full app down (running assessments end FAILED with what finished), or
        stop waiting for its build (the thread finishes on its own: it is a daemon)."""
        if self._task is None:
            return
        self._stopping.set()
        if self.green is None:
            self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


async def _json(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body, separators=(",", ":")).encode()  # as Starlette's JSONResponse
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})


def _in_thread(fn: Callable[[], T]) -> asyncio.Future[T]:
    """`fn()` in a daemon thread, as a future of the running loop: Ctrl-C during the build
    does not wait for its imports to finish (asyncio.to_thread's pool would)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled: the server is stopping
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        result, error = None, None
        try:
            result = fn()
        except Exception as exc:
            error = exc
        except BaseException as exc:  # a plugin's sys.exit() at import must not pass silently
            error = RuntimeError(f"building the app raised {exc!r}")
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="serve-green-build", daemon=True).start()
    return future


def serve(settings: GreenSettings,
          on_ready: Callable[[str, str, list[str]], Any] | None = None, log_level: str = "info",
          *, benchmarks: Callable[[], list[str]] | None = None) -> None:
    """Serve until interrupted. `on_ready(url, jsonrpc_paths, warnings)` is called once the
    socket is bound and the card built, just before serving starts."""
    import uvicorn

    from a2abench.run.registry import names

    fmt: LogFormat = "json" if settings.log_format == "json" else "text"
    token = settings.auth_token.get_secret_value() if settings.auth_token else None
    log_to_stderr(log_level, fmt, token)
    sock = bind(settings)
    failures: list[BaseException] = []
    try:
        # After the HTTP socket listens: a free port picked before it could be handed to it.
        grpc_port = pick_grpc_port(settings)
        url = normalized_card_url(settings.advertised_url(sock.getsockname()[1]))
        card = CardDocument(card_for(settings, url, (benchmarks or names)(), grpc_port))

        def build() -> GreenApp:
            from a2abench.green.app import build_app

            return build_app(settings, url, benchmarks, grpc_port=grpc_port, card=card)

        def built(green: GreenApp) -> None:
            if green.monitoring is not None:
                green.monitoring.stopping = lambda: server.should_exit
            if settings.metrics_port is not None and green.metrics is not None:
                start_metrics_server(green.metrics, settings.host, settings.metrics_port)
            logger.info("ready: assessments are taken")

        def failed(error: BaseException) -> None:
            failures.append(error)
            server.should_exit = True

        front = StartingApp(card, card_paths(url), build, built, failed)
        config = uvicorn.Config(front, log_level=log_level, timeout_graceful_shutdown=15,
                                log_config=None if fmt == "json" else uvicorn.config.LOGGING_CONFIG)
        server = uvicorn.Server(config)
        if on_ready is not None:
            on_ready(url, ", ".join(serving_paths(url, settings.rpc_path)),
                     startup_warnings(settings))
        others = [f"{i.protocol_binding} {i.protocol_version} at {i.url}"
                  for i in card.card.supported_interfaces if i.protocol_binding != "JSONRPC"]
        logger.info("also serving %s", ", ".join(others))
        server.run(sockets=[sock])  # re-raises Ctrl-C after a clean shutdown
    finally:
        sock.close()
    if failures:
        raise failures[0]


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
    from a2abench.net.embedded import listen

    return listen(settings.host, settings.port, backlog=2048, what="listen",
                  hint="Choose another --port or --host.")


def pick_grpc_port(settings: GreenSettings) -> int | None:
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


def log_to_stderr(level: str, fmt: LogFormat = "text", token: str | None = None) -> None:
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


def start_metrics_server(metrics: Any, host: str, port: int) -> Any:
    """/metrics on a port of its own (a daemon thread of prometheus-client); the server."""
    from prometheus_client import start_http_server

    try:
        server, _ = start_http_server(port, addr=host.strip("[]"), registry=metrics.registry)
        return server
    except OSError as exc:
        raise ConfigError(f"cannot serve metrics on {host}:{port}: {exc.strerror}",
                          hint="Choose another --metrics-port.") from None
