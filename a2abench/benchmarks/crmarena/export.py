"""`report --format crmarena`: a run's scores laid out as the papers report them.

Per category the mean reward (token F1 for free-text tasks), the overall score as the macro
average over the business categories, and confidentiality awareness (the three privacy
categories) apart. One run is one split (b2b, b2c, their interactive variants, or original);
report each run to compare them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from a2abench.benchmarks.crmarena.tasks import PRIVACY_CATEGORIES
from a2abench.plugin.provisional import SCORED_STATUSES as SCORED


def _macro(means: list[float]) -> float | None:
    return sum(means) / len(means) if means else None


def paper_scores(records: Iterator[dict[str, Any]], run: dict[str, Any]) -> str:
    """Each category's mean over its task-trials, an unscored one counting 0 (`report`
    refuses this format for a run with task-trials never recorded); `overall_scored_only`
    is the macro average over the scored task-trials alone."""
    rewards: dict[str, list[float]] = defaultdict(list)
    scored: dict[str, list[float]] = defaultdict(list)
    metric: dict[str, str] = {}
    labels: set[str] = set()
    unscored = 0
    for rec in records:
        category = rec.get("category") or "-"
        if rec.get("status") not in SCORED:
            unscored += 1
            rewards[category].append(0.0)
            continue
        rewards[category].append(float(rec.get("reward") or 0.0))
        scored[category].append(rewards[category][-1])
        metric[category] = (rec.get("details") or {}).get("reward_metric", "")
        labels.add("offline" if "offline" in (rec.get("labels") or []) else "judged")
    means = {c: sum(v) / len(v) for c, v in sorted(rewards.items())}
    scored_means = {c: sum(v) / len(v) for c, v in scored.items()}
    options = (run.get("compat_key") or {}).get("options") or {}  # dataset/org resolved
    doc = {
        "benchmark": "crmarena", "split": run.get("domain"),
        "dataset": options.get("dataset"), "org": options.get("org"),
        "interactive": bool(options.get("interactive")),
        "scoring": labels.pop() if len(labels) == 1 else "mixed" if labels else None,
        "overall": _macro([m for c, m in means.items() if c not in PRIVACY_CATEGORIES]),
        "overall_scored_only": _macro([m for c, m in scored_means.items()
                                       if c not in PRIVACY_CATEGORIES]),
        "confidentiality": _macro([m for c, m in means.items() if c in PRIVACY_CATEGORIES]),
        "categories": {c: {"mean_reward": m, "task_trials": len(rewards[c]),
                           "reward_metric": metric.get(c, "")} for c, m in means.items()},
        "unscored_task_trials": unscored,
    }
    return json.dumps(doc, indent=2) + "\n"
