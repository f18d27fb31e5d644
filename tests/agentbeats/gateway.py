"""AgentBeats' Amber flow, emulated on loopback: the gateway's participant proxy, its a2a-sdk
0.3 client (in a venv of its own), and the leaderboard workflow's merge of shard results.

The venv: `python -m tests.agentbeats.gateway` builds it (.ci/run does), the tests build it on
first use; it lives under A2ABENCH_TEST_CACHE (default ~/.cache/a2abench-tests).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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

from tests.servers import serve

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


def run_gateway(python: Path, green: str, participants: dict[str, str],
                config: dict[str, Any], timeout: float) -> dict[str, Any]:
    """One shard, as the gateway runs it: `{"status", "results"}` (plus the states seen)."""
    done = subprocess.run([str(python), str(CLIENT), green, json.dumps(participants),
                           json.dumps(config), str(timeout)],
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise AssertionError(f"gateway client crashed: {done.stderr[-2000:]}")
    outcome: dict[str, Any] = json.loads(done.stdout)
    outcome["log"] = done.stderr
    return outcome


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


def whole_again_shards(python: Path, green: str, participants: dict[str, str],
                       config: dict[str, Any], timeout: float = 300
                       ) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The assessment unsharded twice (a rerun, for determinism) and as two shards, each
    checked to have completed."""
    whole, again = (run_gateway(python, green, participants,
                                {**config, "shard_index": 0, "num_shards": 1}, timeout)
                    for _ in range(2))
    shards = [run_gateway(python, green, participants,
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
    cards' loopback URLs are rewritten to come back through the proxy."""

    def __init__(self, routes: dict[str, str]) -> None:
        self.routes = routes
        self.seen: list[str] = []
        self.client = httpx.AsyncClient()  # replaced in the server's loop by the lifespan
        methods = ["GET", "POST", "PUT", "DELETE", "PATCH"]

        @asynccontextmanager
        async def lifespan(_app: Starlette) -> AsyncIterator[None]:
            async with httpx.AsyncClient(timeout=300) as client:
                self.client = client
                yield

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
        headers = [(k, v) for k, v in request.headers.raw if k.lower() != b"host"]
        upstream = self.client.build_request(request.method, target, headers=headers,
                                             content=await request.body())
        if path == ".well-known/agent-card.json":
            reply = await self.client.send(upstream)
            body = _rewrite_card(reply.content, role, str(request.base_url).rstrip("/"))
            return Response(body, status_code=reply.status_code,
                            media_type=reply.headers.get("content-type"))
        reply = await self.client.send(upstream, stream=True)

        async def body_of() -> Any:
            async for chunk in reply.aiter_raw():
                yield chunk
            await reply.aclose()

        keep = {k: v for k, v in reply.headers.items()
                if k.lower() not in ("content-length", "content-encoding", "transfer-encoding")}
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
