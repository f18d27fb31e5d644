"""Loading: splits, task selection, policy and guidelines, clear data errors."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.models import ToolCall
from a2abench.errors import ConfigError, DataCorrupt, DataMissing
from tests.tau2.tau2_support import data_root, domain


def test_splits_and_selection() -> None:
    assert len(domain("airline").tasks()) == 50
    assert len(domain("retail").tasks()) == 114
    assert len(load_domain("airline", data_dir=data_root(), split="test").tasks()) == 20
    assert len(load_domain("retail", data_dir=data_root(), split="train").tasks()) == 74
    d = domain("airline")
    assert [t.id for t in d.tasks(["3", "1"])] == ["1", "3"]  # file order, as upstream
    assert [t.id for t in d.tasks(max_tasks=2)] == ["0", "1"]
    with pytest.raises(ConfigError, match="nope"):
        d.tasks(["nope"])
    with pytest.raises(ConfigError, match=r"unknown split .train.") as err:
        load_domain("mock", data_dir=data_root(), split="train")
    assert "base" in (err.value.hint or "")
    with pytest.raises(ConfigError, match="unknown tau2 domain"):
        load_domain("banking", data_dir=data_root())


def test_policy_guidelines_and_user_scenario() -> None:
    root = data_root() / "tau2"
    airline, mock = domain("airline"), domain("mock")
    assert airline.policy == (root / "domains/airline/policy.md").read_text()
    assert airline.user_guidelines == (root / "user_simulator/simulation_guidelines.md"
                                       ).read_text()
    assert mock.user_guidelines == (root / "user_simulator/simulation_guidelines_tools.md"
                                    ).read_text()
    scenario = str(airline.tasks(["0"])[0].user_scenario)
    assert scenario.startswith("Instructions:\n\tDomain: airline\n\tReason for call:\n\t\t")
    assert "\n\tTask instructions:\n\t\t" in scenario
    with pytest.raises(ConfigError, match="policy"):
        load_domain("airline", data_dir=data_root(), policy="workflow")


def test_environment_basics() -> None:
    env = domain("airline").fresh_environment()
    msg = env.execute(ToolCall(id="7", name="no_such_tool", arguments={}))
    assert (msg.id, msg.error, msg.content) == ("7", True, "Error: Tool 'no_such_tool' not found.")
    msg = env.execute(ToolCall(id="8", name="calculate", arguments={"expression": "2*(3+4)"}))
    assert (msg.error, msg.content) == (False, "14.0")
    msg = env.execute(ToolCall(id="9", name="get_user_details", arguments={"user_id": "nobody"}))
    assert msg.content == "Error: User nobody not found"
    env.sync_tools()  # a no-op outside telecom
    assert env.user_tool_schemas() == [] and env.user_db_hash() is None


def _copy_domain(tmp_path: Path, name: str) -> Path:
    target = tmp_path / "data" / "tau2"
    shutil.copytree(data_root() / "tau2" / "domains" / name, target / "domains" / name)
    shutil.copytree(data_root() / "tau2" / "user_simulator", target / "user_simulator")
    return tmp_path / "data"


def test_missing_local_file_names_it(tmp_path: Path) -> None:
    root = _copy_domain(tmp_path, "mock")
    (root / "tau2/domains/mock/user_db.json").unlink()
    with pytest.raises(DataMissing, match=r"user_db\.json") as err:
        load_domain("mock", data_dir=root)
    assert "laid out like upstream" in (err.value.hint or "")


def test_corrupt_local_file_names_it(tmp_path: Path) -> None:
    root = _copy_domain(tmp_path, "mock")
    (root / "tau2/domains/mock/tasks.json").write_text("{not json")
    with pytest.raises(DataCorrupt, match=r"tasks\.json"):
        load_domain("mock", data_dir=root)


def test_modified_local_copy_loads_and_is_reported(tmp_path: Path) -> None:
    root = _copy_domain(tmp_path, "mock")
    policy = root / "tau2/domains/mock/policy.md"
    policy.write_text(policy.read_text() + "\nExtra rule.\n")
    d = load_domain("mock", data_dir=root)
    assert d.files.describe()["unverified"] == ["data/tau2/domains/mock/policy.md"]
    assert d.policy.endswith("Extra rule.\n")


@pytest.mark.parametrize("name", ["airline", "retail", "mock", "telecom"])
def test_user_scenario_text_matches_upstream(name: str) -> None:
    """`str(task.user_scenario)` is the user simulator's scenario; hashes from upstream."""
    expected = json.loads((Path(__file__).parent / "golden" / "scenarios.json").read_text())
    got = {t.id: hashlib.sha256(str(t.user_scenario).encode()).hexdigest()
           for t in domain(name).tasks()}
    assert got == expected[name]


def test_each_environment_has_its_own_cancel_event() -> None:
    d = domain("mock")
    task = d.tasks()[0]
    first, second = d.new_environment(task), d.new_environment(task)
    assert "cancelled" not in vars(first)  # made on first use only
    assert first.cancelled is first.cancelled and first.cancelled is not second.cancelled
    first.cancelled.set()
    assert first.cancelled.is_set() and not second.cancelled.is_set()


def test_tool_types_are_built_once_and_handed_out_as_copies() -> None:
    d = domain("mock")
    types = d.tool_types()
    assert types["create_task"] == "write" and types["get_users"] == "read"
    types["create_task"] = "changed"
    assert d.tool_types()["create_task"] == "write"


@pytest.mark.parametrize("indent", [None, 2, 4])
def test_read_tasks_parses_only_the_wanted_tasks_as_the_whole_file_has_them(
        tmp_path: Path, indent: int | None) -> None:
    from a2abench.benchmarks.tau2 import data

    tasks = [{"id": "0", "x": {"y": [1, {"z": "}\\n  },\\n  {"}]}}, {"id": 7, "x": None},
             {"id": "a\"b", "x": []}, {"id": "", "x": 0}, {"id": "last", "x": {"id": "0"}}]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(tasks, indent=indent))
    files = data.DomainFiles({"tasks.json": path}, None, "local", "c")
    for ids in ({"0", "7", "a\"b", "", "last"}, {"7", "last"}, {"0"}, {""}, set()):
        expected = [t for t in tasks if str(t["id"]) in ids]
        assert data.read_tasks(files, "x", ids) == expected
    plain = json.dumps([t for t in tasks if t["id"] != "a\"b"], indent=indent).encode()
    # The fast path takes pretty-printed lists; an escaped id or other layouts parse whole.
    assert data._pick_tasks(plain, {"7"}) == ([tasks[1]] if indent else None)
    assert data._pick_tasks(plain, {""}) == ([tasks[3]] if indent else None)  # an empty id
    assert data._pick_tasks(path.read_bytes(), {"7"}) is None
