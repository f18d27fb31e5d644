"""`--fail-under`: the one check `run` and `report` share.

The gate passes only on a complete score at or above the threshold. A score that leaves
task-trials out (infrastructure or harness errors, invalid records) does not pass unless the
caller allows it: an agent that makes task-trials fail unscored must not pass by doing so.
"""

from __future__ import annotations

from typing import Any

from a2abench.errors import ScoreBelowThreshold
from a2abench.report.aggregate import Report
from a2abench.report.wording import count


def no_score_reason(report: Report | None) -> str:
    """Why there is no score, in the words the user sees."""
    if report is None or report.task_trials == 0:
        return "no task-trial was recorded"
    if report.errors.get("infrastructure", 0) == report.task_trials:
        return "all task-trials failed to reach the agent"
    return f"none of the {count(report.task_trials, 'task-trial')} could be scored"


def check(report: Report | None, threshold: float, *, allow_incomplete: bool = False) -> None:
    """Raise ScoreBelowThreshold (exit 3) unless `report` passes `--fail-under threshold`."""
    adaptive = report.adaptive if report is not None else None
    summary = adaptive.get("summary") if adaptive else None
    if report is not None and summary and summary["n"] < summary["N"]:
        return _check_partial(report, threshold, adaptive or {}, summary)
    if report is None or report.score is None:
        raise ScoreBelowThreshold(
            None, threshold, message=f"no score ({no_score_reason(report)}); --fail-under "
                                     f"{threshold:g} is not met")
    score = report.score
    if not report.score_complete:
        if not allow_incomplete or report.score_scored_only is None:
            raise ScoreBelowThreshold(
                report.score, threshold,
                message=f"score {report.score:.4f} is incomplete: "
                        f"{report.planned - report.scored} of "
                        f"{count(report.planned, 'task-trial')} not scored "
                        f"({_unscored(report)}); --fail-under {threshold:g} needs a complete "
                        "score",
                hint="Re-run them with --resume --retry-errors, or pass --allow-incomplete "
                     "to gate on the scored task-trials only.")
        score = report.score_scored_only  # --allow-incomplete: the scored task-trials alone
    if score < threshold:
        raise ScoreBelowThreshold(score, threshold)


def _unscored(report: Report) -> str:
    names = {"infrastructure": "infrastructure", "harness": "harness", "invalid": "invalid"}
    parts = [f"{report.errors[k]} {v}" for k, v in names.items() if report.errors.get(k)]
    if report.missing:
        parts.append(f"{report.missing} never recorded")
    return ", ".join(parts)


def _check_partial(report: Report, threshold: float, adaptive: dict[str, Any],
                   summary: dict[str, Any]) -> None:
    """A partial adaptive run passes only on its confidence sequence, and only when it was an
    --adaptive-gate run: a full-run gate needs every task-trial."""
    where = (f"after {summary['n']} of {count(summary['N'], 'task-trial')}, the "
             f"{100 * float(adaptive['header'].get('confidence', 0.95)):g}% confidence "
             f"sequence [{summary['lower']:.4f}, {summary['upper']:.4f}]")
    if not (adaptive["header"].get("settings") or {}).get("gate"):
        raise ScoreBelowThreshold(
            report.score, threshold,
            message=f"a partial adaptive run ({summary['n']} of "
                    f"{count(summary['N'], 'task-trial')}): --fail-under {threshold:g} "
                    "without --adaptive-gate needs every task-trial",
            hint="Run with --adaptive-gate to decide on the confidence sequence, or without "
                 "--target-ci to run every task-trial.")
    decision = summary.get("decision") if threshold == (
        adaptive["header"].get("settings") or {}).get("fail_under") else None
    if decision is None:
        decision = ("pass" if summary["lower"] >= threshold else
                    "fail" if summary["upper"] < threshold else None)
    if decision == "pass":
        return
    if decision == "fail":
        raise ScoreBelowThreshold(report.score, threshold,
                                  message=f"{where} lies wholly below --fail-under "
                                          f"{threshold:g}")
    raise ScoreBelowThreshold(report.score, threshold,
                              message=f"undecided: {where} contains --fail-under "
                                      f"{threshold:g}",
                              hint="Resume the run (--resume) to let it decide.")


def check_baseline(report: Report | None) -> None:
    """`--adaptive-gate --baseline`: raise ScoreBelowThreshold (exit 3) unless the paired
    difference is known to be better than the baseline or equal within the margin (the
    sequence at or above −margin); worse (wholly below 0) and undecided fail."""
    adaptive = report.adaptive if report is not None else None
    summary = (adaptive or {}).get("summary") or {}
    paired = summary.get("paired")
    if report is None or adaptive is None or not paired:
        raise ScoreBelowThreshold(None, 0.0, message="no paired difference was recorded: "
                                                     "the A/B gate is not met")
    margin = float((adaptive["header"].get("settings") or {}).get("target_ci") or 0.0)
    where = (f"after {summary['n']} of {count(summary['N'], 'task-trial')}, the "
             f"{100 * float(adaptive['header'].get('confidence', 0.95)):g}% confidence "
             f"sequence for the difference new − baseline is [{paired['lower']:+.4f}, "
             f"{paired['upper']:+.4f}]")
    decision = summary.get("decision")
    if decision == "pass":
        return
    if decision == "fail":
        raise ScoreBelowThreshold(report.score, -margin,
                                  message=f"worse than the baseline: {where}, wholly below 0")
    raise ScoreBelowThreshold(report.score, -margin,
                              message=f"undecided against the baseline: {where}, which "
                                      f"holds both 0 and values below {-margin:+g}",
                              hint="Resume the run (--resume) to let it decide.")
