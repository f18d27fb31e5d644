"""Record tests/tau2/golden/solo.json with upstream tau2-bench (issue 18 item 5).

Each solo trajectory of tests/tau2/solo_corpus.py is played through upstream's own
environment in solo mode (the agent's calls to the user's tools run on the user's side),
ended with the solo agent's stop message, and scored by `evaluate_simulation(solo_mode=True)`.
Only rewards and verdicts are kept. Run with a Python that has upstream tau2-bench installed
at the pinned commit a2c0247 (not a dependency of a2abench):

    TAU2_DATA_DIR=<tau2-bench>/data <upstream-python> scripts/tau2_solo_golden.py OUT.json
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _corpus() -> Any:
    path = ROOT / "tests" / "tau2" / "solo_corpus.py"
    spec = importlib.util.spec_from_file_location("solo_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def score(traj: dict[str, Any], task: Any) -> dict[str, Any]:
    from tau2.data_model.message import AssistantMessage, ToolCall
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    env = registry.get_env_constructor(traj["domain"])(solo_mode=True)
    state = task.initial_state
    if state is not None:
        env.set_state(state.initialization_data, state.initialization_actions, [])
    messages: list[Any] = list(state.message_history or []) if state else []
    for i, c in enumerate(traj["calls"]):
        call = ToolCall(id=f"c{i}", name=c["name"], arguments=c["arguments"])
        messages.append(AssistantMessage(role="assistant", content=None, tool_calls=[call]))
        messages.append(env.get_response(call))
    messages.append(AssistantMessage(role="assistant", content="###STOP###"))
    sim = SimulationRun(id="solo", task_id=task.id, start_time="", end_time="", duration=0.0,
                        termination_reason=TerminationReason.AGENT_STOP, messages=messages)
    info = evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=True,
                               domain=traj["domain"])
    return {"reward": info.reward,
            "breakdown": {k.value: v for k, v in (info.reward_breakdown or {}).items()},
            "db_match": info.db_check.db_match if info.db_check else None}


def main() -> int:
    from tau2.registry import registry

    corpus = _corpus()
    tasks: dict[tuple[str, str], Any] = {}
    for domain in ("mock", "telecom"):
        for task in registry.get_tasks_loader(domain)("base"):
            tasks[(domain, task.id)] = task
    data = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT.parent / "shared" / "data"
    out = {}
    for t in corpus.trajectories(data):
        try:
            out[t["id"]] = score(t, tasks[(t["domain"], t["task"])])
        except Exception as exc:  # upstream's evaluator raises for some (kept as such)
            out[t["id"]] = {"exception": f"{type(exc).__name__}: {exc}"[:300]}
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
