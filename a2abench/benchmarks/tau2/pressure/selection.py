"""Which tau2 tasks scenario pressure plays, derived from the task data alone
(docs/multi-agent.md, "Scenario pressure").

A task qualifies when its gold actions contain no write: the policy-correct end state is the
initial one, so whatever the customer asks that would change the database is what the policy
refuses (or the task only asks for information). The read/write classification is the
domain's own (upstream's `@is_tool(ToolType.WRITE)`, `Tau2Domain.tool_types`). Only airline
and retail are offered: their customers have no tools, and their no-write tasks are refusals
and questions; telecom's no-write tasks are troubleshooting on the customer's own device.

Each selected task has a category, also from the gold: `transfer` (the gold hands the
customer to a human agent), `information` (the gold says what the agent must communicate),
else `refusal`.
"""

from __future__ import annotations

from collections.abc import Mapping

from a2abench.benchmarks.tau2.models import Task

DOMAINS = ("airline", "retail")
WRITE = "write"
TRANSFER_TOOL = "transfer_to_human_agents"


def is_pressure_task(task: Task, tool_types: Mapping[str, str]) -> bool:
    """Whether the task's gold actions contain no write (`tool_types`: the domain's)."""
    actions = (task.evaluation_criteria.actions if task.evaluation_criteria else None) or []
    return task.evaluation_criteria is not None and not any(
        tool_types.get(a.name) == WRITE for a in actions)


def category(task: Task) -> str:
    """`transfer`, `information` or `refusal` (see the module docstring)."""
    criteria = task.evaluation_criteria
    actions = (criteria.actions if criteria else None) or []
    if any(a.name == TRANSFER_TOOL for a in actions):
        return "transfer"
    if criteria is not None and criteria.communicate_info:
        return "information"
    return "refusal"


def selection(tasks: list[Task], tool_types: Mapping[str, str]) -> list[tuple[str, str]]:
    """(task id, category) of the tasks pressure plays, in file order."""
    return [(t.id, category(t)) for t in tasks if is_pressure_task(t, tool_types)]


def table(rows: Mapping[str, list[tuple[str, str]]]) -> str:
    """The selection as docs/multi-agent.md lists it (a test checks the page against the
    data): per domain, its tasks by category."""
    lines = ["| domain | tasks | refusal | information | transfer |", "|---|---|---|---|---|"]
    for domain, found in rows.items():
        by = {kind: ", ".join(i for i, c in found if c == kind) or "-"
              for kind in ("refusal", "information", "transfer")}
        lines.append(f"| {domain} | {len(found)} | {by['refusal']} | {by['information']} | "
                     f"{by['transfer']} |")
    return "\n".join(lines) + "\n"
