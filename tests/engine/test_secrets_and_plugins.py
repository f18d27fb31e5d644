"""Secrets never reach any output; third-party benchmarks plug in through entry points."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from tests.clihelp import run_cli
from tests.engine.conftest import agent
from tests.report.pagedata import page_data

CANARY = "canary-7f3a9c1e-secret"


def test_a_planted_secret_appears_in_no_output(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("A2ABENCH_LLM_API_KEY", "OPENAI_API_KEY", "SALESFORCE_PASSWORD",
                 "SALESFORCE_SECURITY_TOKEN", "SALESFORCE_B2B_PASSWORD"):
        monkeypatch.setenv(name, CANARY)
    out = tmp_path / "run" / "metrics.jsonl"
    with agent() as (_, base):
        url = base.replace("http://", f"http://user:{CANARY}@")
        r = run_cli("run", "scripted", "--white-agent-url", url, "--auth-token", CANARY,
                    "--output", str(out), "--option", "tasks=2", "--option",
                    f"api_key={CANARY}", "--option", f"password={CANARY}")
        assert r.code == 0, r.err
        monkeypatch.setenv("A2ABENCH_AUTH_TOKEN", CANARY)
        resumed = run_cli("run", "scripted", "--white-agent-url", url, "--output", str(out),
                          "--resume", "--option", "tasks=2", "--option", f"api_key={CANARY}",
                          "--option", f"password={CANARY}", "--json")
    assert resumed.code == 0, resumed.err
    outputs = [r.out, r.err, resumed.out, resumed.err]
    for fmt in ("json", "markdown", "html", "junit"):
        report = run_cli("report", str(out), "--format", fmt,
                         "--output", str(tmp_path / f"report.{fmt}"))
        outputs += [report.out, report.err]
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    files += [p for p in Path(os.environ["A2ABENCH_CACHE_DIR"]).rglob("*") if p.is_file()]
    assert len(files) >= 5
    for path in files:
        assert CANARY not in path.read_text(errors="replace"), path
    for text in outputs:
        assert CANARY not in text
    assert "***" in out.read_text()
    # The HTML report compresses transcripts: look inside them too.
    meta, blobs = page_data((tmp_path / "report.html").read_text())
    assert blobs and CANARY not in json.dumps([meta, blobs])


@pytest.mark.slow
def test_a_third_party_benchmark_registers_by_entry_point(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    pkg = site / "fakebench"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        from pydantic import BaseModel
        from a2abench.run import Driver, TaskOutcome, TaskSpec

        class Options(BaseModel):
            tasks: int = 2

        class FakeBench(Driver):
            name = "fakebench"
            options_model = Options

            def tasks(self):
                return [TaskSpec(task_id=f"f{i}") for i in range(self.options.tasks)]

            async def run_task(self, ctx):
                reply = await ctx.conversation().send("ping " + ctx.task.task_id)
                return TaskOutcome(reward=1.0 if ctx.task.task_id in reply.text else 0.0)
    '''))
    dist = site / "fakebench-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fakebench\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[a2abench.benchmarks]\nfakebench = fakebench:FakeBench\n")
    # On sys.path as PYTHONPATH puts it at a process's start: the registry scans entry
    # points per sys.path, so this process finds it as a new one would.
    monkeypatch.syspath_prepend(str(site))
    try:
        listing = run_cli("run", "--help")
        assert listing.code == 0 and "fakebench" in listing.out, listing.err
        with agent() as (_, base):
            r = run_cli("run", "fakebench", "--white-agent-url", base, "--output",
                        str(tmp_path / "m.jsonl"), "--option", "tasks=3", "--fail-under", "1.0")
    finally:
        sys.modules.pop("fakebench", None)  # its module is this test's alone
    assert r.code == 0, r.err
    assert "Score 1.0000" in r.out and "3/3 passed" in r.out


def test_ci_mode_prints_one_plain_line_per_task_trial(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with agent() as (_, base):
        r = run_cli("run", "scripted", "--white-agent-url", base, "--output",
                    str(tmp_path / "m.jsonl"), "--option", "tasks=3")
    lines = [line for line in r.out.splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in lines] == ["[1/3", "[2/3", "[3/3"]
    assert all(" pass reward=1.00 " in line for line in lines)
    assert "\x1b[" not in r.out
