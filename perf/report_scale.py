"""`report` at scale: 1,000,000 request records + 20,000 task records.

    python perf/report_scale.py [--requests 1000000] [--tasks 20000] [--keep]

Generates a metrics.jsonl in a temporary directory, then times `a2abench report --format json`
in a child process and reads the child's peak RSS. Targets (issue 3): >= 200,000 records/s and
peak RSS <= 200 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _util import machine

RUN_ID = "bench0000001"


def generate(path: Path, requests: int, tasks: int) -> int:
    rng = random.Random(0)
    run = {"type": "run", "schema_version": 1, "run_id": RUN_ID, "a2abench_version": "bench",
           "benchmark": "tau2", "domain": "airline", "config": {}, "compat_key": {},
           "scoring": {"headline": "mean_reward", "description": "x"}, "started_at": "t"}
    per_task = max(1, requests // tasks)
    transcript = [{"role": "user", "content": "I want to change my flight " * 4},
                  {"role": "assistant", "content": "Sure, let me look that up. " * 6,
                   "tool_calls": [{"id": "c1", "name": "get_reservation_details",
                                   "arguments": {"reservation_id": "ABC123"}}]},
                  {"role": "tool", "id": "c1", "content": json.dumps({"x": list(range(40))})}]
    with path.open("w") as f:
        f.write(json.dumps(run) + "\n")
        for t in range(tasks):
            task_id, trial = str(t // 4), t % 4
            for r in range(per_task):
                f.write(json.dumps({
                    "type": "request", "schema_version": 1, "run_id": RUN_ID,
                    "task_id": task_id, "trial": trial, "request_id": f"{t}-{r}",
                    "endpoint": "http://127.0.0.1:9999/a2a", "method": "SendMessage",
                    "attempt": 1, "status_code": 200, "latency_ms": rng.lognormvariate(5, 1),
                    "first_event_ms": None, "input_tokens": rng.randint(10, 4000),
                    "output_tokens": rng.randint(5, 400), "bytes_sent": rng.randint(200, 20000),
                    "bytes_received": rng.randint(200, 5000), "context_id": f"ctx-{t}",
                    "error": None, "timestamp": "2026-11-22T00:00:00.000+00:00"}) + "\n")
            reward = float(rng.random() < 0.6)
            f.write(json.dumps({
                "type": "task", "schema_version": 1, "run_id": RUN_ID, "benchmark": "tau2",
                "domain": "airline", "category": None, "task_id": task_id, "trial": trial,
                "seed": t, "status": "ok", "reward": reward, "success": reward == 1.0,
                "reward_components": {"DB": reward, "COMMUNICATE": 1.0}, "labels": [],
                "termination": "user_stop", "turns": per_task, "tool_calls": 3,
                "latency_ms": rng.lognormvariate(9, 0.5), "agent_latency_ms": 1000.0,
                "requests": per_task, "input_tokens": 1000, "output_tokens": 100,
                "llm_prompt_tokens": 500, "llm_completion_tokens": 50, "cost_usd": 0.001,
                "error": None, "transcript": transcript, "details": {},
                "started_at": "t", "finished_at": "t"}) + "\n")
        f.write(json.dumps({"type": "run_end", "schema_version": 1, "run_id": RUN_ID,
                            "status": "completed", "finished_at": "t", "duration_s": 1.0,
                            "counts": {}}) + "\n")
    return 2 + tasks + per_task * tasks


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--keep", action="store_true", help="keep the generated file")
    args = parser.parse_args()
    exe = shutil.which("a2abench") or sys.exit("install the package first: pip install -e .")
    tmp = Path(tempfile.mkdtemp(prefix="a2abench-report-scale-"))
    path = tmp / "metrics.jsonl"
    t0 = time.perf_counter()
    records = generate(path, args.requests, args.tasks)
    gen_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run([exe, "report", str(path), "--format", "json", "--output",
                    str(tmp / "report.json")], check=True, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    size_mb = path.stat().st_size / 1e6
    print(f"# report_scale, {machine()}")
    print(f"file: {records:,} records, {size_mb:,.0f} MB (generated in {gen_s:.1f} s)")
    print(f"report --format json: {wall:.2f} s, {records / wall:,.0f} records/s "
          f"(target >= 200,000), peak RSS {peak_mb:.0f} MB (target <= 200)")
    if not args.keep:
        shutil.rmtree(tmp)
    else:
        print(f"kept {path}")


if __name__ == "__main__":
    main()
