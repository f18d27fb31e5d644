"""Median wall time of every `a2abench ... --help` vs `python -c "import typer, rich"`.

    python benchmarks/startup.py [--runs 15]

Target (issues 2 and 16): every ratio <= 1.5. Runs are interleaved so machine noise hits
all commands alike.
"""

from __future__ import annotations

import argparse
import shutil
import sys

from _util import machine, median_ms, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    exe = shutil.which("a2abench") or sys.exit("install the package first: pip install -e .")
    commands = {
        "baseline: python -c 'import typer, rich'": [sys.executable, "-c", "import typer, rich"],
        "a2abench --help": [exe, "--help"],
        **{f"a2abench {' '.join(sub)} --help": [exe, *sub, "--help"]
           for sub in (["discover"], ["run", "tau2"], ["run", "crmarena"], ["serve-green"],
                       ["report"], ["data"])},
    }
    for cmd in commands.values():  # warm-up
        wall(cmd)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            samples[name].append(wall(cmd))
    base = median_ms(next(iter(samples.values())))
    print(f"# startup, {args.runs} interleaved runs, {machine()}")
    for name, values in samples.items():
        ms = median_ms(values)
        print(f"{name:45s} median {ms:7.1f} ms   ratio {ms / base:5.2f}")


if __name__ == "__main__":
    main()
