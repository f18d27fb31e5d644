"""Median wall time of every `a2abench ... --help` vs `python -c "import typer, rich"`.

    python perf/startup.py [--runs 15] [--also OTHER/bin/a2abench]

Target (issues 2 and 16): every ratio <= 1.5. Runs are interleaved so machine noise hits
all commands alike. The package is byte-compiled first, as a wheel install is (typer and
rich, the baseline, load from .pyc files too). Besides wall time, the CPU time (user +
system) of each process is reported: on a loaded machine it drifts much less than wall time.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
from pathlib import Path

from _util import machine, median_ms, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--also", help="another a2abench executable (e.g. a release) to "
                                       "measure in the same run, for before/after")
    args = parser.parse_args()
    exe = shutil.which("a2abench") or sys.exit("install the package first: pip install -e .")
    # Byte-compile a2abench as a wheel install does. An editable install compiles on first
    # import, unless PYTHONDONTWRITEBYTECODE is set: then every start would compile our
    # modules from source (~10 ms) while typer and rich load from their .pyc files.
    import compileall

    import a2abench

    compileall.compile_dir(Path(a2abench.__file__).parent, quiet=1)
    subs = (["discover"], ["run", "tau2"], ["run", "crmarena"], ["serve-green"], ["report"],
            ["data"])
    commands = {
        "baseline: python -c 'import typer, rich'": [sys.executable, "-c", "import typer, rich"],
        "a2abench --help": [exe, "--help"],
        **{f"a2abench {' '.join(sub)} --help": [exe, *sub, "--help"] for sub in subs},
    }
    if args.also:  # `data` is new in this version
        commands.update({f"(also) {' '.join(sub)} --help": [args.also, *sub, "--help"]
                         for sub in ([], *subs[:-1])})
    for cmd in commands.values():  # warm-up
        wall(cmd)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            samples[name].append(wall(cmd))
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    base = median_ms(next(iter(samples.values())))
    base_cpu = median_ms(next(iter(cpu.values())))
    print(f"# startup, {args.runs} interleaved runs, {machine()}")
    for name, values in samples.items():
        ms, cpu_ms = median_ms(values), median_ms(cpu[name])
        print(f"{name:45s} wall {ms:7.1f} ms  ratio {ms / base:5.2f}   "
              f"cpu {cpu_ms:7.1f} ms  ratio {cpu_ms / base_cpu:5.2f}")


if __name__ == "__main__":
    main()
