"""The banking transactional DB: a shared parsed base and a copy-on-write view per task-trial.

Upstream's `TransactionalDB` is a pydantic model of 23 tables, each `{"data": {id: record},
"notes": str}`, with free-form records. Agent and user toolkits share one instance, and it is
what the evaluator hashes. Here the base is parsed and validated once per process; a view
copies a whole table on its first write (tables hold at most a few hundred small records).

The query helpers reproduce upstream's `db_query.py` output format exactly, including its
quirks (records rendered with Python `str()` of values, the "Available: [...]" order).
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from a2abench.benchmarks.tau2.db import ABSENT, StateDB, Subtree, canonical, clone, deep_update
from a2abench.plugin import DataCorrupt

# TransactionalDB's fields, in model order (what `model_dump()` yields).
TABLES = (
    "users", "accounts", "debit_cards", "referrals", "credit_card_applications",
    "user_discoverable_tools", "user_discoverable_tool_calls", "verification_history",
    "credit_card_transaction_history", "cash_back_disputes", "bank_account_transaction_history",
    "credit_card_accounts", "agent_discoverable_tools", "task_config", "human_transfer_requests",
    "transaction_disputes", "credit_card_orders", "debit_card_orders",
    "credit_card_closure_reasons", "credit_card_account_flags", "credit_limit_increase_requests",
    "payment_history", "debit_card_disputes",
)
HASH_ORDER = tuple(sorted(TABLES))  # the tables' order in the hashed sorted-key JSON


def _part(index: int, name: str, text: str) -> str:
    """One table's piece of the whole-DB hash text `{"a": ..., "b": ...}`."""
    return f"{', ' if index else ''}{json.dumps(name)}: {text}"


# Upstream `_load_databases` order: the queryable tables, as listed in its error messages.
QUERYABLE = (
    "users", "accounts", "referrals", "credit_card_applications", "user_discoverable_tools",
    "user_discoverable_tool_calls", "agent_discoverable_tools", "task_config",
    "verification_history", "credit_card_transaction_history", "cash_back_disputes",
    "bank_account_transaction_history", "credit_card_accounts", "human_transfer_requests",
    "transaction_disputes", "credit_card_orders", "credit_card_closure_reasons",
    "credit_card_account_flags", "debit_cards", "debit_card_orders", "debit_card_disputes",
    "credit_limit_increase_requests", "payment_history",
)


def validate(raw: Any, source: str) -> dict[str, dict[str, Any]]:
    """`TransactionalDB.model_validate(raw).model_dump()`: every table present (defaults
    filled), unknown tables refused (the model forbids extras), records must be objects."""
    if not isinstance(raw, dict):
        raise DataCorrupt(f"banking DB {source} is not a JSON object",
                          hint="Replace it with the file from the pinned commit")
    unknown = sorted(set(raw) - set(TABLES))
    if unknown:
        raise DataCorrupt(f"banking DB {source} has unknown tables: {', '.join(unknown)}",
                          hint="Replace it with the file from the pinned commit")
    return {name: _table(name, raw.get(name, {}), source) for name in TABLES}


def _table(name: str, table: Any, source: str, copy: bool = True) -> dict[str, Any]:
    data = table.get("data", {}) if isinstance(table, dict) else None
    notes = table.get("notes", "") if isinstance(table, dict) else None
    if not (isinstance(data, dict) and isinstance(notes, str)
            and all(isinstance(r, dict) for r in data.values())):
        raise DataCorrupt(f"banking DB {source}: table {name} is not "
                          '{"data": {id: record}, "notes": str}',
                          hint="Replace it with the file from the pinned commit")
    return {"data": clone(data) if copy else data, "notes": notes}


class BankingBase:
    """The parsed `db.json`, shared by every task-trial of the process. Never mutated."""

    def __init__(self, raw: Any, source: str = "db.json") -> None:
        self.name = "TransactionalDB"
        self.tables = validate(raw, source)
        self._texts: dict[str, str] = {}
        self._entries: dict[str, tuple[list[str], dict[str, str]]] = {}
        self._prefixes: list[Any] = []

    def prefix(self, count: int) -> Any:
        """A sha256 fed the start of the whole-DB hash text up to the first `count` tables
        (in hash order) as the base has them: views hash only from their first touched one."""
        if not self._prefixes:
            digest, states = hashlib.sha256(b"{"), []
            for i, name in enumerate(HASH_ORDER):
                states.append(digest.copy())
                digest.update(_part(i, name, self.text(name)).encode())
            self._prefixes = [*states, digest]
        return self._prefixes[count].copy()

    def text(self, name: str) -> str:
        if name not in self._texts:
            self._texts[name] = canonical(self.tables[name])
        return self._texts[name]

    def entries(self, name: str) -> tuple[list[str], dict[str, str]]:
        """A table's record ids, sorted, and each record's `"id": {...}` entry of the
        canonical text, made once (speeds up views' `db_hash`)."""
        if name not in self._entries:
            data = self.tables[name]["data"]
            self._entries[name] = (sorted(data), {key: f"{json.dumps(key)}: {canonical(value)}"
                                                  for key, value in data.items()})
        return self._entries[name]


class _Layer:
    """One table of a view: the base records (the shared ones, or a patched copy), the
    records this view copied or added, and added keys in order (upstream's dict order)."""

    __slots__ = ("added", "base", "notes", "own", "shared")

    def __init__(self, base: dict[str, Any], notes: str, shared: bool) -> None:
        self.base, self.notes, self.shared = base, notes, shared
        self.own: dict[str, Any] = {}
        self.added: list[str] = []

    def get(self, key: str, write: bool) -> Any:
        if key in self.own:
            return self.own[key]
        record = self.base[key]
        if write:
            record = self.own[key] = clone(record)
        return record

    def put(self, key: str, record: Any) -> None:
        if key not in self.own and key not in self.base:
            self.added.append(key)
        self.own[key] = record

    def keys(self) -> Iterator[str]:
        yield from self.base
        yield from self.added


class Records(MutableMapping[str, Any]):
    """A table's `data` in one view. A writable one copies a record on first access, so
    whatever a tool then mutates is the view's own copy, never the shared base."""

    __slots__ = ("_layer", "_write")

    def __init__(self, layer: _Layer, write: bool) -> None:
        self._layer, self._write = layer, write

    def __getitem__(self, key: str) -> Any:
        return self._layer.get(key, self._write)

    def __setitem__(self, key: str, record: Any) -> None:
        self._layer.put(key, record)

    def __delitem__(self, key: str) -> None:
        raise TypeError("banking records are never deleted")

    def __iter__(self) -> Iterator[str]:
        return self._layer.keys()

    def __len__(self) -> int:
        return len(self._layer.base) + len(self._layer.added)

    def __contains__(self, key: object) -> bool:
        return key in self._layer.own or key in self._layer.base

    def items(self) -> Any:
        layer = self._layer
        if not self._write:  # the common read: no Python-level iteration, or one
            if not layer.own:
                return layer.base.items()
            own = layer.own  # base keys in order, then added ones (each in `own`)
            return ([(key, own.get(key, record))
                     for key, record in layer.base.items()]
                    + [(key, own[key]) for key in layer.added])
        return super().items()

    def values(self) -> Any:
        layer = self._layer
        if not self._write and not layer.own:
            return layer.base.values()
        return super().values()


class BankingDB(StateDB):
    """One task-trial's DB. Read with `data(name)`; mutate only what `wdata(name)` returns."""

    def __init__(self, base: BankingBase) -> None:
        self.base = base
        self.name = base.name
        self._layers: dict[str, _Layer] = {}

    def has_table(self, name: str) -> bool:
        return name in self.base.tables

    def _layer(self, name: str) -> _Layer:
        layer = self._layers.get(name)
        if layer is None:
            table = self.base.tables[name]
            layer = self._layers[name] = _Layer(table["data"], table["notes"], True)
        return layer

    def data(self, name: str) -> Records:
        return Records(self._layer(name), False)

    def notes(self, name: str) -> str:
        return self._layer(name).notes

    def wdata(self, name: str) -> Records:
        return Records(self._layer(name), True)

    def dump(self) -> dict[str, Any]:
        return {name: {"data": dict(self.data(name).items()), "notes": self.notes(name)}
                for name in TABLES}

    def db_hash(self) -> str:
        """Upstream `get_db_hash()`: SHA-256 of the sorted-key JSON of the whole DB, built
        from cached texts of untouched tables and records (byte-identical to one
        `json.dumps(..., sort_keys=True)`)."""
        start = next((i for i, name in enumerate(HASH_ORDER) if not self._as_base(name)),
                     len(HASH_ORDER))
        digest = self.base.prefix(start)
        for i in range(start, len(HASH_ORDER)):
            digest.update(_part(i, HASH_ORDER[i], self._text(HASH_ORDER[i])).encode())
        digest.update(b"}")
        return str(digest.hexdigest())

    def _as_base(self, name: str) -> bool:
        """Whether this view's table `name` is the base's, untouched."""
        layer = self._layers.get(name)
        return layer is None or (layer.shared and not layer.own)

    def _text(self, name: str) -> str:
        if self._as_base(name):
            return self.base.text(name)
        layer = self._layers[name]
        keys, entries = self.base.entries(name)
        own = layer.own
        if layer.added:
            keys = sorted(layer.keys())
        if layer.base is not self.base.tables[name]["data"]:
            entries = {}
        records = [f"{json.dumps(key)}: {canonical(own[key])}" if key in own
                   else entries[key] if key in entries
                   else f"{json.dumps(key)}: {canonical(layer.base[key])}" for key in keys]
        return f'{{"data": {{{", ".join(records)}}}, "notes": {json.dumps(layer.notes)}}}'

    def differing(self, other: StateDB) -> list[Subtree] | None:
        """Views of one base differ only in records either holds a copy of and in notes; in
        the order of a sorted walk of the dumps (table, "data" then "notes", record id)."""
        if not isinstance(other, BankingDB) or other.base is not self.base:
            return None
        out: list[Subtree] = []
        for name in sorted(set(self._layers) | set(other._layers)):  # the others: the base's
            mine, theirs = self._layers.get(name), other._layers.get(name)
            keys = set(mine.own if mine else ()) | set(theirs.own if theirs else ())
            out += [([name, "data", str(key)], self._record(name, key),
                     other._record(name, key)) for key in sorted(keys, key=str)]
            notes = self._notes(name), other._notes(name)
            if notes[0] != notes[1]:
                out.append(([name, "notes"], *notes))
        return out

    def _record(self, name: str, key: str) -> Any:
        layer = self._layers.get(name)
        if layer is not None and key in layer.own:
            return layer.own[key]
        return self.base.tables[name]["data"].get(key, ABSENT)

    def _notes(self, name: str) -> str:
        layer = self._layers.get(name)
        return layer.notes if layer is not None else str(self.base.tables[name]["notes"])

    def patch(self, update: dict[str, Any]) -> None:
        """Upstream `update_db`: a deep merge (addict: dicts merge, anything else replaces),
        then re-validation. Only the records a patch names change, so only they are copied
        into this view; a table's other keys are ignored, as pydantic ignores them."""
        unknown = sorted(set(update) - set(TABLES))
        if unknown:
            raise DataCorrupt(f"initialization_data names unknown banking tables: {unknown}",
                              hint="Replace the task file with the one from the pinned commit")
        for name, patch in update.items():
            data = patch.get("data", {}) if isinstance(patch, dict) else None
            notes = patch.get("notes", None) if isinstance(patch, dict) else None
            if not isinstance(data, dict) or not (notes is None or isinstance(notes, str)):
                _table(name, patch, "initialization_data")  # raises upstream-like refusal
            assert isinstance(data, dict)
            layer = self._layer(name)
            for key, value in data.items():
                current = layer.get(key, False) if key in layer.own or key in layer.base else None
                if isinstance(current, dict) and isinstance(value, dict):
                    deep_update(layer.get(key, True), value)
                elif isinstance(value, dict):
                    layer.put(key, clone(value))
                else:
                    _table(name, {"data": {key: value}}, "initialization_data")  # raises
            if notes is not None and notes != layer.notes:
                self._layers[name] = moved = _Layer(layer.base, notes, False)
                moved.own, moved.added = layer.own, layer.added

    # ------------------------------------------------------------------ upstream db_query
    def add(self, table: str, record_id: str, record: dict[str, Any]) -> bool:
        """`add_to_db`: False when the table does not exist or the id is taken."""
        if not self.has_table(table) or record_id in self.data(table):
            return False
        self.wdata(table)[record_id] = record
        return True

    def update(self, table: str, record_id: str, updates: dict[str, Any]) -> bool:
        """`update_record_in_db`: set fields of an existing record."""
        if not self.has_table(table) or record_id not in self.data(table):
            return False
        self.wdata(table)[record_id].update(updates)
        return True

    def query(self, table: str, **constraints: Any) -> list[tuple[str, dict[str, Any]]]:
        """`query_db(..., return_ids=True)` over a queryable table ([] when unknown)."""
        if table not in QUERYABLE:
            return []
        tests = _tests(constraints)
        rows = self.data(table).items()
        if len(tests) == 1 and tests[0][1] is operator.eq:  # one `field=value` (the tools')
            field, _, expected = tests[0]
            try:
                return [(rid, rec) for rid, rec in rows if rec.get(field) == expected]
            except (TypeError, ValueError):
                pass  # an incomparable value: _matches gives it upstream's meaning
        return [(rid, rec) for rid, rec in rows if _matches(rec, tests)]

    def query_text(self, table: str, constraints: str = "{}") -> str:
        """`query_database_tool`: the formatted result text (errors as text, never raised)."""
        if table not in QUERYABLE:
            return f"Error: Database '{table}' not found. Available: {list(QUERYABLE)}"
        try:
            try:
                parsed = json.loads(constraints) if constraints else {}
            except json.JSONDecodeError as e:
                return f"Error: Invalid JSON: {e}"
            if not isinstance(parsed, dict):
                # What Python says for query_db(**parsed) with a non-mapping.
                raise TypeError("tau2.domains.banking_knowledge.db_query.query_db() argument "
                                f"after ** must be a mapping, not {type(parsed).__name__}")
            results = self.query(table, **parsed)
            if not results:
                return f"No records found in '{table}'."
            return format_records(table, results)
        except Exception as e:  # upstream wraps every failure into this text
            return f"Error querying database: {e!s}"


def format_records(table: str, results: list[tuple[str, dict[str, Any]]]) -> str:
    lines = [f"Found {len(results)} record(s) in '{table}':\n"]
    for i, (record_id, record) in enumerate(results, 1):
        lines.append(f"{i}. Record ID: {record_id}")
        lines.extend(f"   {field}: {value}" for field, value in record.items())
        lines.append("")
    return "\n".join(lines)


def _contains(a: Any, b: Any) -> bool:
    return b in a if a is not None else False


def _startswith(a: Any, b: Any) -> bool:
    return str(a).startswith(str(b)) if a is not None else False


def _endswith(a: Any, b: Any) -> bool:
    return str(a).endswith(str(b)) if a is not None else False


def _in(a: Any, b: Any) -> bool:
    return a in b


def _nin(a: Any, b: Any) -> bool:
    return a not in b


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq, "ne": operator.ne, "gt": operator.gt, "gte": operator.ge,
    "lt": operator.lt, "lte": operator.le, "contains": _contains, "startswith": _startswith,
    "endswith": _endswith, "in": _in, "nin": _nin,
}


_Test = tuple[str, Callable[[Any, Any], Any], Any]  # (field, comparison, expected value)


def _tests(constraints: dict[str, Any]) -> list[_Test]:
    """Upstream's `field__op` constraint keys, split once per query rather than per record."""
    tests = []
    for key, expected in constraints.items():
        field, op = key.rsplit("__", 1) if "__" in key else (key, "eq")
        tests.append((field, _OPS.get(op, operator.eq), expected))
    return tests


def _matches(record: dict[str, Any], tests: list[_Test]) -> bool:
    for field, compare, expected in tests:
        try:
            if not compare(record.get(field), expected):
                return False
        except (TypeError, ValueError):  # upstream: incomparable values do not match
            return False
    return True
