"""Harness overhead of the run engine, and the speed-up concurrency buys.

    python perf/engine_overhead.py [--tasks 500] [--slow-tasks 64]

1. 500 task-trials of the test benchmark (tests/engine/scripted.py), 5 A2A round trips each,
   against a local agent that answers at once (its own process), at concurrency 1 and 32.
   Reported per round trip: wall time, and the harness's CPU time (this process: client,
   engine, records, fsync thread), beside a raw httpx JSON-RPC loop measured in the same run.
2. The same benchmark against an agent that takes 50 ms per answer, at concurrency 1 and 32.
Targets (issue 3): harness CPU <= 2 ms per round trip; speed-up from 1 to 32 >= 15x.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from _util import ROOT, machine, wait_for_card

from a2abench.run import RunConfig, execute_async
from tests.engine.scripted import ScriptedDriver, ScriptedOptions

AGENT = ("import sys, uvicorn; from tests.agents import LegacyAgent; "
         "port, delay = int(sys.argv[1]), float(sys.argv[2]); "
         "uvicorn.run(LegacyAgent(f'http://127.0.0.1:{port}', delay=delay).app(), "
         "host='127.0.0.1', port=port, log_level='error')")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_agent(delay: float) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", AGENT, str(port), str(delay)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    base = f"http://127.0.0.1:{port}"
    wait_for_card(base, "agent")
    return proc, base


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def engine_run(base: str, tasks: int, concurrency: int, tmp: Path) -> tuple[float, float]:
    config = RunConfig(benchmark="scripted", white_agent_url=base, concurrency=concurrency,
                       output=tmp / f"{uuid.uuid4().hex}.jsonl")
    driver = ScriptedDriver(ScriptedOptions(tasks=tasks, turns=5))
    c0, t0 = cpu(), time.perf_counter()
    summary = await execute_async(config, lambda event: None, driver=driver)
    wall, used = time.perf_counter() - t0, cpu() - c0
    assert summary.counts.passed == tasks, summary
    return wall, used


async def raw_loop(base: str, n: int) -> float:
    async with httpx.AsyncClient() as http:
        t0 = time.perf_counter()
        for i in range(n):
            body = {"jsonrpc": "2.0", "id": i, "method": "message/send", "params": {"message": {
                "kind": "message", "role": "user", "messageId": uuid.uuid4().hex,
                "parts": [{"kind": "text", "text": "ping"}]}}}
            response = await http.post(base + "/rpc", content=json.dumps(body),
                                       headers={"Content-Type": "application/json"})
            json.loads(response.content)
        return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--slow-tasks", type=int, default=64)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="a2abench-engine-"))
    print(f"# engine_overhead, {machine()}")
    proc, base = start_agent(0.0)
    try:
        trips = args.tasks * 5
        raw = asyncio.run(raw_loop(base, trips)) / trips * 1000
        print(f"raw httpx loop, sequential: {raw:.2f} ms per round trip")
        for concurrency in (1, 32):
            wall, used = asyncio.run(engine_run(base, args.tasks, concurrency, tmp))
            print(f"engine, {args.tasks} task-trials x 5 round trips, concurrency "
                  f"{concurrency:2d}: wall {wall / trips * 1000:.2f} ms/round trip, harness "
                  f"CPU {used / trips * 1000:.2f} ms/round trip (target <= 2)")
    finally:
        proc.terminate()
        proc.wait()
    proc, base = start_agent(0.05)
    try:
        walls = {c: asyncio.run(engine_run(base, args.slow_tasks, c, tmp))[0] for c in (1, 32)}
    finally:
        proc.terminate()
        proc.wait()
    print(f"50 ms agent, {args.slow_tasks} task-trials x 5 round trips: concurrency 1 "
          f"{walls[1]:.1f} s, concurrency 32 {walls[32]:.2f} s, speed-up "
          f"{walls[1] / walls[32]:.1f}x (target >= 15)")


if __name__ == "__main__":
    main()
