"""What serve-green adds over running the engine directly.

    python perf/green_overhead.py [--tasks 300] [--rounds 3]

The test benchmark (tests/engine/scripted.py, 5 A2A round trips per task-trial, concurrency 8)
against a hand-written 0.3 agent in its own process, two ways, alternating, medians:
  direct  - `execute_async` in this process (what `a2abench run` does);
  green   - the same assessment requested from serve-green (its own process) by an a2a-sdk
            streaming client: progress status updates (coalesced, at most one a second), the
            report and the Result artifact at the end.
Also: request -> first status update, and last progress update -> final status (the report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from _util import ROOT, machine, wait_for_card
from engine_overhead import free_port, start_agent

from a2abench.run import RunConfig, execute_async
from tests.engine.scripted import ScriptedDriver, ScriptedOptions

GREEN = ("import sys; from pathlib import Path; from tests.engine.scripted import install; "
         "install(); from a2abench.green import GreenSettings, serve; "
         "serve(GreenSettings(port=int(sys.argv[1]), output_dir=Path(sys.argv[2])), "
         "log_level='error')")
TURNS, CONCURRENCY = 5, 8


def start_green(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", GREEN, str(port), str(tmp)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    base = f"http://127.0.0.1:{port}"
    wait_for_card(base, "serve-green")
    return proc, base


async def direct(agent: str, tasks: int, tmp: Path) -> float:
    config = RunConfig(benchmark="scripted", white_agent_url=agent, concurrency=CONCURRENCY,
                       output=tmp / f"{uuid.uuid4().hex}.jsonl")
    t0 = time.perf_counter()
    summary = await execute_async(config, lambda event: None,
                                  driver=ScriptedDriver(ScriptedOptions(tasks=tasks, turns=TURNS)))
    assert summary.counts.passed == tasks, summary
    return time.perf_counter() - t0


async def via_green(green: str, agent: str, tasks: int) -> tuple[float, float, float, int]:
    """(wall, request -> first status, last progress -> final status) in seconds, and the
    number of progress updates (coalesced to one a second by default)."""
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from a2a.types import Message, Part, Role, SendMessageRequest, TaskState

    text = json.dumps({"participants": {"agent": agent}, "config": {
        "benchmark": "scripted", "tasks": tasks, "turns": TURNS, "concurrency": CONCURRENCY}})
    async with httpx.AsyncClient(timeout=600) as http:
        card = await A2ACardResolver(http, green).get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
        request = SendMessageRequest(message=Message(role=Role.ROLE_USER, message_id="m",
                                                     parts=[Part(text=text)]))
        t0 = time.perf_counter()
        first = last_progress = end = 0.0
        progress, last_text = 0, ""
        async for event in client.send_message(request):
            now = time.perf_counter() - t0
            if event.WhichOneof("payload") != "status_update":
                continue
            status = event.status_update.status
            first = first or now
            if status.state == TaskState.TASK_STATE_WORKING and "done, pass rate" in \
                    status.message.parts[0].text:
                progress, last_progress = progress + 1, now
                last_text = status.message.parts[0].text
            if status.state == TaskState.TASK_STATE_COMPLETED:
                end = now
        assert last_text.startswith(f"{tasks}/{tasks} done") and end, (last_text, end)
        return end, first, end - last_progress, progress


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        agent_proc, agent = start_agent(0.0)
        green_proc, green = start_green(tmp / "green")
        try:
            await via_green(green, agent, 5)  # warm both processes
            await direct(agent, 5, tmp)
            walls: dict[str, list[float]] = {"direct": [], "green": []}
            firsts, tails, updates = [], [], []
            for _ in range(args.rounds):
                walls["direct"].append(await direct(agent, args.tasks, tmp))
                wall, first, tail, count = await via_green(green, agent, args.tasks)
                walls["green"].append(wall)
                updates.append(count)
                firsts.append(first)
                tails.append(tail)
        finally:
            for proc in (green_proc, agent_proc):
                proc.terminate()
                proc.wait(10)
    d, g = statistics.median(walls["direct"]), statistics.median(walls["green"])
    trips = args.tasks * TURNS
    print(f"{machine()}; {args.tasks} task-trials x {TURNS} round trips, concurrency "
          f"{CONCURRENCY}, {args.rounds} rounds (medians)")
    print(f"direct execute_async : {d:.2f} s ({1000 * d / trips:.2f} ms per round trip)")
    print(f"through serve-green  : {g:.2f} s ({1000 * g / trips:.2f} ms per round trip)")
    print(f"ratio green / direct : {g / d:.2f}")
    print(f"request -> first status update : {1000 * statistics.median(firsts):.1f} ms")
    print(f"last progress -> final status  : {1000 * statistics.median(tails):.1f} ms "
          "(report + Result artifact)")
    print(f"progress updates streamed      : {statistics.median(updates):.0f}")


if __name__ == "__main__":
    asyncio.run(main())
