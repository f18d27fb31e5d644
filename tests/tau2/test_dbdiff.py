"""The DB difference recorded for the report viewer: which records and fields differ."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2abench.benchmarks.tau2 import dbdiff
from a2abench.benchmarks.tau2.db import StateDB, dict_hash, same_state
from a2abench.benchmarks.tau2.domains.banking.state import BankingBase, BankingDB
from a2abench.benchmarks.tau2.evaluator import evaluate_offline
from a2abench.benchmarks.tau2.models import RewardType
from tests.tau2 import tau2_harness as harness
from tests.tau2.tau2_support import domain


def _retail_write_task() -> tuple[Any, Any]:
    d = domain("retail")
    task = next(t for t in d.tasks() if t.evaluation_criteria and RewardType.DB in
                t.evaluation_criteria.reward_basis and any(
                    a.name.startswith(("cancel_", "modify_", "return_", "exchange_"))
                    for a in t.evaluation_criteria.actions or []))
    return d, task


def _script(task: Any, skip_writes: bool) -> list[Any]:
    calls = [["call", {"name": a.name, "arguments": a.arguments, "requestor": a.requestor}]
             for a in task.evaluation_criteria.actions or []
             if not (skip_writes and a.name.startswith(("cancel_", "modify_", "return_",
                                                        "exchange_")))]
    return [*calls, ["say", "done"]]


def test_a_matching_db_records_no_diff() -> None:
    d, task = _retail_write_task()
    _, messages = harness.build_trajectory(d, {"task": task.id,
                                               "script": _script(task, False)})
    info = evaluate_offline(task, messages, "user_stop", domain=d)
    assert info.db_check is not None and info.db_check.db_match
    assert "db_diff" not in (info.info or {}).get("env", {})


def test_a_missed_write_is_shown_field_by_field() -> None:
    d, task = _retail_write_task()
    _, messages = harness.build_trajectory(d, {"task": task.id,
                                               "script": _script(task, True)})
    info = evaluate_offline(task, messages, "user_stop", domain=d)
    assert info.db_check is not None and not info.db_check.db_match
    diff = (info.info or {})["env"]["db_diff"]
    assert diff["entries"] and not diff["truncated"]
    order_ids = {a.arguments.get("order_id") for a in task.evaluation_criteria.actions}
    paths = [e["path"] for e in diff["entries"]]
    assert any(p[0] == "orders" and p[1] in order_ids for p in paths), paths
    status = next((e for e in diff["entries"] if e["path"][-1] == "status"), None)
    if status is not None:  # a status change: the agent left it, gold changed it
        assert status["final"] != status["gold"]
    for entry in diff["entries"]:
        assert entry["db"] == "agent" and ("final" in entry or "gold" in entry)


class _Dumped(StateDB):
    """A DB known only through `dump()` (like telecom's model-backed DBs)."""

    name = "fake"

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def dump(self) -> dict[str, Any]:
        return self.data

    def db_hash(self) -> str:
        return ""

    def patch(self, update: dict[str, Any]) -> None:
        raise NotImplementedError("db_diff only reads dumps; a call here is a bug in it")


def test_whole_dumps_diff_with_absent_sides_and_int_vs_float() -> None:
    final = _Dumped({"lines": [{"id": "L1", "data": 1}], "extra": True, "n": 1})
    gold = _Dumped({"lines": [{"id": "L1", "data": 2}], "n": 1.0})
    out = dbdiff.db_diff((final, final), (gold, gold))
    agent = [e for e in out["entries"] if e["db"] == "agent"]
    assert agent == [{"db": "agent", "path": ["extra"], "final": True},
                     {"db": "agent", "path": ["lines", "0", "data"], "final": 1, "gold": 2},
                     # the upstream hash tells 1 from 1.0, so the diff does too
                     {"db": "agent", "path": ["n"], "final": 1, "gold": 1.0}]
    assert [e["db"] for e in out["entries"]].count("user") == 3


def test_leaves_differ_exactly_where_their_hash_texts_do() -> None:
    final = _Dumped({"s": "a", "t": "a", "b": True, "z": None, "f": 0.0, "g": 2.5, "u": "é"})
    gold = _Dumped({"s": "a", "t": "b", "b": 1, "z": None, "f": -0.0, "g": 2.5, "u": "é"})
    out = dbdiff.db_diff((final, None), (gold, None))
    assert [(e["path"], e["final"], e["gold"]) for e in out["entries"]] == [
        (["b"], True, 1), (["f"], 0.0, -0.0), (["t"], "a", "b")]


def test_equal_subtrees_whose_hash_texts_differ_are_still_walked() -> None:
    # `==` holds for each subtree here (1 == 1.0 == True, 0.0 == -0.0); shared records are
    # skipped as they are, the rest compared by their texts.
    shared = {"id": "R1", "v": [1, 2.5]}
    final = _Dumped({"t": {"a": shared, "b": {"n": [1, {"f": 0.0}], "k": True, "s": "x"}}})
    gold = _Dumped({"t": {"a": shared, "b": {"n": [1.0, {"f": -0.0}], "k": 1, "s": "x"}}})
    out = dbdiff.db_diff((final, None), (gold, None))
    assert [(e["path"], e["final"], e["gold"]) for e in out["entries"]] == [
        (["t", "b", "k"], True, 1), (["t", "b", "n", "0"], 1, 1.0),
        (["t", "b", "n", "1", "f"], 0.0, -0.0)]
    same = _Dumped({"t": {"a": shared, "b": {"n": [1, {"f": 0.0}], "k": True, "s": "x"}}})
    assert dbdiff.db_diff((final, None), (same, None))["entries"] == []


def test_the_diff_is_bounded() -> None:
    final = _Dumped({f"k{i}": "x" * 5000 for i in range(dbdiff.MAX_ENTRIES + 5)})
    gold = _Dumped({})
    out = dbdiff.db_diff((final, None), (gold, None))
    assert out["truncated"] and len(out["entries"]) == dbdiff.MAX_ENTRIES
    assert all(len(e["final"]) <= dbdiff.MAX_CHARS + 1 for e in out["entries"])


_BANK = {"users": {"data": {"u1": {"name": "A", "n": 1}, "u2": {"name": "B", "n": 2}},
                   "notes": "people"},
         "accounts": {"data": {"a1": {"user_id": "u1", "balance": 5.0}}, "notes": ""}}
_bank_edits = st.lists(st.tuples(st.sampled_from(["users", "accounts"]),
                                 st.sampled_from(["u1", "u2", "a1", "new"]),
                                 st.one_of(st.integers(0, 2), st.floats(0, 2), st.just("s"),
                                           st.just(None))), max_size=6)


def _bank_apply(db: BankingDB, edits: list[tuple[str, str, Any]]) -> None:
    for table, key, value in edits:
        if value is None:
            db.patch({table: {"data": {}, "notes": f"{key} notes"}})
        elif key in db.data(table):
            db.wdata(table)[key]["n"] = value
        else:
            db.add(table, key, {"n": value})


@settings(max_examples=50, deadline=None)
@given(_bank_edits, _bank_edits)
def test_banking_views_diff_as_their_whole_dumps_do(left_edits: Any, right_edits: Any) -> None:
    """Banking compares only the records either view copied, and the notes; the outcome is
    the whole-dump walk's and the whole-DB hash's."""
    base = BankingBase(_BANK)
    final, gold = BankingDB(base), BankingDB(base)
    _bank_apply(final, left_edits)
    _bank_apply(gold, right_edits)
    walk = dbdiff._Diff()
    walk.walk("agent", [], final.dump(), gold.dump())
    assert dbdiff.db_diff((final, None), (gold, None)) == {"entries": walk.entries,
                                                           "truncated": walk.truncated}
    assert same_state(final, gold) == (final.db_hash() == gold.db_hash())
    assert final.db_hash() == dict_hash(final.dump())


@pytest.mark.parametrize("limit", [60, 4, 3, 2])
def test_one_db_per_side_lists_its_entries_for_both_sides_as_two_walks_do(
        limit: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Banking's toolkits share one DB: the user side's entries are the agent side's, within
    # the same bound, without walking the DBs again.
    monkeypatch.setattr(dbdiff, "MAX_ENTRIES", limit)
    base = BankingBase(_BANK)
    final, gold = BankingDB(base), BankingDB(base)
    _bank_apply(final, [("users", "u1", 0), ("users", "new", 2), ("accounts", "a1", "s")])
    walks = dbdiff._Diff()
    dbdiff._compare(walks, "agent", final, gold)
    dbdiff._compare(walks, "user", final, gold)
    assert dbdiff.db_diff((final, final), (gold, gold)) == {"entries": walks.entries,
                                                            "truncated": walks.truncated}
