"""A stand-in for the AgentBeats controller's proxy (`agentbeats run_ctrl`, package earthshaker
0.2.1, agentbeats/controller.py), written for the tests from how that proxy behaves:

- `/to_agent/<id>` and `/to_agent/<id>/<path>` go to `http://localhost:$AGENT_PORT/<path>`:
  the prefix is stripped, the query string kept;
- the request's headers are passed on as they are (Host and Content-Length included), the
  body is read whole, redirects are followed, and the answer is buffered and returned whole
  with the agent's status and headers (so a stream arrives in one piece at its end).

The controller starts the agent from `./run.sh` with AGENT_PORT and
AGENT_URL=http://<controller>/to_agent/<id> in the environment; `start_run_sh` does the same.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from a2abench.net.tls import verified_context
from tests.servers import serve

_DROP = {"content-length", "transfer-encoding", "content-encoding"}  # recomputed by Starlette


def controller_app(ports: dict[str, int]) -> Starlette:
    async def proxy(request: Request) -> Response:
        port = ports[request.path_params["agent_id"]]
        path = request.path_params.get("path", "")
        async with httpx.AsyncClient(follow_redirects=True, timeout=120,
                                     verify=verified_context()) as client:
            answer = await client.request(request.method, f"http://localhost:{port}/{path}",
                                          content=await request.body(),
                                          headers=request.headers,
                                          params=request.query_params)
        headers = {k: v for k, v in answer.headers.items() if k.lower() not in _DROP}
        return Response(answer.content, status_code=answer.status_code, headers=headers)

    methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
    return Starlette(routes=[Route("/to_agent/{agent_id}", proxy, methods=methods),
                             Route("/to_agent/{agent_id}/{path:path}", proxy,
                                   methods=methods)])


@contextlib.contextmanager
def controller(ports: dict[str, int]) -> Iterator[str]:
    """Serve the proxy; yield its base URL."""
    with serve(lambda _base: controller_app(ports)) as base:
        yield base


@contextlib.contextmanager
def start_run_sh(script: Path, port: int, agent_url: str,
                 env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """Start `run.sh` as the controller does (shell, AGENT_PORT, AGENT_URL); stop it after."""
    script.chmod(0o755)
    proc = subprocess.Popen(
        [f"./{script.name}"], cwd=script.parent, shell=True, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, **env, "AGENT_PORT": str(port), "AGENT_URL": agent_url})
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 2)  # SIGINT, as Ctrl-C: serve-green shuts down cleanly
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
