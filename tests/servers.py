"""Run any ASGI app on a real loopback socket for the length of a `with` block.

    with serve_in_thread(app) as base_url:      # e.g. "http://127.0.0.1:43117"
        httpx.get(base_url + "/health")
    with serve(lambda base: build_app(base)) as base_url:   # app that must know its own URL
        ...

The socket is bound on 127.0.0.1 port 0 before the server starts, so the URL is known up
front and no two tests race for a port. uvicorn runs in a daemon thread with its own event
loop and no signal handlers (Ctrl-C stays with pytest).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import uvicorn

from a2abench.green import sdk_checks
from a2abench.net.embedded import EmbeddedServer
from tests.waits import HANG_S


@contextlib.contextmanager
def serve(factory: Callable[[str], Any], *, startup_timeout_s: float = HANG_S,
          **config: Any) -> Iterator[str]:
    """Bind a free loopback port, build the app for that base URL, serve it, yield the URL.

    `config` goes to uvicorn.Config (e.g. `timeout_graceful_shutdown=2` to let
    answers in flight finish). Start and stop each wait for the server thread at most
    `startup_timeout_s` (a hang bound: a loaded machine took over 10 s to stop a server
    that was still streaming, issue 35).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # No SO_REUSEADDR on port 0 (a2abench.net.embedded.reuse_address says why).
    # Accepted sockets inherit this; without it every small response waits ~40 ms for the
    # client's delayed ACK (Nagle), which made each loopback request take 44 ms instead of 1.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    # The test is over when the block exits: a handler still sleeping (a slow or hostile
    # agent) is cancelled after 0.25 s rather than waited for.
    options: dict[str, Any] = {"log_level": "warning", "loop": "asyncio", "ws": "none",
                               "lifespan": "auto", "timeout_graceful_shutdown": 0.25}
    options.update(config)
    # The tests' own a2a-sdk agents check requests as a2abench's servers do (green/sdk_checks).
    sdk_checks.install()
    try:
        app = factory(base)
    except BaseException:  # e.g. a skip for missing reference data: free the bound port
        sock.close()
        raise
    server = EmbeddedServer(uvicorn.Config(app, **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                              name=f"uvicorn-{port}", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + startup_timeout_s
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the test server exited during startup")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the test server did not start in {startup_timeout_s} s")
            time.sleep(0.005)
        yield base
    finally:
        server.stop()
        thread.join(timeout=startup_timeout_s)
        sock.close()
        if thread.is_alive():
            raise RuntimeError("the test server did not shut down")


@contextlib.contextmanager
def serve_in_thread(app: Any, **config: Any) -> Iterator[str]:
    """Serve a ready-made ASGI app; yield its base URL."""
    with serve(lambda _base: app, **config) as base:
        yield base


def free_port() -> int:
    """A port that nothing listens on (for unreachable-agent tests)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
