"""A data download's progress: `_download.ensure` reports it, the tau2 driver hands it to the
engine's event sink on the loop, and the displays show it (Rich bar, a few plain lines,
nothing on stdout with --json)."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from a2abench.benchmarks.tau2 import data, domain, load_domain
from a2abench.net import download as _download
from a2abench.render.display import JsonDisplay, PlainDisplay, RichDisplay
from a2abench.render.output import Output, OutputMode
from a2abench.run.events import DataProgress, Progress, RunFinished, RunStarted
from tests.clihelp import run_cli
from tests.conftest import shared_data
from tests.fakes.llm_server import FakeLLMServer, completion
from tests.servers import serve
from tests.tau2 import gold_agent
from tests.tau2.test_download import FileServer, _remote, _serve_domain


@pytest.fixture
def server() -> Iterator[FileServer]:
    with FileServer.serving() as s:
        yield s


def test_ensure_reports_a_download_and_stays_silent_when_cached(server: FileServer) -> None:
    files = [_remote(server, f"p/f{i}.txt", f"body {i}".encode()) for i in range(5)]
    seen: list[tuple[int, int]] = []
    _download.ensure(files, folder="p", workers=3, progress=lambda d, t: seen.append((d, t)))
    assert sorted(seen) == [(i, 5) for i in range(1, 6)]
    again: list[tuple[int, int]] = []
    _download.ensure(files, folder="p", workers=3, progress=lambda d, t: again.append((d, t)))
    assert again == []  # all verified copies: nothing downloaded, nothing shown


def _events() -> list[DataProgress]:
    return [DataProgress("tau2 banking_knowledge data", i, 814) for i in range(1, 815)]


def test_plain_display_prints_a_few_lines() -> None:
    out = Output(OutputMode.PLAIN)
    buffer = io.StringIO()
    out._out = Console(file=buffer, width=200)
    display = PlainDisplay(out)
    for event in _events():
        display(event)
    lines = buffer.getvalue().splitlines()
    assert lines[0] == "downloading tau2 banking_knowledge data: 1/814 files"
    assert lines[-1] == "downloading tau2 banking_knowledge data: 814/814 files"
    assert len(lines) == 5  # the start, then each quarter


def test_json_display_keeps_stdout_to_run_events(capsys: pytest.CaptureFixture[str]) -> None:
    display = JsonDisplay()
    for event in _events():
        display(event)
    assert capsys.readouterr().out == ""


def test_rich_display_shows_a_download_bar_before_the_run_bar() -> None:
    out = Output(OutputMode.RICH)
    buffer = io.StringIO()
    out._out = Console(file=buffer, force_terminal=True, width=120)
    display = RichDisplay(out)
    for event in _events():
        display(event)
    assert display._data is None  # stopped at the total
    display(RunStarted("r", "tau2", "banking_knowledge", "o.jsonl", "agent", "1.0", 1, 0, 1,
                       1, None))
    display(RunFinished("completed", "o.jsonl", Progress(total=1), 1.0))
    text = buffer.getvalue()
    assert "downloading tau2 banking_knowledge data" in text and "814/814" in text
    assert text.index("814/814") < text.index("run r:")


def _user(tasks: dict[str, Any]) -> Any:
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        mine = [m for m in body["messages"] if m["role"] == "assistant"]
        return completion("###STOP###" if mine else "TASK:create_task_1 please help.")
    return reply


@pytest.mark.parametrize("json_mode", [False, True])
def test_run_shows_the_download_through_the_engine(
        server: FileServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        json_mode: bool) -> None:
    _serve_domain(server, "mock")
    monkeypatch.setenv(data.URL_ENV, server.url)
    monkeypatch.setattr(domain, "_DOMAINS", {})
    tasks = {t.id: t for t in load_domain("mock", data_dir=shared_data("tau2").parent).tasks()}
    monkeypatch.setattr(domain, "_DOMAINS", {})
    threads: list[str] = []
    real = PlainDisplay.__call__

    def spy(self: PlainDisplay, event: Any) -> None:
        if isinstance(event, DataProgress):
            threads.append(threading.current_thread().name)
        real(self, event)

    monkeypatch.setattr(PlainDisplay, "__call__", spy)
    llm = FakeLLMServer(handler=_user(tasks))
    out = tmp_path / "run.jsonl"
    with llm.running(), serve(lambda b: gold_agent.app(b, tasks, "gold")[0]) as base:
        r = run_cli("run", "tau2", "--white-agent-url", base, "--domain", "mock",
                    "--user-llm", "u", "--user-llm-base-url", llm.base_url,
                    "--output", str(out), "--task-ids", "create_task_1",
                    *(["--json"] if json_mode else []))
    assert r.code == 0, r.err
    total = len(data.data_paths("mock"))
    if json_mode:
        kinds = [json.loads(line)["kind"] for line in r.out.splitlines()]
        assert "data_progress" not in kinds and kinds[0] == "run_started"
        assert "downloading" not in r.err
        return
    lines = r.out.splitlines()
    shown = [x for x in lines if x.startswith("downloading tau2 mock data: ")]
    assert shown[-1] == f"downloading tau2 mock data: {total}/{total} files"
    assert 1 <= len(shown) <= 5
    assert lines.index(shown[-1]) < next(i for i, x in enumerate(lines) if x.startswith("run "))
    assert set(threads) == {"MainThread"}  # handed to the loop, not shown from the downloaders
