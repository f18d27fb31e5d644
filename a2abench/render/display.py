"""Renders run events and reports for humans: Rich on a TTY, plain lines in CI, JSON events
with --json. The core emits events (`a2abench.run.events`); only this layer imports Rich."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from a2abench.render.output import Output, OutputMode
from a2abench.report.wording import count
from a2abench.run.events import (
    DataProgress,
    Event,
    Notice,
    Progress,
    RunFinished,
    RunStarted,
    TaskFinished,
    event_dict,
    task_list,
)

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID

    from a2abench.report.aggregate import Report


def _rate(p: Progress) -> str:
    rate = p.pass_rate
    return "-" if rate is None else f"{100 * rate:.1f}%"


class PlainDisplay:
    """One line per event worth a line; CI logs read well and grep well."""

    def __init__(self, out: Output) -> None:
        self.out = out
        self._data_quarter = -1  # a download prints its start and each quarter, not 814 lines

    def __call__(self, event: Event) -> None:
        con = self.out.out
        if isinstance(event, DataProgress):
            quarter = 4 * event.done // max(event.total, 1)
            if quarter > self._data_quarter:
                self._data_quarter = quarter
                con.print(f"downloading {event.what}: {event.done}/{event.total} files",
                          markup=False, highlight=False)
        elif isinstance(event, RunStarted):
            skipped = f", {event.skipped} already done" if event.skipped else ""
            name = " ".join(filter(None, (event.benchmark, event.domain)))  # a plugin: no domain
            con.print(f"run {event.run_id}: {name} against "
                      f"{event.agent} (A2A {event.dialect} {event.binding}"
                      f"{', streaming' if event.streaming else ''}), "
                      f"{count(event.total, 'task-trial')}"
                      f"{' of ' + task_list(event.tasks) if event.tasks is not None else ''}"
                      f"{skipped}, concurrency {event.concurrency}"
                      f"{', shard ' + event.shard if event.shard else ''} -> {event.output}",
                      markup=False, highlight=False)
        elif isinstance(event, TaskFinished):
            p = event.progress
            verdict = "pass" if event.success else ("error" if event.status not in ("ok",)
                                                    else "fail")
            reward = "-" if event.reward is None else f"{event.reward:.2f}"
            extra = f" {event.error}" if event.error else ""
            name = f"{event.task_id} ({event.category})" if event.category else event.task_id
            con.print(f"[{p.done}/{p.total}] {name} trial {event.trial}: {verdict} "
                      f"reward={reward} {event.termination + ' ' if event.termination else ''}"
                      f"{event.turns} turns "
                      f"{event.latency_ms / 1000:.1f}s | pass rate {_rate(p)}{extra}",
                      markup=False, highlight=False)
        elif isinstance(event, Notice):
            self.out.err.print(f"{event.level}: {event.message}", markup=False)
        elif isinstance(event, RunFinished):
            p = event.progress
            errors = f", {count(p.errors, 'error')}" if p.errors else ""
            con.print(f"run {event.status} in {event.duration_s:.1f}s: "
                      f"{count(p.done, 'task-trial')}, {p.passed}/{p.scored} passed "
                      f"(pass rate {_rate(p)}){errors} -> {event.output}",
                      markup=False, highlight=False)


class JsonDisplay:
    """One JSON object per event on stdout (the --json contract); a data download is not
    shown (stdout is the run's events only)."""

    def __call__(self, event: Event) -> None:
        if isinstance(event, DataProgress):
            return
        sys.stdout.write(json.dumps(event_dict(event), default=str) + "\n")
        sys.stdout.flush()


class RichDisplay:
    """A live progress bar: done/total, running, pass rate, errors, ETA."""

    def __init__(self, out: Output) -> None:
        self.out = out
        self._progress: RichProgress | None = None
        self._task: TaskID | None = None
        self._data: RichProgress | None = None  # the download bar, before the run's bar
        self._data_task: TaskID | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, DataProgress):
            self._download(event)
        elif isinstance(event, RunStarted):
            self._stop_download()
            self._start(event)
        elif isinstance(event, TaskFinished | Notice) and self._progress is not None:
            if isinstance(event, Notice):
                self._progress.console.print(f"{event.level}: {event.message}", markup=False)
            else:
                self._update(event.progress)
                if event.status != "ok":
                    from rich.markup import escape  # task ids and errors come from outside

                    self._progress.console.print(
                        f"[yellow]{escape(event.task_id)} trial {event.trial}: "
                        f"{event.status}[/] {escape(event.error or '')}", highlight=False)
        elif isinstance(event, RunFinished):
            self.stop()
            PlainDisplay(self.out)(event)

    def _start(self, event: RunStarted) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        PlainDisplay(self.out)(event)
        self._progress = RichProgress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("running {task.fields[running]}  pass {task.fields[rate]}  "
                       "errors {task.fields[errors]}"),
            TimeElapsedColumn(), TimeRemainingColumn(), console=self.out.out, transient=False)
        self._task = self._progress.add_task(event.benchmark, total=event.total, running=0,
                                             rate="-", errors=0)
        self._progress.start()

    def _download(self, event: DataProgress) -> None:
        if self._data is None:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._data = RichProgress(
                TextColumn("downloading {task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("files"), TimeRemainingColumn(), console=self.out.out,
                transient=False)
            self._data_task = self._data.add_task(event.what, total=event.total)
            self._data.start()
        assert self._data_task is not None
        self._data.update(self._data_task, completed=event.done, total=event.total)
        if event.done >= event.total:
            self._stop_download()

    def _stop_download(self) -> None:
        if self._data is not None:
            self._data.stop()
            self._data = None

    def _update(self, p: Progress) -> None:
        assert self._progress is not None and self._task is not None
        self._progress.update(self._task, completed=p.done, running=p.running, rate=_rate(p),
                              errors=p.errors)

    def stop(self) -> None:
        self._stop_download()
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def make_display(out: Output) -> PlainDisplay | JsonDisplay | RichDisplay:
    if out.mode is OutputMode.JSON:
        return JsonDisplay()
    if out.mode is OutputMode.RICH:
        return RichDisplay(out)
    return PlainDisplay(out)


def render_report(report: Report, out: Output) -> None:
    """The report as Rich tables (the `table` format)."""
    from rich.markup import escape
    from rich.table import Table

    from a2abench.report.text import (
        adaptive_lines,
        headline,
        interfaces,
        num,
        pass_k_note,
        pct,
        shown_pass_k,
    )

    con = out.out
    incomplete = "" if report.score_complete else " (incomplete)"
    con.print(f"[bold]Score {num(report.score, 4)}{incomplete}[/bold]  ", end="",
              highlight=False)
    con.print(headline(report), markup=False, highlight=False)
    if any(run.get("interface") for run in report.runs):
        con.print(f"A2A interface: {interfaces(report)}", markup=False, highlight=False)
    for name, value in report.group_scores.items():
        con.print(f"{name.capitalize()} (scored apart): {num(value, 4)}", highlight=False)
    for line in adaptive_lines(report):
        con.print(line, markup=False, highlight=False)
    for warning in report.warnings:
        out.warn(warning)
    if report.pass_k:
        t = Table(title=f"pass^k (95% CI: {report.ci_method})", title_justify="left")
        for col in ("k", "pass^k", "95% CI"):
            t.add_column(col)
        for p in shown_pass_k(report.pass_k):
            t.add_row(str(p.k), num(p.value, 3), f"{num(p.ci_low, 3)} – {num(p.ci_high, 3)}")
        note = pass_k_note(report.pass_k)
        if note:
            t.caption, t.caption_justify = note, "left"
        con.print(t)
    for title, groups in (("By domain / org", report.by_domain),
                          ("By category", report.by_category)):
        if not any(g.name != "-" for g in groups):
            continue
        t = Table(title=title, title_justify="left")
        # Names in full (piped output is 80 columns wide): the number columns give way.
        t.add_column("name", min_width=min(max(len(g.name) for g in groups), 60),
                     overflow="fold")
        for col in ("task-trials", "mean reward", "pass rate", "agent err", "infra err"):
            t.add_column(col, overflow="fold")
        for g in groups:
            t.add_row(escape(g.name), str(g.task_trials), num(g.mean_reward, 3), pct(g.pass_rate),
                      str(g.agent_errors), str(g.infra_errors))
        con.print(t)
    if report.roles is not None:
        _render_roles(report.roles, out)
    _render_run_stats(report, out)


def _render_roles(view: dict[str, Any], out: Output) -> None:
    """A multi-party run's scores per role, pairings and comparisons (report/roles_text)."""
    from rich.markup import escape
    from rich.table import Table

    from a2abench.report.roles_text import tables

    for title, head, rows in tables(view):
        t = Table(title=title, title_justify="left")
        for col in head:
            t.add_column(col, overflow="fold")
        for row in rows:
            t.add_row(*(escape(c) for c in row))
        out.out.print(t)


def _render_run_stats(report: Report, out: Output) -> None:
    from a2abench.report.text import num

    con = out.out
    r, t = report.request_latency_ms, report.task_latency_ms
    rows: list[tuple[str, Any]] = [
        ("terminations", ", ".join(f"{k} {v}" for k, v in report.terminations.items())),
        ("errors", ", ".join(f"{k} {v}" for k, v in report.errors.items())),
        ("request latency p50/p90/p99", f"{num(r.p50, 0)} / {num(r.p90, 0)} / "
                                        f"{num(r.p99, 0)} ms over {report.requests} requests"),
        ("task latency p50/p90/p99", " / ".join(
            "n/a" if v is None else f"{v / 1000:.1f}" for v in (t.p50, t.p90, t.p99)) + " s"),
        ("turns p50/p90", f"{num(report.turns.p50, 0)} / {num(report.turns.p90, 0)}"),
        ("tokens a2a in/out, llm in/out", " / ".join(str(v) for v in report.tokens.values())),
        ("cost", "n/a" if report.cost_usd is None else f"${report.cost_usd:.4f}"),
    ]
    for name, value in rows:
        con.print(f"{name:32s} {value}", markup=False, highlight=False)
    if report.failed_total:
        first = report.failed[:8]
        con.print(f"failed task-trials: {report.failed_total} (showing {len(first)} of "
                  f"{report.failed_total}: " + ", ".join(f"{x.task_id}#{x.trial}" for x in first)
                  + ")", markup=False, highlight=False)
