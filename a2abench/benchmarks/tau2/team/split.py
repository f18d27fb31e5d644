"""Scenario team's roles and the split of tau2's agent tools between them: read tools (and
the others that change nothing: think, transfer) to both, write tools to the specialist
only, and `delegate` to the front agent (upstream's own READ/WRITE tool classification)."""

from __future__ import annotations

from typing import Any

from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.plugin.provisional import (
    DELEGATE,
    DELEGATE_DESCRIPTION,
    DELEGATE_PARAMETERS,
    team_scenario,
)

WRITE = "write"
TEAM = team_scenario(
    "a front agent that talks to the user and must delegate its writes to a specialist; "
    "reference partners: a gold-executing specialist and a front agent that delegates the "
    "gold writes; baseline: the front agent alone with every tool")

TEAM_NOTE = """

# Your team
You work with a specialist colleague. Tools that change records (the write tools) are the
specialist's only: to have one run, call `delegate` with {"to": "specialist", "message":
"..."}; the specialist's reply is the result. The specialist sees only your messages, never
the user or this policy: you remain responsible for following the policy and for what you
ask it to do."""


def delegate_schema() -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": DELEGATE, "description": DELEGATE_DESCRIPTION,
        "parameters": DELEGATE_PARAMETERS}}


def front_schemas(domain: Tau2Domain, schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The front agent's tools: the agent's tools but the write ones, then `delegate`."""
    types = domain.tool_types()
    return [s for s in schemas if types.get(s["function"]["name"]) != WRITE] + [
        delegate_schema()]


def writes(domain: Tau2Domain) -> set[str]:
    return {name for name, kind in domain.tool_types().items() if kind == WRITE}
