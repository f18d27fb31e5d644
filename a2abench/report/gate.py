"""`--fail-under`: the one check `run` and `report` share.

The gate passes only on a complete score at or above the threshold. A score that leaves
task-trials out (infrastructure or harness errors, invalid records) does not pass unless the
caller allows it: an agent that makes task-trials fail unscored must not pass by doing so.
"""

from __future__ import annotations

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
    if report is None or report.score is None:
        raise ScoreBelowThreshold(
            None, threshold, message=f"no score ({no_score_reason(report)}); --fail-under "
                                     f"{threshold:g} is not met")
    if not report.score_complete and not allow_incomplete:
        raise ScoreBelowThreshold(
            report.score, threshold,
            message=f"score {report.score:.4f} is incomplete: {report.unscored} of "
                    f"{count(report.task_trials, 'task-trial')} not scored "
                    f"({_unscored(report)}); --fail-under {threshold:g} needs a complete "
                    "score",
            hint="Re-run them with --resume --retry-errors, or pass --allow-incomplete to "
                 "gate on the scored task-trials only.")
    if report.score < threshold:
        raise ScoreBelowThreshold(report.score, threshold)


def _unscored(report: Report) -> str:
    names = {"infrastructure": "infrastructure", "harness": "harness", "invalid": "invalid"}
    return ", ".join(f"{report.errors[k]} {v}" for k, v in names.items()
                     if report.errors.get(k))
