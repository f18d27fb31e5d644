"""tau2 scoring of failed trajectories: what the DB diff (the report viewer's "what differs")
adds to the evaluator on banking_knowledge, whose DB has ~10^5 leaves.

    python perf/tau2_scoring.py [--data-dir ../shared/data] [--rounds 3]

Scores the do-nothing trajectory of every banking task (most of them fail the DB check, so
the diff runs) and prints the median ms per task; the baseline in the same run is the
canonical JSON text of the whole banking DB (`json.dumps(..., sort_keys=True)`), the work
one full hash of it costs. Run it against
another checkout with PYTHONPATH=that/checkout to compare versions by their ratios.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from a2abench.benchmarks.tau2.db import canonical
from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.evaluator import evaluate_offline
from a2abench.benchmarks.tau2.models import AssistantMessage, UserMessage


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    domain = load_domain("banking_knowledge", data_dir=args.data_dir)
    tasks = domain.tasks()
    nothing = [AssistantMessage(role="assistant", content="Hi! How can I help you today?"),
               UserMessage(role="user", content="Bye. ###STOP###")]
    hashes, scores, failed = [], [], 0
    for _ in range(args.rounds):
        for task in tasks:
            env = domain.fresh_environment()
            t0 = time.perf_counter()
            canonical(env.tools.db.dump())
            hashes.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            info = evaluate_offline(task, nothing, "user_stop", domain=domain)
            scores.append(time.perf_counter() - t0)
            failed += bool(info.db_check and not info.db_check.db_match)
    base, score = statistics.median(hashes) * 1000, statistics.median(scores) * 1000
    print(f"{len(tasks)} banking tasks x {args.rounds}, {failed // args.rounds} failing the DB "
          f"check; median per task: score {score:.1f} ms, baseline canonical DB text "
          f"{base:.1f} ms, ratio {score / base:.2f}")


if __name__ == "__main__":
    main()
