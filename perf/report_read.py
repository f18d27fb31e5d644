"""`report` against a bare `orjson.loads` loop over the same file of real records.

    python perf/report_read.py [--records 1000000] [--source METRICS.jsonl] [--distinct]
                               [--rounds 3] [--file METRICS.jsonl] [--no-child]
                               [--against CHECKOUT]

The file: the records of a real run, repeated until it holds `--records` records (with
`--distinct`, every task-trial distinct: a run of many tasks x 4 trials, the task ids renamed
per copy and every fourth trial a new task). Without
`--source`, the run is made here: `run tau2 --solo --domain mock`, 1,001 task-trials
against perf/fast_agent.py (request and task records with transcripts, ~1.2 KB a record).

Timed in this process, alternating, best of `--rounds`:
* baseline: `for line in file: orjson.loads(line)` (the parse alone, nothing kept);
* `build_report` (what `a2abench report` computes before rendering).
Then `a2abench report --format json` as a child process once (wall, peak RSS).
`--against CHECKOUT`: in each round, that checkout's `build_report` too (a child process with
the checkout first on its path; its CPU time, imports left out), e.g. main against a branch.
Target (issue 27): report >= 0.5x the baseline's records/s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from _util import ROOT, load, machine

from a2abench.report import build_report


def real_run(tmp: Path) -> Path:
    import throughput

    proc, base = throughput.start_agent(0.0)
    try:
        asyncio.run(throughput.a2abench_run(base, 1001, 8, tmp))
    finally:
        proc.terminate()
        proc.wait()
    return max(tmp.glob("*.jsonl"), key=lambda p: p.stat().st_size)


def multiply(source: Path, target: Path, records: int, distinct: bool) -> int:
    lines = source.read_bytes().splitlines(keepends=True)
    kinds = [orjson.loads(x).get("type") for x in lines]
    head = [x for x, kind in zip(lines, kinds, strict=True) if kind == "run"][:1]
    body = [x for x, kind in zip(lines, kinds, strict=True) if kind in ("request", "task")]
    if not body:
        raise SystemExit(f"{source} holds no request or task records")
    written = len(head)
    with target.open("wb") as f:
        f.writelines(head)
        copy = 0
        while written < records:
            for line in body:  # --distinct: no task-trial deduplicated
                f.write(_renamed(line, copy) if distinct else line)
                written += 1
                if written >= records:
                    break
            copy += 1
    return written


def _renamed(line: bytes, copy: int) -> bytes:
    """The record as copy `copy` of a run of many tasks x 4 trials: trial t of task T becomes
    trial t % 4 of task `T~copy.(t // 4)` (key order kept, as `run` writes it)."""
    rec = orjson.loads(line)
    trial = rec.get("trial")
    if isinstance(trial, int) and isinstance(rec.get("task_id"), str):
        rec["task_id"] = f"{rec['task_id']}~{copy}.{trial // 4}"
        rec["trial"] = trial % 4
    return orjson.dumps(rec) + b"\n"


def bare(path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of the bare loop."""
    loads = orjson.loads
    t0, c0 = time.perf_counter(), time.process_time()
    with path.open("rb") as f:
        for line in f:
            loads(line)
    return time.perf_counter() - t0, time.process_time() - c0


def ours(path: Path) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    build_report([path])
    return time.perf_counter() - t0, time.process_time() - c0


_AGAINST = """
import sys, time
from pathlib import Path
import a2abench
assert a2abench.__file__.startswith(sys.argv[2]), a2abench.__file__
from a2abench.report import build_report
t0 = time.process_time()
build_report([Path(sys.argv[1])])
print(time.process_time() - t0)
"""


def against(checkout: Path, path: Path) -> float:
    """CPU seconds of `build_report` with the code of `checkout`, in a child process."""
    out = subprocess.run([sys.executable, "-c", _AGAINST, str(path), str(checkout)],
                         check=True, capture_output=True, text=True, cwd=checkout,
                         env={**os.environ, "PYTHONPATH": str(checkout),
                              "PYTHONDONTWRITEBYTECODE": "1"})
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--source", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--file", type=Path,
                        help="time this metrics file as it is (kept), instead of making one")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="time that checkout's build_report too, in the same rounds")
    parser.add_argument("--no-child", action="store_true",
                        help="skip `a2abench report` as a child process")
    parser.add_argument("--distinct", action="store_true",
                        help="rename task ids per copy (every task-trial distinct); by "
                             "default copies repeat the run's task-trials, as a resumed or "
                             "re-reported run does")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="a2abench-report-read-"))
    if args.file:
        path = args.file
        with path.open("rb") as f:
            n = sum(1 for _ in f)
    else:
        source = args.source or real_run(tmp)
        path = tmp / "big.jsonl"
        n = multiply(source, path, args.records, args.distinct)
    print(f"# report_read, {machine()}, {load()}")
    print(f"file: {n:,} records, {path.stat().st_size / 1e6:,.0f} MB, "
          f"{'as given' if args.file else 'from ' + source.name}")
    base_s, ours_s, other_s = [], [], []
    for _ in range(args.rounds):
        base_s.append(bare(path))
        ours_s.append(ours(path))
        if args.against:
            other_s.append(against(args.against.resolve(), path))
    b, o = min(w for w, _ in base_s), min(w for w, _ in ours_s)
    bc, oc = min(c for _, c in base_s), min(c for _, c in ours_s)
    print(f"bare orjson.loads loop: {b:.2f} s ({bc:.2f} s CPU), {n / b:,.0f} records/s")
    print(f"build_report:           {o:.2f} s ({oc:.2f} s CPU), {n / o:,.0f} records/s, "
          f"ratio {b / o:.2f}x the baseline's rate, {bc / oc:.2f}x by CPU time (target >= 0.5;"
          f" on a busy machine the CPU ratio is the one to read) ({load()})")
    if other_s:
        print(f"{args.against}: build_report {min(other_s):.2f} s CPU, {bc / min(other_s):.2f}x "
              f"the baseline by CPU time; rounds (bare · this · that, CPU s): "
              + "; ".join(f"{b[1]:.2f} · {o[1]:.2f} · {x:.2f}"
                          for b, o, x in zip(base_s, ours_s, other_s, strict=True)))
    if args.no_child:
        if not args.file:
            path.unlink()
        return
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "a2abench", "report", str(path), "--format", "json",
                    "--output", str(tmp / "report.json")], check=True, cwd=ROOT,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"a2abench report --format json (child process): {wall:.2f} s, "
          f"{n / wall:,.0f} records/s, peak RSS {peak:.0f} MB")
    if not args.file:
        path.unlink()


if __name__ == "__main__":
    main()
