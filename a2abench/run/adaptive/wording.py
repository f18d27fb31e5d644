"""How an adaptive run's stop reads, the same in the notice, every report format and the
serve-green result. Plain Python: reports import it without numpy."""

from __future__ import annotations

from typing import Any


def _bounds(summary: dict[str, Any]) -> str:
    return (f"[{summary['lower']:.3f}, {summary['upper']:.3f}] "
            f"(±{summary['half_width']:.3f})")


def confidence_text(header: dict[str, Any]) -> str:
    return f"{100 * float(header.get('confidence', 0.95)):g}%"


def reason_text(header: dict[str, Any], summary: dict[str, Any]) -> str:
    """Why the run stopped, in words."""
    settings = header.get("settings") or {}
    level = confidence_text(header)
    reason = summary.get("stop_reason")
    if reason == "target_ci":
        return f"the {level} half-width reached the target ±{settings.get('target_ci'):g}"
    if reason in ("gate_pass", "gate_fail"):
        side = "above" if reason == "gate_pass" else "below"
        verdict = "passes" if reason == "gate_pass" else "fails"
        return (f"the {level} confidence sequence lies wholly {side} --fail-under "
                f"{settings.get('fail_under'):g}: the gate {verdict}")
    if reason == "exhausted":
        return "every task-trial ran (a full run): the score is exact"
    return "not stopped by the rule (the run was interrupted or is unfinished)"


def stop_text(header: dict[str, Any], summary: dict[str, Any]) -> str:
    """One line: `adaptive stop after n of N task-trials: ...`."""
    n = summary.get("decided_at") or summary.get("n")
    return (f"adaptive stop after {n} of {summary.get('N')} task-trials: "
            f"{reason_text(header, summary)}; {confidence_text(header)} confidence sequence "
            f"{_bounds(summary)}; task-trials in flight finish and count")


def headline_text(adaptive: dict[str, Any]) -> str:
    """The report's adaptive line: mode, confidence, n of N, half-width, stop reason."""
    header, summary = adaptive["header"], adaptive["summary"]
    partial = summary["n"] < summary["N"]
    what = "PARTIAL run, not a full one" if partial else "complete"
    return (f"{header.get('mode', 'adaptive')}: {summary['n']} of {summary['N']} task-trials "
            f"({what}); {confidence_text(header)} confidence sequence {_bounds(summary)}; "
            f"stop: {reason_text(header, summary)}")


def cost_text(cost: dict[str, Any]) -> str:
    """Spent against the full run's estimate: task-trials, tokens, cost."""
    spent, full = cost["spent"], cost["full_estimate"]

    def money(v: float | None) -> str:
        return "n/a" if v is None else f"${v:.4f}"

    return (f"task-trials {spent['task_trials']} of {full['task_trials']}; tokens "
            f"{spent['tokens']:,} (full run est. {full['tokens']:,}); cost "
            f"{money(spent['cost_usd'])} (full run est. {money(full['cost_usd'])})")
