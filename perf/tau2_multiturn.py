"""Multi-turn tau2 runs against their floor: the agent's and the user LLM's own latencies.

    python perf/tau2_multiturn.py [--concurrency 64,256] [--waves 2] [--rounds 1]
                                  [--agent 1.5,6] [--user 0.8,2.5]

A whole `run tau2 --domain airline` (every airline task, as many trials as make `waves` x c
conversations) against perf/multiturn_servers.py in its own process: a scripted agent and a
fake OpenAI-compatible user LLM, each answering after a lognormal delay (median, p95 in
seconds). Each conversation is 3 user LLM calls and 3 agent turns, one of them a tool call
that a2abench runs in the airline environment; the run scores every task-trial.

The floor is the critical path of those delays: each conversation's delays summed (they are
sequential), the conversations taken in the order they started by the first of c workers
free, with no cost at all in between. Printed: the run's wall time against the floor (target
<= 1.05), and the harness CPU (this process, every thread) per turn (agent and user turns).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import heapq
import os
import pstats
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from _util import ROOT, load, machine

from a2abench.run import RunConfig, execute_async

DATA = Path(os.environ.get("A2ABENCH_TEST_DATA", ROOT.parent / "shared" / "data"))
AIRLINE_TASKS = 50
TURNS = 6  # per conversation: 3 user LLM calls, 3 agent turns


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(args: argparse.Namespace) -> tuple[subprocess.Popen[bytes], str, str]:
    agent, llm = free_port(), free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "perf" / "multiturn_servers.py"),
                             str(agent), str(llm), "--agent", args.agent, "--user", args.user])
    urls = f"http://127.0.0.1:{agent}", f"http://127.0.0.1:{llm}"
    for _ in range(400):
        try:
            httpx.get(urls[0] + "/log", timeout=1)
            return proc, *urls
        except httpx.HTTPError:
            time.sleep(0.05)
    raise SystemExit("the servers did not start")


async def one_run(agent: str, llm: str, c: int, trials: int, tmp: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run."""
    config = RunConfig(
        benchmark="tau2", white_agent_url=agent, concurrency=c, num_trials=trials,
        output=tmp / f"{uuid.uuid4().hex}.jsonl",
        options={"domain": "airline", "data_dir": str(DATA), "user_llm": "u",
                 "user_llm_base_url": llm, "llm_cache": False})
    c0, t0 = time.process_time(), time.perf_counter()
    summary = await execute_async(config, lambda event: None)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    counts = summary.counts
    assert summary.ran == trials * AIRLINE_TASKS, summary
    assert not (counts.harness_errors or counts.agent_errors or counts.infra_errors), summary
    return wall, cpu


def floor(paths: dict[str, float], c: int) -> float:
    """Conversations in the order they started (their ids), each on the first worker free."""
    free = [0.0] * c
    end = 0.0
    for conv in sorted(paths, key=int):
        done = heapq.heappop(free) + paths[conv]
        end = max(end, done)
        heapq.heappush(free, done)
    return end


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", default="64,256",
                        type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--waves", type=int, default=2, help="conversations per worker")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--agent", default="1.5,6", help="the agent's median,p95 (s)")
    parser.add_argument("--user", default="0.8,2.5", help="the user LLM's median,p95 (s)")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the runs; print the top functions by own time")
    args = parser.parse_args()
    profiler = cProfile.Profile() if args.profile else None
    tmp = Path(tempfile.mkdtemp(prefix="a2abench-multiturn-"))
    print(f"# tau2 multi-turn, {machine()}, {load()}; agent {args.agent}, user LLM "
          f"{args.user} (median,p95 s)")
    proc, agent, llm = start(args)
    try:
        httpx.post(llm + "/reset", content=b"0")
        asyncio.run(one_run(agent, llm, 2, 1, tmp))  # warm-up: imports, the airline domain
        for rnd in range(args.rounds):
            for c in args.concurrency:
                trials = -(-c * args.waves // AIRLINE_TASKS)
                httpx.post(llm + "/reset", content=str(rnd + 1).encode())
                if profiler is not None:
                    profiler.enable()
                wall, cpu = asyncio.run(one_run(agent, llm, c, trials, tmp))
                if profiler is not None:
                    profiler.disable()
                paths = httpx.get(llm + "/log").json()
                best = floor(paths, c)
                turns = TURNS * len(paths)
                print(f"c={c}, {len(paths)} conversations ({trials} x {AIRLINE_TASKS} tasks): "
                      f"wall {wall:.2f} s, floor {best:.2f} s, ratio {wall / best:.3f} "
                      f"(target <= 1.05); harness CPU {cpu * 1000 / turns:.2f} ms per turn "
                      f"({turns} turns) ({load()})", flush=True)
    finally:
        proc.terminate()
        proc.wait()
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
