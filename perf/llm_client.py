"""How much the LLM client costs over a bare HTTP POST, and what a cache hit costs.

    python perf/llm_client.py [--calls 400] [--concurrency 50] [--rounds 5]

Everything talks to the fake OpenAI-compatible server from the test suite, on loopback in
this process, with a request shaped like a tau2 user-simulator turn (an 8 KB system prompt
and 20 turns, about 14 KB of JSON). Figures are calls per second and ratios to the baseline,
a bare httpx.AsyncClient POST of the same body measured in the same round (medians over
rounds; ratios above 1 mean faster than the baseline):

    uncached   ChatLLM with the cache off (request building, error mapping, parsing)
    cold       ChatLLM with an empty cache (the above plus key, lock and file write)
    warm       ChatLLM answering every call from the cache (no HTTP at all)
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from a2abench.llm import ChatLLM, LLMConfig
from tests.fakes.llm_server import FakeLLMServer, completion

SYSTEM = "You are a customer of an airline. Follow the scenario. " * 150  # ~8 KB


def conversation(i: int) -> list[dict[str, Any]]:
    turns = [{"role": "user" if t % 2 else "assistant", "content": f"turn {t} of call {i}. "
              + "Could you look up reservation ABC123 for me please? " * 4} for t in range(20)]
    return [{"role": "system", "content": SYSTEM}, *turns]


async def run(calls: int, concurrency: int,
              one: Callable[[int], Awaitable[object]]) -> float:
    """Calls per second for `calls` calls with at most `concurrency` in flight."""
    gate = asyncio.Semaphore(concurrency)

    async def guarded(i: int) -> None:
        async with gate:
            await one(i)

    started = time.perf_counter()
    await asyncio.gather(*(guarded(i) for i in range(calls)))
    return calls / (time.perf_counter() - started)


async def one_round(base_url: str, calls: int, concurrency: int,
                    cache_root: Path) -> dict[str, float]:
    config = LLMConfig(model="gpt-4.1", base_url=base_url, api_key=None,
                       args={"temperature": 0.0}, cache_dir=cache_root)
    figures: dict[str, float] = {}
    async with httpx.AsyncClient(timeout=60) as http:
        async def bare(i: int) -> None:
            body = {"model": "gpt-4.1", "temperature": 0.0, "messages": conversation(i)}
            response = await http.post(config.endpoint, json=body)
            response.raise_for_status()
            response.json()
        await run(20, concurrency, bare)  # open the connections first
        figures["baseline"] = await run(calls, concurrency, bare)
    async with ChatLLM(dataclasses.replace(config, cache=False)) as llm:
        figures["uncached"] = await run(calls, concurrency,
                                        lambda i: llm.chat(conversation(i)))
    async with ChatLLM(config) as llm:
        figures["cold"] = await run(calls, concurrency, lambda i: llm.chat(conversation(i)))
        figures["warm"] = await run(calls, concurrency, lambda i: llm.chat(conversation(i)))
    return figures


async def measure(base_url: str, calls: int, concurrency: int, rounds: int,
                  tmp: Path) -> None:
    results = [await one_round(base_url, calls, concurrency, tmp / str(r))
               for r in range(rounds)]
    print(f"calls={calls} concurrency={concurrency} rounds={rounds} (median) "
          f"body≈{len(json.dumps(conversation(0))) // 1024} KB")
    median = {name: statistics.median(r[name] for r in results) for name in results[0]}
    for name, rate in median.items():
        print(f"{name:>9}: {rate:7.0f} calls/s  {1000 / rate:6.2f} ms/call  "
              f"ratio to baseline {rate / median['baseline']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    server = FakeLLMServer(handler=lambda request: completion("ok", model=request["model"]))
    with server.running(), tempfile.TemporaryDirectory() as tmp:
        asyncio.run(measure(server.base_url, args.calls, args.concurrency, args.rounds,
                            Path(tmp)))


if __name__ == "__main__":
    main()
