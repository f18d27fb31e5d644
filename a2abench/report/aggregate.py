"""Streaming aggregation of metrics.jsonl files into a Report.

Request records are folded into constant-memory histograms as they stream by; task records
are kept as small summaries (no transcripts) and deduplicated across shards and resumes:
for each (benchmark, domain, task, trial) a scored result wins over an infrastructure
failure, and the later of two equal kinds wins.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

from a2abench.errors import RecordsError
from a2abench.report.runs import RunGroup, place
from a2abench.report.stats import LogHistogram, mean_ci, pass_hat_k
from a2abench.report.wording import trials_range, unscored_note
from a2abench.run.plan import diff
from a2abench.run.status import SCORED_STATUSES, Counts
from a2abench.run.writer import RawLine, ReadStats, iter_records

SCORED = SCORED_STATUSES
INVALID = "invalid_record"  # a task record whose values cannot be true (forged or damaged)
_STATUSES = frozenset({*SCORED_STATUSES, "infrastructure_error", "harness_error"})
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


class Report(BaseModel):
    files: list[str]
    benchmark: str | None
    domains: list[str]
    runs: list[dict[str, Any]]
    score: float | None
    score_method: str
    group_scores: dict[str, float | None] = Field(default_factory=dict)  # scored apart
    scoring_labels: dict[str, int]
    mixed_scoring: bool
    tasks: int
    task_trials: int
    trials: tuple[int, int] | None = None  # fewest, most trials of any task
    scored: int
    unscored: int = 0  # infrastructure/harness errors and invalid records: not in the score
    score_complete: bool = True
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
    lines: list[TaskLine] = Field(default_factory=list, exclude=True)  # for junit / charts
    latency_bins: list[tuple[float, float, int]] = Field(default_factory=list, exclude=True)


def natural(text: str) -> tuple[Any, ...]:
    """Sort key that orders "t2" before "t10" (task ids are often numbers as strings)."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def _text(value: Any) -> str | None:
    return None if value is None else str(value)[:500]


_INF = math.inf
_BIG = 2**63


def safe_number(value: Any) -> float | None:
    """A finite, non-negative number from a record (which may be forged), or None.
    Compared by exact class (JSON gives int, float, or bool, which is not a number here);
    NaN fails both comparisons. Called ~10 times a record: kept to two tests."""
    cls = value.__class__
    if cls is float:
        return value if 0.0 <= value < _INF else None
    if cls is int:
        return float(value) if 0 <= value < _BIG else None
    return None


def safe_count(value: Any) -> int:
    if value.__class__ is int and 0 <= value < _BIG:  # the common case, without a float
        return int(value)
    number = safe_number(value)
    return int(number) if number is not None and number < _BIG else 0


def record_problem(rec: dict[str, Any]) -> str | None:
    """Why a task record cannot be true (validated when reading: records may be forged)."""
    status, reward = rec.get("status", "ok"), rec.get("reward")
    if not isinstance(rec.get("task_id"), str):
        return f"task_id {str(rec.get('task_id'))[:40]!r} is not a string"
    if status not in _STATUSES:
        return f"unknown status {str(status)[:40]!r}"
    if not isinstance(rec.get("trial"), int) or isinstance(rec.get("trial"), bool) \
            or not 0 <= rec["trial"] < 2**31:
        return f"trial {str(rec.get('trial'))[:40]!r} is not a small non-negative integer"
    if status in SCORED_STATUSES:
        number = safe_number(reward)
        if number is None or number > 1.0:
            return f"reward {str(reward)[:40]!r} is not a number between 0 and 1"
    elif reward is not None:
        return f"a {status} record carries reward {str(reward)[:40]!r}"
    if not isinstance(rec.get("success", False), bool):
        return "success is not a boolean"
    return None


def _line_fields(rec: dict[str, Any]) -> dict[str, Any]:
    """A task record's `TaskLine` fields, as a dict: the model is built only for the
    task-trials kept after deduplication (`_Accumulator.lines`), once each."""
    err = rec.get("error")
    problem = record_problem(rec)
    trial = rec.get("trial")
    labels = rec.get("labels")
    fields = {
        "benchmark": str(rec.get("benchmark") or ""), "domain": _text(rec.get("domain")),
        "category": _text(rec.get("category")), "task_id": _text(rec.get("task_id")) or "?",
        "trial": trial if trial.__class__ is int and 0 <= trial < 2**31 else 0,
        "status": str(rec.get("status", "ok"))[:40],
        "reward": rec.get("reward") if problem is None else None,
        "success": rec.get("success") is True, "termination": _text(rec.get("termination")),
        "latency_ms": safe_number(rec.get("latency_ms")) or 0.0,
        "turns": safe_count(rec.get("turns")),
        "labels": [str(x)[:100] for x in labels] if labels.__class__ is list else [],
        "error": f"{_text(err.get('error'))}: {_text(err.get('message'))}"
        if err.__class__ is dict else None}
    if problem is not None:  # kept and shown, never scored
        fields.update(status=INVALID, reward=None, success=False,
                      error=f"invalid record: {problem}")
    return fields


class _Accumulator:
    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self.run_ends: dict[str, dict[str, Any]] = {}
        # key -> (scored, what the report reads of the record kept for that key)
        self.tasks: dict[tuple[Any, ...], tuple[bool, tuple[Any, ...]]] = {}
        self.tags: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # an adaptive run's draw tags
        self.duplicates = 0
        self.req_latency = LogHistogram()
        self.requests = 0
        self.request_errors = 0

    def add_request(self, rec: dict[str, Any]) -> None:
        self.requests += 1
        latency = safe_number(rec.get("latency_ms"))
        if latency is not None:
            self.req_latency.add(latency)
        if rec.get("error"):
            self.request_errors += 1

    def add_task(self, rec: dict[str, Any]) -> None:
        # Only the key and the dedup rule per record; the line and the counts are computed
        # at the end for the records kept (a resumed run repeats many task-trials).
        trial = rec.get("trial")
        key = (str(rec.get("benchmark") or ""), _text(rec.get("domain")),
               _text(rec.get("task_id")) or "?",
               trial if trial.__class__ is int and 0 <= trial < 2**31 else 0)
        scored = rec.get("status", "ok") in SCORED and record_problem(rec) is None
        old = self.tasks.get(key)
        if old is not None:
            self.duplicates += 1
            if old[0] and not scored:
                return  # keep the scored result over a later infrastructure failure
        # Its _KEPT values as a tuple (absent ones _ABSENT): 1.2-1.8 us less per record than a
        # dict of them; keeping the record itself took 1.3x the memory (docs/performance.md).
        self.tasks[key] = (scored, tuple(map(rec.get, _KEPT, _ABSENTS)))
        tag = rec.get("adaptive")
        if isinstance(tag, dict) and isinstance(tag.get("rank"), int) \
                and isinstance(tag.get("pick"), int):
            self.tags[key] = (str(tag.get("stratum")), tag["rank"], tag["pick"],
                              safe_number(tag.get("scale")), safe_number(tag.get("top")))

    def kept(self) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
        """Each kept task-trial's key and what the report reads of its record."""
        for key, (_, values) in self.tasks.items():
            yield key, {k: v for k, v in zip(_KEPT, values, strict=True) if v is not _ABSENT}

    def extras(self) -> list[tuple[int, int, int, int, float | None]]:
        """The token counts and cost of each kept task-trial (_EXTRA_KEYS); an absent value
        is neither a count nor a number: 0 and None."""
        out = []
        for _, values in self.tasks.values():
            a2a_in, a2a_out, prompt, completion, cost = values[_FIRST_EXTRA:]
            out.append((safe_count(a2a_in), safe_count(a2a_out), safe_count(prompt),
                        safe_count(completion), safe_number(cost)))
        return out


# What the report reads of a kept task record: the line's fields, then the token counts.
_EXTRA_KEYS = ("input_tokens", "output_tokens", "llm_prompt_tokens", "llm_completion_tokens",
               "cost_usd")
_KEPT = ("benchmark", "domain", "category", "task_id", "trial", "status", "reward", "success",
         "termination", "latency_ms", "turns", "labels", "error", *_EXTRA_KEYS)
_FIRST_EXTRA = len(_KEPT) - len(_EXTRA_KEYS)
_ABSENT = object()  # a key the record does not have (not the same as null)
_ABSENTS = (_ABSENT,) * len(_KEPT)


def _consume(acc: _Accumulator, records: Iterator[dict[str, Any]],
             task_filter: TaskFilter | None, tap: Tap | None, raw: RawLine) -> None:
    add_request, add_task = acc.add_request, acc.add_task
    for rec in records:
        kind = rec["type"]
        if kind == "request":
            add_request(rec)
            if tap is not None:
                tap.request(rec)
        elif kind == "task":
            if tap is not None:
                tap.task(rec, raw.line)  # the record as read (a task_filter may change it)
            add_task(task_filter(rec) if task_filter else rec)
        elif kind == "run":
            acc.runs.append(rec)
        else:
            acc.run_ends[str(rec["run_id"])] = rec


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


def _groups(lines: Iterable[TaskLine], attr: str) -> list[GroupStats]:
    buckets: dict[str, list[TaskLine]] = defaultdict(list)
    for line in lines:
        buckets[str(getattr(line, attr) or "-")].append(line)
    return [_group(name, items) for name, items in sorted(buckets.items())]


def _tally(items: Iterable[TaskLine]) -> Counts:
    counts = Counts()
    for i in items:
        counts.add(i.status, i.success, i.reward)
    return counts


def _group(name: str, items: list[TaskLine]) -> GroupStats:
    c = _tally(items)
    return GroupStats(
        name=name, task_trials=len(items), scored=c.scored, mean_reward=c.mean_reward,
        pass_rate=c.pass_rate, passed=c.passed, agent_errors=c.agent_errors,
        infra_errors=c.infra_errors)


def _pass_k(scored: list[TaskLine]) -> tuple[list[PassK], str]:
    per_task: dict[tuple[Any, ...], list[bool]] = defaultdict(list)
    for line in scored:
        per_task[(line.benchmark, line.domain, line.task_id)].append(line.success)
    if not per_task:
        return [], "none"
    max_k = min(len(v) for v in per_task.values())
    out, methods = [], set()
    for k in range(1, max_k + 1):
        values = [pass_hat_k(len(v), sum(v), k) for v in per_task.values()]
        mean, low, high, method = mean_ci(values)
        methods.add(method)
        out.append(PassK(k=k, value=mean, ci_low=None if math.isnan(low) else low,
                         ci_high=None if math.isnan(high) else high, method=method))
    return out, "/".join(sorted(methods))


def _latency(h: LogHistogram) -> Latency:
    return Latency(count=h.n, mean=h.mean, p50=h.percentile(50), p90=h.percentile(90),
                   p99=h.percentile(99))


def build_report(paths: list[Path], *, task_filter: TaskFilter | None = None,
                 tap: Tap | None = None) -> Report:
    """Read metrics.jsonl files (shards, resumes) into one Report; `tap` sees each record."""
    stats = ReadStats()
    acc = _Accumulator()
    raw = RawLine()
    groups: list[RunGroup] = []
    for path in paths:  # file by file: which runs each holds (two runs are never merged)
        before = len(acc.runs)
        # summary: task records are read without their transcripts (the report shows none).
        # (a task_filter sees whole records: it may read the transcript)
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


def _headline(lines: list[TaskLine], how: str) -> float | None:
    scored = [i for i in lines if i.status in SCORED]
    if not scored:
        return None
    if how == "macro_category_mean":
        groups = [g.mean_reward for g in _groups(scored, "category") if g.mean_reward is not None]
        return sum(groups) / len(groups)
    return sum(i.reward or 0.0 for i in scored) / len(scored)


def _score(lines: list[TaskLine], runs: list[dict[str, Any]]
           ) -> tuple[float | None, str, dict[str, float | None]]:
    """The headline score, its method, and the score of each separately reported group."""
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
    main = [i for i in lines if i.category not in apart]
    groups = {name: _headline([i for i in lines if i.category in cats], how)
              for name, cats in separate.items() if any(i.category in cats for i in lines)}
    return _headline(main, how), how, groups


def _error_warnings(errors: dict[str, int], total: int) -> list[str]:
    """Explain every error count that changes how the score reads."""
    out = []
    if errors["evaluator"]:
        out.append(f"{errors['evaluator']} task-trial(s) ended in an evaluator error (the "
                   "benchmark's evaluator raised on what the agent left behind, as upstream's "
                   "does): scored 0 and included in the score; upstream's runner would record "
                   "an error instead")
    unscored = errors["infrastructure"] + errors["harness"] + errors["invalid"]
    if unscored:
        parts = [f"{errors[k]} {name}" for k, name in (
            ("infrastructure", "infrastructure error(s)"), ("harness", "harness error(s)"),
            ("invalid", "invalid record(s)")) if errors[k]]
        out.append(f"{unscored_note(unscored, total)} ({', '.join(parts)}); --fail-under "
                   "refuses an incomplete score unless --allow-incomplete is given")
    return out


def _finish(paths: list[Path], acc: _Accumulator, stats: ReadStats,
            warnings: list[str]) -> Report:
    by_key = {key: TaskLine.model_validate(_line_fields(rec)) for key, rec in acc.kept()}
    lines = sorted(by_key.values(),
                   key=lambda i: (i.benchmark, str(i.domain), natural(i.task_id), i.trial))
    scored = [i for i in lines if i.status in SCORED]
    pass_k, ci_method = _pass_k(scored)
    score, method, group_scores = _score(lines, acc.runs)
    c = _tally(lines)
    errors = {"agent": c.agent_errors, "evaluator": c.evaluator_errors,
              "infrastructure": c.infra_errors, "harness": c.harness_errors,
              "invalid": sum(i.status == INVALID for i in lines)}
    warnings += _error_warnings(errors, len(lines))
    per_task = Counter((i.benchmark, i.domain, i.task_id) for i in lines)
    labels = Counter(label for i in lines for label in i.labels)
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
    task_h.extend(i.latency_ms for i in lines)
    turns_h.extend(float(i.turns) for i in lines)
    failed = [i for i in lines if not i.success]
    extras = acc.extras()
    costs = [e[4] for e in extras if e[4] is not None]
    adaptive = _adaptive(acc, by_key, extras, costs, warnings)
    if adaptive is not None and adaptive.get("summary") and \
            adaptive["summary"]["n"] < adaptive["summary"]["N"]:
        score = adaptive["summary"]["estimate"]  # stratified: Neyman over-samples strata
    return Report(
        files=[str(p) for p in paths],
        benchmark=_text(acc.runs[0].get("benchmark")) if acc.runs
        else (lines[0].benchmark if lines else None),
        domains=sorted({str(i.domain) for i in lines if i.domain}),
        runs=[{k: r.get(k) for k in ("run_id", "benchmark", "domain", "shard", "started_at",
                                      "resumed", "models", "data", "interface")}
              | {"status": acc.run_ends.get(r["run_id"], {}).get("status", "unfinished")}
              for r in acc.runs],
        score=score, score_method=method, group_scores=group_scores,
        scoring_labels=dict(labels), mixed_scoring=mixed,
        tasks=len(per_task), task_trials=len(lines), trials=trials_range(per_task.values()),
        scored=len(scored), unscored=len(lines) - len(scored),
        score_complete=len(lines) == len(scored), passed=sum(i.success for i in scored),
        mean_reward=(sum(i.reward or 0.0 for i in scored) / len(scored)) if scored else None,
        pass_rate=(sum(i.success for i in scored) / len(scored)) if scored else None,
        pass_k=pass_k, ci_method=ci_method, by_domain=_groups(lines, "domain"),
        by_category=_groups(lines, "category"),
        terminations=dict(Counter(i.termination or "-" for i in lines).most_common()),
        errors=errors,
        error_classes=dict(Counter(i.error.split(":")[0] for i in lines if i.error)),
        request_latency_ms=_latency(acc.req_latency), task_latency_ms=_latency(task_h),
        turns=_latency(turns_h), requests=acc.requests, request_errors=acc.request_errors,
        tokens={"a2a_input": sum(e[0] for e in extras), "a2a_output": sum(e[1] for e in extras),
                "llm_prompt": sum(e[2] for e in extras),
                "llm_completion": sum(e[3] for e in extras)},
        cost_usd=sum(costs) if costs else None,
        slowest=sorted(lines, key=lambda i: -i.latency_ms)[:10],
        failed=failed[:FAILED_SHOWN], failed_total=len(failed),
        failed_truncated=len(failed) > FAILED_SHOWN,
        read={"lines": stats.lines, "records": stats.records, "corrupt": stats.corrupt,
              "foreign": stats.foreign, "malformed": stats.malformed,
              "torn_tail": stats.torn_tail,
              "duplicates": acc.duplicates},
        warnings=warnings, adaptive=adaptive, lines=lines, latency_bins=task_h.bins())


def _adaptive(acc: _Accumulator, by_key: dict[tuple[Any, ...], TaskLine],
              extras: list[tuple[int, int, int, int, float | None]],
              costs: list[float], warnings: list[str]) -> dict[str, Any] | None:
    """The adaptive run's confidence sequence and cost view (None for a full run)."""
    if not any(isinstance(r.get("adaptive"), dict) for r in acc.runs):
        return None
    from a2abench.report.adaptive import cost_view, rebuild
    results = [(acc.tags[k], line.status, line.reward) for k, line in by_key.items()
               if k in acc.tags]
    out = rebuild(acc.runs, acc.run_ends.values(), results)
    if out is None or out.get("summary") is None:
        warnings.append(f"adaptive run: {(out or {}).get('error', 'no plan')}; its score "
                        "has no confidence sequence")
        return out
    tokens = sum(sum(e[:4]) for e in extras)
    out["cost"] = cost_view(len(acc.tasks), out["summary"]["N"], tokens,
                            sum(costs) if costs else None)
    summary = out["summary"]
    if summary["n"] < summary["N"]:
        warnings.append(f"a partial adaptive run: {summary['n']} of {summary['N']} "
                        "task-trials counted; the score is the stratified estimate within its "
                        "confidence sequence, not a full run's score")
    return out
