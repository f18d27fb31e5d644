"""Scenario pressure and team runs against their floor: the scripted participants' delays.

    python perf/multi_agent.py [--concurrency 16,64] [--waves 2] [--delay 1.0]
                               [--scenarios pressure,team]

Whole `run tau2 --domain airline` runs in this process against perf/multi_agent_servers.py
in its own: pressure (`--adversary-url`: a refusing agent against an adversary that presses
three times, then stops) and team (`--specialist-url`: a front agent that delegates one
call, a specialist that runs it, the fake user LLM; the run adds the solo baseline's
matches). Every participant reply and user LLM answer waits `--delay` seconds, so a match's
critical path is its replies (its record's `match.usage` requests and user LLM calls) times
the delay. The floor is those paths, the matches taken in the order they started by the
first of c workers free, with no cost at all in between (as perf/tau2_multiturn.py's).
Printed per scenario and concurrency: wall time against the floor (ratio), and the harness
CPU (this process, every thread) per match.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _util import ROOT, load, machine, wait_for_card

from a2abench.run import RunConfig, execute_async

DATA = Path(os.environ.get("A2ABENCH_TEST_DATA", ROOT.parent / "shared" / "data"))
TASKS = {"pressure": 24, "team": 50}  # airline: pressure's selection; every task
MATCHES_PER_TRIAL = {"pressure": 1, "team": 2}  # team: the team's match and the baseline


def config(scenario: str, base: str, c: int, trials: int, out: Path) -> RunConfig:
    options: dict[str, Any] = {"domain": "airline", "data_dir": str(DATA)}
    extra: dict[str, Any] = {"adversary_url": [f"{base}/adversary"]}
    agent = f"{base}/refuser"
    if scenario == "team":
        options.update(user_llm="u", user_llm_base_url=f"{base}/v1", llm_cache=False)
        extra, agent = {"specialist_url": [f"{base}/specialist"]}, f"{base}/front"
    return RunConfig(benchmark="tau2", white_agent_url=agent, concurrency=c,
                     num_trials=trials, output=out, options=options, **extra)


def path_of(record: dict[str, Any], delay: float) -> float:
    """A match's critical path: its participants' replies and user LLM calls, each a delay."""
    replies = sum(u["requests"] for u in record["match"]["usage"].values())
    llm = record["details"].get("llm_usage", {}).get("user_simulator", {}).get("calls", 0)
    return (replies + llm) * delay


def floor(paths: list[float], c: int) -> float:
    """The matches in the order they started, each on the first worker free."""
    free = [0.0] * c
    end = 0.0
    for p in paths:
        done = heapq.heappop(free) + p
        end = max(end, done)
        heapq.heappush(free, done)
    return end


async def one_run(scenario: str, base: str, c: int, trials: int, tmp: Path
                  ) -> tuple[float, float, list[dict[str, Any]]]:
    """(wall seconds, CPU seconds, task records) of one run."""
    out = tmp / f"{uuid.uuid4().hex}.jsonl"
    cfg = config(scenario, base, c, trials, out)
    c0, t0 = time.process_time(), time.perf_counter()
    summary = await execute_async(cfg, lambda event: None)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    counts = summary.counts
    assert not (counts.harness_errors or counts.agent_errors or counts.infra_errors), summary
    found = [r for r in map(json.loads, out.read_text().splitlines()) if r["type"] == "task"]
    assert len(found) == trials * TASKS[scenario] * MATCHES_PER_TRIAL[scenario], len(found)
    return wall, cpu, sorted(found, key=lambda r: r["started_at"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", default="16,64",
                        type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--waves", type=int, default=2, help="matches per worker")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds per reply")
    parser.add_argument("--scenarios", default="pressure,team",
                        type=lambda s: s.split(","))
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="a2abench-multi-"))
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(ROOT / "perf" / "multi_agent_servers.py"),
                             str(port), "--delay", str(args.delay)])
    base = f"http://127.0.0.1:{port}"
    print(f"# pressure and team, {machine()}, {load()}; every reply {args.delay} s")
    try:
        wait_for_card(base + "/refuser", "the participants")
        for scenario in args.scenarios:
            asyncio.run(one_run(scenario, base, 2, 1, tmp))  # warm-up: imports, the domain
            for c in args.concurrency:
                per_trial = TASKS[scenario] * MATCHES_PER_TRIAL[scenario]
                trials = math.ceil(c * args.waves / per_trial)
                wall, cpu, found = asyncio.run(one_run(scenario, base, c, trials, tmp))
                best = floor([path_of(r, args.delay) for r in found], c)
                print(f"{scenario}, c={c}, {len(found)} matches ({trials} trials): wall "
                      f"{wall:.2f} s, floor {best:.2f} s, ratio {wall / best:.3f}; harness "
                      f"CPU {cpu * 1000 / len(found):.1f} ms per match ({load()})", flush=True)
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
