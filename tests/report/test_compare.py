"""`report --compare` groups files by run (issue 22): two runs with the same settings are two
columns, shards of one run one column, a run given twice is refused, labels are short."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2abench.errors import ConfigError
from a2abench.report.compare import compare
from tests.clihelp import run_cli
from tests.report.runs import write_run


def test_two_runs_with_the_same_settings_are_two_columns(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.jsonl", "aaaaaaaa1111", [True, True, True, False])
    b = write_run(tmp_path / "b.jsonl", "bbbbbbbb2222", [True, False, False, False])
    c = compare([a, b])
    assert len(c.columns) == 2 and c.files == [[str(a)], [str(b)]]
    assert [r.score for r in c.reports] == [0.75, 0.25]  # no record of b dropped or merged
    assert c.columns[0].startswith("run aaaaaaaa") and c.columns[1].startswith("run bbbbbbbb")


def test_shards_of_one_run_stay_one_column(tmp_path: Path) -> None:
    s1 = write_run(tmp_path / "s1.jsonl", "111111111111", [True, True], shard=[1, 2])
    s2 = write_run(tmp_path / "s2.jsonl", "222222222222", [False, False], shard=[2, 2], first=2)
    other = write_run(tmp_path / "o.jsonl", "333333333333", [True] * 4)
    c = compare([s1, s2, other])
    assert c.files == [[str(s1), str(s2)], [str(other)]]
    assert c.reports[0].task_trials == 4 and c.reports[0].score == 0.5


def test_the_same_run_twice_is_refused(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.jsonl", "aaaaaaaa1111", [True])
    copy = tmp_path / "copy.jsonl"
    copy.write_text(a.read_text())
    with pytest.raises(ConfigError, match="hold the same run"):
        compare([a, copy])
    res = run_cli("report", str(a), str(a), "--compare")
    assert res.code == 2 and "cannot be compared with itself" in res.err


def test_labels_name_only_what_differs(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.jsonl", "a1", [True], num_trials=8, user_llm="gpt-4.1")
    b = write_run(tmp_path / "b.jsonl", "b1", [True], num_trials=32, user_llm="gpt-4.1")
    c = compare([a, b])
    assert c.columns == ["num_trials=8", "num_trials=32"]
    d = compare([a, write_run(tmp_path / "d.jsonl", "d1", [True], user_llm="gpt-4o")])
    assert d.columns == ['num_trials=8, user_llm=gpt-4.1', 'num_trials=1, user_llm=gpt-4o']


def test_labels_stay_apart_and_keep_both_ends(tmp_path: Path) -> None:
    url = "http://127.0.0.1:44693"
    a = write_run(tmp_path / "a.jsonl", "aaaa1111", [True], white_agent_url=url)
    b = write_run(tmp_path / "b.jsonl", "bbbb2222", [True], white_agent_url=url)
    c = write_run(tmp_path / "c.jsonl", "cccc3333", [True],
                  white_agent_url="http://agent.internal.example:51234/a2a")
    labels = compare([a, b, c]).columns
    assert labels[2] == "white_agent_url=http://age…mple:51234/a2a"  # the port survives
    assert labels[0].endswith("(run aaaa1111)") and labels[1].endswith("(run bbbb2222)")


def test_plain_report_refuses_to_merge_two_runs_with_the_same_settings(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.jsonl", "aaaaaaaa1111", [True, True])
    b = write_run(tmp_path / "b.jsonl", "bbbbbbbb2222", [False, False])
    res = run_cli("report", str(a), str(b))
    assert res.code == 1, res.err  # a records error, as files of two different settings
    assert f"{b} holds another run (run bbbbbbbb2222) of the same settings as {a}" in res.err
    assert "--compare" in res.err and "Traceback" not in res.err
    # Shards of one run, and a run with its resume in its own file, still make one report.
    s1 = write_run(tmp_path / "s1.jsonl", "111111111111", [True, True], shard=[1, 2])
    s2 = write_run(tmp_path / "s2.jsonl", "222222222222", [False, False], shard=[2, 2], first=2)
    assert run_cli("report", str(s1), str(s2)).code == 0
    copy = tmp_path / "copy.jsonl"  # the same run twice is still one run
    copy.write_text(a.read_text())
    res = run_cli("report", str(a), str(copy), "--format", "json")
    assert res.code == 0 and res.json()["task_trials"] == 2, res.err
    resumed = tmp_path / "resumed.jsonl"
    resumed.write_text(a.read_text() + write_run(tmp_path / "r.jsonl", "cccccccc3333",
                                                 [True], first=2).read_text())
    res = run_cli("report", str(resumed), "--format", "json")
    assert res.code == 0 and res.json()["task_trials"] == 3, res.err
