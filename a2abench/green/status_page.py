"""serve-green's operator routes: /healthz, /readyz, /metrics, and the live status page.

* `GET /healthz`: 200 while the process serves requests (liveness).
* `GET /readyz`: 200 once the app has started and while a new assessment could be taken
  (the waiting line is not full); else 503 with the reason (readiness).
* `GET /metrics`: Prometheus text format, only with --metrics.
* `GET /status`: an HTML page of the assessments in flight (progress, running scores) that
  updates itself from `GET /status/events` (server-sent events); `GET /status.json` is the
  same snapshot as JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from a2abench.green.monitoring import Monitoring

_GROUPS = {"/healthz": "health", "/readyz": "health", "/metrics": "metrics",
           "/status": "status", "/status.json": "status", "/status/events": "status",
           "/.well-known/agent-card.json": "card", "/.well-known/agent.json": "card"}
KEEPALIVE_S = 15.0
SSE_MIN_INTERVAL_S = 0.5  # coalesce bursts of task-trials into one update
STOP_POLL_S = 0.5  # how often an idle stream checks whether the server is stopping


class Readiness:
    """Whether the server takes assessments: started, and the waiting line not full."""

    def __init__(self, waiting: Callable[[], int], queue_limit: int,
                 running: Callable[[], int], slots: int) -> None:
        self.started = False
        self._waiting, self._running = waiting, running
        self.queue_limit, self.slots = queue_limit, slots

    def problem(self) -> str | None:
        if not self.started:
            return "starting"
        if self._running() >= self.slots and self._waiting() >= self.queue_limit:
            return (f"busy: {self._running()} assessment(s) running and {self._waiting()} "
                    "waiting (the line is full)")
        return None


def routes(monitoring: Monitoring, readiness: Readiness,
           metrics: Any | None) -> list[BaseRoute]:
    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> Response:
        problem = readiness.problem()
        if problem is None:
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "unready", "reason": problem}, status_code=503)

    async def status_json(_: Request) -> Response:
        return JSONResponse(monitoring.snapshot())

    async def status_page(_: Request) -> Response:
        return HTMLResponse(_PAGE)

    async def events(request: Request) -> Response:
        return StreamingResponse(_stream(monitoring, request), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})

    out: list[BaseRoute] = [
        Route("/healthz", healthz, methods=["GET"]), Route("/readyz", readyz, methods=["GET"]),
        Route("/status", status_page, methods=["GET"]),
        Route("/status.json", status_json, methods=["GET"]),
        Route("/status/events", events, methods=["GET"])]
    if metrics is not None:
        from a2abench.green.prom import CONTENT_TYPE

        async def scrape(_: Request) -> Response:
            return Response(metrics.render(), media_type=CONTENT_TYPE)

        out.append(Route("/metrics", scrape, methods=["GET"]))
    return out


async def _stream(monitoring: Monitoring, request: Request) -> AsyncIterator[str]:
    """A snapshot now and after every change (at most one per SSE_MIN_INTERVAL_S), with a
    comment line as keep-alive so proxies do not close an idle stream. The stream ends when
    the server begins to stop, so an open page does not hold up a graceful shutdown."""
    changed = asyncio.Event()
    monitoring.listeners.append(changed.set)
    try:
        yield "retry: 2000\n\n"  # the browser reconnects 2 s after a dropped stream
        while not monitoring.stopping():
            changed.clear()
            yield f"data: {json.dumps(monitoring.snapshot())}\n\n"
            idle = 0.0
            while not changed.is_set() and not monitoring.stopping():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), STOP_POLL_S)
                idle += STOP_POLL_S
                if idle >= KEEPALIVE_S and not changed.is_set():
                    if await request.is_disconnected():
                        return
                    yield ": keep-alive\n\n"
                    idle = 0.0
            await asyncio.sleep(SSE_MIN_INTERVAL_S)  # rate limit: coalesce a burst of changes
    finally:
        monitoring.listeners.remove(changed.set)


class CountRequests:
    """Counts answered HTTP requests by route group (never the raw path) and status code."""

    def __init__(self, app: Any, metrics: Any) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = _GROUPS.get(scope.get("path", ""), "a2a" if scope.get("method") == "POST"
                                else "other")
        code = ["500"]

        async def capture(message: Any) -> None:
            if message["type"] == "http.response.start":
                code[0] = str(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, capture)
        finally:
            self.metrics.http_requests.labels(route=route, code=code[0]).inc()


_PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>a2abench green agent: status</title><style>
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem;color:#1b1f24}
table{border-collapse:collapse}td,th{padding:.25rem .6rem;border-bottom:1px solid #ddd;
text-align:left}th{background:#f1f3f5}.bar{background:#eef0f3;width:160px;height:10px}
.bar div{background:#2f6fde;height:10px}.muted{color:#6a737d}</style></head><body>
<h1>a2abench green agent</h1><p class="muted" id="conn">connecting…</p>
<h2>Assessments in flight</h2><div id="running"></div>
<h2>Recently finished</h2><div id="finished"></div>
<script>
"use strict";
function pct(v){return v===null?"n/a":(100*v).toFixed(1)+"%";}
function num(v){return v===null?"n/a":v.toFixed(3);}
function cell(tr,v){const td=document.createElement("td");if(v instanceof Node)td.append(v);
else td.textContent=String(v);tr.append(td);}
function table(items,live){
  if(!items.length){const p=document.createElement("p");p.className="muted";
    p.textContent="none";return p;}
  const t=document.createElement("table");const head=document.createElement("tr");
  ["assessment","benchmark","white agent","state","progress","passed","mean reward",
   "pass rate","agent errors","infra errors","elapsed"].forEach(h=>{
    const th=document.createElement("th");th.textContent=h;head.append(th);});
  t.append(head);
  items.forEach(a=>{const tr=document.createElement("tr");
    const bar=document.createElement("div");bar.className="bar";const fill=
      document.createElement("div");fill.style.width=(a.total?100*a.done/a.total:0)+"%";
    bar.append(fill);const prog=document.createElement("span");prog.append(bar,
      document.createTextNode(a.done+"/"+a.total+(live&&a.running?" ("+a.running+
      " running)":"")));
    [a.id,(a.benchmark||"")+(a.domain?" "+a.domain:""),a.white_agent_host,a.state,prog,
     a.passed,num(a.mean_reward),pct(a.pass_rate),a.agent_errors,a.infra_errors,
     a.elapsed_s+" s"].forEach(v=>cell(tr,v));t.append(tr);});
  return t;}
function show(s){document.getElementById("running").replaceChildren(table(s.running,true));
  document.getElementById("finished").replaceChildren(table(s.finished,false));
  document.getElementById("conn").textContent="live (update "+s.version+")";}
const source=new EventSource("status/events");
source.onmessage=e=>show(JSON.parse(e.data));
source.onerror=()=>{document.getElementById("conn").textContent="reconnecting…";};
</script></body></html>
"""
