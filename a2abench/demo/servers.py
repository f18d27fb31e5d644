"""Run ASGI apps on loopback in background threads (the demo's agent and scripted user)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from a2abench.errors import InfrastructureError


@contextlib.contextmanager
def serve(factory: Callable[[str], Any], *, host: str = "127.0.0.1") -> Iterator[str]:
    """Bind a free port on `host`, build the app for that URL, serve it; yield the URL."""
    import uvicorn

    from a2abench.net.embedded import EmbeddedServer

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, 0))
    base = f"http://{host}:{sock.getsockname()[1]}"
    server = EmbeddedServer(uvicorn.Config(factory(base), log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise InfrastructureError(f"could not start a local server on {base}")
        time.sleep(0.01)
    try:
        yield base
    finally:
        server.stop()
        thread.join(timeout=10)
        sock.close()
