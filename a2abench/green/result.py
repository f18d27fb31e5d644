"""What an assessment returns: a one-paragraph text summary and a flat, leaderboard-friendly
JSON object (AgentBeats leaderboards query keys such as `summary.pass_rate` with DuckDB)."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from a2abench._version import __version__
from a2abench.report.aggregate import SCORED, GroupStats, Report
from a2abench.run.config import RunConfig
from a2abench.run.events import Progress


def progress_text(p: Progress) -> str:
    """`3/10 done, pass rate 66.7%` (the running score over the task-trials scored so far)."""
    rate = "n/a" if p.pass_rate is None else f"{100 * p.pass_rate:.1f}%"
    text = f"{p.done}/{p.total} done, pass rate {rate}"
    errors = p.infra_errors + p.harness_errors
    return text + (f", {errors} not scored (errors)" if errors else "")


def progress_data(p: Progress) -> dict[str, Any]:
    return {"done": p.done, "total": p.total, "passed": p.passed, "scored": p.scored,
            "pass_rate": p.pass_rate,
            "mean_reward": p.reward_sum / p.scored if p.scored else None,
            "agent_errors": p.agent_errors, "infra_errors": p.infra_errors}


def _group(g: GroupStats) -> dict[str, Any]:
    return {"count": g.task_trials, "passed": g.passed, "pass_rate": g.pass_rate,
            "mean_reward": g.mean_reward}


def _task_rewards(report: Report) -> dict[str, float | None]:
    """Mean reward per task over its scored trials (None when no trial was scored)."""
    rewards: dict[str, list[float]] = defaultdict(list)
    for line in report.lines:
        bucket = rewards[line.task_id]
        if line.status in SCORED:
            bucket.append(line.reward or 0.0)
    return {task: (sum(v) / len(v) if v else None) for task, v in rewards.items()}


def result_data(report: Report | None, config: RunConfig, status: str,
                participants: dict[str, str], request_format: str) -> dict[str, Any]:
    """The Result DataPart. `report` is None when no task-trial finished."""
    base: dict[str, Any] = {
        "benchmark": config.benchmark, "status": status, "format": request_format,
        "version": __version__, "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "participants": dict(participants), "config": config.public(),
        "metrics_path": str(config.output) if config.output else None,
    }
    if report is None:
        return base | {"summary": {"pass_rate": None, "score": None, "total_tasks": 0,
                                   "total_passed": 0, "task_trials": 0},
                       "by_category": {}, "by_domain": {}, "pass_k": {}, "tasks": {}}
    return base | {
        "domain": ", ".join(report.domains) or None,
        "summary": {"pass_rate": report.pass_rate, "score": report.score,
                    "score_method": report.score_method, "mean_reward": report.mean_reward,
                    "total_tasks": report.tasks, "total_passed": report.passed,
                    "task_trials": report.task_trials, "scored": report.scored,
                    "errors": report.errors},
        "by_category": {g.name: _group(g) for g in report.by_category if g.name != "-"},
        "by_domain": {g.name: _group(g) for g in report.by_domain if g.name != "-"},
        "pass_k": {str(p.k): p.value for p in report.pass_k},
        "tasks": _task_rewards(report),
    }


def summary_text(data: dict[str, Any], agent: str) -> str:
    s = data["summary"]
    what = data["benchmark"] + (f" ({data['domain']})" if data.get("domain") else "")
    if not s["task_trials"]:
        return f"{what} against {agent}: no task-trial finished ({data['status']})."
    rate = "n/a" if s["pass_rate"] is None else f"{100 * s['pass_rate']:.1f}%"
    score = "n/a" if s["score"] is None else f"{s['score']:.4f}"
    lines = [f"{what} against {agent}: {data['status']}. {s['total_passed']}/{s['scored']} "
             f"task-trials passed over {s['total_tasks']} tasks; pass rate {rate}, "
             f"score {score}."]
    if data["pass_k"]:
        lines.append("pass^k: " + ", ".join(f"k={k} {v:.3f}" for k, v in data["pass_k"].items()))
    if data["by_category"]:
        lines.append("by category: " + ", ".join(
            f"{name} {_pct(g['pass_rate'])} ({g['passed']}/{g['count']})"
            for name, g in data["by_category"].items()))
    if data.get("metrics_path"):
        lines.append(f"metrics: {data['metrics_path']} (on the server)")
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"
