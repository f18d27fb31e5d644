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
from typing import Any
from urllib.parse import urlsplit

from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_rest_routes
from starlette.routing import BaseRoute

from a2abench.errors import ConfigError

REST_SUFFIX = "rest"
GRPC_HINT = 'Install the extra: pip install "a2abench[grpc]", or pass --no-grpc.'


def rest_path(rpc_path: str) -> str:
    """Where HTTP+JSON is served: `<card URL path>/rest`."""
    return rpc_path.rstrip("/") + "/" + REST_SUFFIX


def rest_url(card_url: str) -> str:
    parts = urlsplit(card_url)
    return f"{parts.scheme}://{parts.netloc}{rest_path(parts.path or '/')}"


def rest_routes(handler: DefaultRequestHandler, rpc_path: str) -> list[BaseRoute]:
    """a2a-sdk's REST routes, 1.0 and 0.3, under `rest_path(rpc_path)`."""
    return list(create_rest_routes(handler, enable_v0_3_compat=True,
                                   path_prefix=rest_path(rpc_path)))


def grpc_url(card_url: str, port: int) -> str:
    """`host:port` for the card, the form a2a-sdk's gRPC samples and clients use."""
    host = urlsplit(card_url).hostname or "127.0.0.1"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def grpc_installed() -> bool:
    try:
        import grpc  # noqa: F401
    except ImportError:
        return False
    return True


def pick_grpc_port(host: str, port: int | None) -> int:
    """The gRPC port: the one asked for, or a free one (checked bindable either way)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host.strip("[]"), port or 0))
        except OSError as exc:
            raise ConfigError(f"cannot listen for gRPC on {host}:{port}: {exc.strerror}",
                              hint="Choose another --grpc-port, or pass --no-grpc.") from None
        chosen: int = sock.getsockname()[1]
        return chosen


async def start_grpc(handler: DefaultRequestHandler, host: str, port: int, *,
                     token: str | None, max_request_bytes: int) -> Any:
    """Serve A2A 1.0 (`lf.a2a.v1`) and 0.3 (`a2a.v1`) gRPC on host:port; returns the server."""
    import grpc
    from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
    from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
    from a2a.server.request_handlers import GrpcHandler
    from a2a.types import a2a_pb2_grpc

    interceptors = [_bearer_interceptor(token)] if token else []
    server = grpc.aio.server(interceptors=interceptors, options=[
        ("grpc.max_receive_message_length", max_request_bytes)])
    address = f"[{host.strip('[]')}]:{port}" if ":" in host.strip("[]") else f"{host}:{port}"
    if server.add_insecure_port(address) == 0:
        raise ConfigError(f"cannot listen for gRPC on {address}",
                          hint="Choose another --grpc-port, or pass --no-grpc.")
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(  # type: ignore[no-untyped-call]
        GrpcHandler(handler), server)
    a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(  # type: ignore[no-untyped-call]
        CompatGrpcHandler(handler), server)
    await server.start()
    return server


def _bearer_ok(metadata: Any, token: bytes) -> bool:
    for key, value in metadata or ():
        if key.lower() == "authorization":
            raw = value.encode() if isinstance(value, str) else value
            scheme, _, credential = raw.partition(b" ")
            return scheme.lower() == b"bearer" and hmac.compare_digest(credential.strip(), token)
    return False


def _bearer_interceptor(token: str) -> Any:
    """A grpc.aio interceptor refusing calls without `authorization: Bearer TOKEN`
    (UNAUTHENTICATED), as BearerAuth refuses HTTP requests. Built here so that grpcio
    stays an optional import."""
    import grpc

    expected = token.encode()
    reason = "missing or wrong bearer token: send authorization: Bearer <token>"

    async def deny_unary(_request: Any, context: Any) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, reason)

    async def deny_stream(_request: Any, context: Any) -> AsyncIterator[Any]:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, reason)
        yield None  # unreachable: abort raises; the yield makes this a stream handler

    class BearerInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
        async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]],
                                    details: Any) -> Any:
            handler = await continuation(details)
            if handler is None or _bearer_ok(details.invocation_metadata, expected):
                return handler
            if handler.response_streaming:
                return grpc.unary_stream_rpc_method_handler(
                    deny_stream, request_deserializer=handler.request_deserializer)
            return grpc.unary_unary_rpc_method_handler(
                deny_unary, request_deserializer=handler.request_deserializer)

    return BearerInterceptor()
