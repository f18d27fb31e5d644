"""AgentBeats' Amber flow, emulated on loopback: the gateway's participant proxy, its a2a-sdk
0.3 client (in a venv of its own, one process for every shard of a test session), and the
leaderboard workflow's merge of shard results.

The venv: `python -m tests.agentbeats.gateway` builds it (.ci/run does), the tests build it on
first use; it lives under A2ABENCH_TEST_CACHE (default ~/.cache/a2abench-tests).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import venv
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from a2abench.net.h1 import WirePool, WireResponse, usable
from tests.servers import serve
from tests.waits import HANG_S

SDK_SPEC = "a2a-sdk==0.3.*"  # the gateway's client (agentbeats-gateway pins a2a-sdk 0.3)
CLIENT = Path(__file__).with_name("gateway_client.py")
_LOOPBACK = {"localhost", "127.0.0.1", "0.0.0.0", "::1"}


def venv_dir() -> Path:
    root = Path(os.environ.get("A2ABENCH_TEST_CACHE", Path.home() / ".cache/a2abench-tests"))
    return root / f"a2a-sdk-0.3-py{sys.version_info.major}.{sys.version_info.minor}"


def gateway_python() -> Path:
    """The venv's python with a2a-sdk 0.3; built once. Raises RuntimeError saying why not."""
    where = venv_dir()
    python = where / "bin" / "python"
    if python.exists() and _has_sdk(python):
        return python
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(where)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", SDK_SPEC],
                       check=True, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", "") or ""
        raise RuntimeError(f"cannot build the a2a-sdk 0.3 venv at {where} ({SDK_SPEC} from "
                           f"the package index): {exc} {detail.strip()[-300:]}") from None
    if not _has_sdk(python):
        raise RuntimeError(f"{where}: {SDK_SPEC} installed but does not import")
    return python


def _has_sdk(python: Path) -> bool:
    probe = subprocess.run([str(python), "-c", "import a2a.client, a2a.types, httpx;"
                            "from importlib.metadata import version;"
                            "assert version('a2a-sdk').startswith('0.3.')"],
                           capture_output=True, timeout=120)
    return probe.returncode == 0


class Gateway:
    """The gateway's client process (gateway_client.py): `run` is one shard's assessment, as
    the gateway runs it. One process runs them in turn (each start-up imports a2a-sdk 0.3,
    ~0.8 s of CPU, more than a small assessment); after a failure the next `run` starts a
    fresh one. Raises RuntimeError when it cannot start."""

    def __init__(self, python: Path) -> None:
        self.python = python
        self._start()

    def _start(self) -> None:
        self._stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed in close()
        self._proc = subprocess.Popen([str(self.python), str(CLIENT)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=_read, args=(self._proc, self._lines),
                                        name="gateway-client", daemon=True)
        self._reader.start()
        try:
            self._answer(HANG_S)  # {"ready": its a2a-sdk version}
        except AssertionError as exc:
            self.close()
            raise RuntimeError(str(exc)) from None

    def _answer(self, timeout: float) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the gateway client answered nothing in {timeout} s") from None
        if line is None:
            self._stderr.seek(0)
            raise AssertionError(f"the gateway client exited: {self._stderr.read()[-2000:]}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def run(self, green: str, participants: dict[str, str], config: dict[str, Any],
            timeout: float) -> dict[str, Any]:
        """One shard: `{"status", "results"}` (plus the states seen and its stderr, `log`)."""
        if self._proc.poll() is not None:
            self.close()
            self._start()
        assert self._proc.stdin is not None
        job = {"green": green, "participants": participants, "config": config,
               "timeout": timeout}
        try:
            self._proc.stdin.write(json.dumps(job) + "\n")
            self._proc.stdin.flush()
            return self._answer(900)
        except (AssertionError, OSError):
            self.close(kill=True)  # a hung or broken client: the next run starts another
            raise

    def close(self, kill: bool = False) -> None:
        """End the process: at the end of its input, or killed."""
        if kill:
            self._proc.kill()
        with contextlib.suppress(OSError):  # it may have exited already
            if self._proc.stdin is not None:
                self._proc.stdin.close()
        try:
            self._proc.wait(timeout=HANG_S)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join(timeout=HANG_S)  # it reads to the end of the output, then closes
        self._stderr.close()


def _read(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert proc.stdout is not None
    with proc.stdout:
        for line in proc.stdout:
            lines.put(line)
    lines.put(None)


def open_gateway() -> Gateway:
    """The gateway's client, started from the venv (built first when missing or broken).
    Raises RuntimeError saying why not."""
    python = venv_dir() / "bin" / "python"
    if python.exists():
        try:
            return Gateway(python)
        except RuntimeError:
            pass  # rebuilt below
    return Gateway(gateway_python())


# What a rerun may change in a Result: its clock readings (when it ran, how long each part took).
CLOCK = frozenset({"timestamp", "started_at", "finished_at", "duration", "time_used",
                   "latency_ms", "time_ms"})


def timeless(value: Any) -> Any:
    """A Result without its clock readings, for comparing reruns."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in CLOCK}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def whole_again_shards(gateway: Gateway, green: str, participants: dict[str, str],
                       config: dict[str, Any], timeout: float = 300
                       ) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The assessment unsharded twice (a rerun, for determinism) and as two shards, each
    checked to have completed."""
    whole, again = (gateway.run(green, participants,
                                {**config, "shard_index": 0, "num_shards": 1}, timeout)
                    for _ in range(2))
    shards = [gateway.run(green, participants,
                          {**config, "shard_index": i, "num_shards": 2}, timeout)
              for i in (0, 1)]
    for outcome in (whole, again, *shards):
        assert outcome["status"] == "completed", outcome["log"][-2000:]
    return whole, again, shards


def merge_shards(shards: list[dict[str, Any]], agentbeats_ids: dict[str, Any]) -> dict[str, Any]:
    """The leaderboard workflow's aggregation step: status `completed` when every shard
    completed, `partial` when some did, else `failed`; `participants` is the scenario's
    `metadata.agentbeats_ids`; `results` is every shard's results, in shard order."""
    completed = [s["status"] == "completed" for s in shards]
    status = "completed" if all(completed) else "partial" if any(completed) else "failed"
    return {"status": status, "participants": agentbeats_ids,
            "results": [item for s in shards for item in s["results"]]}


class Proxy:
    """The gateway's participant proxy: `/<role>/<path>` goes to that role's agent; agent
    cards' loopback URLs are rewritten to come back through the proxy. A reply that declares
    its length is passed on whole, any other (an event stream) as it comes. POSTs go out on
    a2abench's lean HTTP/1.1 client (a third of httpx's CPU: the proxy carries every turn of
    every match), the rest on httpx."""

    def __init__(self, routes: dict[str, str]) -> None:
        self.routes = routes
        self.seen: list[str] = []
        self.client = httpx.AsyncClient()  # replaced in the server's loop by the lifespan
        self.pools: dict[tuple[str, tuple[tuple[str, str], ...]], WirePool] = {}
        methods = ["GET", "POST", "PUT", "DELETE", "PATCH"]

        @asynccontextmanager
        async def lifespan(_app: Starlette) -> AsyncIterator[None]:
            async with httpx.AsyncClient(timeout=300) as client:
                self.client = client
                try:
                    yield
                finally:
                    for pool in self.pools.values():
                        await pool.aclose()

        self.app = Starlette(lifespan=lifespan, routes=[
            Route("/{role}/{path:path}", self.forward, methods=methods),
            Route("/{role}", self.forward, methods=methods)])

    async def forward(self, request: Request) -> Response:
        role, path = request.path_params["role"], request.path_params.get("path", "")
        if role not in self.routes:
            return Response(f"no route {role}", status_code=404)
        self.seen.append(f"{request.method} /{role}/{path}")
        target = self.routes[role].rstrip("/") + ("/" + path if path else "")
        if request.url.query:
            target += "?" + request.url.query
        headers = {k: v for k, v in request.headers.items() if k not in ("host", "content-length")}
        body = await request.body()
        if path == ".well-known/agent-card.json":
            card = await self.client.request(request.method, target, headers=headers,
                                             content=body)
            return Response(_rewrite_card(card.content, role, str(request.base_url).rstrip("/")),
                            status_code=card.status_code,
                            media_type=card.headers.get("content-type"))
        reply: httpx.Response | WireResponse
        if request.method == "POST" and usable(target, headers):
            key = (target, tuple(headers.items()))
            if key not in self.pools:
                self.pools[key] = WirePool(target, headers, connect_timeout=300)
            reply = await self.pools[key].post(body)
        else:
            reply = await self.client.send(self.client.build_request(
                request.method, target, headers=headers, content=body), stream=True)
        keep = {k: v for k, v in reply.headers.items()
                if k.lower() not in ("content-length", "transfer-encoding")}  # Starlette's own
        if reply.headers.get("content-length") is not None:
            whole = b"".join([chunk async for chunk in reply.aiter_raw()])
            await reply.aclose()
            return Response(whole, status_code=reply.status_code, headers=keep)

        async def body_of() -> Any:
            async for chunk in reply.aiter_raw():
                yield chunk
            await reply.aclose()

        return StreamingResponse(body_of(), status_code=reply.status_code, headers=keep)


def _rewrite_card(body: bytes, role: str, base: str) -> bytes:
    try:
        card = json.loads(body)
    except ValueError:
        return body

    def through(url: Any) -> Any:
        if not isinstance(url, str) or urlsplit(url).hostname not in _LOOPBACK:
            return url
        return f"{base}/{role}{urlsplit(url).path}"

    card["url"] = through(card.get("url"))
    for interface in card.get("supportedInterfaces") or card.get("additionalInterfaces") or []:
        if isinstance(interface, dict):
            interface["url"] = through(interface.get("url"))
    return json.dumps(card).encode()


@contextmanager
def proxy(routes: dict[str, str]) -> Iterator[tuple[str, Proxy]]:
    """Serve the proxy on loopback; yield (its base URL, the Proxy)."""
    holder: dict[str, Proxy] = {}

    def factory(_base: str) -> Any:
        holder["p"] = Proxy(routes)
        return holder["p"].app

    with serve(factory) as base:
        yield base, holder["p"]


if __name__ == "__main__":
    try:
        print(gateway_python())
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        sys.exit(1)
