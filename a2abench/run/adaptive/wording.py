"""How an adaptive run's stop reads, the same in the notice, every report format and the
serve-green result. Plain Python: reports import it without numpy."""

from __future__ import annotations

from typing import Any


def _bounds(view: dict[str, Any], signed: bool = False) -> str:
    sign = "+" if signed else ""
    return (f"[{view['lower']:{sign}.3f}, {view['upper']:{sign}.3f}] "
            f"(±{view['half_width']:.3f})")


def confidence_text(header: dict[str, Any]) -> str:
    return f"{100 * float(header.get('confidence', 0.95)):g}%"


def _paired(header: dict[str, Any]) -> bool:
    return bool((header.get("settings") or {}).get("paired"))


def reason_text(header: dict[str, Any], summary: dict[str, Any]) -> str:
    """Why the run stopped, in words."""
    settings = header.get("settings") or {}
    level = confidence_text(header)
    reason = summary.get("stop_reason")
    if reason == "target_ci":
        what = "the difference's" if _paired(header) else f"the {level}"
        return f"{what} half-width reached the target ±{settings.get('target_ci'):g}"
    if reason in ("gate_pass", "gate_fail") and _paired(header):
        margin = settings.get("target_ci") or 0.0
        if reason == "gate_pass":
            return (f"the {level} confidence sequence for the difference lies wholly at or "
                    f"above {-margin:+g}: better than the baseline, or equal within "
                    f"{margin:g} (the gate passes)")
        return (f"the {level} confidence sequence for the difference lies wholly below 0: "
                "worse than the baseline (the gate fails)")
    if reason in ("gate_pass", "gate_fail"):
        side = "above" if reason == "gate_pass" else "below"
        verdict = "passes" if reason == "gate_pass" else "fails"
        return (f"the {level} confidence sequence lies wholly {side} --fail-under "
                f"{settings.get('fail_under'):g}: the gate {verdict}")
    if reason == "exhausted":
        return "every task-trial ran (a full run): the score is exact"
    if reason == "stalled":
        return ("every stratum left stalled (its last results were all unscored: "
                "infrastructure or harness errors); fix the cause and --resume --retry-errors")
    return "not stopped by the rule (the run was interrupted or is unfinished)"


def stop_text(header: dict[str, Any], summary: dict[str, Any]) -> str:
    """One line: `adaptive stop after n of N task-trials: ...`."""
    n = summary.get("decided_at") or summary.get("n")
    view, what = summary, "confidence sequence"
    if summary.get("paired"):
        view, what = summary["paired"], "confidence sequence for the difference"
    return (f"adaptive stop after {n} of {summary.get('N')} task-trials: "
            f"{reason_text(header, summary)}; {confidence_text(header)} {what} "
            f"{_bounds(view, signed=view is not summary)}; task-trials in flight finish "
            "and count")


def headline_text(adaptive: dict[str, Any]) -> str:
    """The report's adaptive line: mode, confidence, n of N, half-width, stop reason."""
    header, summary = adaptive["header"], adaptive["summary"]
    partial = summary["n"] < summary["N"]
    what = "PARTIAL run, not a full one" if partial else "complete"
    return (f"{header.get('mode', 'adaptive')}: {summary['n']} of {summary['N']} task-trials "
            f"({what}); {confidence_text(header)} confidence sequence {_bounds(summary)}; "
            f"stop: {reason_text(header, summary)}")


def paired_text(adaptive: dict[str, Any]) -> str | None:
    """An A/B run's line: the paired difference, its interval, the baseline."""
    header, summary = adaptive["header"], adaptive["summary"]
    paired = summary.get("paired")
    if not paired:
        return None
    estimate = paired.get("estimate")
    guess = "n/a" if estimate is None else f"{estimate:+.4f}"
    source = (header.get("baseline") or {}).get("path") or "the baseline"
    return (f"difference new − baseline {guess}, {confidence_text(header)} confidence "
            f"sequence {_bounds(paired, signed=True)}; baseline {source} scores "
            f"{paired['baseline_score']:.4f} on these {summary['N']} task-trials")


def flips_text(adaptive: dict[str, Any], shown: int = 10) -> str | None:
    """The task-trials that flipped against the baseline, each way: the counts, and the
    first `shown` of each (the HTML report links them all into its viewer)."""
    flipped = (adaptive["summary"].get("paired") or {}).get("flipped")
    if not flipped:
        return None

    def listed(group: dict[str, Any], what: str) -> str:
        names = [f"{task} #{trial}" for task, trial in group["task_trials"][:shown]]
        more = ", …" if group["count"] > len(names) else ""
        return f"{group['count']} {what}" + (f" ({', '.join(names)}{more})" if names else "")

    return (f"{listed(flipped['to_pass'], 'fail → pass')}; "
            f"{listed(flipped['to_fail'], 'pass → fail')} (against the baseline)")


def errors_text(summary: dict[str, Any]) -> str | None:
    """How many unscored results widened the interval (None when none did)."""
    errors = summary.get("errors") or 0
    if not errors:
        return None
    worst = "a failure for the lower bound and a pass for the upper"
    return (f"{errors} unscored task-trial(s) (infrastructure or harness errors) counted as "
            f"{worst}: they widen the interval by up to {errors} of {summary['N']} "
            "task-trials' worth; --resume --retry-errors re-runs them in place")


def cost_text(cost: dict[str, Any]) -> str:
    """Spent against the full run's estimate: task-trials, tokens, cost; and saved."""
    spent, full = cost["spent"], cost["full_estimate"]
    saved = cost.get("saved") or {}

    def money(v: float | None) -> str:
        return "n/a" if v is None else f"${v:.4f}"

    text = (f"task-trials {spent['task_trials']} of {full['task_trials']}; tokens "
            f"{spent['tokens']:,} (full run est. {full['tokens']:,}); cost "
            f"{money(spent['cost_usd'])} (full run est. {money(full['cost_usd'])})")
    if saved.get("task_trials"):
        text += (f"; saved {saved['task_trials']} task-trials, about {saved['tokens']:,} "
                 f"tokens and {money(saved.get('cost_usd'))}")
    return text
