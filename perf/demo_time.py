"""Wall time of `a2abench demo` (issue 9 target: under 60 s on 2 cores).

    python perf/demo_time.py [--runs 3]

Each run is a fresh process writing to a fresh directory; the baseline is `a2abench --help`
in the same run (process start-up), so the ratio shows what the demo itself costs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from _util import machine, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    exe = shutil.which("a2abench") or sys.exit("install the package first: pip install -e .")
    demo, baseline = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            demo.append(wall([exe, "demo", "--output", str(Path(tmp) / "demo")]))
        baseline.append(wall([exe, "--help"]))
    d, b = statistics.median(demo), statistics.median(baseline)
    print(f"# demo_time, {args.runs} runs, {machine()}")
    print(f"a2abench --help (baseline)  median {b:6.2f} s")
    print(f"a2abench demo               median {d:6.2f} s   ratio {d / b:5.1f}   "
          f"(target < 60 s)")


if __name__ == "__main__":
    main()
