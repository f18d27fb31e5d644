"""Offline tau2 with the demo's scripted user (issue 35): what it plays is labelled wherever a
score goes (records, report, exports, serve-green's Result) and a one-line warning says the
score measures no agent; a dead user LLM is named as the culprit, never the agent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.demo import agent, tau2_data, user_llm
from tests.clihelp import run_cli
from tests.fakes.llm_server import FakeLLMServer
from tests.servers import serve

WARNING = "were played by the scripted user (rules, no LLM)"


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A tau2 run on generated data, the user played by the scripted user under a model name
    that is not its own: the label follows what answered, not what it was called."""
    root = tmp_path_factory.mktemp("scripted")
    data = tau2_data.write(root / "data")
    out = root / "run"
    with serve(agent.build_app) as agent_url, serve(lambda _: user_llm.app()) as user_url:
        res = run_cli("run", "tau2", "--domain", "mock", "--data-dir", str(data),
                      "--white-agent-url", agent_url, "--user-llm", "gpt-4.1",
                      "--user-llm-base-url", user_url + "/v1", "--no-llm-cache",
                      "--max-tasks", "4", "--output", str(out))
    assert res.code == 0, res.err
    assert res.err.count(WARNING) == 1  # one line, at the end of the run
    yield out / "metrics.jsonl"


def test_every_record_and_the_report_say_who_played_the_user(offline_run: Path) -> None:
    tasks = [json.loads(line) for line in offline_run.read_text().splitlines()
             if json.loads(line)["type"] == "task"]
    assert len(tasks) == 4 and all("scripted_user" in t["labels"] for t in tasks)
    report = run_cli("report", str(offline_run), "--format", "json")
    assert report.code == 0 and report.json()["scoring_labels"] == {"scripted_user": 4}
    assert any(WARNING in w for w in report.json()["warnings"])
    table = run_cli("report", str(offline_run))
    assert f"Warning: 4 task-trial(s) {WARNING}" in table.err


def test_exports_carry_the_label_and_a_leaderboard_submission_is_refused(
        offline_run: Path, tmp_path: Path) -> None:
    export = run_cli("report", str(offline_run), "--format", "tau2", "--output",
                     str(tmp_path / "results.json"))
    assert export.code == 0, export.err
    sims = json.loads((tmp_path / "results.json").read_text())["simulations"]
    assert all("scripted_user" in s["info"]["a2abench"]["labels"] for s in sims)
    submission = run_cli("report", str(offline_run), "--format", "tau2-submission",
                         "--output", str(tmp_path / "sub"), "--model-name", "m",
                         "--model-organization", "o", "--contact-email", "a@b.c")
    assert submission.code == 1 and "played by the scripted user" in submission.err
    assert not (tmp_path / "sub").exists()


def test_the_green_result_carries_the_label_and_says_so(offline_run: Path) -> None:
    from a2abench.green.result import result_data, summary_text
    from a2abench.report import build_report
    from a2abench.run.config import RunConfig

    config = RunConfig(benchmark="tau2", white_agent_url="http://purple:9019",
                       options={"domain": "mock", "user_llm": "gpt-4.1"})
    data = result_data(build_report([offline_run]), config, "completed",
                       {"agent": "http://purple:9019"}, "a2abench")
    assert data["summary"]["labels"] == {"scripted_user": 4}
    assert "played by the scripted user (rules, no LLM)" in summary_text(data, "agent")


def test_an_llm_user_is_not_labelled() -> None:
    from a2abench.llm import ChatResult, Usage

    def result(raw: dict[str, Any]) -> ChatResult:
        return ChatResult(content="hi", tool_calls=[], usage=Usage(), cost_usd=None,
                          cached=False, raw=raw, latency_ms=1.0, model="m")

    assert result({"system_fingerprint": user_llm.SCRIPTED_FINGERPRINT}).scripted
    assert not result({"system_fingerprint": "fp_44709d6fcb"}).scripted
    assert not result({}).scripted


def test_a_failing_user_llm_is_named_and_the_agent_not_blamed(tmp_path: Path) -> None:
    data = tau2_data.write(tmp_path / "data")
    dead = FakeLLMServer()  # nothing scripted: it answers 501 to every call
    with serve(agent.build_app) as agent_url, dead.running():
        res = run_cli("run", "tau2", "--domain", "mock", "--data-dir", str(data),
                      "--white-agent-url", agent_url, "--user-llm", "my-user-model",
                      "--user-llm-base-url", dead.base_url, "--no-llm-cache",
                      "--max-tasks", "2", "--output", str(tmp_path / "run"))
    assert res.code == 1, res.err
    error = res.err[res.err.index("Error: "):]
    assert "the user simulator's LLM (--user-llm my-user-model)" in error
    assert "The agent was not at fault" in error and "card's URL" not in error


def test_the_readme_command_serves_the_scripted_user(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    readme = (Path(__file__).parents[2] / "README.md").read_text()
    line = next(x for x in readme.splitlines() if x.startswith("python -m a2abench.demo."))
    argv = line.split("&")[0].split()
    assert argv[:3] == ["python", "-m", "a2abench.demo.user_llm"]
    served: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append(kw))
    user_llm.main(argv[3:])
    assert served == [{"host": "127.0.0.1", "port": 8000, "log_level": "warning"}]
    assert "--user-llm-base-url http://127.0.0.1:8000/v1" in readme
