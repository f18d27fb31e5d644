"""The HTML report at scale: 10,000 task-trials with tau2-shaped transcripts.

    python perf/report_html.py [--tasks 10000] [--messages 24] [--keep]

Generates a metrics.jsonl (transcripts with tool calls and JSON tool results, request records,
reward breakdowns and DB diffs for failures), then
  1. times `a2abench report --format html` in a child process, against `--format json` on the
     same file in the same run (the baseline: reading and aggregating alone);
  2. opens the page in headless Chromium (DevTools protocol) and times navigation until the
     viewer has drawn its table, against a 10-task-trial report opened the same way, and then
     opening one failed task-trial (inflate + render its transcript).
Targets: written in <= 3 s (issue 27; 5 s in issue 15), opens in <= 3 s. `--no-browser`
times the writing alone (no Chromium needed). `--against CHECKOUT` times that checkout's
`report --format html` too, in the same rounds (e.g. main against a branch); `--profile`
prints where the page's CPU goes (cProfile of one in-process run, by own time).

Each child process runs as an installed package does: its modules' bytecode cached (under a
temporary PYTHONPYCACHEPREFIX, written by an untimed first run of each command, so nothing
is written into the checkouts), even where PYTHONDONTWRITEBYTECODE is set; without that
every run compiled a2abench's ~50 modules first (~0.07 s). `--no-bytecode-cache` times them
as the environment has it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from _util import machine

from tests.browser import Chromium, find_chromium

RUN_ID = "htmlbench0001"
_VOCABULARY = ("reservation flight passenger baggage cabin economy business refund cancel "
               "change policy insurance payment certificate gift card credit membership gold "
               "silver regular airport departure arrival delay status confirm booking seat "
               "upgrade the a to of and your my I would like please thank you can could check "
               "order item return exchange address user account total price")
WORDS = _VOCABULARY.split(" ")


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _tool_result(rng: random.Random) -> str:
    return json.dumps({
        "reservation_id": "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
                                  for _ in range(6)),
        "user_id": f"user_{rng.randint(1, 500)}", "origin": "SFO", "destination": "JFK",
        "flights": [{"flight_number": f"HAT{rng.randint(1, 300):03d}",
                     "date": f"2024-05-{rng.randint(1, 28):02d}",
                     "price": rng.randint(50, 2000)} for _ in range(rng.randint(1, 4))],
        "passengers": [{"first_name": rng.choice(WORDS).title(),
                        "last_name": rng.choice(WORDS).title(),
                        "dob": f"19{rng.randint(40, 99)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"}
                       for _ in range(rng.randint(1, 3))],
        "payment_history": [{"payment_id": f"credit_card_{rng.randint(1000, 9999)}",
                             "amount": rng.randint(100, 3000)}],
    })


def _transcript(rng: random.Random, messages: int, t0: float) -> list[dict[str, object]]:
    out: list[dict[str, object]] = [{"role": "assistant", "content": "Hi! How can I help you "
                                                                     "today?"}]
    while len(out) < messages:
        out.append({"role": "user", "content": _text(rng, rng.randint(8, 40)), "cost": 0.0004})
        call = f"call_{rng.getrandbits(40):x}"
        out.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call, "name": "get_reservation_details", "requestor": "assistant",
             "arguments": {"reservation_id": "ABC123"}}]})
        out.append({"role": "tool", "id": call, "content": _tool_result(rng),
                    "requestor": "assistant", "error": False})
        out.append({"role": "assistant", "content": _text(rng, rng.randint(20, 60))})
    for i, message in enumerate(out):
        message["timestamp"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t0 + 3 * i))
    return out


def _details(rng: random.Random, passed: bool) -> dict[str, object]:
    info: dict[str, object] = {"env": {} if passed else {"db_diff": {"entries": [
        {"db": "agent", "path": ["reservations", "ABC123", "cabin"], "final": "economy",
         "gold": "business"}], "truncated": False}}}
    return {"reward_info": {
        "reward": float(passed), "reward_basis": ["DB", "COMMUNICATE"],
        "reward_breakdown": {"DB": float(passed), "COMMUNICATE": 1.0},
        "db_check": {"db_match": passed, "db_reward": float(passed)},
        "action_checks": [{"action": {"action_id": "a1", "requestor": "assistant",
                                      "name": "update_reservation_flights",
                                      "arguments": {"reservation_id": "ABC123",
                                                    "cabin": "business"}},
                           "action_match": passed, "action_reward": float(passed)}],
        "communicate_checks": [], "info": info, "nl_skipped": False,
        "reward_basis_mode": "official"},
        "a2a_turns": [{"kind": "task", "state": "completed",
                       "latency_ms": round(rng.lognormvariate(6, 0.5), 3)} for _ in range(8)]}


def generate(path: Path, tasks: int, messages: int) -> None:
    rng = random.Random(15)
    run = {"type": "run", "schema_version": 1, "run_id": RUN_ID, "a2abench_version": "bench",
           "benchmark": "tau2", "domain": "airline", "config": {}, "compat_key": {},
           "scoring": {"headline": "mean_reward", "description": "x"}, "started_at": "t"}
    def dumps(record: dict[str, object]) -> str:  # compact, as `run` writes (orjson)
        return orjson.dumps(record).decode()

    with path.open("w") as f:
        f.write(dumps(run) + "\n")
        for t in range(tasks):
            task_id, trial = str(t // 4), t % 4
            for r in range(8):
                f.write(dumps({
                    "type": "request", "schema_version": 1, "run_id": RUN_ID,
                    "task_id": task_id, "trial": trial, "request_id": f"{t}-{r}",
                    "endpoint": "http://127.0.0.1:9999/", "method": "SendMessage",
                    "attempt": 1, "status_code": 200, "latency_ms": rng.lognormvariate(6, 0.5),
                    "first_event_ms": None, "input_tokens": rng.randint(10, 4000),
                    "output_tokens": rng.randint(5, 400), "bytes_sent": 1000,
                    "bytes_received": 500, "context_id": f"ctx-{t}", "error": None,
                    "timestamp": "2026-11-22T00:00:00.000+00:00"}) + "\n")
            passed = rng.random() < 0.6
            f.write(dumps({
                "type": "task", "schema_version": 1, "run_id": RUN_ID, "benchmark": "tau2",
                "domain": "airline", "category": None, "task_id": task_id, "trial": trial,
                "seed": t, "status": "ok", "reward": float(passed), "success": passed,
                "reward_components": {"DB": float(passed), "COMMUNICATE": 1.0}, "labels": [],
                "termination": "user_stop", "turns": 8, "tool_calls": messages // 4,
                "latency_ms": rng.lognormvariate(9, 0.5), "agent_latency_ms": 1000.0,
                "requests": 8, "input_tokens": 1000, "output_tokens": 100,
                "llm_prompt_tokens": 500, "llm_completion_tokens": 50, "cost_usd": 0.001,
                "error": None, "transcript": _transcript(rng, messages, 1.7e9 + t),
                "details": _details(rng, passed), "started_at": "t",
                "finished_at": "t"}) + "\n")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _env(cache: Path | None, checkout: Path | None) -> dict[str, str]:
    """A child's environment: `checkout`'s a2abench first, bytecode cached under `cache`."""
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    if cache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def _report(exe: str, metrics: Path, fmt: str, target: Path, cache: Path | None,
            checkout: Path | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one `report` child process (of `checkout`'s a2abench if given)."""
    env = _env(cache, checkout)
    t0, c0 = time.perf_counter(), _children_cpu()
    # `-m` puts the working directory first on sys.path: the other checkout's, there
    subprocess.run([exe, "-m", "a2abench", "report", str(metrics), "--format", fmt,
                    "--output", str(target)], check=True, stderr=subprocess.DEVNULL, env=env,
                   cwd=checkout)
    return time.perf_counter() - t0, _children_cpu() - c0


def _profile(metrics: Path, target: Path) -> None:
    """Where the page's CPU goes: cProfile of `report_page` and the write, by own time."""
    import cProfile
    import pstats

    from a2abench.report.html import report_page

    profiler = cProfile.Profile()
    profiler.enable()
    _, page = report_page([metrics])
    target.write_bytes(page)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def _open(browser: Chromium, page: Path) -> float:
    t0 = time.perf_counter()
    browser.open(page, timeout=120)
    browser.wait_for("document.body.dataset.ready === '1'", timeout=120)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=3, help="html/json pairs, best kept")
    parser.add_argument("--no-browser", action="store_true",
                        help="time writing only (no Chromium needed)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="also time this checkout's report --format html, alternating")
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile of the page, by own time")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="children compile a2abench's modules in each run when "
                             "PYTHONDONTWRITEBYTECODE is set (as this environment has it)")
    args = parser.parse_args()
    exe = sys.executable  # `python -m a2abench`: the checkout on PYTHONPATH, or the install
    browse = not args.no_browser
    if browse and find_chromium() is None:
        sys.exit("no Chromium found: install the `chromium` package or set A2ABENCH_CHROMIUM "
                 "(or pass --no-browser)")
    tmp = Path(tempfile.mkdtemp(prefix="a2abench-report-html-"))
    metrics, small = tmp / "metrics.jsonl", tmp / "small.jsonl"
    generate(metrics, args.tasks, args.messages)
    generate(small, 10, args.messages)
    cache = None if args.no_bytecode_cache else tmp / "pycache"
    for fmt in ("json", "html"):  # untimed: the file in the page cache, bytecode written
        _report(exe, metrics, fmt, tmp / f"report.{fmt}", cache)
    if args.against:
        _report(exe, metrics, "html", tmp / "against.html", cache, args.against.resolve())
    timings: dict[str, list[tuple[float, float]]] = {"json": [], "html": [], "against": []}
    loads = [_load()]
    for _ in range(args.rounds):  # alternating: the machine's load drifts
        for fmt in ("json", "html"):
            timings[fmt].append(_report(exe, metrics, fmt, tmp / f"report.{fmt}", cache))
        if args.against:
            timings["against"].append(_report(exe, metrics, "html", tmp / "against.html",
                                              cache, args.against.resolve()))
    loads.append(_load())
    (json_s, json_cpu), (html_s, html_cpu) = (min(timings[f]) for f in ("json", "html"))
    size_mb = metrics.stat().st_size / 1e6
    html_mb = (tmp / "report.html").stat().st_size / 1e6
    print(f"# report_html, {machine()}, {loads[0]} before, {loads[1]} after; bytecode "
          + ("compiled in each run" if cache is None else "cached, as installed"))
    print(f"input: {args.tasks:,} task-trials x {args.messages} messages, {size_mb:,.0f} MB "
          f"metrics.jsonl; page {html_mb:,.1f} MB")
    print(f"report --format html: {html_s:.2f} s, CPU {html_cpu:.2f} s (target <= 3 s); "
          f"--format json on the same file: {json_s:.2f} s, CPU {json_cpu:.2f} s; ratio "
          f"{html_s / json_s:.2f} (best of {args.rounds})")
    print("  html rounds (wall/CPU s): " + ", ".join(f"{w:.2f}/{c:.2f}"
                                                     for w, c in timings["html"]))
    if args.against:
        against_s, against_cpu = min(timings["against"])
        print(f"{args.against}: report --format html {against_s:.2f} s, CPU "
              f"{against_cpu:.2f} s (rounds: " + ", ".join(
                  f"{w:.2f}/{c:.2f}" for w, c in timings["against"])
              + f"); this checkout / that one: wall {html_s / against_s:.2f}, CPU "
              f"{html_cpu / against_cpu:.2f}")
    if args.profile:
        _profile(metrics, tmp / "profiled.html")
    if browse:
        _report(exe, small, "html", tmp / "small.html", cache)
        with Chromium.launch() as browser:
            _open(browser, tmp / "small.html")  # warm the browser's caches once
            small_s = _open(browser, tmp / "small.html")
            open_s = _open(browser, tmp / "report.html")
            t0 = time.perf_counter()
            browser.evaluate("document.querySelector('#trials tbody tr.failed').click()")
            browser.wait_for("document.getElementById('trial-detail').dataset.loaded")
            trial_s = time.perf_counter() - t0
            shown = browser.evaluate("document.getElementById('count').innerText")
        print(f"open in Chromium until the table is drawn: {open_s:.2f} s (target <= 3); a "
              f"10-task-trial page: {small_s:.2f} s; ratio {open_s / small_s:.1f} ({shown})")
        print(f"open one failed task-trial (inflate + render): {trial_s * 1000:.0f} ms")
    if args.keep:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
