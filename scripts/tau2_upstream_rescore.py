"""Score a2abench tau2 task records with upstream tau2-bench's own evaluator, side by side.

Run it with a Python that has upstream tau2-bench installed (it is not a dependency of
a2abench and not on PyPI), at the pinned commit a2c0247:

    TAU2_DATA_DIR=<tau2-bench>/data python scripts/tau2_upstream_rescore.py runs/x/metrics.jsonl

Prints, per task-trial, upstream's reward next to ours, and exits 1 if any differ. NL
assertions are not judged on either side (upstream would call its judge model), so tasks whose
basis includes NL_ASSERTION are compared on the other components only.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> int:
    from tau2.data_model.message import AssistantMessage, ToolMessage, UserMessage
    from tau2.data_model.simulation import SimulationRun
    from tau2.data_model.tasks import RewardType, Task
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    records = [json.loads(line) for path in sys.argv[1:]
               for line in Path(path).read_text().splitlines()
               if '"type":"task"' in line]
    data = Path(os.environ["TAU2_DATA_DIR"]) / "tau2" / "domains"
    tasks: dict[tuple[str, str], Task] = {}
    differ = 0
    for rec in records:
        if rec.get("status") not in ("ok", "agent_error") or not rec.get("transcript"):
            continue
        domain = rec["domain"]
        if not any(d == domain for d, _ in tasks):
            for raw in json.loads((data / domain / "tasks.json").read_text()):
                tasks[(domain, raw["id"])] = Task.model_validate(raw)
        task = tasks[(domain, rec["task_id"])]
        kinds = {"assistant": AssistantMessage, "user": UserMessage, "tool": ToolMessage}
        messages = [kinds[m["role"]].model_validate(m) for m in rec["transcript"]]
        sim = SimulationRun(id="a2abench", task_id=task.id, start_time="", end_time="",
                            duration=0.0, termination_reason=rec["termination"],
                            messages=messages)
        criteria = task.evaluation_criteria
        if criteria is not None and RewardType.NL_ASSERTION in criteria.reward_basis:
            criteria.reward_basis = [b for b in criteria.reward_basis
                                     if b != RewardType.NL_ASSERTION]
        info = evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=False,
                                   domain=domain)
        ours = rec["reward"]
        mark = "same" if abs(info.reward - ours) < 1e-9 else "DIFFERENT"
        differ += mark != "same"
        print(f"{domain} {task.id} trial {rec['trial']}: upstream {info.reward} "
              f"a2abench {ours} {mark}")
    print(f"{len(records)} task-trials, {differ} different")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
