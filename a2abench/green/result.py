"""What an assessment returns: a one-paragraph text summary and a flat, leaderboard-friendly
JSON object (AgentBeats leaderboards query keys such as `summary.pass_rate` with DuckDB). The
JSON travels as text (`result_json`): an A2A DataPart is a protobuf Struct on the wire, whose
numbers are all doubles, so counts would arrive as `2.0`.

AgentBeats publishes the Result in public leaderboard repositories, so it holds what a reader
of the leaderboard needs (benchmark, domain/org, split, tasks, trials, models, scores, version)
and nothing of the operator's: no paths, endpoints, host policy, tokens or metrics location.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from a2abench._version import __version__
from a2abench.errors import ConfigError
from a2abench.report.aggregate import SCORED, GroupStats, Report, natural
from a2abench.report.wording import passed_over, unscored_note
from a2abench.run.config import RunConfig, redact
from a2abench.run.events import Progress

# The run-level settings a leaderboard reader needs; the rest of RunConfig is the operator's.
PUBLIC_RUN_KEYS = ("task_ids", "max_tasks", "num_trials", "seed")
# An adaptive run's settings, shown only for adaptive runs (full runs' Results stay as they were).
ADAPTIVE_KEYS = ("target_ci", "adaptive_gate", "fail_under", "allocate")


def progress_text(p: Progress) -> str:
    """`3/10 done, pass rate 66.7%` (the running score over the task-trials scored so far)."""
    rate = "n/a" if p.pass_rate is None else f"{100 * p.pass_rate:.1f}%"
    text = f"{p.done}/{p.total} done, pass rate {rate}"
    return text + (f", {p.unscored} not scored (errors)" if p.unscored else "")


def progress_data(p: Progress) -> dict[str, Any]:
    """Agent and evaluator errors score 0 and count; infrastructure and harness errors are not
    scored."""
    return {**p.as_dict(), "total": p.total, "scored": p.scored, "pass_rate": p.pass_rate,
            "mean_reward": p.mean_reward, "unscored": p.unscored}


def public_config(config: RunConfig, operator_only: set[str]) -> dict[str, Any]:
    """The configuration as a leaderboard may show it: benchmark options a request could
    set (never paths or endpoints) and the task/trial selection; secrets redacted."""
    options = {k: v for k, v in config.options.items() if k not in operator_only}
    from a2abench.run.adaptive import is_adaptive

    keys = PUBLIC_RUN_KEYS + (ADAPTIVE_KEYS if is_adaptive(config) else ())
    run = {k: getattr(config, k) for k in keys}
    cleaned: dict[str, Any] = redact({**run, "options": options})
    return cleaned


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


def _task_results(report: Report, apart: set[str]) -> list[dict[str, Any]]:
    """One row per task-trial: what lets N shard Results be recombined (pass^k, per-task
    rates, the headline) and what a leaderboard lists. `scored` is False for infrastructure
    and harness errors, which count in no rate; `headline` is False for categories scored
    apart (CRMArena's confidentiality tasks), which the headline score leaves out."""
    return [{"task_id": line.task_id, "trial": line.trial, "domain": line.domain,
             "category": line.category, "status": line.status,
             "scored": line.status in SCORED, "headline": line.category not in apart,
             "reward": line.reward, "success": line.success,
             "termination": line.termination, "turns": line.turns,
             "duration": round(line.latency_ms / 1000, 3)}
            for line in sorted(report.lines, key=lambda i: (natural(i.task_id), i.trial))]


def _percent(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 4)


def result_data(report: Report | None, config: RunConfig, status: str,
                participants: dict[str, str], request_format: str,
                operator_only: set[str] | None = None, *, role: str = "agent",
                time_used: float | None = None,
                scored_apart: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """The Result. `report` is None when no task-trial finished. `operator_only` names the
    options that stay out of it (paths, endpoints). The participant is named by its role
    (`role`, one of `participants`' keys): its URL is the gateway's loopback proxy, which
    identifies nobody; AgentBeats' workflow adds the AgentBeats ids beside the Results.
    `scored_apart` are the categories the benchmark leaves out of its headline score."""
    public = public_config(config, operator_only or set())
    options = public["options"]
    shard = config.shard
    base: dict[str, Any] = {
        "benchmark": config.benchmark, "status": status, "format": request_format,
        "version": __version__, "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "participant": role, "participants": sorted(participants),
        "split": options.get("split") or _default_split(config),
        "num_trials": config.num_trials,
        "models": {k: v for k, v in options.items() if k.endswith("_llm")},
        "config": public,
        # 0-based like the workflow's shard_index; the whole run when not sharded.
        "shard": {"index": shard.index - 1 if shard else 0, "count": shard.count if shard else 1},
        "time_used": None if time_used is None else round(time_used, 3),
    }
    if report is None:
        return base | {"summary": {"pass_rate": None, "score": None, "score_complete": False,
                                   "score_scored_only": None, "total_tasks": 0,
                                   "total_passed": 0, "task_trials": 0, "scored": 0},
                       "pass_rate_pct": None, "by_category": {}, "by_domain": {}, "pass_k": {},
                       "tasks": {}, "task_rewards": {}, "task_results": [], "planned": []}
    if report.roles is not None:  # a multi-party run: its roles, pairings and matches
        from a2abench.green.roles import result_fields

        base |= result_fields(report.roles, config.output)
    by_domain = {g.name: _group(g) for g in report.by_domain if g.name != "-"}
    by_category = {g.name: _group(g) for g in report.by_category if g.name != "-"}
    rewards = _task_rewards(report)
    return base | {
        "domain": ", ".join(report.domains) or None,
        # `score` is over every task-trial planned (unscored or unrecorded ones count 0):
        # a leaderboard that reads it cannot be bent by dropped task-trials; the rates below
        # are over the scored ones, as before (docs/serve-green.md, "The Result").
        "summary": {"pass_rate": report.pass_rate, "score": report.score,
                    "score_method": report.score_method,
                    "score_complete": report.score_complete,
                    "score_scored_only": report.score_scored_only,
                    "mean_reward": report.mean_reward,
                    "total_tasks": report.tasks, "total_passed": report.passed,
                    "task_trials_planned": report.planned,
                    "task_trials": report.task_trials, "scored": report.scored,
                    "unscored": report.unscored, "missing": report.missing,
                    "errors": report.errors, "scored_apart": report.group_scores,
                    # How the scores were made, per task-trial: `offline` (no judge),
                    # `nl_skipped`, `scripted_user` (rules played the user: no measure).
                    "labels": dict(report.scoring_labels)},
        # Stock tau2 greens report pass_rate in percent and task_rewards: the same figures.
        "pass_rate_pct": _percent(report.pass_rate),
        # tau2 tasks have no category upstream: its leaderboards group by domain.
        "by_category": by_category or (by_domain if config.benchmark == "tau2" else {}),
        "by_domain": by_domain,
        "pass_k": {str(p.k): p.value for p in report.pass_k},
        "tasks": rewards, "task_rewards": rewards,
        "task_results": _task_results(report, set(scored_apart)),
        # What the run planned by domain and category: the leaderboard queries divide by it.
        "planned": [{**row, "headline": row["category"] not in scored_apart}
                    for row in report.plan or [{"domain": None, "category": None,
                                                "task_trials": report.planned}]],
        "adaptive": _adaptive(report),
    }


def _default_split(config: RunConfig) -> str | None:
    """The split the driver ran when the request named none (its options model's default)."""
    from a2abench.run.registry import get_driver

    try:
        info = get_driver(config.benchmark).options_model.model_fields.get("split")
    except ConfigError:  # a benchmark no longer registered: no split to report
        return None
    default = None if info is None else info.get_default(call_default_factory=True)
    return default if isinstance(default, str) else None


def _adaptive(report: Report) -> dict[str, Any] | None:
    """An adaptive run's statement: mode, confidence, n of N, bounds, stop, decision, cost."""
    adaptive = report.adaptive
    if not adaptive or not adaptive.get("summary"):
        return None
    header, summary = adaptive["header"], adaptive["summary"]
    return {"mode": header.get("mode"), "confidence": header.get("confidence"),
            "method": header.get("method"), **{k: summary.get(k) for k in (
                "n", "N", "lower", "upper", "half_width", "estimate", "stop_reason",
                "decided_at", "decision", "errors")}, "partial": summary["n"] < summary["N"],
            "cost": adaptive.get("cost"), "paired": summary.get("paired")}


def summary_text(data: dict[str, Any], agent: str) -> str:
    s = data["summary"]
    what = data["benchmark"] + (f" ({data['domain']})" if data.get("domain") else "")
    shard = data.get("shard") or {}
    if shard.get("count", 1) > 1:  # its figures are this shard's, not the whole run's
        agent += f", shard {shard['index'] + 1} of {shard['count']} (figures for this shard only)"
    if not s["task_trials"]:
        return f"{what} against {agent}: no task-trial finished ({data['status']})."
    rate = "n/a" if s["pass_rate"] is None else f"{100 * s['pass_rate']:.1f}%"
    score = "n/a" if s["score"] is None else f"{s['score']:.4f}"
    trials = data.get("num_trials") or 1
    lines = [f"{what} against {agent}: {data['status']}. " + passed_over(
        s["total_passed"], s["scored"], tasks=s["total_tasks"], task_trials=s["task_trials"],
        trials=(trials, trials)) + f"; pass rate {rate}, score {score}."]
    planned = s.get("task_trials_planned", s["task_trials"])
    note = unscored_note(planned - s["scored"], planned)
    if note and not s.get("score_complete", planned == s["scored"]):
        only = s.get("score_scored_only")
        lines.append(f"{note} (infrastructure or harness errors, or never run): they count 0 "
                     f"in the score; {'n/a' if only is None else f'{only:.4f}'} over the "
                     f"scored ones")
    if s.get("labels", {}).get("scripted_user"):
        lines.append("played by the scripted user (rules, no LLM): this checks the pipeline, "
                     "it does not measure the agent")
    adaptive = data.get("adaptive")
    if adaptive:
        from a2abench.run.adaptive.wording import confidence_text

        lines.append(f"{adaptive['mode']}: {adaptive['n']} of {adaptive['N']} task-trials"
                     f"{' (PARTIAL run)' if adaptive['partial'] else ''}, "
                     f"{confidence_text(adaptive)} confidence sequence "
                     f"[{adaptive['lower']:.3f}, {adaptive['upper']:.3f}], stop: "
                     f"{adaptive['stop_reason']}"
                     + (f", gate {adaptive['decision']}" if adaptive["decision"] else ""))
        paired = adaptive.get("paired")
        if paired:
            lines.append(f"difference against the baseline: {paired['lower']:+.3f} to "
                         f"{paired['upper']:+.3f} (baseline score "
                         f"{paired['baseline_score']:.3f})")
    if data["pass_k"]:
        lines.append("pass^k: " + ", ".join(f"k={k} {v:.3f}" for k, v in data["pass_k"].items()))
    for pid, entry in (data.get("roles") or {}).items():
        lines.append(f"{entry['role']} {pid}: mean score {_pct(entry['value'])} over "
                     f"{entry['counted']} match(es)"
                     + (f", {entry['forfeits']} forfeited" if entry["forfeits"] else "")
                     + (f", fidelity {_pct(entry['fidelity']['rate'])}"
                        if entry.get("fidelity") else ""))
    if data["by_category"]:
        lines.append("by category: " + ", ".join(
            f"{name} {_pct(g['pass_rate'])} ({g['passed']}/{g['count']})"
            for name, g in data["by_category"].items()))
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def result_json(data: dict[str, Any]) -> str:
    """The Result as JSON text: integers stay integers on every binding."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
