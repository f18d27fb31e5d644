"""Monitoring of serve-green: /metrics, /healthz, /readyz, structured logs, the live page."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from a2abench.green import GreenSettings
from a2abench.green.monitoring import Redactor, StructuredFormatter, error_class, host_of
from a2abench.green.prom import GreenMetrics
from a2abench.green.starting import start_metrics_server
from tests.green.helpers import STATE, agentbeats, cancel, green_server, sdk_client, send
from tests.green.test_control import until_running
from tests.waits import HANG_S

CANARY = "canary-15-0c4e9d-secret"


def scrape(base: str, token: str | None = None) -> dict[tuple[str, tuple[tuple[str, str], ...]],
                                                        float]:
    """Every sample of /metrics, parsed by prometheus-client's own parser."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = httpx.get(base + "/metrics", headers=headers)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(r.text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_metrics_move_with_an_assessment(settings: GreenSettings, white: str) -> None:
    settings = dataclasses.replace(settings, metrics=True)
    with green_server(settings) as (base, _):
        before = scrape(base)
        assert value(before, "a2abench_green_assessments_in_flight") == 0
        async with sdk_client(base) as client:
            done = await send(client, agentbeats(white, benchmark="scripted", tasks=3, turns=2))
            rejected = await send(client, "not json at all")
        assert done.state == STATE.TASK_STATE_COMPLETED
        assert rejected.state == STATE.TASK_STATE_REJECTED
        after = scrape(base)
    p = "a2abench_green_"
    assert value(before, p + "assessments_started_total", benchmark="scripted") == 0
    assert value(after, p + "assessments_started_total", benchmark="scripted") == 1
    assert value(after, p + "assessments_finished_total", benchmark="scripted",
                 status="completed") == 1
    assert value(after, p + "assessments_rejected_total", reason="invalid") == 1
    assert value(after, p + "assessment_duration_seconds_count", benchmark="scripted") == 1
    assert value(after, p + "task_trials_total", benchmark="scripted", result="passed") == 3
    assert value(after, p + "white_agent_request_seconds_count", host="127.0.0.1") == 6
    assert value(after, p + "assessments_in_flight") == 0
    assert value(after, p + "assessments_queued") == 0
    assert value(after, p + "http_requests_total", route="a2a", code="200") >= 2
    labels = {v for (_, pairs) in after for _, v in pairs}
    assert not any("://" in v or "/" in v for v in labels), labels  # hosts, never URLs


def test_every_label_known_at_start_is_exported_at_zero(settings: GreenSettings) -> None:
    # Grafana shows "No data" for a series that does not exist yet (issue 22).
    settings = dataclasses.replace(settings, metrics=True)
    with green_server(settings) as (base, _):
        samples = scrape(base)
    p = "a2abench_green_"
    for bench in ("tau2", "crmarena", "scripted"):
        assert (p + "assessments_started_total", (("benchmark", bench),)) in samples
        for status in ("completed", "failed", "canceled"):
            assert (p + "assessments_finished_total",
                    (("benchmark", bench), ("status", status))) in samples
        for result in ("passed", "failed", "agent_error", "infrastructure_error"):
            assert (p + "task_trials_total", (("benchmark", bench), ("result", result))) \
                in samples
        assert (p + "assessment_duration_seconds_count", (("benchmark", bench),)) in samples
    for reason in ("invalid", "busy"):
        assert samples[(p + "assessments_rejected_total", (("reason", reason),))] == 0


def test_metrics_are_off_unless_asked_for(settings: GreenSettings) -> None:
    with green_server(settings, "/a2a") as (base, green):
        assert green.metrics is None
        assert httpx.get(base + "/metrics").status_code == 404
        assert httpx.get(base + "/healthz").json() == {"status": "ok"}


def test_metrics_on_their_own_port(settings: GreenSettings) -> None:
    settings = dataclasses.replace(settings, metrics_port=1)
    with green_server(settings, "/a2a") as (base, green):
        assert httpx.get(base + "/metrics").status_code == 404  # not on the main port
        server = start_metrics_server(green.metrics, "127.0.0.1", 0)
        try:
            samples = scrape(f"http://127.0.0.1:{server.server_port}")
            assert ("a2abench_green_assessments_in_flight", ()) in samples
        finally:
            server.shutdown()
            server.server_close()


def test_probes_need_no_token_but_metrics_and_status_do(settings: GreenSettings) -> None:
    settings = dataclasses.replace(settings, metrics=True, auth_token=SecretStr(CANARY))
    with green_server(settings, "/a2a") as (base, _):
        assert httpx.get(base + "/healthz").status_code == 200
        assert httpx.get(base + "/readyz").status_code == 200
        assert httpx.get(base + "/metrics").status_code == 401
        assert httpx.get(base + "/status.json").status_code == 401
        assert value(scrape(base, CANARY), "a2abench_green_assessments_in_flight") == 0


async def test_readyz_turns_unready_while_the_line_is_full(settings: GreenSettings,
                                                           held_white: str) -> None:
    settings = dataclasses.replace(settings, max_concurrent_assessments=1,
                                   max_queued_assessments=0)
    with green_server(settings, "/a2a") as (base, _):
        assert httpx.get(base + "/readyz").json() == {"status": "ready"}
        async with sdk_client(base) as client:
            task_id, _ = await until_running(client, agentbeats(
                held_white, benchmark="scripted", tasks=40, turns=1, concurrency=1))
            r = httpx.get(base + "/readyz")
            assert r.status_code == 503 and r.json()["status"] == "unready"
            assert "busy: 1 assessment(s) running" in r.json()["reason"]
            assert httpx.get(base + "/healthz").status_code == 200  # alive, just full
            await cancel(client, task_id)
        r = httpx.get(base + "/readyz")
        assert r.status_code == 200, r.text


@pytest.fixture
def json_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The green logger's lines as the json format writes them, with a secret in the env."""
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(StructuredFormatter("json", Redactor([CANARY])))
    green = logging.getLogger("a2abench.green")
    old_level = green.level
    green.addHandler(handler)
    green.setLevel(logging.INFO)
    yield buffer
    green.removeHandler(handler)
    green.setLevel(old_level)


async def test_json_logs_parse_and_hold_no_secret(settings: GreenSettings, white: str,
                                                  json_log: io.StringIO) -> None:
    agent = white.replace("http://", f"http://operator:{CANARY}@")
    with green_server(settings, "/a2a") as (base, _):
        async with sdk_client(base) as client:
            done = await send(client, agentbeats(agent, benchmark="scripted", tasks=2, turns=1))
            await send(client, f"{CANARY} is not a request")
    assert done.state == STATE.TASK_STATE_COMPLETED
    logging.getLogger("a2abench.green").info("a stray line with %s in it", CANARY)
    text = json_log.getvalue()
    assert CANARY not in text
    lines = [json.loads(line) for line in text.splitlines()]
    events = [line.get("event") for line in lines]
    assert events[:2] == ["assessment_start", "task_start"]
    assert events.count("task_start") == events.count("task_end") == 2
    assert "assessment_end" in events and "assessment_rejected" in events
    start = lines[0]
    assert start["benchmark"] == "scripted" and start["white_agent_host"] == "127.0.0.1"
    end = next(line for line in lines if line.get("event") == "task_end")
    assert {"assessment_id", "task_id", "trial", "status", "reward", "duration_s"} <= set(end)
    assert lines[-1]["message"] == "a stray line with *** in it"


async def test_the_status_page_updates_live_over_sse(settings: GreenSettings,
                                                     held_white: str) -> None:
    with green_server(settings, "/a2a") as (base, _):
        page = httpx.get(base + "/status")
        assert page.status_code == 200 and "EventSource" in page.text
        async with httpx.AsyncClient(timeout=HANG_S) as http, \
                http.stream("GET", base + "/status/events") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            snapshots = _snapshots(stream)
            first = await anext(snapshots)
            assert first["running"] == []
            async with sdk_client(base) as client:
                task_id, _ = await until_running(client, agentbeats(
                    held_white, benchmark="scripted", tasks=40, turns=1, concurrency=1), done=2)
                live = await _first(snapshots, lambda s: any(
                    a["id"] == task_id and a["done"] >= 2 for a in s["running"]))
                row = live["running"][0]
                assert row["benchmark"] == "scripted" and row["total"] == 40
                assert row["white_agent_host"] == "127.0.0.1" and row["pass_rate"] == 1.0
                await cancel(client, task_id)
            ended = await _first(snapshots, lambda s: not s["running"] and s["finished"])
            assert ended["finished"][0]["state"] == "canceled"


async def _snapshots(stream: httpx.Response) -> Any:
    async for line in stream.aiter_lines():
        if line.startswith("data: "):
            yield json.loads(line[6:])


async def _first(snapshots: Any, wanted: Any) -> dict[str, Any]:
    async def scan() -> dict[str, Any]:
        async for snap in snapshots:
            if wanted(snap):
                return dict(snap)
        raise AssertionError("the event stream ended")
    return await asyncio.wait_for(scan(), HANG_S)


def test_labels_and_error_classes() -> None:
    assert host_of("http://user:pw@agent.example:9999/a2a?x=1") == "agent.example"
    assert host_of(None) == "unknown"
    assert error_class("AgentTimeout: no answer in 30 s") == "AgentTimeout"
    assert error_class("HTTP 502 from http://x/") == "error"
    metrics = GreenMetrics()
    run = {"models": {"user_simulator": {"model": "gpt-4.1"}, "judge": {"model": "gpt-4o"}},
           "config": {"options": {"backend": "salesforce", "org": "b2b"}}}
    metrics.count_task({"benchmark": "crmarena", "status": "ok", "success": False,
                        "tool_calls": 3, "llm_prompt_tokens": 100, "llm_completion_tokens": 7,
                        "cost_usd": 0.01}, run)
    metrics.count_task({"benchmark": "tau2", "status": "ok", "success": True, "details": {
        "llm_usage": {"user_simulator": {"prompt_tokens": 40, "completion_tokens": 4,
                                         "cost_usd": 0.002},
                      "judge": {"prompt_tokens": 9, "completion_tokens": 1}}}}, run)
    text = metrics.render().decode()
    assert ('a2abench_green_llm_tokens_total{kind="prompt",model="gpt-4.1",'
            'role="user_simulator"} 40.0') in text
    assert ('a2abench_green_llm_tokens_total{kind="completion",model="gpt-4o",'
            'role="judge"} 1.0') in text
    assert ('a2abench_green_llm_cost_usd_total{model="gpt-4.1",role="user_simulator"} 0.002'
            in text)
    assert 'a2abench_green_salesforce_api_calls_total{org="b2b"} 3.0' in text
    assert ('a2abench_green_llm_tokens_total{kind="prompt",model="gpt-4.1+gpt-4o",'
            'role="user_simulator+judge"} 100.0') in text
    assert 'a2abench_green_task_trials_total{benchmark="crmarena",result="failed"} 1.0' in text


def test_the_grafana_dashboard_queries_only_metrics_that_exist() -> None:
    import re
    from pathlib import Path

    dashboard = json.loads((Path(__file__).resolve().parents[2] / "examples" / "grafana"
                            / "a2abench-green.json").read_text())
    queried = {name for panel in dashboard["panels"] for target in panel["targets"]
               for name in re.findall(r"a2abench_green_\w+", target["expr"])}
    families = {f.name for f in text_string_to_metric_families(GreenMetrics().render().decode())}
    assert len(queried) >= 10
    missing = {q for q in queried if re.sub(r"_(total|bucket|count|sum)$", "", q) not in families}
    assert not missing, missing


def test_an_unknown_log_format_is_a_usage_error(tmp_path: Any) -> None:
    from tests.clihelp import run_cli

    r = run_cli("serve-green", "--log-format", "xml", "--output-dir", str(tmp_path))
    assert r.code == 2 and "'xml' is not one of text, json" in r.err


@pytest.mark.slow
def test_an_open_status_page_does_not_hold_up_ctrl_c(tmp_path: Any) -> None:
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    from tests.green.test_cli import _listening_port

    env = {**os.environ, "PYTHONUNBUFFERED": "1", "A2ABENCH_OUTPUT_DIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "a2abench", "serve-green", "--port", "0",
                             "--log-format", "json"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env)
    got_snapshot, stream_ended = threading.Event(), threading.Event()
    problems: list[Exception] = []
    try:
        assert proc.stderr is not None
        deadline, line = time.monotonic() + HANG_S, ""
        while '"event": "serving"' not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
        port = _listening_port(proc.pid)

        def watch() -> None:
            try:
                with httpx.stream("GET", f"http://127.0.0.1:{port}/status/events",
                                  timeout=60) as stream:
                    for chunk in stream.iter_lines():
                        if chunk.startswith("data: "):
                            got_snapshot.set()
                stream_ended.set()  # the server closed the stream cleanly
            except httpx.HTTPError as exc:  # reported by the assertion below, not swallowed
                problems.append(exc)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        assert got_snapshot.wait(HANG_S)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG_S)
    # uvicorn would wait its 15 s graceful timeout for the open stream, then cancel it (the
    # client then reads a cut-off body: an error in `problems`); the server ends the stream
    # itself instead, cleanly, whatever the machine's load.
    watcher.join(HANG_S)  # the stream's end, clean or not, ends the watcher
    assert proc.returncode == 130 and stream_ended.is_set() and not problems, (problems, err)
    assert all(json.loads(x) for x in err.splitlines() if x.strip())  # JSON lines only


def test_an_exposed_metrics_port_is_warned_about() -> None:
    from a2abench.green.starting import startup_warnings

    exposed = GreenSettings(host="0.0.0.0", metrics_port=9100, allow_hosts=("x",),
                            auth_token=SecretStr("t"), card_url="http://green:9009/")
    assert startup_warnings(exposed) == [
        "--metrics-port 9100 serves /metrics on 0.0.0.0 without the bearer token; keep that "
        "port behind a firewall"]
    assert startup_warnings(dataclasses.replace(exposed, host="127.0.0.1")) == []
