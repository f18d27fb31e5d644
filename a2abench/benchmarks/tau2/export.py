"""`report --format tau2`: our records as upstream's `Results` JSON (what `tau2 view` opens)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any


def _duration(start: str, end: str) -> float:
    try:
        return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    except ValueError:
        return 0.0


def _simulation(rec: dict[str, Any]) -> dict[str, Any]:
    info = (rec.get("details") or {}).get("reward_info")
    termination = rec.get("termination") or "infrastructure_error"
    messages = rec.get("transcript") or []
    user_cost = sum(m.get("cost") or 0.0 for m in messages if m.get("role") == "user")
    return {
        "id": f"{rec['run_id']}-{rec['task_id']}-{rec['trial']}", "task_id": rec["task_id"],
        "timestamp": rec.get("finished_at"), "start_time": rec.get("started_at"),
        "end_time": rec.get("finished_at"),
        "duration": _duration(rec.get("started_at", ""), rec.get("finished_at", "")),
        "termination_reason": termination, "agent_cost": None, "user_cost": user_cost,
        "reward_info": info, "messages": messages, "trial": rec["trial"], "seed": rec.get("seed"),
        "mode": "half_duplex",
        "info": {"a2abench": {"status": rec.get("status"), "labels": rec.get("labels"),
                              "error": rec.get("error")}},
    }


def results_json(records: Iterator[dict[str, Any]], run: dict[str, Any]) -> str:
    """One upstream-compatible Results document for the task records of a run."""
    from a2abench.benchmarks.tau2.domain import load_domain
    from a2abench.benchmarks.tau2.options import Tau2Options, embedding_config

    config = run.get("config") or {}
    options = config.get("options") or {}
    simulations = [_simulation(r) for r in records]
    known = {k: v for k, v in options.items() if k in Tau2Options.model_fields and v is not None}
    domain = load_domain(options.get("domain", run.get("domain") or "airline"),
                         data_dir=options.get("data_dir"), split=options.get("split", "base"),
                         policy=options.get("policy", "manual"),
                         solo=bool(options.get("solo")),
                         retrieval_variant=options.get("retrieval_variant"),
                         embedding=embedding_config(Tau2Options(**known)))
    wanted = {s["task_id"] for s in simulations}
    tasks = [t.model_dump(mode="json", exclude_none=True) for t in domain.tasks()
             if t.id in wanted]
    user = (run.get("models") or {}).get("user_simulator") or {}
    solo = domain.solo_policy is not None  # upstream's solo runs: llm_agent_solo + dummy_user
    results = {
        "timestamp": run.get("started_at"),
        "info": {
            "git_commit": (run.get("data") or {}).get("commit", "unknown"),
            "num_trials": config.get("num_trials", 1),
            "max_steps": options.get("max_steps", 200),
            "max_errors": options.get("max_errors", 10), "seed": config.get("seed"),
            "user_info": {"implementation": "dummy_user" if solo else "user_simulator",
                          "llm": user.get("model"),
                          "llm_args": user.get("args"),
                          "global_simulation_guidelines": domain.user_guidelines},
            "agent_info": {"implementation": "a2a_agent (a2abench)" + (" solo" if solo else ""),
                           "llm": config.get("white_agent_url"), "llm_args": None},
            "environment_info": {"domain_name": domain.name,
                                 "policy": domain.solo_policy if solo else domain.policy,
                                 "tool_defs": None},
            **({"retrieval_config": domain.policy_kind}
               if domain.name == "banking_knowledge" else {}),
        },
        "tasks": tasks,
        "simulations": simulations,
    }
    return json.dumps(results, indent=2, ensure_ascii=False)
