"""serve-green's Prometheus metrics (prometheus-client, a registry of its own).

Imported only when `--metrics` or `--metrics-port` is given. Names and labels are listed in
docs/serve-green.md; labels never hold URLs, paths or secrets (host names at most).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from a2abench.green.monitoring import DURATION_BUCKETS, LATENCY_BUCKETS, error_class

PREFIX = "a2abench_green_"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
FINAL_STATUSES = ("completed", "failed", "canceled", "interrupted", "aborted")
TASK_RESULTS = ("passed", "failed", "agent_error", "evaluator_error", "infrastructure_error",
                "harness_error")
REJECT_REASONS = ("invalid", "busy")


class GreenMetrics:
    def __init__(self) -> None:
        self._running: Callable[[], int] = lambda: 0
        self._waiting: Callable[[], int] = lambda: 0
        r = self.registry = CollectorRegistry()
        p = PREFIX
        self.started = Counter(f"{p}assessments_started", "Assessments that started running.",
                               ["benchmark"], registry=r)
        self.finished = Counter(f"{p}assessments_finished", "Assessments that ended, by final "
                                "status (completed, failed, canceled, interrupted, aborted).",
                                ["benchmark", "status"], registry=r)
        self.rejected = Counter(f"{p}assessments_rejected", "Assessment requests refused "
                                "(invalid: a bad request; busy: the waiting line was full).",
                                ["reason"], registry=r)
        in_flight = Gauge(f"{p}assessments_in_flight", "Assessments running now.", registry=r)
        in_flight.set_function(lambda: float(self._running()))
        queued = Gauge(f"{p}assessments_queued", "Assessments waiting for a slot.", registry=r)
        queued.set_function(lambda: float(self._waiting()))
        self.duration = Histogram(f"{p}assessment_duration_seconds", "Wall time of an "
                                  "assessment, from start to its final status.", ["benchmark"],
                                  buckets=DURATION_BUCKETS, registry=r)
        self.task_trials = Counter(f"{p}task_trials", "Task-trials finished, by result "
                                   "(passed, failed, agent_error, infrastructure_error, "
                                   "harness_error).", ["benchmark", "result"], registry=r)
        self.request_latency = Histogram(f"{p}white_agent_request_seconds", "Latency of each "
                                         "A2A request attempt to the white agent.", ["host"],
                                         buckets=LATENCY_BUCKETS, registry=r)
        self.request_errors = Counter(f"{p}white_agent_request_errors", "A2A request attempts "
                                      "that failed, by error class.", ["host", "error_class"],
                                      registry=r)
        self.llm_tokens = Counter(f"{p}llm_tokens", "LLM tokens spent by the user simulator "
                                  "and the judge.", ["model", "role", "kind"], registry=r)
        self.llm_cost = Counter(f"{p}llm_cost_usd", "LLM cost in US dollars (priced models "
                                "only).", ["model", "role"], registry=r)
        self.salesforce_calls = Counter(f"{p}salesforce_api_calls", "Queries sent to a live "
                                        "Salesforce org (--backend salesforce).", ["org"],
                                        registry=r)
        # Named as docs/mcp.md says, without the green prefix: the endpoint's, not a run's.
        self.mcp_calls = Counter("a2abench_mcp_calls", "MCP tool calls, by tool and outcome "
                                 "(ok, error: the tool reported an error, rejected: refused "
                                 "by a limit or outside the turn, timeout).",
                                 ["tool", "outcome"], registry=r)
        self.http_requests = Counter(f"{p}http_requests", "HTTP requests this server answered, "
                                     "by route group and status code.", ["route", "code"],
                                     registry=r)

    def know(self, benchmarks: list[str]) -> None:
        """Every label set known at start, at 0: a dashboard then shows 0, not "No data",
        until the first event (and rate() has a starting point)."""
        for benchmark in benchmarks:
            self.started.labels(benchmark=benchmark)
            self.duration.labels(benchmark=benchmark)
            for status in FINAL_STATUSES:
                self.finished.labels(benchmark=benchmark, status=status)
            for result in TASK_RESULTS:
                self.task_trials.labels(benchmark=benchmark, result=result)
        for reason in REJECT_REASONS:
            self.rejected.labels(reason=reason)

    def bind(self, running: Callable[[], int], waiting: Callable[[], int]) -> None:
        """Where the in-flight and queued gauges read their values (the admission)."""
        self._running, self._waiting = running, waiting

    def count_mcp_call(self, tool: str, outcome: str) -> None:
        self.mcp_calls.labels(tool=tool, outcome=outcome).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def count_request(self, host: str, rec: dict[str, Any]) -> None:
        latency = rec.get("latency_ms")
        if isinstance(latency, int | float):
            self.request_latency.labels(host=host).observe(latency / 1000)
        if rec.get("error"):
            self.request_errors.labels(host=host, error_class=error_class(rec["error"])).inc()

    def count_task(self, rec: dict[str, Any], run: dict[str, Any]) -> None:
        benchmark = str(rec.get("benchmark") or "unknown")
        status = str(rec.get("status") or "ok")
        result = ("passed" if rec.get("success") else "failed") if status == "ok" else status
        self.task_trials.labels(benchmark=benchmark, result=result).inc()
        for model, role, usage in _llm_usage(rec, run.get("models") or {}):
            prompt = int(usage.get("prompt_tokens") or 0)
            completion = int(usage.get("completion_tokens") or 0)
            if prompt:
                self.llm_tokens.labels(model=model, role=role, kind="prompt").inc(prompt)
            if completion:
                self.llm_tokens.labels(model=model, role=role, kind="completion").inc(completion)
            cost = usage.get("cost_usd")
            if isinstance(cost, int | float) and cost > 0:
                self.llm_cost.labels(model=model, role=role).inc(cost)
        options = ((run.get("config") or {}).get("options") or {})
        if benchmark == "crmarena" and options.get("backend") == "salesforce":
            calls = int(rec.get("tool_calls") or 0)
            if calls:
                self.salesforce_calls.labels(org=str(options.get("org") or "unknown")).inc(calls)


def _model(models: dict[str, Any], role: str) -> str | None:
    entry = models.get(role)
    return str(entry["model"]) if isinstance(entry, dict) and entry.get("model") else None


def _llm_usage(rec: dict[str, Any], models: dict[str, Any]
               ) -> list[tuple[str, str, dict[str, Any]]]:
    """(model, role, usage) of a task-trial: per role when the record splits it
    (`details.llm_usage`); else the record's total, labelled with every configured role."""
    split = (rec.get("details") or {}).get("llm_usage")
    if isinstance(split, dict) and split:
        return [(_model(models, role) or "unknown", role, usage)
                for role, usage in split.items() if isinstance(usage, dict)]
    total = {"prompt_tokens": rec.get("llm_prompt_tokens"),
             "completion_tokens": rec.get("llm_completion_tokens"),
             "cost_usd": rec.get("cost_usd")}
    used = [(role, model) for role in ("user_simulator", "judge")
            if (model := _model(models, role)) is not None]
    if not used:
        return [("unknown", "unknown", total)]
    return [("+".join(sorted({m for _, m in used})), "+".join(r for r, _ in used), total)]
