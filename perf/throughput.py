"""Throughput of whole task-trials: a2abench against a raw asyncio loop, same pool, same agent.

    python perf/throughput.py [--trials 1001] [--concurrency 1,8,64,256] [--delays 0,0.05]
                              [--schemes http,https]
    python perf/throughput.py --profile [--trials 300] [--profile-out FILE.pstats]

The task-trial is `run tau2 --solo --domain mock` (one A2A round trip: the agent answers
with a `done` call, the task is scored, the record written). The agent is perf/fast_agent.py
in its own process (bare asyncio, so that it is not the bottleneck), answering at once or
after a 50 ms timer.

For each agent delay and concurrency, alternating, in one process:
* raw httpx loop: the same number of `message/send` calls with the same body bytes as
  a2abench's first message, from `concurrency` workers, over httpx set up as a2abench's httpx
  lanes are (⌈c/4⌉ clients of 64 connections round-robin; one big keep-alive pool stalls
  httpx), the reply parsed with orjson: what a hand-written harness loop costs;
* a2abench: `execute_async` with the tau2 driver (plan, environment, first message, A2A call
  over its lean HTTP/1.1 client, parsing, scoring, records fsynced, events to a sink that
  drops them);
* raw lean wire: the raw loop over a2abench's own HTTP/1.1 client (`a2abench/net/h1.py`,
  one shared keep-alive pool): the wire's floor, nothing else.
With `--schemes http,https` every row runs against a plain-http agent and an https one (a
certificate of a private CA, trusted through SSL_CERT_FILE by every loop), and a2abench's
CPU per task-trial over https is set against plain http's.
Printed: task-trials/s of each, a2abench's rate against each raw loop (of the best times,
and the median of the rounds' back-to-back pairs), and this process's CPU time per
task-trial (user + system, every thread: the agent runs elsewhere), with the load average.

`--profile` runs a2abench, then the raw loop over the lean wire, once each at concurrency 1
against the 0 ms agent under cProfile, and prints the own time per task-trial of each part
(HTTP client, event loop, a2abench's A2A client, tau2, engine, pydantic, ...) for both, and
their difference: the harness's own cost is the difference, the wire is in both. Then the
top functions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import httpx
import orjson
from _util import ROOT, load, machine, tls_files, wait_for_card

from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.driver import Tau2Driver, Tau2Options
from a2abench.benchmarks.tau2.solo import is_solo_task, solo_first_message
from a2abench.net.h1 import WirePool
from a2abench.net.limits import read_body
from a2abench.run import RunConfig, execute_async

DATA = Path(os.environ.get("A2ABENCH_TEST_DATA", ROOT.parent / "shared" / "data"))


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def start_agent(delay: float, *extra: str,
                tls: tuple[Path, Path, Path] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """perf/fast_agent.py in its own process (`extra`: its flags; `tls`: https with
    tls_files' certificate); its base URL."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    flags = [*extra, "--tls", str(tls[1]), str(tls[2])] if tls else list(extra)
    proc = subprocess.Popen([sys.executable, str(ROOT / "perf" / "fast_agent.py"), str(port),
                             str(delay), *flags])
    base = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    wait_for_card(base, "agent", verify=str(tls[0]) if tls else None)
    return proc, base


def _options() -> Tau2Options:
    return Tau2Options(domain="mock", solo=True, data_dir=DATA)


async def a2abench_run(base: str, trials: int, concurrency: int, tmp: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole run of `trials` task-trials."""
    per_task = -(-trials // 7)  # mock has 7 solo tasks
    config = RunConfig(benchmark="tau2", white_agent_url=base, concurrency=concurrency,
                       num_trials=per_task, output=tmp / f"{uuid.uuid4().hex}.jsonl",
                       options=_options().model_dump(mode="json"))
    driver = Tau2Driver(_options())
    c0, t0 = cpu(), time.perf_counter()
    summary = await execute_async(config, lambda event: None, driver=driver)
    wall, used = time.perf_counter() - t0, cpu() - c0
    counts = summary.counts
    assert summary.ran == per_task * 7 and not counts.harness_errors, summary
    assert not counts.agent_errors and not counts.infra_errors, summary
    return wall / summary.ran, used / summary.ran


def first_body() -> bytes:
    """The params a2abench sends as a mock solo first message, as a JSON-RPC body template."""
    domain = load_domain("mock", data_dir=DATA, solo=True)
    task = next(t for t in domain.tasks() if is_solo_task(t))
    env = domain.new_environment(task)
    env.set_solo()
    from a2abench.benchmarks.tau2.solo import solo_schemas

    assert domain.solo_policy is not None
    parts = solo_first_message(domain.solo_policy, solo_schemas(env), task.ticket)
    message = {"kind": "message", "role": "user", "messageId": "MSGID",
               "parts": [p.model_dump(mode="json", by_alias=True, exclude_none=True)
                         for p in parts]}
    return orjson.dumps({"jsonrpc": "2.0", "id": "RPCID", "method": "message/send",
                         "params": {"message": message}})


HEADERS = {"Content-Type": "application/json", "A2A-Version": "0.3"}


async def raw_run(base: str, trials: int, concurrency: int, body: bytes) -> tuple[float, float]:
    """(wall, CPU) per call of `trials` message/send calls from `concurrency` workers, over
    httpx as a2abench's httpx lanes are set up (over TLS, the CA of SSL_CERT_FILE trusted)."""
    from a2abench.net.tls import verified_context

    pool = [httpx.AsyncClient(limits=httpx.Limits(max_connections=64,
                                                  max_keepalive_connections=16),
                              trust_env=False, verify=verified_context(), timeout=300.0)
            for _ in range(-(-concurrency // 4))]
    url = base + "/"

    async def call(lane: int, content: bytes) -> bytes:
        return (await pool[lane % len(pool)].post(url, content=content, headers=HEADERS)).content

    try:
        return await _loop(call, trials, concurrency, body)
    finally:
        for http in pool:
            await http.aclose()


async def wire_run(base: str, trials: int, concurrency: int, body: bytes) -> tuple[float, float]:
    """`raw_run` over a2abench's own lean HTTP/1.1 client (a2abench/net/h1.py): the wire's floor."""
    from a2abench.net.tls import verified_context

    wire = WirePool(base + "/", HEADERS, connect_timeout=10.0,
                    tls=verified_context() if base.startswith("https:") else None)

    async def call(_lane: int, content: bytes) -> bytes:
        response = await wire.post(content)
        try:
            return await read_body(response, 16_000_000, url=wire.url)
        finally:
            await response.aclose()

    try:
        return await _loop(call, trials, concurrency, body)
    finally:
        await wire.aclose()


async def _loop(call: Callable[[int, bytes], Awaitable[bytes]], trials: int, concurrency: int,
                body: bytes) -> tuple[float, float]:
    left = iter(range(trials))

    async def worker(lane: int) -> None:
        for i in left:
            content = body.replace(b"MSGID", uuid.uuid4().hex.encode()).replace(
                b"RPCID", str(i).encode())
            reply = orjson.loads(await call(lane, content))
            assert reply["result"]["parts"], reply

    c0, t0 = cpu(), time.perf_counter()
    await asyncio.gather(*(worker(lane) for lane in range(concurrency)))
    wall, used = time.perf_counter() - t0, cpu() - c0
    return wall / trials, used / trials


def compare(args: argparse.Namespace, tmp: Path, body: bytes) -> None:
    """Each agent delay, concurrency and scheme (http, https with a private CA given through
    SSL_CERT_FILE), the three loops alternating; then a2abench's CPU per task-trial over
    https against plain http's, the same delay and concurrency, this run."""
    tls = tls_files(tmp) if "https" in args.schemes else None
    cpu: dict[tuple[float, int, str], float] = {}
    for delay in args.delays:
        agents = {scheme: start_agent(delay, tls=tls if scheme == "https" else None)
                  for scheme in args.schemes}
        try:
            for scheme, (_, base) in agents.items():
                with _trusting(tls if scheme == "https" else None):
                    asyncio.run(a2abench_run(base, 14, 2, tmp))  # warm-up: imports, domain
            for c in args.concurrency:
                trials = max(args.trials, c * 4)
                for scheme, (_, base) in agents.items():
                    rows: dict[str, list[tuple[float, float]]] = {"raw": [], "wire": [],
                                                                  "a2abench": []}
                    with _trusting(tls if scheme == "https" else None):
                        for _ in range(args.rounds):
                            rows["raw"].append(asyncio.run(raw_run(base, trials, c, body)))
                            rows["a2abench"].append(asyncio.run(a2abench_run(base, trials, c,
                                                                             tmp)))
                            rows["wire"].append(asyncio.run(wire_run(base, trials, c, body)))
                    cpu[delay, c, scheme] = min(u for _, u in rows["a2abench"])
                    print(f"{scheme}: " + _row(delay, c, trials, rows, args.rounds), flush=True)
                if len(args.schemes) == 2:
                    print(f"  https / http, a2abench CPU per task-trial: "
                          f"{cpu[delay, c, 'https'] / cpu[delay, c, 'http']:.2f} "
                          f"(target <= 1.3)", flush=True)
        finally:
            for proc, _ in agents.values():
                proc.terminate()
                proc.wait()


@contextlib.contextmanager
def _trusting(tls: tuple[Path, Path, Path] | None) -> Iterator[None]:
    """SSL_CERT_FILE set to the private CA while https runs: how a user trusts it."""
    if tls is None:
        yield
        return
    os.environ["SSL_CERT_FILE"] = str(tls[0])
    try:
        yield
    finally:
        del os.environ["SSL_CERT_FILE"]


def _row(delay: float, c: int, trials: int, rows: dict[str, list[tuple[float, float]]],
         rounds: int) -> str:
    best = {k: min(w for w, _ in v) for k, v in rows.items()}
    cpus = {k: min(u for _, u in v) for k, v in rows.items()}
    # Each round's runs were back to back: the median of their ratios drifts less with
    # other jobs' load than the ratio of the best times.
    paired = {k: statistics.median(r[0] / o[0] for r, o in zip(rows[k], rows["a2abench"],
                                                                strict=True))
              for k in ("raw", "wire")}
    ours = best["a2abench"]
    return (f"agent {delay * 1000:.0f} ms, c={c:3d}, {trials} task-trials: raw httpx "
            f"{1 / best['raw']:7.1f}/s, a2abench {1 / ours:7.1f}/s, ratio {best['raw'] / ours:.2f}"
            f" (paired {paired['raw']:.2f}); raw lean wire {1 / best['wire']:7.1f}/s, ratio "
            f"{best['wire'] / ours:.2f} (paired {paired['wire']:.2f}), best of {rounds}; CPU per "
            f"task-trial raw httpx {cpus['raw'] * 1000:.2f} ms, lean wire "
            f"{cpus['wire'] * 1000:.2f} ms, a2abench {cpus['a2abench'] * 1000:.2f} ms ({load()})")


_PARTS = (  # (what a file path or builtin name contains, the part it counts to), first match
    (("/httpx/", "/httpcore/", "/h11/", "/anyio/", "/sniffio/", "/idna/"),
     "HTTP client: httpx, httpcore, h11, anyio"),
    (("/a2abench/net/h1",), "HTTP client: a2abench's lean HTTP/1.1 (net/h1)"),
    (("/asyncio/", "selectors.py", "socket", "epoll", "poll'", "_asyncio", "ssl"),
     "event loop and sockets (asyncio, selectors, socket calls)"),
    (("/a2abench/a2a/", "/a2abench/net/"), "a2abench: A2A client (a2a/, net/)"),
    (("/a2abench/benchmarks/",), "a2abench: tau2 (environment, messages, parsing, scoring)"),
    (("/a2abench/",), "a2abench: engine, records, events (run/, the rest)"),
    (("pydantic",), "pydantic (models built, validated, dumped)"),
    (("json", "orjson"), "JSON (json, orjson)"),
    (("traceback.py", "linecache.py", "ast.py", "compile"), "tracebacks (evaluator errors)"),
    (("~",), "builtins (isinstance, len, dict methods, ...)"),
)


def _part(path: str, name: str) -> str:
    where = path if path != "~" else name
    for needles, part in _PARTS:
        if any(n in where for n in needles):
            return part
    return "builtins (isinstance, len, dict methods, ...)" if path == "~" else \
        "other stdlib (contextlib, uuid, datetime, typing, threading, ...)"


def by_part(profiler: cProfile.Profile, trials: int) -> dict[str, float]:
    """Own time (tottime) per task-trial, in ms, grouped into the parts above."""
    out: dict[str, float] = {}
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    for (path, _line, name), (_cc, _nc, tottime, _ct, _callers) in stats.items():
        part = _part(path, name)
        out[part] = out.get(part, 0.0) + tottime * 1000 / trials
    return out


def profile(args: argparse.Namespace, tmp: Path) -> None:
    proc, base = start_agent(0.0)
    try:
        asyncio.run(a2abench_run(base, 14, 1, tmp))  # warm-up
        body = first_body()
        asyncio.run(wire_run(base, 14, 1, body))
        profiler, raw_profiler = cProfile.Profile(), cProfile.Profile()
        profiler.enable()
        wall, used = asyncio.run(a2abench_run(base, args.trials, 1, tmp))
        profiler.disable()
        raw_profiler.enable()
        raw_wall, raw_used = asyncio.run(wire_run(base, args.trials, 1, body))
        raw_profiler.disable()
    finally:
        proc.terminate()
        proc.wait()
    ran = -(-args.trials // 7) * 7
    print(f"profiled: a2abench {wall * 1000:.2f} ms wall, {used * 1000:.2f} ms CPU per "
          f"task-trial; raw loop on the lean wire {raw_wall * 1000:.2f} ms wall, "
          f"{raw_used * 1000:.2f} ms CPU per call (under cProfile, which roughly doubles "
          f"both; {load()})\n")
    ours, raw = by_part(profiler, ran), by_part(raw_profiler, args.trials)
    print(f"{'own time per task-trial (ms), by part':62s} {'a2abench':>9s} {'raw':>7s} "
          f"{'extra':>7s}")
    for part in sorted(ours.keys() | raw.keys(), key=lambda p: -ours.get(p, 0.0)):
        a, r = ours.get(part, 0.0), raw.get(part, 0.0)
        print(f"{part:62s} {a:9.3f} {r:7.3f} {a - r:7.3f}")
    print(f"{'total':62s} {sum(ours.values()):9.3f} {sum(raw.values()):7.3f} "
          f"{sum(ours.values()) - sum(raw.values()):7.3f}\n")
    if args.profile_out:
        profiler.dump_stats(args.profile_out)
        raw_profiler.dump_stats(args.profile_out.with_suffix(".raw.pstats"))
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(key).print_stats(35)
        print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=1001)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", default="1,8,64,256",
                        type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--delays", default="0,0.05",
                        type=lambda s: [float(x) for x in s.split(",")])
    parser.add_argument("--schemes", default="http", type=lambda s: s.split(","),
                        help="http, https or both (http,https: with their CPU ratio)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--profile-out", type=Path,
                        help="write the profiles: FILE (a2abench) and FILE.raw.pstats")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="a2abench-throughput-"))
    print(f"# throughput, {machine()}, {load()}")
    if args.profile:
        profile(args, tmp)
    else:
        compare(args, tmp, first_body())


if __name__ == "__main__":
    main()
