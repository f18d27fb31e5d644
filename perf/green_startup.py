"""Time from `a2abench serve-green` starting to the first byte of its agent card, and the
server's CPU seconds by then, against an earlier version measured in the same run.

    python perf/green_startup.py [--runs 9] [--baseline REV]

The baseline is the `a2abench` package of git revision REV (default `main`), unpacked into a
temporary folder and put first on PYTHONPATH; this checkout runs the same way. Runs are
interleaved so machine noise hits both alike. Each run: pick a free port, start the server,
connect (the socket is bound before the app runs in both versions, so the connection is
taken at once and the request waits in the backlog), send `GET /.well-known/agent-card.json`,
and time the first byte of the answer; the server's CPU time (user + system, from /proc) is
read at that moment. Then `/readyz` is polled until 200 (the full app built) for the second
figure, and the server is stopped with SIGINT. Target (issue 35): the card well inside the
AgentBeats gateway's fixed 30 s wait on a saturated machine.
"""

from __future__ import annotations

import argparse
import compileall
import os
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from _util import ROOT, load, machine, median_ms


def unpack(rev: str, into: Path) -> Path:
    """The `a2abench` package of `rev` under `into`, byte-compiled as a wheel install is."""
    archive = into / "base.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), rev, "a2abench"],
                   check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    compileall.compile_dir(into / "a2abench", quiet=1)
    return into


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_byte(port: int, path: str, deadline: float) -> bytes:
    """Connect (retrying until the server listens), GET `path`, return the answer's head."""
    while time.perf_counter() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
                conn.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                head = conn.recv(64)
                if head:
                    return head
        except OSError:
            time.sleep(0.002)
    raise SystemExit(f"no answer at {path} within the deadline")


def one(pythonpath: Path, out: Path) -> tuple[float, float, float]:
    """(seconds to the card's first byte, CPU seconds by then, seconds to /readyz 200)."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "PYTHONUNBUFFERED": "1"}
    t0 = time.perf_counter()
    # cwd: `python -m` puts the working directory first on sys.path, before PYTHONPATH.
    proc = subprocess.Popen([sys.executable, "-m", "a2abench", "serve-green", "--port",
                             str(port), "--output-dir", str(out)], env=env, cwd=out.parent,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = t0 + 120
        head = first_byte(port, "/.well-known/agent-card.json", deadline)
        card_s, cpu = time.perf_counter() - t0, cpu_seconds(proc.pid)
        if b" 200 " not in head:
            raise SystemExit(f"the card did not answer 200: {head!r}")
        while b" 200 " not in first_byte(port, "/readyz", deadline):
            time.sleep(0.005)
        return card_s, cpu, time.perf_counter() - t0
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--baseline", default="main", help="git revision to compare with")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "a2abench", quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "base").mkdir()
        trees = {f"baseline ({args.baseline})": unpack(args.baseline, Path(tmp) / "base"),
                 "this checkout": ROOT}
        out = Path(tmp) / "work" / "runs"
        out.parent.mkdir()
        for name, tree in trees.items():  # each tree runs its own code, not another's
            found = subprocess.run([sys.executable, "-c", "import a2abench; print("
                                    "a2abench.__file__)"], env={**os.environ, "PYTHONPATH":
                                   str(tree)}, cwd=out.parent, capture_output=True, text=True,
                                   check=True).stdout.strip()
            assert Path(found).is_relative_to(tree), (name, found)
        for tree in trees.values():  # warm-up: the OS page cache, not measured
            one(tree, out)
        samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in trees}
        print(f"# serve-green start, {args.runs} interleaved runs, {machine()}, {load()}")
        for _ in range(args.runs):
            for name, tree in trees.items():
                samples[name].append(one(tree, out))
        print(f"# after: {load()}")
    base = samples[next(iter(trees))]
    for name, runs in samples.items():
        figures = [median_ms([run[i] for run in runs]) for i in range(3)]
        ratios = [figures[i] / median_ms([run[i] for run in base]) for i in range(3)]
        print(f"{name:28s} card {figures[0]:7.0f} ms (ratio {ratios[0]:4.2f})  "
              f"cpu {figures[1]:6.0f} ms (ratio {ratios[1]:4.2f})  "
              f"ready {figures[2]:7.0f} ms (ratio {ratios[2]:4.2f})")


if __name__ == "__main__":
    main()
