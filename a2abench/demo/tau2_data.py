"""A small tau2-style task-tracker domain, generated (no upstream data), for the offline demo.

It uses the mock domain's tools (our own implementation) with a generated DB, generated tasks
and our own short policy and user guidelines, laid out like upstream's data/ folder so that
`run tau2 --domain mock --data-dir <dir>` reads it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

POLICY = """\
# Task tracker support policy

You help users manage the tasks in their task tracker.
- Create a task only for an existing user, with exactly the title the user asks for.
- Change a task's status only to "pending" or "completed", as the user asks.
- Tasks cannot be deleted. Transfer the user to a human agent for any request you cannot
  handle with your tools, then tell them they are being transferred.
"""

GUIDELINES = """\
You are playing a user who contacts a task-tracker support agent. Say the request from your
scenario, answer the agent's questions from the scenario only, and end the conversation by
writing ###STOP### when your request is done, or ###TRANSFER### if you are transferred.
"""

TITLES = ["Quarterly report", "Team offsite", "Budget review", "Hire a designer",
          "Renew licences", "Customer survey", "Plan the launch", "Fix the printer"]
NAMES = ["Ada Park", "Ben Osei", "Chloe Ruiz", "Dan Ito"]


def _task(task_id: str, request: str, actions: list[dict[str, Any]],
          basis: list[str]) -> dict[str, Any]:
    return {"id": task_id,
            "user_scenario": {"persona": "Brief and polite.",
                              "instructions": f"Request: {request}"},
            "evaluation_criteria": {"actions": actions, "reward_basis": basis}}


def _action(i: int, name: str, **arguments: Any) -> dict[str, Any]:
    return {"action_id": f"a{i}", "name": name, "arguments": arguments}


def tasks(rng: random.Random) -> list[dict[str, Any]]:
    """Twelve requests; two are phrased so that a keyword-matching agent misreads them."""
    out = []
    for i, title in enumerate(TITLES[:5]):
        user = f"user_{i % 4 + 1}"
        request = (f"Could you add '{title}' to my list? I am {user}." if i == 4
                   else f"Create a task titled '{title}' for {user}.")
        out.append(_task(f"create_{i + 1}", request,
                         [_action(i, "create_task", user_id=user, title=title)], ["DB"]))
    for i in range(5):
        task_id = f"task_{rng.randint(1, 8)}" if i else "task_1"
        request = (f"Please close out {task_id}, it is finished." if i == 4
                   else f"Mark {task_id} as completed.")
        out.append(_task(f"complete_{i + 1}", request,
                         [_action(i, "update_task_status", task_id=task_id, status="completed")],
                         ["DB", "ACTION"]))
    for i in range(2):
        transfer = _action(i, "transfer_to_human_agents", summary="delete a task")
        transfer["compare_args"] = []  # any summary matches, as in upstream's mock tasks
        out.append(_task(f"delete_{i + 1}", f"Delete task_{i + 2} permanently.", [transfer],
                         ["DB", "ACTION"]))
    return out


def write(root: Path, seed: int = 0) -> Path:
    """Write the domain under `root` (a folder like upstream's data/); return `root`."""
    rng = random.Random(seed)
    domain = root / "tau2" / "domains" / "mock"
    domain.mkdir(parents=True, exist_ok=True)
    users: dict[str, dict[str, Any]] = {
        f"user_{i + 1}": {"user_id": f"user_{i + 1}", "name": name, "tasks": []}
        for i, name in enumerate(NAMES)}
    db_tasks = {}
    for i in range(8):
        task_id, owner = f"task_{i + 1}", f"user_{i % 4 + 1}"
        db_tasks[task_id] = {"task_id": task_id, "title": TITLES[i], "description": None,
                             "status": "pending"}
        users[owner]["tasks"].append(task_id)
    task_list = tasks(rng)
    files = {"db.json": {"tasks": db_tasks, "users": users},
             "user_db.json": {"notifications": {}},
             "tasks.json": task_list,
             "split_tasks.json": {"base": [t["id"] for t in task_list]}}
    for name, content in files.items():
        (domain / name).write_text(json.dumps(content, indent=2), encoding="utf-8")
    (domain / "policy.md").write_text(POLICY, encoding="utf-8")
    guidelines = root / "tau2" / "user_simulator"
    guidelines.mkdir(parents=True, exist_ok=True)
    for name in ("simulation_guidelines.md", "simulation_guidelines_tools.md"):
        (guidelines / name).write_text(GUIDELINES, encoding="utf-8")
    return root
