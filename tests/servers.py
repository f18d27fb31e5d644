"""Real servers on 127.0.0.1 port 0, run by uvicorn in a thread (after httpx's test suite)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

AppFactory = Callable[[str], Any]  # base URL -> ASGI app


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # the main thread owns signals
        pass


@contextmanager
def serve(factory: AppFactory) -> Iterator[str]:
    """Bind a free loopback port, build the app for that URL, serve it; yield the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    config = uvicorn.Config(factory(base), log_level="error", lifespan="off",
                            timeout_graceful_shutdown=1)
    server = _Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("test server did not start")
        time.sleep(0.005)
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
