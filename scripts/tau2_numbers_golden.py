"""Record tests/tau2/golden/numbers.json with upstream tau2-bench (issue 18 item 1).

Runs the corpus of tests/tau2/numbers_corpus.py through upstream's own environment and
evaluator and keeps hashes only (no data content). Needs a Python with upstream tau2-bench
installed at the pinned commit a2c0247 (Python >= 3.12, its own venv; not a dependency of
a2abench):

    TAU2_DATA_DIR=<tau2-bench>/data <upstream-python> scripts/tau2_numbers_golden.py OUT.json

`tests/tau2/test_numbers.py` re-runs this and compares with the committed file when
TAU2_UPSTREAM_PYTHON is set.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_PYDANTIC_URL = re.compile(r"errors\.pydantic\.dev/[0-9.]+/")


def _corpus() -> Any:
    spec = importlib.util.spec_from_file_location("numbers_corpus",
                                                  ROOT / "tests" / "tau2" / "numbers_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sha(text: str) -> str:
    return hashlib.sha256(_PYDANTIC_URL.sub("errors.pydantic.dev/VERSION/", text)
                          .encode()).hexdigest()


def _environment(domain: str, task: Any = None) -> Any:
    from tau2.registry import registry

    env = registry.get_env_constructor(domain)()
    if task is not None and task.initial_state is not None:
        state = task.initial_state
        env.set_state(state.initialization_data, state.initialization_actions, [])
    return env


def _run(env: Any, calls: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage

    rows, messages = [], []
    for i, c in enumerate(calls):
        call = ToolCall(id=f"c{i}", name=c["name"], arguments=c["arguments"],
                        requestor=c["requestor"])
        cls = AssistantMessage if c["requestor"] == "assistant" else UserMessage
        messages.append(cls(role=c["requestor"], content=None, tool_calls=[call]))
        result = env.get_response(call)
        messages.append(result)
        rows.append([sha(result.content or ""), result.error])
    return rows, messages


def sequence(seq: dict[str, Any]) -> dict[str, Any]:
    """Calls on a fresh environment, twice: a DB hash that differs between the runs is
    nondeterministic upstream (telecom names new bills with a random uuid) and kept as None."""
    first, second = _environment(seq["domain"]), _environment(seq["domain"])
    rows, _ = _run(first, seq["calls"])
    _run(second, seq["calls"])
    db = [first.get_db_hash(), first.get_user_db_hash()]
    again = [second.get_db_hash(), second.get_user_db_hash()]
    return {"calls": rows, "db": db[0] if db[0] == again[0] else None,
            "user_db": db[1] if db[1] == again[1] else None}


def trajectory(traj: dict[str, Any], tasks: dict[str, Any]) -> dict[str, Any]:
    from tau2.data_model.message import AssistantMessage, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    task = tasks[traj["task"]]
    env = _environment(traj["domain"], task)
    history = list(task.initial_state.message_history or []) if task.initial_state else []
    _, messages = _run(env, traj["calls"])
    messages = [*history, *messages, AssistantMessage(role="assistant", content="Done."),
                UserMessage(role="user", content="Thanks! ###STOP###")]
    sim = SimulationRun(id="numbers", task_id=task.id, start_time="", end_time="",
                        duration=0.0, termination_reason=TerminationReason.USER_STOP,
                        messages=messages)
    info = evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=False,
                               domain=traj["domain"])
    return {"reward": info.reward,
            "db_match": info.db_check.db_match if info.db_check else None}


def main() -> int:
    from tau2.registry import registry

    corpus = _corpus()
    out: dict[str, Any] = {"sequences": {s["id"]: sequence(s) for s in corpus.sequences()}}
    tasks: dict[str, Any] = {}
    for domain in {t["domain"] for t in corpus.trajectories()}:
        for task in registry.get_tasks_loader(domain)("base"):
            tasks[task.id] = task
    out["trajectories"] = {t["id"]: trajectory(t, tasks) for t in corpus.trajectories()}
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
