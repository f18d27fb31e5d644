"""Solo trajectories (issue 18 item 5), built by rule from the task files; stdlib only, so
scripts/tau2_solo_golden.py can run them through upstream. `golden/solo.json` holds
upstream's rewards for them (solo mode, `agent_stop`).

For every solo-valid mock task and the first 12 telecom base tasks: the gold actions, all
called by the agent (solo mode gives it the user's tools); for mock also "nothing" (the agent
calls `done` at once).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SOLO_MOCK = ["create_task_1", "create_task_1_with_env_assertions", "update_task_1",
             "update_task_with_initialization_data", "update_task_with_initialization_actions",
             "update_task_with_user_tools", "impossible_task_1"]


@cache  # telecom's tasks.json is 14 MB: read once per process, not once per test
def _tasks(data: Path, domain: str) -> list[dict[str, Any]]:
    folder = data / "tau2" / "domains" / domain
    base = json.loads((folder / "split_tasks.json").read_text())["base"]
    wanted = set(base)
    return [t for t in json.loads((folder / "tasks.json").read_text()) if t["id"] in wanted]


def _gold(task: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": a["name"], "arguments": a["arguments"]}
            for a in (task.get("evaluation_criteria") or {}).get("actions") or []]


def trajectories(data: Path) -> list[dict[str, Any]]:
    """`[{"id", "domain", "task", "calls": [{"name", "arguments"}]}]`."""
    out = []
    mock = {t["id"]: t for t in _tasks(data, "mock")}
    for task_id in SOLO_MOCK:
        out.append({"id": f"mock:{task_id}:gold", "domain": "mock", "task": task_id,
                    "calls": _gold(mock[task_id])})
        out.append({"id": f"mock:{task_id}:nothing", "domain": "mock", "task": task_id,
                    "calls": []})
    for task in _tasks(data, "telecom")[:12]:
        out.append({"id": f"telecom:{task['id']}:gold", "domain": "telecom",
                    "task": task["id"], "calls": _gold(task)})
    return out
