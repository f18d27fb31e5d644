"""`a2abench report`: formats, CI integration, damaged input, rescoring."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clihelp import run_cli
from tests.engine.conftest import agent

WRONG = frozenset({"t001"})


@pytest.fixture(scope="module")
def metrics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from a2abench.run.registry import unregister
    from tests.engine.scripted import install

    install()
    out = tmp_path_factory.mktemp("report") / "metrics.jsonl"
    with agent(wrong_for=WRONG) as (_, base):
        r = run_cli("run", "scripted", "--white-agent-url", base, "--output", str(out),
                    "--option", "tasks=6", "--num-trials", "2")
    assert r.code == 0, r.err
    yield out
    unregister("scripted")


def test_table_is_the_default(metrics: Path) -> None:
    r = run_cli("report", str(metrics))
    assert r.code == 0
    assert "Score 0.8333" in r.out and "pass^k" in r.out and "cat1" in r.out


def test_json_format(metrics: Path) -> None:
    data = json.loads(run_cli("report", str(metrics), "--format", "json").out)
    assert data["score"] == pytest.approx(10 / 12) and data["task_trials"] == 12
    assert [p["k"] for p in data["pass_k"]] == [1, 2]
    assert data["pass_k"][0]["ci_low"] < data["pass_k"][0]["value"] < data["pass_k"][0]["ci_high"]
    assert data["requests"] == 36 and data["request_latency_ms"]["p50"] > 0
    assert {f["task_id"] for f in data["failed"]} == {"t001"}


def test_markdown_goes_to_the_github_step_summary(metrics: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    r = run_cli("report", str(metrics), "--format", "markdown")
    assert r.code == 0 and "## a2abench report" in r.out
    assert summary.read_text().startswith("## a2abench report")
    assert "| cat1 |" in summary.read_text()


def test_junit_has_one_testcase_per_task_trial(metrics: Path, tmp_path: Path) -> None:
    target = tmp_path / "junit.xml"
    assert run_cli("report", str(metrics), "--format", "junit", "--output", str(target)).code == 0
    root = ET.parse(target).getroot()
    cases = root.findall(".//testcase")
    assert len(cases) == 12 and root.get("failures") == "2"
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == ["t001 [trial 0]", "t001 [trial 1]"]


def test_html_is_self_contained_with_svg_charts(metrics: Path, tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    assert run_cli("report", str(metrics), "--format", "html", "--output", str(target)).code == 0
    html = target.read_text()
    assert html.count("<svg") == 3 and "pass rate by category" in html and "pass^k curve" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    # Scripts are inline (the viewer and its data); nothing is loaded from elsewhere.
    assert not re.search(r"<(script|img|link|iframe)[^>]*\s(src|href)=", html)
    assert "@import" not in html and "url(" not in html


def test_fail_under_exits_3(metrics: Path) -> None:
    assert run_cli("report", str(metrics), "--fail-under", "0.9").code == 3
    assert run_cli("report", str(metrics), "--fail-under", "0.8").code == 0


def test_corrupt_and_foreign_lines_are_counted_not_fatal(metrics: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.jsonl"
    lines = metrics.read_text().splitlines()
    lines.insert(3, "this is not json")
    lines.insert(5, json.dumps({"hello": "world"}))
    damaged.write_text("\n".join(lines) + "\n" + '{"type": "task", "run_id"')
    r = run_cli("report", str(damaged), "--format", "json")
    data = json.loads(r.out)
    assert r.code == 0 and data["read"] == {**data["read"], "corrupt": 1, "foreign": 1,
                                             "torn_tail": 1}
    assert data["task_trials"] == 12 and "skipped 1 corrupt and 1 foreign" in r.err


@pytest.mark.parametrize("content", ["", '{"unrelated": true}\n', "plain text\n"])
def test_empty_or_unrelated_file_exits_1(tmp_path: Path, content: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(content)
    r = run_cli("report", str(path))
    assert r.code == 1 and "no a2abench records" in r.err


def test_missing_file_exits_1(tmp_path: Path) -> None:
    r = run_cli("report", str(tmp_path / "nope.jsonl"))
    assert r.code == 1 and "cannot read" in r.err


def test_unknown_format_is_a_usage_error(metrics: Path) -> None:
    assert run_cli("report", str(metrics), "--format", "pdf").code == 2


def test_rescore_uses_recorded_transcripts_without_the_agent(metrics: Path,
                                                             tmp_path: Path) -> None:
    target = tmp_path / "rescored.jsonl"
    r = run_cli("report", str(metrics), "--rescore", "--scoring", "strict=true",
                "--rescored-output", str(target), "--format", "json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["scoring_labels"] == {"strict": 12}
    assert data["score"] == pytest.approx(10 / 12)  # the echo agent also passes strictly
    assert json.loads(target.read_text().splitlines()[0])["rescored"]["overrides"] == ["strict"]
    assert run_cli("report", str(metrics), "--rescore", "--scoring", "strict",
                   "--rescored-output", str(tmp_path / "x.jsonl")).code == 2
    # An unknown key was silently ignored (issue 23 item 7): now a usage error.
    unknown = run_cli("report", str(metrics), "--rescore", "--scoring", "zzz=1",
                      "--rescored-output", str(tmp_path / "z.jsonl"))
    assert unknown.code == 2 and "--scoring: unknown scripted option(s) zzz" in unknown.err
    assert "Traceback" not in unknown.err and not (tmp_path / "z.jsonl").exists()


def test_compare_puts_different_runs_side_by_side(metrics: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.jsonl"
    with agent(wrong_for=frozenset({"t001", "t002"})) as (_, base):
        r = run_cli("run", "scripted", "--white-agent-url", base, "--output", str(other),
                    "--option", "tasks=6", "--num-trials", "2", "--seed", "9")
    assert r.code == 0, r.err
    assert run_cli("report", str(metrics), str(other)).code == 1  # not one run: refused
    data = json.loads(run_cli("report", str(metrics), str(other), "--compare",
                              "--format", "json").out)
    assert len(data["columns"]) == 2 and "seed=9" in data["columns"][1]
    rows = dict((name, values) for name, values in data["rows"])
    assert rows["score"] == [pytest.approx(10 / 12), pytest.approx(8 / 12)]
    assert rows["cat1"] == [0.5, 0.5] and rows["cat2"] == [1.0, 0.5]
    table = run_cli("report", str(metrics), str(other), "--compare")
    assert table.code == 0 and "a2abench comparison" in table.out


def _crash(self: object, record: object) -> object:
    raise KeyError("transcript")


async def _async_crash(self: object, record: object) -> object:
    return _crash(self, record)


@pytest.mark.parametrize("hook, message", [
    (_async_crash, "the scripted benchmark's rescore hook failed: KeyError: 'transcript'"),
    (_crash, "the scripted benchmark's rescore hook is not async")])
def test_a_failing_rescore_hook_is_one_line_and_leaves_nothing_behind(
        metrics: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hook: object,
        message: str) -> None:
    from tests.engine.scripted import ScriptedDriver

    target = tmp_path / "rescored.jsonl"
    with monkeypatch.context() as patch:
        patch.setattr(ScriptedDriver, "rescore", hook)
        r = run_cli("report", str(metrics), "--rescore", "--rescored-output", str(target))
    assert r.code == 1 and message in r.err and "Traceback" not in r.err, r.err
    assert list(tmp_path.iterdir()) == []  # neither the target nor a partial file
    again = run_cli("report", str(metrics), "--rescore", "--rescored-output", str(target))
    assert again.code == 0 and target.exists(), again.err  # nothing blocks the retry
