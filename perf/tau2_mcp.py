"""Harness CPU of tau2 airline task-trials with the tools over MCP vs over the A2A channel.

    python perf/tau2_mcp.py [--tasks 10] [--rounds 3]

The white agent is the tests' gold agent (tests/tau2/gold_agent.py): over A2A it sends each
gold action as a DataPart call, one per turn; over MCP (`--tool-channel mcp`) it calls the
same actions with a real `mcp` client while it holds the turn, once speaking the initialize
handshake (`mcp-legacy`) and once the stateless 2026-07-28 revision (`mcp-2026`). The user
is the fake user LLM playing each task (`gold_user`). They run in a background process; this
process runs `execute_async` (what `a2abench run tau2` does) and measures its own CPU time
(user + system): the harness, with the MCP endpoint it serves in the MCP runs. The runs alternate;
the figures are medians per task-trial.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _util import ROOT, machine


def tasks(count: int) -> dict[str, Any]:
    from a2abench.benchmarks.tau2 import load_domain
    from tests.conftest import shared_data

    domain = load_domain("airline", data_dir=shared_data("tau2").parent)
    return {t.id: t for t in domain.tasks(max_tasks=count)}


def serve(count: int) -> None:
    """The background process: the fake user LLM and the gold agent in both modes."""
    from tests.fakes.llm_server import FakeLLMServer
    from tests.servers import serve as serve_app
    from tests.tau2 import gold_agent

    chosen = tasks(count)
    user = FakeLLMServer(handler=gold_agent.gold_user(chosen))
    with user.running(), \
            serve_app(lambda b: gold_agent.app(b, chosen, "gold")[0]) as a2a, \
            serve_app(lambda b: gold_agent.app(b, chosen, "mcp@legacy")[0]) as legacy, \
            serve_app(lambda b: gold_agent.app(b, chosen, "mcp@2026-07-28")[0]) as modern:
        print(json.dumps({"user": user.base_url, "a2a": a2a, "mcp-legacy": legacy,
                          "mcp-2026": modern}), flush=True)
        sys.stdin.read()  # until the parent closes our stdin


async def one_run(urls: dict[str, str], channel: str, ids: list[str], tmp: Path) -> float:
    """Harness CPU seconds of one run of `ids` over `channel`."""
    from a2abench.run import RunConfig, execute_async
    from tests.conftest import shared_data

    config = RunConfig(
        benchmark="tau2", white_agent_url=urls[channel], task_ids=ids, concurrency=1,
        output=tmp / f"{uuid.uuid4().hex}.jsonl",
        options={"domain": "airline", "data_dir": str(shared_data("tau2").parent),
                 "user_llm": "u", "user_llm_base_url": urls["user"], "llm_cache": False,
                 "tool_channel": channel.split("-")[0]})
    cpu0 = time.process_time()
    summary = await execute_async(config, lambda event: None)
    cpu = time.process_time() - cpu0
    assert summary.counts.passed == len(ids), summary
    return cpu


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    ids = list(tasks(args.tasks))
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(args.tasks)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    cpus: dict[str, list[float]] = {"a2a": [], "mcp-legacy": [], "mcp-2026": []}
    try:
        assert proc.stdout is not None
        urls = json.loads(proc.stdout.readline())
        with tempfile.TemporaryDirectory() as tmpdir:
            for channel in cpus:  # warm up: imports, data loading, first connections
                await one_run(urls, channel, ids[:1], Path(tmpdir))
            for _ in range(args.rounds):
                for channel in cpus:
                    cpus[channel].append(await one_run(urls, channel, ids, Path(tmpdir)))
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(10)
    per = {c: statistics.median(v) / len(ids) for c, v in cpus.items()}
    print(f"{machine()}; {len(ids)} airline task-trials per run (gold agent), "
          f"{args.rounds} rounds (medians)")
    for channel, label in (("a2a", "tools over A2A          "),
                           ("mcp-legacy", "tools over MCP (handshake)"),
                           ("mcp-2026", "tools over MCP (2026-07-28)")):
        print(f"{label}: harness CPU {1000 * per[channel]:.1f} ms per task-trial, ratio "
              f"{per[channel] / per['a2a']:.2f}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    asyncio.run(main())
