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
from collections.abc import Callable
from typing import Any

from a2abench.benchmarks.tau2.db import StateDB, canonical, clone, deep_update
from a2abench.errors import DataCorrupt

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

    def text(self, name: str) -> str:
        if name not in self._texts:
            self._texts[name] = canonical(self.tables[name])
        return self._texts[name]


class BankingDB(StateDB):
    """One task-trial's DB. Read with `data(name)`; mutate only what `wdata(name)` returns."""

    def __init__(self, base: BankingBase) -> None:
        self.base = base
        self.name = base.name
        self._own: dict[str, dict[str, Any]] = {}

    def has_table(self, name: str) -> bool:
        return name in self.base.tables

    def data(self, name: str) -> dict[str, Any]:
        table = self._own.get(name) or self.base.tables[name]
        return table["data"]  # type: ignore[no-any-return]

    def notes(self, name: str) -> str:
        table = self._own.get(name) or self.base.tables[name]
        return table["notes"]  # type: ignore[no-any-return]

    def wdata(self, name: str) -> dict[str, Any]:
        if name not in self._own:
            self._own[name] = clone(self.base.tables[name])
        return self._own[name]["data"]  # type: ignore[no-any-return]

    def dump(self) -> dict[str, Any]:
        return {name: self._own.get(name) or self.base.tables[name] for name in TABLES}

    def db_hash(self) -> str:
        """Upstream `get_db_hash()`: SHA-256 of the sorted-key JSON of the whole DB, built
        from cached texts of untouched tables (byte-identical to one `json.dumps`)."""
        parts = [f"{json.dumps(name)}: "
                 + (canonical(self._own[name]) if name in self._own else self.base.text(name))
                 for name in sorted(TABLES)]
        return hashlib.sha256(("{" + ", ".join(parts) + "}").encode()).hexdigest()

    def patch(self, update: dict[str, Any]) -> None:
        """Upstream `update_db`: deep merge, then re-validate (only the patched tables can
        change, so only they are merged and validated)."""
        unknown = sorted(set(update) - set(TABLES))
        if unknown:
            raise DataCorrupt(f"initialization_data names unknown banking tables: {unknown}",
                              hint="Replace the task file with the one from the pinned commit")
        for name, patch in update.items():
            merged: Any = {"data": clone(self.data(name)), "notes": self.notes(name)}
            if isinstance(patch, dict):
                deep_update(merged, patch)
            else:
                merged = patch  # not a table: refused by _table, as upstream's validation
            self._own[name] = _table(name, merged, "initialization_data", copy=False)

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
        return [(rid, rec) for rid, rec in self.data(table).items()
                if _matches(rec, constraints)]

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


def _matches(record: dict[str, Any], constraints: dict[str, Any]) -> bool:
    for key, expected in constraints.items():
        field, op = key.rsplit("__", 1) if "__" in key else (key, "eq")
        compare: Callable[[Any, Any], Any] = _OPS.get(op, operator.eq)
        try:
            if not compare(record.get(field), expected):
                return False
        except (TypeError, ValueError):  # upstream: incomparable values do not match
            return False
    return True
