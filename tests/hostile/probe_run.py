"""Run `a2abench run crmarena` as its own process against a hostile agent and measure it:
exit code, wall time and peak RSS of that process alone (its own VmHWM), plus its records.

Shared by tests/hostile/test_agent_memory.py and perf/hostile_reply.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a2abench.benchmarks.crmarena.synthetic import generate_org, generate_tasks
from tests.hostile.hostile_agent import hostile
from tests.servers import free_port


@dataclass
class ProbeRun:
    code: int
    wall_s: float
    peak_rss_mb: float
    tasks: list[dict[str, Any]]
    stderr: str


def make_org(root: Path, tasks: int) -> tuple[Path, Path]:
    db = root / "b2b.db"
    generate_org(db, org="b2b", seed=0, scale="small")
    rows = generate_tasks(db, org="b2b", seed=0, per_category=1)[:tasks]
    tasks_file = root / "tasks.jsonl"
    tasks_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return db, tasks_file


def probe_run(mode: str, *extra: str, tasks: int = 2, hostile_calls: int = 2,
              timeout_s: float = 240) -> ProbeRun:
    """One run in a child process; every one of the first `hostile_calls` replies hostile."""
    with tempfile.TemporaryDirectory(prefix="a2abench-probe-") as tmp, \
            hostile(mode, hostile_calls=hostile_calls) as (_, base):
        root = Path(tmp)
        db, tasks_file = make_org(root, tasks)
        out = root / "metrics.jsonl"
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("A2ABENCH_")},
               "A2ABENCH_CACHE_DIR": str(root / "cache"),
               # no upstream download: a closed loopback port, so our own wording is used
               "A2ABENCH_CRMARENA_DATA_URL": f"http://127.0.0.1:{free_port()}/"}
        hwm = root / "hwm"
        cmd = [sys.executable, "-c", _LAUNCH, str(hwm), "run", "crmarena",
               "--white-agent-url", base,
               "--tasks-file", str(tasks_file), "--crm-db", str(db), "--output", str(out),
               "--judge-llm", "offline", "--concurrency", "1", *extra]
        t0 = time.perf_counter()
        with open(root / "stderr", "w+b") as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
            try:
                _, status, usage = _wait4(proc, timeout_s)
            finally:
                if proc.poll() is None:
                    proc.kill()
            err.seek(0)
            stderr = err.read().decode("utf-8", "replace")
        wall = time.perf_counter() - t0
        records = [json.loads(line) for line in out.read_text().splitlines()] \
            if out.exists() else []
        return ProbeRun(code=os.waitstatus_to_exitcode(status), wall_s=wall,
                        peak_rss_mb=_peak_mb(hwm, usage.ru_maxrss),
                        tasks=[r for r in records if r.get("type") == "task"], stderr=stderr)


# The child reports its own peak (VmHWM) at exit: ru_maxrss of a child also counts the
# parent's pages from before exec (Linux keeps the larger), so a big pytest process would
# show up as the probe's peak.
_LAUNCH = """\
import atexit, runpy, sys
out = sys.argv.pop(1)
def hwm():
    with open("/proc/self/status") as status, open(out, "w") as f:
        f.write(next(l for l in status if l.startswith("VmHWM")))
atexit.register(hwm)
sys.argv[0] = "a2abench"
runpy.run_module("a2abench", run_name="__main__")
"""


def _peak_mb(hwm: Path, ru_maxrss_kb: int) -> float:
    try:
        return int(hwm.read_text().split()[1]) / 1024  # "VmHWM:   123456 kB"
    except (OSError, IndexError, ValueError):
        return ru_maxrss_kb / 1024  # not Linux: an upper bound


def _wait4(proc: subprocess.Popen[bytes], timeout_s: float) -> tuple[int, int, Any]:
    """os.wait4 for this child only (its own peak RSS), polling so a hang cannot block."""
    deadline = time.monotonic() + timeout_s
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return pid, status, usage
        if time.monotonic() > deadline:
            raise TimeoutError(f"the probe run did not end within {timeout_s:g} s")
        time.sleep(0.05)
