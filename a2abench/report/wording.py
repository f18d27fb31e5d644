"""Counts in words, one way everywhere: the run display, every report format, serve-green.

    >>> count(1, "task")
    '1 task'
    >>> passed_over(0, 1, tasks=2, task_trials=2, trials=(1, 1))
    '0/1 passed over 2 task-trials (2 tasks × 1 trial)'
"""

from __future__ import annotations

from collections.abc import Iterable

_PLURALS = {"task": "tasks", "task-trial": "task-trials", "trial": "trials",
            "error": "errors", "request": "requests", "turn": "turns", "line": "lines"}


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 task`, `2 tasks`, `0 task-trials`."""
    word = noun if n == 1 else (plural or _PLURALS.get(noun, noun + "s"))
    return f"{n:,} {word}"


def trials_range(per_task: Iterable[int]) -> tuple[int, int] | None:
    """(fewest, most) trials of any task; None without tasks."""
    values = list(per_task)
    return (min(values), max(values)) if values else None


def trial_counts(tasks: int, task_trials: int, trials: tuple[int, int] | None) -> str:
    """`2 task-trials (2 tasks × 1 trial)`, `5 task-trials (3 tasks, 1–2 trials each)`."""
    text = count(task_trials, "task-trial")
    if trials is None or tasks == 0:
        return text
    low, high = trials
    if low == high:
        return f"{text} ({count(tasks, 'task')} × {count(low, 'trial')})"
    return f"{text} ({count(tasks, 'task')}, {low}–{high} trials each)"


def passed_over(passed: int, scored: int, *, tasks: int, task_trials: int,
                trials: tuple[int, int] | None) -> str:
    """The summary sentence: `3/4 passed over 4 task-trials (2 tasks × 2 trials)`."""
    return f"{passed}/{scored} passed over {trial_counts(tasks, task_trials, trials)}"


def unscored_note(unscored: int, total: int) -> str | None:
    """Why a score is incomplete, or None when every task-trial was scored."""
    if unscored == 0:
        return None
    return (f"score incomplete: {unscored} of {count(total, 'task-trial')} "
            f"{'was' if unscored == 1 else 'were'} not scored")
