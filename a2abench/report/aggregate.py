"""Streaming aggregation of metrics.jsonl files into a Report.

Request records are folded into constant-memory histograms as they stream by; task records
are kept as small summaries (no transcripts) and deduplicated across shards and resumes:
for each (benchmark, domain, task, trial) a scored result wins over an infrastructure
failure, and the later of two equal kinds wins.
"""

from __future__ import annotations

import heapq
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple, Protocol, cast

from msgspec.structs import astuple
from pydantic import BaseModel, Field, PrivateAttr

from a2abench._gc import gc_paused
from a2abench.errors import RecordsError
from a2abench.report import figures
from a2abench.report.matches import Collector
from a2abench.report.planned import Plan, planned, score_over_plan
from a2abench.report.reading import Tap as ViewerTap
from a2abench.report.reading import TaskFields, read_file, read_file_tapped
from a2abench.report.runs import RunGroup, place
from a2abench.report.stats import LogHistogram
from a2abench.report.wording import trials_range, unscored_note
from a2abench.run.compat import diff
from a2abench.run.status import SCORED_STATUSES, Counts

# What a task record may hold is the record schema's rule, in run/status.py (the adaptive
# baseline reads records too, and run/ never imports report/); re-exported for report/.
from a2abench.run.status import record_problem as record_problem
from a2abench.run.status import safe_number as safe_number
from a2abench.run.writer import RawLine, ReadStats, iter_records

SCORED = SCORED_STATUSES
INVALID = "invalid_record"  # a task record whose values cannot be true (forged or damaged)
TaskFilter = Callable[[dict[str, Any]], dict[str, Any]]
FAILED_SHOWN = 200  # task-trials listed in `failed`; failed_total counts them all


class Tap(Protocol):
    """Sees the request and task records `build_report` reads (a task record with its line,
    None when the tolerant parser read it): the HTML page's viewer data is gathered in the
    same pass (report/viewer_data.Viewer)."""

    def request(self, rec: dict[str, Any]) -> None: ...

    def task(self, rec: dict[str, Any], line: bytes | None) -> None: ...


class GroupStats(BaseModel):
    name: str
    task_trials: int
    scored: int
    mean_reward: float | None
    pass_rate: float | None
    passed: int
    agent_errors: int
    infra_errors: int


class PassK(BaseModel):
    k: int
    value: float
    ci_low: float | None
    ci_high: float | None
    method: str


class Latency(BaseModel):
    count: int
    mean: float | None
    p50: float | None
    p90: float | None
    p99: float | None


class TaskLine(BaseModel):
    """One task-trial, without its transcript."""

    benchmark: str
    domain: str | None
    category: str | None
    task_id: str
    trial: int
    status: str
    reward: float | None
    success: bool
    termination: str | None
    latency_ms: float
    turns: int
    labels: list[str] = Field(default_factory=list)
    error: str | None = None


class Row(NamedTuple):
    """A kept task-trial with the values its `TaskLine` would hold, built without validation
    (~1 us against pydantic's ~8 us, for every one of 500,000 task-trials): the report's
    figures are computed over rows; a `TaskLine` is built only for the lines it shows."""

    benchmark: str
    domain: str | None
    category: str | None
    task_id: str
    trial: int
    status: str
    reward: float | None
    success: bool
    termination: str | None
    latency_ms: float
    turns: int
    labels: list[str]
    error: str | None

    def line(self) -> TaskLine:
        return TaskLine(**self._asdict())


class Report(BaseModel):
    files: list[str]
    benchmark: str | None
    domains: list[str]
    runs: list[dict[str, Any]]
    # Over every task-trial the run planned: unscored and unrecorded ones count 0
    # (report/planned.py); an adaptive run's partial score is its stratified estimate.
    score: float | None
    score_method: str
    score_scored_only: float | None = None  # over the scored task-trials alone
    group_scores: dict[str, float | None] = Field(default_factory=dict)  # scored apart
    scoring_labels: dict[str, int]
    mixed_scoring: bool
    tasks: int
    task_trials: int
    trials: tuple[int, int] | None = None  # fewest, most trials of any task
    scored: int
    unscored: int = 0  # infrastructure/harness errors and invalid records: 0 in the score
    planned: int = 0  # task-trials the run planned (at least those recorded)
    missing: int = 0  # planned but never recorded (an interrupted run): 0 in the score
    plan: list[dict[str, Any]] = Field(default_factory=list)  # planned by domain, category
    score_complete: bool = True  # every planned task-trial was scored
    passed: int
    mean_reward: float | None
    pass_rate: float | None
    pass_k: list[PassK]
    ci_method: str
    by_domain: list[GroupStats]
    by_category: list[GroupStats]
    terminations: dict[str, int]
    errors: dict[str, int]
    error_classes: dict[str, int]
    request_latency_ms: Latency
    task_latency_ms: Latency
    turns: Latency
    requests: int
    request_errors: int
    tokens: dict[str, int]
    cost_usd: float | None
    slowest: list[TaskLine]
    failed: list[TaskLine]  # the first FAILED_SHOWN, in task order
    failed_total: int = 0  # every task-trial that did not pass
    failed_truncated: bool = False  # `failed` holds fewer than failed_total
    read: dict[str, int]
    warnings: list[str]
    # An adaptive run (report/adaptive.py): {header, summary, cost}; None for a full run.
    adaptive: dict[str, Any] | None = None
    # A multi-party run's scores per role (report/roles.py); None for a single agent, and
    # left out of the model's dump (`to_json` adds it when there is one).
    roles: dict[str, Any] | None = Field(default=None, exclude=True)
    latency_bins: list[tuple[float, float, int]] = Field(default_factory=list, exclude=True)
    _rows: list[Row] = PrivateAttr(default_factory=list)
    _lines: list[TaskLine] | None = PrivateAttr(default=None)

    @property
    def lines(self) -> list[TaskLine]:
        """Every task-trial, in task order (junit, serve-green's result), built on first use."""
        if self._lines is None:
            self._lines = [row.line() for row in self._rows]
        return self._lines


def natural(text: str) -> tuple[Any, ...]:
    """Sort key that orders "t2" before "t10" (task ids are often numbers as strings)."""
    return tuple(int(p) if p.isdigit() else p for p in _DIGITS.split(text))


_DIGITS = re.compile(r"(\d+)")


def _text(value: Any) -> str | None:
    return None if value is None else str(value)[:500]


_BIG = 2**63
_INF = math.inf


def safe_count(value: Any) -> int:
    if value.__class__ is int and 0 <= value < _BIG:  # the common case, without a float
        return int(value)
    number = safe_number(value)
    return int(number) if number is not None and number < _BIG else 0


_Kept = tuple[Any, ...] | TaskFields  # a dict record's _KEPT values, or the fast reader's


def _row(values: _Kept, problem: str | None) -> Row:
    """A kept task record's row, from what `_Accumulator.add_task` kept of it (`_KEPT`), or
    from the fast reader's fields (decoded as the row holds them, but the error)."""
    if isinstance(values, TaskFields):  # or a TaskView (the HTML page's reader)
        row = astuple(values)[:_FIRST_EXTRA]
        err = row[-1]
        if err is not None:
            row = (*row[:-1], f"{_text(err.error)}: {_text(err.message)}")
        return _new_row(Row, row)
    assert isinstance(values, tuple)
    (benchmark, domain, category, task_id, trial, status, reward, success, termination,
     latency, turns, labels, err) = values[:_FIRST_EXTRA]
    if problem is not None:  # kept and shown, never scored
        status, reward, success, err = INVALID, None, False, f"invalid record: {problem}"
    else:
        status = status if status.__class__ is str and len(status) <= 40 else str(status)[:40]
        if reward is not None and reward.__class__ is not float:
            reward = float(reward)  # as TaskLine holds it
        success = success is True
        if err is not None:
            err = (f"{_text(err.get('error'))}: {_text(err.get('message'))}"
                   if err.__class__ is dict else None)
    text = _text
    return _new_row(Row, (
        str(benchmark or ""),
        domain if domain.__class__ is str and len(domain) <= 500 else text(domain),
        category if category is None else text(category),
        task_id if task_id.__class__ is str and task_id and len(task_id) <= 500
        else text(task_id) or "?",
        trial if trial.__class__ is int and 0 <= trial < 2**31 else 0, status, reward, success,
        termination if termination is None else text(termination),
        latency if latency.__class__ is float and 0.0 < latency < _INF
        else safe_number(latency) or 0.0,
        turns if turns.__class__ is int and 0 <= turns < _BIG else safe_count(turns),
        [str(x)[:100] for x in labels] if labels.__class__ is list and labels else [], err))


_new_row = tuple.__new__  # a Row from a tuple of its values, without NamedTuple's __new__
_STATUS, _TASK, _LABELS = attrgetter("status"), attrgetter("benchmark", "domain", "task_id"), \
    attrgetter("labels")
_LATENCY, _TURNS = attrgetter("latency_ms"), attrgetter("turns")
_REWARD, _CATEGORY = attrgetter("reward"), attrgetter("category")


class _Accumulator:
    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self.run_ends: dict[str, dict[str, Any]] = {}
        # key -> (scored, what the report reads of the record kept for that key, why the
        # record cannot be true or None)
        self.tasks: dict[tuple[Any, ...], tuple[bool, _Kept, str | None]] = {}
        self.tags: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # an adaptive run's draw tags
        self.duplicates = 0
        self.req_latency = LogHistogram()
        self.latencies: list[float] = []  # not yet in req_latency (`request_latency()`)
        self.requests = 0
        self.request_errors = 0
        self.matches = Collector()  # a multi-party run's matches (report/matches.py)

    def take(self, rec: dict[str, Any], task_filter: TaskFilter | None = None,
             tap: Tap | None = None, line: bytes | None = None) -> None:
        """Fold in one record as `iter_records` yields it (`line`: its bytes, for `tap`)."""
        kind = rec["type"]
        if kind == "request":
            self.add_request(rec)
            if tap is not None:
                tap.request(rec)
        elif kind == "task":
            if tap is not None:
                tap.task(rec, line)  # the record as read (a task_filter may change it)
            if "match" in rec and not self.matches.task(rec):
                return  # another pairing than the primary one: the per-role view's
            self.add_task(task_filter(rec) if task_filter else rec)
        elif kind == "run":
            self.runs.append(rec)
            self.matches.run(rec)
        else:
            self.run_ends[str(rec["run_id"])] = rec

    def add_request(self, rec: dict[str, Any]) -> None:
        self.requests += 1
        latency = safe_number(rec.get("latency_ms"))
        if latency is not None:
            self.latencies.append(latency)
            if len(self.latencies) >= 4096:
                self.flush_latencies()
        if rec.get("error"):
            self.request_errors += 1

    def flush_latencies(self) -> None:
        """Into the histogram in batches: constant memory."""
        self.req_latency.extend(self.latencies)
        self.latencies.clear()

    def add_task(self, rec: dict[str, Any]) -> None:
        # Only the key and the dedup rule per record; the line and the counts are computed
        # at the end for the records kept (a resumed run repeats many task-trials).
        trial = rec.get("trial")
        key = (str(rec.get("benchmark") or ""), _text(rec.get("domain")),
               _text(rec.get("task_id")) or "?",
               trial if trial.__class__ is int and 0 <= trial < 2**31 else 0)
        problem = record_problem(rec)
        scored = problem is None and rec.get("status", "ok") in SCORED
        # Its _KEPT values as a tuple (absent ones their default): 1.2-1.8 us less per record
        # than a dict of them; keeping the record itself took 1.3x the memory
        # (docs/performance.md).
        if not self.keep(key, scored, tuple(map(rec.get, _KEPT, _DEFAULTS)), problem):
            return
        tag = rec.get("adaptive")
        if isinstance(tag, dict) and isinstance(tag.get("rank"), int) \
                and isinstance(tag.get("pick"), int):
            success = tag.get("baseline_success")  # an A/B run's baseline (report/adaptive)
            self.tags[key] = (str(tag.get("stratum")), tag["rank"], tag["pick"],
                              safe_number(tag.get("scale")), safe_number(tag.get("top")),
                              safe_number(tag.get("baseline")),
                              success if isinstance(success, bool) else None)

    def keep(self, key: tuple[Any, ...], scored: bool, values: _Kept,
             problem: str | None) -> bool:
        """Keep a task record's values under its key unless a scored result holds it (the
        later of two equal kinds wins); whether they were kept."""
        old = self.tasks.get(key)
        if old is not None:
            self.duplicates += 1
            if old[0] and not scored:
                return False  # the scored result over a later infrastructure failure
        self.tasks[key] = (scored, values, problem)
        return True

    def request_latency(self) -> LogHistogram:
        """The request latencies read, all of them in the histogram."""
        self.flush_latencies()
        return self.req_latency

    def usage(self) -> tuple[list[int], list[float]]:
        """The kept task-trials' token counts summed (_EXTRA_KEYS' four, in order) and their
        costs (in order); an absent value is neither a count nor a number: 0, no cost."""
        kept = [values for _, values, _ in self.tasks.values()]
        fast = [v for v in kept if isinstance(v, TaskFields)]  # read as counts already
        other: list[tuple[Any, ...]] = [v for v in kept if not isinstance(v, TaskFields)]
        tokens = [sum(map(attrgetter(name), fast)) + sum(map(safe_count, [v[i] for v in other]))
                  for i, name in enumerate(_EXTRA_KEYS[:4], _FIRST_EXTRA)]
        cost = _FIRST_EXTRA + 4
        costs = [c for c in (v.cost_usd if isinstance(v, TaskFields) else safe_number(v[cost])
                             for v in kept) if c is not None]
        return tokens, costs


# What the report reads of a kept task record: the line's fields, then the token counts.
_EXTRA_KEYS = ("input_tokens", "output_tokens", "llm_prompt_tokens", "llm_completion_tokens",
               "cost_usd")
_KEPT = ("benchmark", "domain", "category", "task_id", "trial", "status", "reward", "success",
         "termination", "latency_ms", "turns", "labels", "error", *_EXTRA_KEYS)
_FIRST_EXTRA = len(_KEPT) - len(_EXTRA_KEYS)
_DEFAULTS = tuple("ok" if key == "status" else None for key in _KEPT)  # of an absent key


def _consume(acc: _Accumulator, records: Iterator[dict[str, Any]],
             task_filter: TaskFilter | None, tap: Tap | None, raw: RawLine) -> None:
    take = acc.take
    for rec in records:
        take(rec, task_filter, tap, raw.line)


def _taker(acc: _Accumulator, tap: Tap | None) -> Callable[[dict[str, Any], bytes | None], None]:
    def take(rec: dict[str, Any], line: bytes | None) -> None:
        acc.take(rec, None, tap, line)
    return take


def _check_runs(runs: list[dict[str, Any]]) -> list[str]:
    """Files given together must be shards or resumes of one run."""
    warnings: list[str] = []
    keys = []
    for run in runs:
        raw = run.get("compat_key")
        key = dict(raw) if isinstance(raw, dict) else {"compat_key": raw}
        key.pop("shard", None)
        keys.append(key)
    for other, run in zip(keys[1:], runs[1:], strict=True):
        problems = diff(keys[0], other)
        if problems:
            raise RecordsError(
                f"run {run['run_id']} is not a shard or resume of run {runs[0]['run_id']}: "
                + "; ".join(problems[:3]),
                hint="Report each run on its own, or put them side by side with --compare.")
    shards = {(r["shard"][0], r["shard"][1]) for r in runs if _is_shard(r.get("shard"))}
    counts = {s[1] for s in shards}
    if len(counts) == 1:
        missing = set(range(1, next(iter(counts)) + 1)) - {s[0] for s in shards}
        if missing:
            warnings.append(f"shard(s) {sorted(missing)} of {next(iter(counts))} are missing: "
                            "the report covers only part of the run")
    return warnings


def _check_one_run(groups: list[RunGroup]) -> None:
    """Files that hold two runs with the same settings (not shards of one, not a resume, which
    appends to its run's file) would merge two runs' task-trials into one score: refused.
    The same run given twice (a copy of its file) is one run: its duplicates are dropped."""
    distinct: dict[str, RunGroup] = {}
    for group in groups:
        if group.runs:  # a file with no run record joins whichever run
            distinct.setdefault(str(group.runs[0].get("run_id")), group)
    if len(distinct) < 2:
        return
    (first_id, first), (second_id, second) = list(distinct.items())[:2]
    raise RecordsError(
        f"{second.paths[0]} holds another run (run {second_id}) of the same settings as "
        f"{first.paths[0]} (run {first_id}), not a shard or a resume of it: reporting them "
        "together would merge two runs into one score",
        hint="Put them side by side with `report --compare`, or report each on its own.")


def _is_shard(value: Any) -> bool:
    return (isinstance(value, list | tuple) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            and 1 <= value[0] <= value[1] <= 100_000)


def _groups(lines: list[Row], attr: str, whole: Counts | None = None) -> list[GroupStats]:
    """`whole`: the tally of `lines`, for a group that holds them all."""
    return [_group(name, items, whole if items is lines else None)
            for name, items in figures.buckets(lines, attr)]


def _group(name: str, items: list[Row], c: Counts | None = None) -> GroupStats:
    c = figures.tally(items) if c is None else c
    return GroupStats(
        name=name, task_trials=len(items), scored=c.scored, mean_reward=c.mean_reward,
        pass_rate=c.pass_rate, passed=c.passed, agent_errors=c.agent_errors,
        infra_errors=c.infra_errors)


def _pass_k(scored: list[Row]) -> tuple[list[PassK], str]:
    values = figures.pass_k(scored)
    if not values:
        return [], "none"
    out = [PassK(k=k, value=mean, ci_low=figures.nan_none(low), ci_high=figures.nan_none(high),
                 method=method) for k, mean, low, high, method in values]
    return out, "/".join(sorted({v[4] for v in values}))


def _latency(h: LogHistogram) -> Latency:
    return Latency(count=h.n, mean=h.mean, p50=h.percentile(50), p90=h.percentile(90),
                   p99=h.percentile(99))


def build_report(paths: list[Path], *, task_filter: TaskFilter | None = None,
                 tap: Tap | None = None) -> Report:
    """Read metrics.jsonl files (shards, resumes) into one Report; `tap` sees each record."""
    with gc_paused():
        return _build(paths, task_filter, tap)


def _build(paths: list[Path], task_filter: TaskFilter | None, tap: Tap | None) -> Report:
    stats = ReadStats()
    acc = _Accumulator()
    raw = RawLine()
    groups: list[RunGroup] = []
    for path in paths:  # file by file: which runs each holds (two runs are never merged)
        before = len(acc.runs)
        if task_filter is None and tap is None:  # the fields the report reads, alone
            read_file(acc, path, stats)
        elif task_filter is None and hasattr(tap, "task_view"):
            # the HTML page's viewer: request rows and task summaries decoded into Structs
            read_file_tapped(acc, path, stats, cast(ViewerTap, tap), _taker(acc, tap))
        else:  # whole records (a task_filter may read the transcript; a tap shows it)
            _consume(acc, iter_records([path], stats, summary=task_filter is None, raw=raw),
                     task_filter, tap, raw)
        place(groups, path, acc.runs[before:])
    if not acc.runs and not acc.tasks:
        raise RecordsError(f"no a2abench records in {', '.join(map(str, paths))} "
                           f"({stats.lines} lines read, {stats.foreign} foreign, "
                           f"{stats.corrupt} corrupt)",
                           hint="Pass the metrics.jsonl file that `a2abench run` wrote.")
    warnings = _check_runs(acc.runs)
    _check_one_run(groups)
    if stats.corrupt or stats.foreign:
        warnings.append(f"skipped {stats.corrupt} corrupt and {stats.foreign} foreign line(s)")
    if stats.malformed:
        warnings.append(f"skipped {stats.malformed} malformed record(s): a list or object "
                        "where a status, benchmark or domain name belongs")
    return _finish(paths, acc, stats, warnings)


def _headline(lines: list[Row], how: str) -> float | None:
    scored = figures.scored_rows(lines)
    if not scored:
        return None
    if how == "macro_category_mean":
        groups = [g.mean_reward for g in _groups(scored, "category") if g.mean_reward is not None]
        return sum(groups) / len(groups)
    return sum([reward or 0.0 for reward in map(_REWARD, scored)]) / len(scored)


def _score(lines: list[Row], runs: list[dict[str, Any]], plan: Plan
           ) -> tuple[float | None, float | None, str, dict[str, float | None]]:
    """The headline score over the plan, over the scored task-trials alone, its method, and
    the score (over the plan) of each separately reported group."""
    scoring = runs[0].get("scoring") if runs else None
    scoring = scoring if isinstance(scoring, dict) else {}
    how = scoring.get("headline")
    how = how if how in ("mean_reward", "macro_category_mean") else "mean_reward"
    raw = scoring.get("separate")
    separate: dict[str, list[str]] = {
        str(name): [c for c in cats if isinstance(c, str)]
        for name, cats in (raw.items() if isinstance(raw, dict) else ())
        if isinstance(cats, list)}
    apart = {c for cats in separate.values() for c in cats}
    main = [i for i in lines if i.category not in apart] if apart else lines
    groups = {name: score_over_plan(lines, how, plan, cats)
              for name, cats in separate.items() if any(i.category in cats for i in lines)}
    kept = set(map(_CATEGORY, main)) | {c for _, c in plan.groups if c not in apart}
    return score_over_plan(lines, how, plan, kept if apart else None), _headline(main, how), \
        how, groups


def _error_warnings(errors: dict[str, int], total: int) -> list[str]:
    """Explain every error count that changes how the score reads."""
    out = []
    if errors["evaluator"]:
        out.append(f"{errors['evaluator']} task-trial(s) ended in an evaluator error (the "
                   "benchmark's evaluator raised on what the agent left behind, as upstream's "
                   "does): scored 0 and included in the score; upstream's runner would record "
                   "an error instead")
    unscored = (errors["infrastructure"] + errors["harness"] + errors["invalid"]
                + errors.get("forfeit", 0))
    if unscored:
        parts = [f"{errors.get(k, 0)} {name}" for k, name in (
            ("infrastructure", "infrastructure error(s)"), ("harness", "harness error(s)"),
            ("forfeit", "forfeit(s) by another participant"),
            ("invalid", "invalid record(s)")) if errors.get(k)]
        out.append(f"{unscored_note(unscored, total)} ({', '.join(parts)}): they count 0 in "
                   "the score; --fail-under refuses an incomplete score unless "
                   "--allow-incomplete is given")
    return out


def _finish(paths: list[Path], acc: _Accumulator, stats: ReadStats,
            warnings: list[str]) -> Report:
    by_key = {key: _row(values, problem) for key, (_, values, problem) in acc.tasks.items()}
    lines = figures.task_order(by_key, natural)
    scored = figures.scored_rows(lines)
    pass_k, ci_method = _pass_k(scored)
    adaptive_run = any(isinstance(r.get("adaptive"), dict) for r in acc.runs)
    # An adaptive run plans to stop early: what it drew is its plan (report/adaptive.py says
    # n of N, and its partial score is the stratified estimate).
    plan = Plan(len(lines)) if adaptive_run else planned(acc.runs)
    total = max(plan.total, len(lines))
    score, scored_only, method, group_scores = _score(lines, acc.runs, plan)
    c = figures.tally(lines)
    errors = {"agent": c.agent_errors, "evaluator": c.evaluator_errors,
              "infrastructure": c.infra_errors, "harness": c.harness_errors,
              "invalid": list(map(_STATUS, lines)).count(INVALID)}
    if c.forfeits:  # only multi-party runs have them: a single agent's report is unchanged
        errors["forfeit"] = c.forfeits
    warnings += _error_warnings(errors, len(lines))
    if total > len(lines):
        warnings.append(f"{total - len(lines)} of the {total} planned task-trials were never "
                        "recorded (the run stopped early): they count 0 in the score; finish "
                        "the run with --resume")
    per_task = Counter(map(_TASK, lines))
    labels = Counter(itertools.chain.from_iterable(map(_LABELS, lines)))
    if labels.get("nl_skipped"):
        warnings.append(f"{labels['nl_skipped']} task-trial(s) were scored without their "
                        "NL assertions (no --judge-llm): those scores are not official")
    if labels.get("scripted_user"):
        warnings.append(f"{labels['scripted_user']} task-trial(s) were played by the scripted "
                        "user (rules, no LLM): the score checks the pipeline, it does not "
                        "measure the agent")
    mixed = 0 < labels.get("offline", 0) < len(scored)
    if mixed:
        warnings.append("offline (no-judge) and judged scores are mixed in these files")
    task_h, turns_h = LogHistogram(), LogHistogram()
    task_h.extend(map(_LATENCY, lines))
    turns_h.extend(map(float, map(_TURNS, lines)))
    failed = [i for i in lines if not i.success]
    tokens, costs = acc.usage()
    adaptive = _adaptive(acc, by_key, sum(tokens), costs, warnings)
    if adaptive is not None and adaptive.get("summary") and \
            adaptive["summary"]["n"] < adaptive["summary"]["N"]:
        score = adaptive["summary"]["estimate"]  # stratified: Neyman over-samples strata
    report = Report(
        files=[str(p) for p in paths],
        benchmark=_text(acc.runs[0].get("benchmark")) if acc.runs
        else (lines[0].benchmark if lines else None),
        domains=sorted({str(i.domain) for i in lines if i.domain}),
        runs=[{k: r.get(k) for k in ("run_id", "benchmark", "domain", "shard", "started_at",
                                      "resumed", "models", "data", "interface",
                                      "tool_channel")}
              | {"status": acc.run_ends.get(r["run_id"], {}).get("status", "unfinished")}
              for r in acc.runs],
        score=score, score_method=method, score_scored_only=scored_only,
        group_scores=group_scores,
        scoring_labels=dict(labels), mixed_scoring=mixed,
        tasks=len(per_task), task_trials=len(lines), trials=trials_range(per_task.values()),
        scored=len(scored), unscored=len(lines) - len(scored), planned=total,
        missing=total - len(lines), plan=plan.rows(),
        score_complete=total == len(scored), passed=c.passed,  # among scored, `ok` only
        mean_reward=c.mean_reward, pass_rate=c.pass_rate,
        pass_k=pass_k, ci_method=ci_method, by_domain=_groups(lines, "domain", c),
        by_category=_groups(lines, "category", c),
        terminations=dict(Counter(i.termination or "-" for i in lines).most_common()),
        errors=errors,
        error_classes=dict(Counter(i.error.split(":")[0] for i in lines if i.error)),
        request_latency_ms=_latency(acc.request_latency()), task_latency_ms=_latency(task_h),
        turns=_latency(turns_h), requests=acc.requests, request_errors=acc.request_errors,
        tokens=dict(zip(("a2a_input", "a2a_output", "llm_prompt", "llm_completion"), tokens,
                        strict=True)),
        cost_usd=sum(costs) if costs else None,
        slowest=[i.line() for i in heapq.nsmallest(10, lines, key=lambda i: -i.latency_ms)],
        failed=[i.line() for i in failed[:FAILED_SHOWN]], failed_total=len(failed),
        failed_truncated=len(failed) > FAILED_SHOWN,
        read={"lines": stats.lines, "records": stats.records, "corrupt": stats.corrupt,
              "foreign": stats.foreign, "malformed": stats.malformed,
              "torn_tail": stats.torn_tail,
              "duplicates": acc.duplicates},
        warnings=warnings, adaptive=adaptive, latency_bins=task_h.bins(),
        roles=acc.matches.view())
    report._rows = lines
    return report


def _adaptive(acc: _Accumulator, by_key: dict[tuple[Any, ...], Row], tokens: int,
              costs: list[float], warnings: list[str]) -> dict[str, Any] | None:
    """The adaptive run's confidence sequence and cost view (None for a full run)."""
    if not any(isinstance(r.get("adaptive"), dict) for r in acc.runs):
        return None
    from a2abench.report.adaptive import cost_view, rebuild
    results = [(acc.tags[k], line) for k, line in by_key.items() if k in acc.tags]
    out = rebuild(acc.runs, acc.run_ends.values(), results)
    if out is None or out.get("summary") is None:
        warnings.append(f"adaptive run: {(out or {}).get('error', 'no plan')}; its score "
                        "has no confidence sequence")
        return out
    out["cost"] = cost_view(len(acc.tasks), out["summary"]["N"], tokens,
                            sum(costs) if costs else None)
    summary = out["summary"]
    if summary["n"] < summary["N"]:
        warnings.append(f"a partial adaptive run: {summary['n']} of {summary['N']} "
                        "task-trials counted; the score is the stratified estimate within its "
                        "confidence sequence, not a full run's score")
    return out
