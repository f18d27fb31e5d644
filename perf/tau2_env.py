"""tau2 environment cost: per-task build + gold replay + scoring, and memory in flight.

    python perf/tau2_env.py [--data-dir ../shared/data] [--in-flight 64]

Prints, for the airline domain:
* one-time load (parse + validate the 7 MB DB, tasks, schemas);
* median / p90 ms per task to build the environment, replay the task's gold actions and
  score the trajectory (DB check included), over every airline task (3 rounds);
* baseline in the same run: one `copy.deepcopy` of the airline DB, i.e. what a per-task
  private copy of the DB alone would cost, and the ratio to our whole per-task time;
* telecom per task (base split), for information;
* peak RSS with N task-trials in flight (environments alive at once, each with its gold
  actions applied and scored), and the RSS growth attributable to them.
Targets (issue): <= 20 ms per task, <= 600 MB peak with 64 in flight.

Then banking_knowledge (issue 14, bm25_grep variant): per task over all 97 tasks, a BM25
`KB_search` and a `grep` query p50 over a fixed query set, RSS with N banking task-trials in
flight, and the baseline `copy.deepcopy` of the banking DB. Targets: <= 20 ms per task,
<= 5 ms per retrieval query, <= 600 MB with 64 in flight.
"""

from __future__ import annotations

import argparse
import copy
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.benchmarks.tau2.evaluator import evaluate_offline
from a2abench.benchmarks.tau2.models import AssistantMessage, Task, ToolCall, UserMessage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.tau2.banking_corpus


def rss_mb() -> float:
    """Peak RSS of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    """Current RSS (VmRSS), to attribute growth to the trials in flight."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def trial(domain: Tau2Domain, task: Task) -> tuple[Any, float]:
    """Build, replay gold actions as an agent would, score. Returns (env, reward)."""
    env = domain.new_environment(task)
    messages: list[Any] = []
    for i, action in enumerate(task.evaluation_criteria.actions or []):  # type: ignore[union-attr]
        call = ToolCall(id=f"c{i}", name=action.name, arguments=action.arguments,
                        requestor=action.requestor)
        cls = AssistantMessage if action.requestor == "assistant" else UserMessage
        messages.append(cls(tool_calls=[call]))
        messages.append(env.execute(call))
    said = " ".join(task.evaluation_criteria.communicate_info or [])  # type: ignore[union-attr]
    messages.append(AssistantMessage(content=f"Done. {said}"))
    info = evaluate_offline(task, messages, "user_stop", domain=domain)
    return env, info.reward


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--in-flight", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    start = time.perf_counter()
    domain = load_domain("airline", data_dir=args.data_dir)
    load_s = time.perf_counter() - start
    tasks = domain.tasks()
    rss_loaded = current_rss_mb()

    times = []
    for _ in range(args.rounds):
        for task in tasks:
            t0 = time.perf_counter()
            _, reward = trial(domain, task)
            times.append((time.perf_counter() - t0) * 1000)
            assert reward == 1.0, task.id
    times.sort()
    median = statistics.median(times)
    p90 = times[int(0.9 * (len(times) - 1))]

    before = current_rss_mb()
    alive = [trial(domain, tasks[i % len(tasks)])[0] for i in range(args.in_flight)]
    in_flight = current_rss_mb()
    peak = rss_mb()
    t0 = time.perf_counter()
    copy.deepcopy(domain.base_db.data)
    deepcopy_ms = (time.perf_counter() - t0) * 1000

    telecom = load_domain("telecom", data_dir=args.data_dir)
    telecom_times = []
    for task in telecom.tasks():
        t0 = time.perf_counter()
        trial(telecom, task)
        telecom_times.append((time.perf_counter() - t0) * 1000)


    print(f"python {sys.version.split()[0]}, airline, {len(tasks)} tasks x {args.rounds} rounds")
    print(f"one-time load:                 {load_s * 1000:8.1f} ms")
    print(f"per task (build+replay+score): median {median:6.2f} ms, p90 {p90:6.2f} ms "
          f"(target <= 20 ms)")
    print(f"baseline deepcopy of the DB:   {deepcopy_ms:8.1f} ms "
          f"(ratio median/deepcopy = {median / deepcopy_ms:.3f})")
    print(f"telecom per task (base split): median {statistics.median(telecom_times):6.2f} ms")
    print(f"RSS after load:                {rss_loaded:8.1f} MB")
    print(f"RSS with {len(alive)} in flight:        {in_flight:8.1f} MB "
          f"(+{in_flight - before:.1f} MB for the trials)")
    print(f"peak RSS of the process:       {peak:8.1f} MB (target <= 600 MB)")
    banking(args)


def banking(args: argparse.Namespace) -> None:
    from tests.tau2.banking_corpus import GREP_PATTERNS, QUERIES

    start = time.perf_counter()
    domain = load_domain("banking_knowledge", data_dir=args.data_dir,
                         retrieval_variant="bm25_grep")
    domain.kb.bm25()  # type: ignore[attr-defined]  # the index is built once per process
    load_s = time.perf_counter() - start
    tasks = domain.tasks()
    times = []
    for _ in range(args.rounds):
        for task in tasks:
            t0 = time.perf_counter()
            _, reward = trial(domain, task)
            times.append((time.perf_counter() - t0) * 1000)
            assert reward == 1.0, task.id
    env = domain.fresh_environment()
    query_times: dict[str, list[float]] = {"KB_search": [], "grep": []}
    for _ in range(args.rounds * 5):
        for name, key, items in (("KB_search", "query", QUERIES),
                                 ("grep", "pattern", GREP_PATTERNS)):
            for item in items:
                t0 = time.perf_counter()
                env.execute(ToolCall(id="q", name=name, arguments={key: item}))
                query_times[name].append((time.perf_counter() - t0) * 1000)
    before = current_rss_mb()
    alive = [trial(domain, tasks[i % len(tasks)])[0] for i in range(args.in_flight)]
    in_flight = current_rss_mb()
    t0 = time.perf_counter()
    copy.deepcopy(domain.base_db.tables)  # type: ignore[union-attr]
    deepcopy_ms = (time.perf_counter() - t0) * 1000
    median = statistics.median(times)
    print(f"banking_knowledge, {len(tasks)} tasks x {args.rounds} rounds (bm25_grep)")
    print(f"one-time load (+ BM25 index):  {load_s * 1000:8.1f} ms")
    print(f"per task (build+replay+score): median {median:6.2f} ms, "
          f"p90 {sorted(times)[int(0.9 * (len(times) - 1))]:6.2f} ms (target <= 20 ms)")
    print(f"baseline deepcopy of the DB:   {deepcopy_ms:8.2f} ms "
          f"(ratio median/deepcopy = {median / deepcopy_ms:.3f})")
    for name, values in query_times.items():
        print(f"{name} query:{'':<{21 - len(name)}}p50 {statistics.median(values):6.2f} ms, "
              f"max {max(values):6.2f} ms (target p50 <= 5 ms)")
    print(f"RSS with {len(alive)} in flight:        {in_flight:8.1f} MB "
          f"(+{in_flight - before:.1f} MB for the trials)")
    print(f"peak RSS of the process:       {rss_mb():8.1f} MB (target <= 600 MB)")


if __name__ == "__main__":
    main()
