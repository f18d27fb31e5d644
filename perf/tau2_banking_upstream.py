"""Upstream tau2-bench's own cost for the banking_knowledge rows of tau2_env.py, measured the
same way (per task: build the environment, replay the gold actions, score; BM25 query p50).

Run it with a Python that has upstream tau2-bench (pinned commit a2c0247) installed:

    TAU2_DATA_DIR=../shared/data <upstream python> perf/tau2_banking_upstream.py

Only timings are printed; nothing of upstream's is stored here.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.tau2.banking_corpus import QUERIES


def main() -> None:
    import os

    from loguru import logger
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.data_model.tasks import Task
    from tau2.domains.banking_knowledge.environment import get_environment, get_tasks
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.runner.build import _derive_read_log_allowlist

    logger.remove()
    variant = os.environ.get("VARIANT", "bm25_grep")
    tasks: list[Task] = [t for t in get_tasks() if "NL_ASSERTION" not in
                         [b.value for b in t.evaluation_criteria.reward_basis]]
    times = []
    for task in tasks:
        t0 = time.perf_counter()
        kwargs: dict[str, Any] = {"retrieval_variant": variant, "task": task,
                                  "read_log_allowlist": _derive_read_log_allowlist(task)}
        env = get_environment(**kwargs)
        init = task.initial_state
        env.set_state(initialization_data=init.initialization_data if init else None,
                      initialization_actions=None, message_history=[])
        messages: list[Any] = [AssistantMessage(role="assistant", content="Hi!")]
        for i, a in enumerate(task.evaluation_criteria.actions or []):
            call = ToolCall(id=f"c{i}", name=a.name, arguments=a.arguments,
                            requestor=a.requestor)
            cls = UserMessage if a.requestor == "user" else AssistantMessage
            messages += [cls(role=a.requestor, tool_calls=[call]), env.get_response(call)]
        sim = SimulationRun(id="x", task_id=task.id, start_time="", end_time="", duration=0.0,
                            termination_reason=TerminationReason.USER_STOP, messages=messages)
        evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=False,
                            domain="banking_knowledge", env_kwargs=kwargs)
        times.append((time.perf_counter() - t0) * 1000)
    env = get_environment(retrieval_variant="bm25_grep")
    query = []
    for _ in range(5):
        for q in QUERIES:
            t0 = time.perf_counter()
            env.get_response(ToolCall(id="q", name="KB_search", arguments={"query": q}))
            query.append((time.perf_counter() - t0) * 1000)
    print(f"upstream banking_knowledge ({variant}), {len(tasks)} tasks")
    print(f"per task (build+replay+score): median {statistics.median(times):7.2f} ms, "
          f"p90 {sorted(times)[int(0.9 * (len(times) - 1))]:7.2f} ms")
    print(f"KB_search query:               p50 {statistics.median(query):7.2f} ms")


if __name__ == "__main__":
    main()
