"""Wall time against an agent with real latencies: a2abench against a raw loop (issue 39).

    python perf/latency.py [--concurrency 64,256] [--schemes http,https] [--waves 2]
                           [--rounds 1] [--median 1.5] [--p95 6]

The agent is perf/fast_agent.py with `--lognormal MEDIAN,P95`: the n-th message/send to
arrive waits the n-th delay of a seeded lognormal sequence (real waits on a timer, no CPU),
so that every loop of a round, reset to the round's seed, meets the same delays in the same
order. Over https the agent has a certificate of a private CA, given to both loops through
SSL_CERT_FILE as a user would.

For each scheme and concurrency c, alternating within each round, `waves` x c single-turn
task-trials (`run tau2 --solo --domain mock`, rounded up to the 7 mock tasks):
* raw loop: the same number of message/send calls from c workers over httpx (a2abench's
  httpx lanes);
* a2abench, lean: `execute_async` with the default HTTP client (the lean client where it
  applies);
* a2abench, httpx: the same with A2ABENCH_HTTP_CLIENT=httpx.
Printed: wall time of each, a2abench's against the raw loop's (target <= 1.03), and the
floor: the same delays scheduled greedily on c workers with no cost at all.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import os
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from _util import load, machine, tls_files
from fast_agent import Delays
from throughput import DATA, first_body, raw_run, start_agent

from a2abench.benchmarks.tau2.driver import Tau2Driver, Tau2Options
from a2abench.run import RunConfig, execute_async

MOCK_TASKS = 7


async def a2abench_wall(base: str, per_task: int, concurrency: int, tmp: Path) -> float:
    options = Tau2Options(domain="mock", solo=True, data_dir=DATA)
    config = RunConfig(benchmark="tau2", white_agent_url=base, concurrency=concurrency,
                       num_trials=per_task, output=tmp / f"{uuid.uuid4().hex}.jsonl",
                       options=options.model_dump(mode="json"))
    t0 = time.perf_counter()
    summary = await execute_async(config, lambda event: None, driver=Tau2Driver(options))
    wall = time.perf_counter() - t0
    counts = summary.counts
    assert summary.ran == per_task * MOCK_TASKS, summary
    assert not (counts.harness_errors or counts.agent_errors or counts.infra_errors), summary
    return wall


def floor(seed: int, calls: int, concurrency: int, median: float, p95: float) -> float:
    """The wall time of `calls` calls of the seeded delays on `concurrency` workers, each
    call taken by the first worker free: what no harness can beat."""
    delays = Delays(0.0, (median, p95))
    delays.reset(seed)
    free = [0.0] * concurrency
    end = 0.0
    for _ in range(calls):
        start = heapq.heappop(free)
        done = start + delays.next()
        end = max(end, done)
        heapq.heappush(free, done)
    return end


def reset(base: str, seed: int, verify: str | None) -> None:
    import ssl

    context = ssl.create_default_context(cafile=verify) if verify else True
    httpx.post(base + "/reset", content=str(seed).encode(), verify=context).raise_for_status()


def measure(args: argparse.Namespace, scheme: str, tmp: Path, body: bytes) -> None:
    tls = tls_files(tmp) if scheme == "https" else None
    if tls:
        os.environ["SSL_CERT_FILE"] = str(tls[0])
    proc, base = start_agent(0.0, "--lognormal", f"{args.median},{args.p95}", tls=tls)
    verify = str(tls[0]) if tls else None
    try:
        for c in args.concurrency:
            per_task = -(-c * args.waves // MOCK_TASKS)
            calls = per_task * MOCK_TASKS
            walls: dict[str, list[float]] = {"raw": [], "lean": [], "httpx": [], "floor": []}
            for rnd in range(args.rounds):
                seed = 1000 * rnd + c
                walls["floor"].append(floor(seed, calls, c, args.median, args.p95))
                reset(base, seed, verify)
                wall, _ = asyncio.run(raw_run(base, calls, c, body))
                walls["raw"].append(wall * calls)
                for client in ("lean", "httpx"):
                    reset(base, seed, verify)
                    if client == "httpx":
                        os.environ["A2ABENCH_HTTP_CLIENT"] = "httpx"
                    try:
                        walls[client].append(asyncio.run(a2abench_wall(base, per_task, c, tmp)))
                    finally:
                        os.environ.pop("A2ABENCH_HTTP_CLIENT", None)
            print(_row(scheme, c, calls, walls), flush=True)
    finally:
        proc.terminate()
        proc.wait()
        os.environ.pop("SSL_CERT_FILE", None)


def _row(scheme: str, c: int, calls: int, walls: dict[str, list[float]]) -> str:
    # Each round's loops met the same delays: the ratio of each round, then their median.
    def ratio(a: str, b: str) -> str:
        values = sorted(x / y for x, y in zip(walls[a], walls[b], strict=True))
        return f"{values[len(values) // 2]:.3f}"
    shown = " · ".join(f"{k} {sum(v) / len(v):.2f} s" for k, v in walls.items())
    rounds = "; ".join(f"round {i + 1}: lean {lean / raw:.3f}, httpx {httpx / raw:.3f}, raw / "
                       f"floor {raw / low:.3f}" for i, (raw, lean, httpx, low)
                       in enumerate(zip(*walls.values(), strict=True)))
    return (f"{scheme}, c={c}, {calls} task-trials: {shown}; a2abench / raw loop: lean "
            f"{ratio('lean', 'raw')}, httpx {ratio('httpx', 'raw')} (target <= 1.03); raw / "
            f"floor {ratio('raw', 'floor')} ({load()})\n  {rounds}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", default="64,256",
                        type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--schemes", default="http,https", type=lambda s: s.split(","))
    parser.add_argument("--waves", type=int, default=2, help="task-trials per worker")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--median", type=float, default=1.5)
    parser.add_argument("--p95", type=float, default=6.0)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="a2abench-latency-"))
    print(f"# latency, {machine()}, {load()}; agent lognormal median {args.median} s, "
          f"p95 {args.p95} s")
    body = first_body()
    for scheme in args.schemes:
        measure(args, scheme, tmp, body)


if __name__ == "__main__":
    main()
