"""Monitoring of serve-green: Prometheus metrics, structured logs and the live state the status
page shows. The executor calls a few hooks (rejected, started, finished) and tees the run
engine's events into `Monitoring.sink`; nothing here changes how an assessment runs.

Task-level figures (white-agent request latency and errors, tokens, cost, Salesforce calls) come
from the assessment's own metrics.jsonl: the engine makes each task record durable before it
emits TaskFinished, so on that event the monitor reads the file's new complete lines (requests
and tasks) and counts them. Labels are benchmark names, statuses, error class names, model
names and host names only: never URLs, paths or secrets.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from a2abench.run.config import REDACTED, redact
from a2abench.run.events import Event, Progress, RunStarted, TaskFinished, TaskStarted

logger = logging.getLogger("a2abench.green")
LogFormat = Literal["text", "json"]
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.I)
_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s@]+@", re.I)
_CLASS = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]{0,60}):")
DURATION_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 28800)
LATENCY_BUCKETS = (.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300)


def host_of(url: str | None) -> str:
    """The host name of a URL (no scheme, credentials, port or path)."""
    return (urlsplit(url).hostname or "unknown") if url else "unknown"


def error_class(error: str | None) -> str:
    """`AgentTimeout: ...` -> `AgentTimeout`; anything else -> `error`."""
    found = _CLASS.match(error or "")
    return found.group(1) if found else "error"


class Redactor:
    """Removes secrets from log lines: the operator's token, secret-looking environment
    variables' values, credentials in URLs and values under secret-looking keys."""

    def __init__(self, extra: list[str] | None = None) -> None:
        values = [v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 6]
        self.secrets = sorted({*values, *(s for s in extra or [] if s)}, key=len, reverse=True)

    def text(self, value: str) -> str:
        for secret in self.secrets:
            value = value.replace(secret, REDACTED)
        return _USERINFO.sub(rf"\1{REDACTED}@", value)

    def fields(self, fields: dict[str, Any]) -> dict[str, Any]:
        def clean(value: Any) -> Any:
            if isinstance(value, str):
                return self.text(value)
            if isinstance(value, dict):
                return {k: clean(v) for k, v in value.items()}
            if isinstance(value, list):
                return [clean(v) for v in value]
            return value
        cleaned: dict[str, Any] = clean(redact(fields))
        return cleaned


class StructuredFormatter(logging.Formatter):
    """One line per record: `event key=value ...` (text) or one JSON object (json)."""

    def __init__(self, fmt: LogFormat, redactor: Redactor) -> None:
        super().__init__()
        self.format_kind, self.redactor = fmt, redactor

    def format(self, record: logging.LogRecord) -> str:
        fields = getattr(record, "fields", None)
        message = self.redactor.text(record.getMessage())
        if self.format_kind == "json":
            out = {"time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"), "level":
                   record.levelname.lower(), "logger": record.name}
            out.update(self.redactor.fields(fields) if fields else {"message": message})
            if record.exc_info:
                out["traceback"] = self.redactor.text(self.formatException(record.exc_info))
            return json.dumps(out, default=str)
        line = f"{record.levelname:<9}{message}"
        if record.exc_info:
            line += "\n" + self.redactor.text(self.formatException(record.exc_info))
        return line


def log_event(event: str, message: str, **fields: Any) -> None:
    """One line per assessment/task start and end: `message` for people (text format), the
    fields for machines (json format)."""
    logger.info(message, extra={"fields": {"event": event, **fields}})


@dataclass
class LiveAssessment:
    """What the status page shows about one assessment."""

    id: str
    benchmark: str | None = None
    domain: str | None = None
    white_agent_host: str = "unknown"
    state: str = "queued"  # queued | running | completed | failed | canceled | ...
    started: float = field(default_factory=time.time)
    finished: float | None = None
    progress: Progress = field(default_factory=Progress)  # the engine's counters, copied

    def view(self) -> dict[str, Any]:
        data = asdict(self)
        p = data.pop("progress")
        data.update(p, mean_reward=self.progress.mean_reward, pass_rate=self.progress.pass_rate)
        data["elapsed_s"] = round((self.finished or time.time()) - self.started, 1)
        return data


class _Tail:
    """New complete lines of a growing JSONL file."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset = path, 0

    def records(self) -> list[dict[str, Any]]:
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return []
        end = data.rfind(b"\n") + 1
        self.offset += end
        out = []
        for line in data[:end].splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue  # a damaged line is the report's business, not the monitor's
        return out


class Monitoring:
    """Hooks for the executor; `metrics` is None unless --metrics / --metrics-port."""

    def __init__(self, metrics: Any | None = None, keep_finished: int = 20) -> None:
        self.metrics = metrics
        self.live: dict[str, LiveAssessment] = {}
        self.finished: deque[LiveAssessment] = deque(maxlen=keep_finished)
        self.version = 0
        self.listeners: list[Callable[[], None]] = []
        self._tails: dict[str, tuple[_Tail, dict[str, Any]]] = {}
        # True once the server begins to stop (set by `serve`): live streams then end.
        self.stopping: Callable[[], bool] = lambda: False

    def _changed(self) -> None:
        self.version += 1
        for listener in list(self.listeners):
            listener()

    def snapshot(self) -> dict[str, Any]:
        return {"version": self.version,
                "running": [a.view() for a in self.live.values()],
                "finished": [a.view() for a in reversed(self.finished)]}

    # -- hooks -----------------------------------------------------------------------------

    def rejected(self, assessment_id: str, reason: str, problem: str) -> None:
        if self.metrics is not None:
            self.metrics.rejected.labels(reason=reason).inc()
        log_event("assessment_rejected", f"assessment {assessment_id} rejected: {problem}",
                  assessment_id=assessment_id, reason=reason, problem=problem)

    def queued(self, assessment_id: str) -> None:
        self.live.setdefault(assessment_id, LiveAssessment(assessment_id))
        self._changed()

    def started(self, assessment_id: str, benchmark: str, domain: str | None,
                white_agent_url: str, output: Path | None) -> None:
        live = self.live.setdefault(assessment_id, LiveAssessment(assessment_id))
        live.benchmark, live.domain, live.state = benchmark, domain, "running"
        live.white_agent_host, live.started = host_of(white_agent_url), time.time()
        if output is not None:
            self._tails[assessment_id] = (_Tail(output), {})
        if self.metrics is not None:
            self.metrics.started.labels(benchmark=benchmark).inc()
        log_event("assessment_start", f"assessment {assessment_id}: {benchmark}"
                  + (f" ({domain})" if domain else "") + f" against {live.white_agent_host}",
                  assessment_id=assessment_id, benchmark=benchmark, domain=domain,
                  white_agent_host=live.white_agent_host)
        self._changed()

    def sink(self, assessment_id: str) -> Callable[[Event], None]:
        """An engine event sink for one assessment (tee it beside the progress pump)."""
        def on_event(event: Event) -> None:
            live = self.live.get(assessment_id)
            if live is None:
                return
            if isinstance(event, RunStarted):
                live.progress.total = event.total
            elif isinstance(event, TaskStarted):
                live.progress.running = event.progress.running
                log_event("task_start", f"assessment {assessment_id}: task {event.task_id} "
                          f"trial {event.trial} started", assessment_id=assessment_id,
                          benchmark=live.benchmark, task_id=event.task_id, trial=event.trial)
            elif isinstance(event, TaskFinished):
                self._task_finished(live, event)
            else:
                return
            self._changed()
        return on_event

    def _task_finished(self, live: LiveAssessment, event: TaskFinished) -> None:
        p = event.progress
        live.progress = replace(p)
        outcome = "passed" if event.success else event.status if event.status != "ok" \
            else "failed"
        log_event("task_end", f"assessment {live.id}: task {event.task_id} trial {event.trial} "
                  f"{outcome}, reward {event.reward}, {event.latency_ms / 1000:.2f} s",
                  assessment_id=live.id, benchmark=live.benchmark,
                  white_agent_host=live.white_agent_host, task_id=event.task_id,
                  trial=event.trial, status=event.status, reward=event.reward,
                  success=event.success, termination=event.termination,
                  duration_s=round(event.latency_ms / 1000, 3),
                  error=error_class(event.error) if event.error else None)
        self._read_records(live)

    def _read_records(self, live: LiveAssessment) -> None:
        tail = self._tails.get(live.id)
        if tail is None or self.metrics is None:
            return
        reader, run = tail
        for rec in reader.records():
            kind = rec.get("type")
            if kind == "run":
                run.update(rec)
            elif kind == "request":
                self.metrics.count_request(live.white_agent_host, rec)
            elif kind == "task":
                self.metrics.count_task(rec, run)

    def finished_assessment(self, assessment_id: str, status: str, error: str | None) -> None:
        live = self.live.pop(assessment_id, None)
        if live is None:
            return
        self._read_records(live)  # requests of task-trials cut short
        self._tails.pop(assessment_id, None)
        live.state, live.finished = status, time.time()
        duration = live.finished - live.started
        if self.metrics is not None and live.benchmark is not None:
            self.metrics.finished.labels(benchmark=live.benchmark, status=status).inc()
            self.metrics.duration.labels(benchmark=live.benchmark).observe(duration)
        view, p = live.view(), live.progress
        log_event("assessment_end", f"assessment {assessment_id}: {error or status}, "
                  f"{p.passed}/{p.done} task-trials passed, {duration:.1f} s",
                  assessment_id=assessment_id, benchmark=live.benchmark,
                  white_agent_host=live.white_agent_host, status=status,
                  task_trials=p.done, passed=p.passed, mean_reward=view["mean_reward"],
                  duration_s=round(duration, 3), error=error)
        if live.benchmark is not None:
            self.finished.append(live)
        self._changed()
