"""serve-green's HTTP+JSON and gRPC bindings (JSON-RPC is in app.py), both in A2A 1.0 and
0.3, all served by a2a-sdk around the same request handler.

HTTP+JSON lives under `<card path>/rest` (1.0 at `/rest/message:send`, 0.3 at
`/rest/v1/message:send`). gRPC runs a grpc.aio server on its own port, started in the app's
lifespan on uvicorn's event loop; it applies the same bearer token (as `authorization`
metadata) and the same request-size limit as the HTTP side.
"""

from __future__ import annotations

import hmac
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from a2abench.errors import ConfigError

if TYPE_CHECKING:  # imported where used: the card and the port come before a2a-sdk's server
    from a2a.server.request_handlers import DefaultRequestHandler
    from starlette.routing import BaseRoute

REST_SUFFIX = "rest"
GRPC_HINT = 'Install the extra: pip install "a2abench[grpc]", or pass --no-grpc.'


def rest_path(rpc_path: str) -> str:
    """Where HTTP+JSON is served: `<card URL path>/rest`."""
    return rpc_path.rstrip("/") + "/" + REST_SUFFIX


def rest_url(card_url: str) -> str:
    parts = urlsplit(card_url)
    return f"{parts.scheme}://{parts.netloc}{rest_path(parts.path or '/')}"


def rest_prefixes(card_path: str, explicit: str | None = None) -> list[str]:
    """Where HTTP+JSON answers, as JSON-RPC does (app.serving_paths): under `--rpc-path`
    alone when given, else under `/` and under the card URL's path, so a prefix-stripping
    proxy (the AgentBeats controller) reaches it too."""
    bases = [explicit] if explicit is not None else ["/", card_path]
    return list(dict.fromkeys(rest_path(base) for base in bases))


def rest_routes(handler: DefaultRequestHandler, prefix: str, *,
                a2a_03: bool = True) -> list[BaseRoute]:
    """a2a-sdk's REST routes, 1.0 (and 0.3 unless `a2a_03` is False) under `prefix`; 1.0 tenants at
    `<prefix>/{tenant}/message:send`, where a2a-sdk's own client sends them.

    a2a-sdk mounts its tenant routes at the root, before the prefix (`/{tenant}/rest/...`);
    such a mount also catches every unknown path, and Starlette then redirects `/x` to `/x/`
    (307) instead of answering 404. So the tenant mount is rebuilt under the prefix.
    """
    from a2a.server.routes import create_rest_routes
    from starlette.routing import Mount

    routes = [r for r in create_rest_routes(handler, enable_v0_3_compat=a2a_03,
                                            path_prefix=prefix) if not isinstance(r, Mount)]
    bare = [r for r in create_rest_routes(handler) if isinstance(r, Mount)]
    routes += [Mount(prefix + "/{tenant}", routes=list(m.routes)) for m in bare]
    return routes


def grpc_url(card_url: str, port: int) -> str:
    """`host:port` for the card, the form a2a-sdk's gRPC samples and clients use."""
    host = urlsplit(card_url).hostname or "127.0.0.1"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def grpc_installed() -> bool:
    """Whether grpcio can be imported, without importing it (~0.1 s)."""
    import importlib.util

    return importlib.util.find_spec("grpc") is not None


def pick_grpc_port(host: str, port: int | None) -> int:
    """The gRPC port: the one asked for, or a free one (checked bindable either way)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        if port:  # never on port 0 (net/embedded.py, reuse_address)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host.strip("[]"), port or 0))
        except OSError as exc:
            raise ConfigError(f"cannot listen for gRPC on {host}:{port}: {exc.strerror}",
                              hint="Choose another --grpc-port, or pass --no-grpc.") from None
        chosen: int = sock.getsockname()[1]
        return chosen


async def start_grpc(handler: DefaultRequestHandler, host: str, port: int, *,
                     token: str | None, max_request_bytes: int, a2a_03: bool = True) -> Any:
    """Serve A2A 1.0 (`lf.a2a.v1`) and, unless `a2a_03` is False, 0.3 (`a2a.v1`) gRPC on
    host:port; returns the server."""
    import grpc
    from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
    from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
    from a2a.server.request_handlers import GrpcHandler
    from a2a.types import a2a_pb2_grpc

    server = grpc.aio.server(interceptors=[_guard_interceptor(token)], options=[
        ("grpc.max_receive_message_length", max_request_bytes)])
    address = f"[{host.strip('[]')}]:{port}" if ":" in host.strip("[]") else f"{host}:{port}"
    if server.add_insecure_port(address) == 0:
        raise ConfigError(f"cannot listen for gRPC on {address}",
                          hint="Choose another --grpc-port, or pass --no-grpc.")
    # a2a-sdk's generated registration functions carry no annotations: typed here, once.
    add_v1: Callable[[Any, Any], None] = a2a_pb2_grpc.add_A2AServiceServicer_to_server
    add_v03: Callable[[Any, Any], None] = a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server
    add_v1(GrpcHandler(handler), server)
    if a2a_03:
        add_v03(CompatGrpcHandler(handler), server)
    await server.start()
    return server


def _metadata(metadata: Any, name: str) -> str | None:
    for key, value in metadata or ():
        if key.lower() == name:
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


def _bearer_ok(metadata: Any, token: bytes) -> bool:
    value = _metadata(metadata, "authorization")
    if value is None:
        return False
    scheme, _, credential = value.encode().partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(credential.strip(), token)


def _version_ok(method: str, version: str | None) -> bool:
    """The `a2a-version` metadata against the service called: `lf.a2a.v1` is A2A 1.x and
    `a2a.v1` is 0.3. No metadata is accepted, since the service name carries the version
    (a2a-sdk's gRPC handler checks nothing at all: a2a-python issue #1166)."""
    if not version:
        return True
    major = version.strip().split(".")[0]
    if method.startswith("/lf.a2a.v1."):
        return major == "1"
    return version.strip().startswith("0.3")


def _status_trailer(code: int, message: str, reason: str) -> tuple[tuple[str, bytes], ...]:
    """A `grpc-status-details-bin` trailer carrying an A2A ErrorInfo, as a2a-sdk sends."""
    from google.protobuf import any_pb2
    from google.rpc import error_details_pb2, status_pb2

    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason=reason, domain="a2a-protocol.org"))
    status = status_pb2.Status(code=code, message=message, details=[detail])
    return (("grpc-status-details-bin", status.SerializeToString()),)


def _guard_interceptor(token: str | None) -> Any:
    """A grpc.aio interceptor applying the HTTP side's guards to gRPC: the bearer token
    (UNAUTHENTICATED, as BearerAuth answers 401) and the A2A version (VersionNotSupported:
    FAILED_PRECONDITION, the spec 1.0.1 mapping a2a-sdk uses). Built here so that grpcio
    stays an optional import."""
    import grpc

    expected = token.encode() if token else None

    def denial(code: Any, message: str, reason: str | None) -> Any:
        trailer = _status_trailer(code.value[0], message, reason) if reason else ()

        async def deny(_request: Any, context: Any) -> None:
            await context.abort(code, message, trailing_metadata=trailer)

        async def deny_stream(_request: Any, context: Any) -> AsyncIterator[Any]:
            await context.abort(code, message, trailing_metadata=trailer)
            yield None  # unreachable: abort raises; the yield makes this a stream handler

        return deny, deny_stream

    # grpc ships no type stubs: its base class is Any to mypy, which refuses subclassing it.
    class GuardInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
        async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]],
                                    details: Any) -> Any:
            handler = await continuation(details)
            metadata = details.invocation_metadata
            if handler is None:
                return handler
            if expected is not None and not _bearer_ok(metadata, expected):
                unary, stream = denial(grpc.StatusCode.UNAUTHENTICATED,
                                       "missing or wrong bearer token: send authorization: "
                                       "Bearer <token>", None)
            elif not _version_ok(details.method, _metadata(metadata, "a2a-version")):
                version = _metadata(metadata, "a2a-version")
                unary, stream = denial(grpc.StatusCode.FAILED_PRECONDITION,
                                       f"A2A version {version!r} is not supported by "
                                       f"{details.method.rsplit('/', 1)[0].lstrip('/')}",
                                       "VERSION_NOT_SUPPORTED")
            else:
                return handler
            if handler.response_streaming:
                return grpc.unary_stream_rpc_method_handler(
                    stream, request_deserializer=handler.request_deserializer)
            return grpc.unary_unary_rpc_method_handler(
                unary, request_deserializer=handler.request_deserializer)

    return GuardInterceptor()
