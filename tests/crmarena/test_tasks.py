"""Task loading and normalisation: hub row format, the early format, files, categories."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from a2abench.benchmarks.crmarena.tasks import (
    hub_split,
    load_hub_rows,
    load_schema,
    load_tasks,
    normalize_answer,
    parse_today,
    read_rows,
    select,
    task_from_row,
    tasks_from_rows,
)
from a2abench.errors import ConfigError, DataCorrupt, DataMissing
from tests.conftest import shared_data

ROW = {"idx": 7, "task": "handle_time", "answer": ["005Ab0000000001AAA"],
       "reward_metric": "exact_match", "query": "Who is fastest?",
       "metadata": {"required": "## Policy\n## Today's date: 2023-12-21", "optional": "# More"},
       "persona": "You are brisk."}


@pytest.mark.parametrize(("value", "expected"), [
    (None, ("None",)), ([None], ("None",)), ([None, "x"], ("None",)), ("abc", ("abc",)),
    (["a", "b"], ("a", "b")), (["a", None], ("a", "None")), (5, ("5",)),
])
def test_answers_normalise_as_upstreams_evaluator_reads_them(value: object,
                                                             expected: tuple[str, ...]) -> None:
    assert normalize_answer(value, "t") == expected


def test_an_empty_or_odd_answer_is_corrupt_data() -> None:
    with pytest.raises(DataCorrupt, match="empty"):
        normalize_answer([], "t")
    with pytest.raises(DataCorrupt, match="neither"):
        normalize_answer({"a": 1}, "t")


def test_a_hub_row() -> None:
    t = task_from_row(ROW, 0)
    assert (t.idx, t.category, t.answer, t.reward_metric) == (
        7, "handle_time", ("005Ab0000000001AAA",), "exact_match")
    assert t.required.startswith("## Policy") and t.optional == "# More"
    assert t.persona == "You are brisk." and not t.external
    assert t.today == dt.date(2023, 12, 21)


def test_the_early_format_and_old_category_names() -> None:
    row = {"idx": 650, "type": "seasonality_identification", "answer": None,
           "reward_metric": "exact_match", "query": "q", "metadata": {"required": ""}}
    t = task_from_row(row, 0)
    assert t.category == "monthly_trend_analysis" and t.answer == ("None",)
    assert t.persona is None and t.optional is None and t.today is None
    assert task_from_row({**row, "type": "transfer_time"}, 0).category == "transfer_count"


@pytest.mark.parametrize("text", [
    "## Today's date: 2024-03-05", "- Today's date: 2024-03-05", "today’s date is 2024-03-05",
    "Policy...\n**Today's date:** 2024-03-05\n",
])
def test_today_phrasings(text: str) -> None:
    assert parse_today(text) == dt.date(2024, 3, 5)


def test_no_today() -> None:
    assert parse_today("") is None and parse_today("Today's date: 2024-13-40") is None


@pytest.mark.parametrize(("row", "match"), [
    ({**ROW, "reward_metric": "vibes"}, "reward_metric"), ({**ROW, "task": None}, "category"),
    ({**ROW, "idx": "x"}, "idx"), ({**ROW, "query": None}, "query"),
    ({**ROW, "metadata": "m"}, "metadata"),
])
def test_malformed_rows_say_what_is_wrong(row: dict[str, object], match: str) -> None:
    with pytest.raises(DataCorrupt, match=match):
        task_from_row(row, 3)


def test_duplicate_idx_is_refused() -> None:
    with pytest.raises(DataCorrupt, match="twice"):
        tasks_from_rows([ROW, ROW])


def test_json_and_jsonl_files(tmp_path: Path) -> None:
    rows = [ROW, {**ROW, "idx": 8, "task": "knowledge_qa", "reward_metric": "fuzzy_match"}]
    (tmp_path / "t.json").write_text(json.dumps(rows))
    (tmp_path / "t.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    assert read_rows(tmp_path / "t.json") == read_rows(tmp_path / "t.jsonl") == rows
    (tmp_path / "bad.jsonl").write_text(json.dumps(ROW) + "\n{oops\n")
    with pytest.raises(DataCorrupt, match="line 2"):
        read_rows(tmp_path / "bad.jsonl")
    with pytest.raises(DataMissing):
        read_rows(tmp_path / "absent.json")
    source = load_tasks("crmarenapro", "b2b", False, tmp_path / "t.jsonl")
    assert [t.idx for t in source.tasks] == [7, 8]
    assert source.describe["source"] == "file" and len(source.describe["sha256"]) == 64


def test_categories_select_in_source_order() -> None:
    tasks = tasks_from_rows([{**ROW, "idx": i, "task": c} for i, c in
                             enumerate(["handle_time", "case_routing", "handle_time"])])
    assert [t.idx for t in select(tasks, "all")] == [0, 1, 2]
    assert [t.idx for t in select(tasks, "handle_time")] == [0, 2]
    assert [t.idx for t in select(tasks, "case_routing, handle_time")] == [0, 1, 2]
    with pytest.raises(ConfigError, match="unknown task category: nope") as err:
        select(tasks, "nope,handle_time")
    assert "case_routing" in (err.value.hint or "")


def test_hub_splits_as_upstream_loads_them() -> None:
    assert hub_split("crmarenapro", "b2c", True) == ("Salesforce/CRMArenaPro", "CRMArenaPro",
                                                    "b2c_interactive")
    assert hub_split("crmarenapro", "b2b", False)[2] == "b2b"
    assert hub_split("crmarena", "original", False) == ("Salesforce/CRMArena", "CRMArena",
                                                        "test")


def test_schema_sources(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps([{"object": "Case", "fields": {"Id": "Id", "Gone": None}}]))
    records, info = load_schema("b2b", path, from_hub=True)
    assert records == [{"object": "Case", "fields": {"Id": "Id"}}] and info["source"] == "file"
    records, info = load_schema("b2b", None, from_hub=False)
    assert records is None and info["source"] == "builtin"
    path.write_text(json.dumps([{"name": "Case"}]))
    with pytest.raises(DataCorrupt, match="schema records"):
        load_schema("b2b", path, from_hub=False)


@pytest.mark.slow  # a child process that imports `datasets`: ~2 s
def test_the_hub_unreachable_says_to_use_tasks_file(tmp_path: Path) -> None:
    code = ("from a2abench.benchmarks.crmarena.tasks import load_tasks\n"
            "from a2abench.errors import DataMissing\n"
            "try:\n    load_tasks('crmarenapro', 'b2b', False, None)\n"
            "except DataMissing as e:\n    print('MISSING', e.render())\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.startswith("MISSING"), out.stderr
    assert "Salesforce/CRMArenaPro" in out.stdout and "--tasks-file" in out.stdout


def test_every_reference_task_loads() -> None:
    pro = tasks_from_rows(read_rows(shared_data("crmarena", "tasks",
                                                "crmarenapro_b2b_tasks.json")))
    assert len(pro) == 2140 and len({t.category for t in pro}) == 22
    assert sum(t.today is not None for t in pro) == 900
    assert Counter(t.reward_metric for t in pro)["privacy_rejection"] == 240
    assert all(t.persona for t in pro)
    original = tasks_from_rows(read_rows(shared_data(
        "crmarena", "tasks", "crmarena_original_tasks_natural.json")))
    assert len(original) == 1170 and len({t.category for t in original}) == 9
    assert sum(t.answer == ("None",) for t in original) == 195


def test_the_hub_without_datasets_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "datasets" else real(name, *a))
    with pytest.raises(ConfigError, match="needs the `datasets` package") as info:
        load_hub_rows("Salesforce/CRMArenaPro", "CRMArenaPro", "b2b")
    assert "a2abench[hub]" in str(info.value.hint)
