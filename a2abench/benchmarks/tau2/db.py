"""Domain databases: one shared, parsed base per process and a copy-on-write view per task-trial.

Upstream keeps each DB as a pydantic model and re-validates the whole 7 MB airline DB for every
environment. Here a domain DB is validated once through a model of the same shape and kept as
the plain data of `model_dump()` (`BaseDB`), which is exactly what upstream hashes and
serializes (field order, `int` vs `float`, defaults filled in). A task-trial works on a `DBView`:
reads go to the base, and the first write to a record copies just that record into the view.

Tables are the top-level fields whose value is a dict of records (`users`, `reservations`);
any other top-level field (telecom's lists, the phone object) is copied whole on first write.
Nothing may mutate data obtained from a read accessor: writes go through `mut`/`put`.

`db_hash()` equals upstream's `get_db_hash()` (SHA-256 of the sorted-key JSON with
`default=str`); `same_state()` gives the same verdict by comparing only touched records.
"""

from __future__ import annotations

import bisect
import copy
import datetime
import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Iterator
from enum import Enum
from typing import Any, Generic, cast

from pydantic import BaseModel
from pydantic_core import PydanticUndefined
from typing_extensions import TypeVar

M = TypeVar("M", bound=BaseModel, default=BaseModel)  # the pydantic DB model of a ModelDB
T = TypeVar("T")

ABSENT: Any = object()  # in `StateDB.differing`: the side that lacks a record or field
# Where two states may differ: (path, one side's value, the other's), see `StateDB.differing`.
Subtree = tuple[list[str], Any, Any]


def clone(value: Any) -> Any:
    """Deep copy of JSON-like data (dicts, lists, scalars); much faster than `copy.deepcopy`."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def clone_model(value: T) -> T:
    """`copy.deepcopy` of a pydantic model of JSON-like fields, ~5x faster: models, dicts and
    lists are copied (shared ones stay shared, as deepcopy keeps them), immutable leaves (str,
    numbers, enum members, dates) are kept; anything else goes to `copy.deepcopy`."""
    out: T = _clone(value, {})
    return out


def _clone(value: Any, memo: dict[int, Any]) -> Any:
    kind = type(value)
    if kind is dict:
        mapping = memo.get(id(value))
        if mapping is None:
            mapping = memo[id(value)] = value.copy()
            for key, item in mapping.items():
                if type(item) not in _IMMUTABLE:
                    mapping[key] = _clone(item, memo)
        return mapping
    if kind is list:
        items = memo.get(id(value))
        if items is None:
            items = memo[id(value)] = value.copy()
            for index, item in enumerate(items):
                if type(item) not in _IMMUTABLE:
                    items[index] = _clone(item, memo)
        return items
    if issubclass(kind, BaseModel):
        model = memo.get(id(value))
        if model is None:
            model = memo[id(value)] = object.__new__(kind)
            fields = value.__dict__.copy()
            for key, item in fields.items():
                if type(item) not in _IMMUTABLE:
                    fields[key] = _clone(item, memo)
            _set(model, "__dict__", fields)
            _set(model, "__pydantic_extra__", _clone(value.__pydantic_extra__, memo))
            _set(model, "__pydantic_fields_set__", set(value.__pydantic_fields_set__))
            # pydantic's __deepcopy__ drops unset private attributes (PydanticUndefined)
            private = getattr(value, "__pydantic_private__", None)
            _set(model, "__pydantic_private__", None if private is None else _clone(
                {k: v for k, v in private.items() if v is not PydanticUndefined}, memo))
        return model
    if kind in _IMMUTABLE:
        return value
    if issubclass(kind, Enum | datetime.date | datetime.timedelta):
        _IMMUTABLE.add(kind)  # deepcopy returns the member itself, or an equal value
        return value
    other = memo.get(id(value))
    if other is None:
        other = memo[id(value)] = copy.deepcopy(value, memo)
    return other


_IMMUTABLE = {str, int, float, bool, type(None), datetime.date, datetime.datetime}
_set = object.__setattr__


# What `json.dumps(value, sort_keys=True, default=str)` builds on every call, made once: the
# same text, without constructing an encoder each time (7.4 -> 4.1 us for a mock record).
_CANONICAL = json.JSONEncoder(sort_keys=True, default=str)


def canonical(value: Any) -> str:
    """Upstream's hashing text: `json.dumps(..., sort_keys=True, default=str)`."""
    return _CANONICAL.encode(value)


def dict_hash(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode()).hexdigest()


def deep_update(target: dict[str, Any], patch: dict[str, Any]) -> None:
    """Recursive dict merge as upstream's addict `Dict.update`: dicts merge, the rest replaces."""
    for key, value in patch.items():
        current = target.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            deep_update(current, value)
        else:
            target[key] = clone(value)


class StateDB(ABC):
    """What toolkits and the evaluator need from a task-trial's DB."""

    name: str

    @abstractmethod
    def db_hash(self) -> str:
        """Upstream's SHA-256 over the canonical JSON of the whole DB."""

    @abstractmethod
    def patch(self, update: dict[str, Any]) -> None:
        """Deep-merge a task's data patch into this trial's DB."""

    def differing(self, other: StateDB) -> list[Subtree] | None:
        """The subtrees outside of which `self` and `other` are equal (views of one base:
        the records either touched), in the diff's order, `ABSENT` for a missing side; None
        when only the whole DBs can tell."""
        return None


class BaseDB:
    """A validated domain DB shared by every task-trial of the process. Never mutated."""

    def __init__(self, model: type[BaseModel], raw: dict[str, Any]) -> None:
        self.model = model
        self.name = model.__name__
        self.data: dict[str, Any] = model.model_validate(raw).model_dump()
        self.tables = frozenset(k for k, v in self.data.items() if isinstance(v, dict)
                                and k in _dict_fields(model))
        self._hash: str | None = None
        self._texts: dict[str, TableText] = {}
        self.patches: dict[str, Patch] = {}  # DBView.patch on an untouched view, by patch text

    def remember_patch(self, key: str, patch: Patch) -> None:
        if len(self.patches) >= 64:
            self.patches.clear()
        self.patches[key] = patch

    def db_hash(self) -> str:
        if self._hash is None:
            self._hash = dict_hash(self.data)
        return self._hash

    def table_text(self, table: str) -> TableText:
        """Canonical JSON of one base table's records, built once (speeds up views' `db_hash`)."""
        if table not in self._texts:
            self._texts[table] = TableText(self.data[table])
        return self._texts[table]


class TableText:
    """A base table's records as upstream's hash text has them: `"key": record` entries in
    sorted key order, joined by ", " (ASCII bytes), with where each entry starts and ends."""

    __slots__ = ("ends", "index", "keys", "starts", "text")

    def __init__(self, records: dict[str, Record]) -> None:
        self.keys = sorted(records)
        self.index = {key: i for i, key in enumerate(self.keys)}
        entries = [entry(key, records[key]) for key in self.keys]
        self.text = b", ".join(entries)
        self.starts: list[int] = []
        self.ends: list[int] = []
        at = 0
        for text in entries:
            self.starts.append(at)
            self.ends.append(at + len(text))
            at += len(text) + 2

    def chunks(self, table: Table) -> list[bytes | memoryview]:
        """The view's table as runs of the base text and its own entries (the text
        is these joined by ", "): touched records replace theirs, new ones go in key order."""
        changed = table.touched()
        if not changed:
            return [self.text] if self.keys else []
        # (base position, 0: a new key before it / 1: a replacement of it, key)
        edits = sorted((bisect.bisect_left(self.keys, key), 0, key) if key not in self.index
                       else (self.index[key], 1, key) for key in changed)
        view = memoryview(self.text)
        out: list[bytes | memoryview] = []
        done = 0  # base entries before this one are emitted
        for at, replace, key in edits:
            if at > done:
                out.append(view[self.starts[done]:self.ends[at - 1]])
                done = at
            out.append(entry(key, table.get(key)))
            done += replace
        if done < len(self.keys):
            out.append(view[self.starts[done]:self.ends[-1]])
        return out


def entry(key: str, record: Record) -> bytes:
    """One `"key": record` entry of a canonical table text (ASCII: `ensure_ascii`)."""
    return f"{json.dumps(key)}: {canonical(record)}".encode()


def _patch_key(update: Any) -> str | None:
    """`repr(update)` when it is plain JSON data (str-keyed dicts, lists, str, int, float,
    bool, None): equal texts are then equal patches, types and key order included (`1`,
    `1.0` and `True` differ); None for anything else, which is never remembered."""
    return repr(update) if _plain(update) else None


def _plain(value: Any) -> bool:
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if kind is list:
        return all(_plain(v) for v in value)
    return kind in _SCALARS


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _same(value: Any) -> Any:
    return value


def _dict_fields(model: type[BaseModel]) -> set[str]:
    """Top-level fields typed as `Dict[str, Model]` (record tables)."""
    out = set()
    for name, info in model.model_fields.items():
        origin = getattr(info.annotation, "__origin__", None)
        if origin is dict:
            out.add(name)
    return out


Record = dict[str, Any]  # one row of a record table (upstream: a model's `model_dump()`)
# What a data patch changes in a view: (table, key, record) to put, top-level fields to set.
Patch = tuple[list[tuple[str, str, Record]], dict[str, Any]]


def nested(record: Record, *keys: str) -> Record:
    """`record[k1][k2]...`: a nested object of a record (a dict too, as upstream dumps it)."""
    value: Any = record
    for key in keys:
        value = value[key]
    return cast(Record, value)


class Table:
    """One record table of a `DBView`: dict-like reads, explicit copy-on-write writes."""

    __slots__ = ("_base", "_new", "_over")

    def __init__(self, base: dict[str, Record]) -> None:
        self._base = base
        self._over: dict[str, Record] = {}
        self._new: list[str] = []

    def __contains__(self, key: object) -> bool:
        return key in self._over or key in self._base

    def get(self, key: str) -> Record:
        """The record (read-only by convention); KeyError when absent."""
        if key in self._over:
            return self._over[key]
        return self._base[key]

    def mut(self, key: str) -> Record:
        """The record, copied into this view on first write access; KeyError when absent."""
        if key not in self._over:
            self._over[key] = clone(self._base[key])
        return self._over[key]

    def put(self, key: str, record: Record) -> None:
        if key not in self._over and key not in self._base:
            self._new.append(key)
        self._over[key] = record

    def keys(self) -> Iterator[str]:
        """Keys in upstream dict order: base order, then records added in this view."""
        yield from self._base
        yield from self._new

    def values(self) -> Iterator[Record]:
        for key in self.keys():
            yield self.get(key)

    def items(self) -> Iterator[tuple[str, Record]]:
        for key in self.keys():
            yield key, self.get(key)

    def __len__(self) -> int:
        return len(self._base) + len(self._new)

    def touched(self) -> set[str]:
        return set(self._over)

    def merged(self) -> dict[str, Record]:
        return {key: self.get(key) for key in self.keys()}


class DBView(StateDB):
    """A task-trial's view of a `BaseDB`: tables by attribute-like `table(name)` access."""

    def __init__(self, base: BaseDB) -> None:
        self.base = base
        self.name = base.name
        self._tables = {name: Table(base.data[name]) for name in base.tables}
        self._fields: dict[str, Any] = {}

    def table(self, name: str) -> Table:
        try:
            return self._tables[name]
        except KeyError:
            # Upstream: attribute access on the pydantic DB model.
            raise AttributeError(f"'{self.name}' object has no attribute '{name}'") from None

    def field(self, name: str) -> Any:
        """A non-table top-level field, read-only by convention."""
        if name in self._fields:
            return self._fields[name]
        if name not in self.base.data or name in self._tables:
            raise AttributeError(f"'{self.name}' object has no attribute '{name}'")
        return self.base.data[name]

    def mut_field(self, name: str) -> Any:
        if name not in self._fields:
            self._fields[name] = clone(self.field(name))
        return self._fields[name]

    def set_field(self, name: str, value: Any) -> None:
        self.field(name)
        self._fields[name] = value

    def dump(self) -> dict[str, Any]:
        """The whole DB as upstream's `model_dump()` would give it."""
        out: dict[str, Any] = {}
        for name, value in self.base.data.items():
            if name in self._tables:
                out[name] = self._tables[name].merged()
            else:
                out[name] = self._fields.get(name, value)
        return out

    def db_hash(self) -> str:
        """Upstream's `get_db_hash()` for this state: SHA-256 of the whole DB's canonical JSON.

        Hashed from the base's cached table texts, with only the touched records' entries
        made anew; the bytes hashed are those of `json.dumps(dump(), sort_keys=True,
        default=str)`.
        """
        if self._untouched():
            return self.base.db_hash()
        digest = hashlib.sha256(b"{")
        for i, name in enumerate(sorted(self.base.data)):
            digest.update(f"{', ' if i else ''}{json.dumps(name)}: ".encode())
            if name in self._tables:
                digest.update(b"{")
                chunks = self.base.table_text(name).chunks(self._tables[name])
                for j, chunk in enumerate(chunks):
                    if j:
                        digest.update(b", ")
                    digest.update(chunk)
                digest.update(b"}")
            else:
                digest.update(canonical(self.field(name)).encode())
        digest.update(b"}")
        return digest.hexdigest()

    def patch(self, update: dict[str, Any]) -> None:
        """Apply `initialization_data` like upstream: deep merge, then re-validate the DB.

        Only the patched top-level fields are rebuilt; re-validation goes through the DB model so
        defaults, coercions and errors match upstream's `model_validate`. On an untouched view
        the outcome depends on the base and the patch alone: the base remembers it by the
        patch's text (`_patch_key`) and each view gets its own copy of the records (a task's
        initial state is patched in 3 environments per task-trial, ~35 us each for mock).
        """
        key = _patch_key(update) if self._untouched() else None
        patch = self.base.patches.get(key) if key is not None else None
        if patch is None:
            patch = self._changes(update)
            if key is not None:
                self.base.remember_patch(key, patch)
        # A remembered patch is shared by every view: each gets its own copy of its values.
        own = clone if key is not None else _same
        puts, fields = patch
        for name, record_key, record in puts:
            self._tables[name].put(record_key, own(record))
        self._fields.update({name: own(value) for name, value in fields.items()})

    def _untouched(self) -> bool:
        return not self._fields and not any(t.touched() for t in self._tables.values())

    def _changes(self, update: dict[str, Any]) -> Patch:
        """What `update` changes in this view: (table, key, record) to put, fields to set."""
        merged = self.dump()
        for name in update:  # deep_update writes into nested dicts: never into the base
            if name in merged:
                merged[name] = clone(merged[name])
        deep_update(merged, update)
        validated = self.base.model.model_validate(merged).model_dump()
        puts: list[tuple[str, str, Record]] = []
        fields: dict[str, Any] = {}
        for name in update:
            if name in self._tables:
                table = self._tables[name]
                for key, record in validated[name].items():
                    if key not in table or canonical(table.get(key)) != canonical(record):
                        puts.append((name, key, record))
            else:
                fields[name] = validated[name]
        return puts, fields

    def touched(self) -> dict[str, set[str]]:
        return {name: t.touched() for name, t in self._tables.items() if t.touched()}

    def differing(self, other: StateDB) -> list[Subtree] | None:
        if not isinstance(other, DBView) or other.base is not self.base:
            return None
        out: list[Subtree] = []
        for name in sorted(self.base.tables):
            left, right = self.table(name), other.table(name)
            out += [([name, key], left.get(key) if key in left else ABSENT,
                     right.get(key) if key in right else ABSENT)
                    for key in sorted(left.touched() | right.touched())]
        out += [([name], self.field(name), other.field(name))
                for name in sorted(set(self._fields) | set(other._fields))]
        return out


class ModelBase(Generic[M]):
    """A small domain DB kept as a validated pydantic model (telecom), shared, never mutated."""

    def __init__(self, model: type[M], raw: dict[str, Any]) -> None:
        self.model = model
        self.name = model.__name__
        self.instance: M = model.model_validate(raw)


class ModelDB(StateDB, Generic[M]):
    """A task-trial's private deep copy of a `ModelBase` instance (cheap: the DB is small).

    Used where upstream's tools work on model objects in place (telecom's phone and carrier
    DBs), so the tools can mirror upstream line by line.
    """

    def __init__(self, base: ModelBase[M]) -> None:
        self.base = base
        self.name = base.name
        self.model: M = clone_model(base.instance)

    def dump(self) -> dict[str, Any]:
        return self.model.model_dump()

    def db_hash(self) -> str:
        return dict_hash(self.dump())

    def patch(self, update: dict[str, Any]) -> None:
        """Upstream `update_pydantic_model_with_dict`: deep merge, then re-validate."""
        merged = self.dump()
        deep_update(merged, update)
        self.model = type(self.model).model_validate(merged)


def same_state(left: StateDB, right: StateDB) -> bool:
    """Whether upstream's whole-DB hashes of `left` and `right` would be equal.

    Views over the same base only differ in records that either touched, so only those are
    compared (as canonical JSON, where `1` and `1.0` differ just as in the upstream hash).
    """
    parts = left.differing(right)
    if parts is None:
        return left.db_hash() == right.db_hash()
    return all(a is b or (a is not ABSENT and b is not ABSENT and canonical(a) == canonical(b))
               for _, a, b in parts)
