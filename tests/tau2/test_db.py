"""Copy-on-write views over a shared base: isolation, dump order, hashing and equality."""

from __future__ import annotations

import copy
import json
from datetime import date, datetime
from enum import Enum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, PrivateAttr

from a2abench.benchmarks.tau2.db import (
    BaseDB,
    DBView,
    canonical,
    clone_model,
    dict_hash,
    same_state,
)


class Item(BaseModel):
    name: str
    price: float
    tags: list[str] = []


class Shop(BaseModel):
    items: dict[str, Item]
    owner: dict[str, str] | None = None
    note: list[int] = []


RAW = {"items": {"a": {"name": "A", "price": 1}, "b": {"name": "B", "price": 2.5,
                                                      "tags": ["x"]}},
       "note": [1, 2]}


def _base() -> BaseDB:
    return BaseDB(Shop, RAW)


def test_base_is_normalized_like_model_dump() -> None:
    base = _base()
    assert base.data["items"]["a"] == {"name": "A", "price": 1.0, "tags": []}
    assert canonical(base.data["items"]["a"]) != canonical({"name": "A", "price": 1, "tags": []})
    assert base.db_hash() == dict_hash(Shop.model_validate(RAW).model_dump())


def test_canonical_is_upstreams_json_dumps() -> None:
    value = {"b": [1, 1.0, True, None, "é\n"], "a": {"z": 0.1, "y": float("nan")},
             "d": date(2025, 1, 2)}
    assert canonical(value) == json.dumps(value, sort_keys=True, default=str)


def test_writes_stay_in_the_view() -> None:
    base = _base()
    left, right = DBView(base), DBView(base)
    left.table("items").mut("a")["tags"].append("new")
    left.table("items").put("c", {"name": "C", "price": 3.0, "tags": []})
    assert base.data["items"]["a"]["tags"] == []
    assert "c" not in right.table("items") and list(left.table("items").keys()) == ["a", "b", "c"]
    assert not same_state(left, right)
    right.table("items").mut("a")["tags"].append("new")
    right.table("items").put("c", {"name": "C", "price": 3.0, "tags": []})
    assert same_state(left, right) and left.db_hash() == right.db_hash()


def test_touching_without_changing_keeps_equality() -> None:
    base = _base()
    left = DBView(base)
    left.table("items").mut("b")
    left.mut_field("note")
    assert same_state(left, DBView(base)) and left.db_hash() == base.db_hash()


def test_unknown_table_raises_like_upstream_attribute_access() -> None:
    view = DBView(_base())
    try:
        view.table("orders")
    except AttributeError as exc:
        assert str(exc) == "'Shop' object has no attribute 'orders'"
    else:
        raise AssertionError("expected AttributeError")


def test_patch_deep_merges_and_revalidates_without_touching_the_base() -> None:
    base = _base()
    view = DBView(base)
    view.patch({"items": {"a": {"tags": ["p"]}, "d": {"name": "D", "price": 4}}})
    assert view.table("items").get("a") == {"name": "A", "price": 1.0, "tags": ["p"]}
    assert view.table("items").get("d") == {"name": "D", "price": 4.0, "tags": []}
    assert base.data["items"]["a"]["tags"] == []
    assert view.db_hash() == dict_hash(view.dump())


def test_a_remembered_patch_gives_each_view_its_own_records() -> None:
    base = _base()
    patch = {"items": {"a": {"tags": ["p"]}, "d": {"name": "D", "price": 4}},
             "note": [7], "owner": {"n": "x"}}
    first = DBView(base)
    first.patch(patch)
    assert len(base.patches) == 1
    second = DBView(base)
    second.patch(patch)  # from the memo
    assert second.dump() == first.dump() and second.db_hash() == first.db_hash()
    assert list(second.table("items").keys()) == ["a", "b", "d"]
    # no record, field or list is shared: writing through one view changes no other
    second.table("items").mut("a")["tags"].append("q")
    second.table("items").mut("d")["price"] = 9.0
    second.mut_field("note").append(8)
    second.mut_field("owner")["n"] = "y"
    third = DBView(base)
    third.patch(patch)
    assert third.dump() == first.dump() != second.dump()
    assert first.table("items").get("a")["tags"] == ["p"] and first.field("note") == [7]
    assert base.data["items"]["a"]["tags"] == []


class Settings(BaseModel):
    cfg: Any = None  # kept as given: 1, 1.0 and True stay apart


@pytest.mark.parametrize("other", [1.0, True, "1", [1], {"k": 1}])
def test_patches_equal_under_eq_but_not_in_text_are_not_mixed_up(other: Any) -> None:
    base = BaseDB(Settings, {})
    DBView(base).patch({"cfg": 1})  # remembered
    remembered, fresh = DBView(base), DBView(base)
    remembered.patch({"cfg": other})
    base.patches.clear()
    fresh.patch({"cfg": other})
    assert type(remembered.field("cfg")) is type(other) and remembered.field("cfg") == other
    assert remembered.db_hash() == fresh.db_hash() != DBView(base).db_hash()


def test_a_touched_view_or_an_unplain_patch_is_patched_afresh() -> None:
    base = _base()
    patch = {"items": {"a": {"tags": ["p"]}}}
    DBView(base).patch(patch)
    touched = DBView(base)
    touched.table("items").mut("b")["price"] = 7.0
    touched.patch(patch)
    assert touched.table("items").get("b")["price"] == 7.0
    assert touched.table("items").get("a")["tags"] == ["p"]
    base.patches.clear()
    DBView(base).patch({"items": {"a": {"tags": ("p",)}}})  # a tuple: not plain JSON
    assert not base.patches


# New keys before, between and after the base's ("0", "ab", "z"): the hash's key order.
_edits = st.lists(st.tuples(st.sampled_from(["0", "a", "ab", "b", "z"]),
                            st.sampled_from(["price", "tags", "note"]),
                            st.one_of(st.integers(-3, 3), st.floats(-3, 3, allow_nan=False),
                                      st.just("s"))), max_size=6)


def _apply(view: DBView, edits: list[tuple[str, str, Any]]) -> None:
    for key, what, value in edits:
        if what == "note":
            view.mut_field("note").append(value)
        elif key in view.table("items"):
            record = view.table("items").mut(key)
            if what == "price":
                record["price"] = value
            else:
                record["tags"].append(value)
        else:
            view.table("items").put(key, {"name": key, "price": value, "tags": []})


@settings(max_examples=150, deadline=None)
@given(_edits, _edits)
def test_same_state_agrees_with_the_full_hash(left_edits: Any, right_edits: Any) -> None:
    base = _base()
    left, right = DBView(base), DBView(base)
    _apply(left, left_edits)
    _apply(right, right_edits)
    assert left.db_hash() == dict_hash(left.dump())
    assert same_state(left, right) == (dict_hash(left.dump()) == dict_hash(right.dump()))


def test_hash_of_records_added_to_an_empty_table() -> None:
    view = DBView(BaseDB(Shop, {"items": {}}))
    view.table("items").put("b", {"name": "B", "price": 1, "tags": []})
    view.table("items").put("a", {"name": "A", "price": 2.0, "tags": []})
    assert view.db_hash() == dict_hash(view.dump())


class Color(str, Enum):  # noqa: UP042  # like upstream's (str, Enum) fields
    RED = "red"


class Deep(BaseModel):
    when: datetime
    color: Color = Color.RED
    shop: Shop
    extra: list[Any] = []
    _note: list[int] = PrivateAttr(default_factory=list)


def test_clone_model_is_a_deepcopy() -> None:
    shared: list[Any] = [1]
    deep = Deep(when=datetime(2025, 1, 2, 3), shop=Shop.model_validate(RAW),
                extra=[{"a": shared}, shared, (1, [2])])
    deep._note.append(3)
    clone, reference = clone_model(deep), copy.deepcopy(deep)
    assert clone == reference == deep and clone.model_fields_set == deep.model_fields_set
    assert clone._note == [3] and clone._note is not deep._note
    assert clone.shop is not deep.shop and clone.shop.items["a"] is not deep.shop.items["a"]
    assert clone.extra[0]["a"] is clone.extra[1] is not shared  # shared stays shared
    assert clone.extra[2][1] is not deep.extra[2][1]  # anything else: copy.deepcopy
    clone.shop.items["a"].tags.append("new")
    assert deep.shop.items["a"].tags == []
