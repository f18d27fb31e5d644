"""Peak RSS and wall time of `a2abench run crmarena` (its own process) when the agent answers
every turn with a 50 MB JSON-RPC result, against the same run with a normal agent.

    python perf/hostile_reply.py [--repeat 3]

2 task-trials, concurrency 1, the default --max-reply-bytes (16 MB), the synthetic b2b org,
offline judge. Peak RSS is the child's own (os.wait4). Target (issue 18 item 11): peak RSS of
the 50 MB probe under 300 MB (it was 6.5 GB and 56 s before the byte cap).
"""

from __future__ import annotations

import argparse
import statistics

from _util import machine

from tests.hostile.probe_run import probe_run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows: dict[str, list[tuple[float, float]]] = {"normal": [], "oversize": []}
    for _ in range(args.repeat):  # alternate so machine noise hits both alike
        for mode in rows:
            run = probe_run(mode, tasks=2, hostile_calls=2)
            expected = "ok" if mode == "normal" else "agent_error"
            if run.code != 0 or any(t["status"] != expected for t in run.tasks):
                raise SystemExit(f"{mode}: unexpected outcome (exit {run.code}): {run.stderr}")
            rows[mode].append((run.wall_s, run.peak_rss_mb))
    print(machine())
    print(f"{'reply':<22} {'wall s (median)':>16} {'peak RSS MB (max)':>18}")
    base_wall = statistics.median(w for w, _ in rows["normal"])
    base_rss = max(r for _, r in rows["normal"])
    for mode, label in (("normal", "normal reply"), ("oversize", "50 MB reply")):
        wall = statistics.median(w for w, _ in rows[mode])
        rss = max(r for _, r in rows[mode])
        print(f"{label:<22} {wall:>16.2f} {rss:>18.0f}   "
              f"({wall / base_wall:.2f}x wall, {rss / base_rss:.2f}x RSS of normal)")


if __name__ == "__main__":
    main()
