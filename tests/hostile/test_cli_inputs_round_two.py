"""Issue 23 items 6, 7 and 10: inputs that still ended in a traceback or were silently
accepted. Each now ends in one `Error: ...` line and the documented exit code."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from a2abench.run.registry import unregister
from tests.clihelp import Result, run_cli
from tests.engine.scripted import install
from tests.hostile.test_cli_bad_input import ok_exit


@pytest.fixture(autouse=True)
def scripted_benchmark() -> Iterator[None]:
    install()
    yield
    unregister("scripted")


def one_error(r: Result, code: int, *needles: str) -> None:
    ok_exit(r, code)
    errors = [line for line in r.err.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, r.err
    for needle in needles:
        assert needle in r.err, r.err


@pytest.mark.parametrize("url", ["http://\U0001f4a9.la/", "http://" + "a" * 100_000 + ".com/",
                                 "http://b\u00fccher.example/" + "x" * 70_000])
def test_urls_httpx_cannot_parse(url: str, tmp_path: Path) -> None:
    one_error(run_cli("discover", url, "--timeout", "1"), 2, "is not a valid URL")
    one_error(run_cli("run", "scripted", "--white-agent-url", url, "--output",
                      str(tmp_path / "m.jsonl"), "--timeout", "1", "--retries", "0"), 2,
              "is not a valid URL")
    assert not (tmp_path / "m.jsonl").exists()


def test_demo_output_that_is_a_file_or_cannot_be_made(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    one_error(run_cli("demo", "--output", str(afile)), 2, "is a file, not a directory")
    assert afile.read_text() == "x"
    one_error(run_cli("demo", "--output", "/proc/x"), 2, "--output /proc/x cannot be used")


def test_a_tasks_file_nested_too_deep(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text("[" * 100_000 + "]" * 100_000)
    r = run_cli("run", "crmarena", "--white-agent-url", "http://127.0.0.1:9", "--tasks-file",
                str(tasks), "--judge-llm", "offline", "--output", str(tmp_path / "m.jsonl"))
    one_error(r, 1, f"the tasks file {tasks} is not valid JSON")


def test_tau2_submission_output_that_is_a_file(tmp_path: Path) -> None:
    records = tmp_path / "m.jsonl"
    records.write_text(json.dumps({"type": "run"}) + "\n")
    target = tmp_path / "out.txt"
    target.write_text("keep")
    r = run_cli("report", str(records), "--format", "tau2-submission", "--output", str(target),
                "--model-name", "m", "--model-organization", "o", "--contact-email", "e@x.org")
    one_error(r, 2, "is a file; --format tau2-submission writes a directory")
    assert target.read_text() == "keep"


def test_unknown_rescoring_keys_are_refused(tmp_path: Path) -> None:
    from tests.engine.conftest import agent

    out = tmp_path / "m.jsonl"
    with agent() as (_, base):
        assert run_cli("run", "scripted", "--white-agent-url", base, "--output", str(out),
                       "--option", "tasks=1").code == 0
    r = run_cli("report", str(out), "--rescore", "--scoring", "zzz=1")
    one_error(r, 2, "--scoring: unknown scripted option(s) zzz")


@pytest.mark.parametrize("pattern", ["10.0.0.0/99", "example.org/8", "::/200", " "])
def test_invalid_allow_host_patterns_are_refused(pattern: str, tmp_path: Path) -> None:
    one_error(run_cli("run", "scripted", "--white-agent-url", "http://127.0.0.1:9",
                      "--allow-host", pattern, "--output", str(tmp_path / "m.jsonl")), 2)
    one_error(run_cli("serve-green", "--allow-host", pattern, "--port", "0"), 2)
    assert not (tmp_path / "m.jsonl").exists()


# ------------------------------------------------------------------ plugins (items 6, 10)

def fake_dist(root: Path, name: str, entry: str) -> None:
    """An installed distribution (dist-info on sys.path) registering one benchmark."""
    info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[a2abench.benchmarks]\n{entry}\n")


def test_a_plugin_whose_import_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_dist(tmp_path, "broken-bench", "broken = no_such_module_23:Driver")
    monkeypatch.syspath_prepend(str(tmp_path))
    r = run_cli("run", "broken", "--white-agent-url", "http://127.0.0.1:9",
                "--output", str(tmp_path / "m.jsonl"))
    one_error(r, 2, "benchmark 'broken' (no_such_module_23:Driver, from broken-bench) could "
                    "not be loaded: ModuleNotFoundError")
    assert "no_such_module_23" not in sys.modules


def test_a_broken_plugin_stops_data_all_but_not_a_named_benchmark(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_dist(tmp_path, "broken-bench", "broken = no_such_module_23:Driver")
    monkeypatch.syspath_prepend(str(tmp_path))
    named = run_cli("data", "status", "tau2", "--json")
    assert named.code == 0 and {s["benchmark"] for s in named.json()} == {"tau2"}, named.err
    one_error(run_cli("data", "status", "all"), 2,
              "benchmark 'broken' (no_such_module_23:Driver, from broken-bench) could not be "
              "loaded")


def test_a_plugin_shadowing_a_builtin_benchmark_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "shadow_23.py").write_text(
        "from tests.engine.scripted import ScriptedDriver as Driver\n")
    fake_dist(tmp_path, "shadow-bench", "tau2 = shadow_23:Driver")
    monkeypatch.syspath_prepend(str(tmp_path))
    r = run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:9", "--domain", "mock",
                "--output", str(tmp_path / "m.jsonl"))
    one_error(r, 2, "benchmark 'tau2' is registered by more than one package "
                    "(a2abench, shadow-bench)")
    assert not (tmp_path / "m.jsonl").exists()
