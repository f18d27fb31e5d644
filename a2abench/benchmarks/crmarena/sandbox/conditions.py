"""WHERE and HAVING conditions -> SQL with bound parameters, with Salesforce's type rules.

SOQL is two-valued: `Status != 'Closed'` and `NOT IN` keep rows whose field is null, and
`NOT` of a comparison against a null field is true. SQL's three-valued logic is bent to match
(`IS NULL OR ...`, `NOT IFNULL(..., 0)`). Text compares case-insensitively, as Salesforce does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import dates
from .errors import SalesforceError, malformed, positioned
from .ids import normalize_id
from .nodes import (
    BoolOp,
    Call,
    Compare,
    Cond,
    DateLiteral,
    Expr,
    FieldPath,
    InCond,
    Literal,
    Not,
    Select,
    Value,
)
from .resolve import Resolved, Scope, not_filterable
from .schema import ID_TYPES, NUMBER_TYPES, TEXT_TYPES

AGGREGATES = frozenset({"COUNT", "COUNT_DISTINCT", "SUM", "AVG", "MIN", "MAX"})
PASS_THROUGH = frozenset({"TOLABEL", "FORMAT", "CONVERTCURRENCY"})
_TYPE_WORD = {"int": "integer", "double": "double", "currency": "double", "percent": "double",
              "boolean": "boolean", "date": "date", "datetime": "dateTime", "id": "id",
              "reference": "id"}


@dataclass(frozen=True)
class Operand:
    """The left side of a comparison: SQL in a comparable form plus its Salesforce type."""

    sql: str
    type: str
    name: str
    pos: int


# Called for a semi-join: (subquery, left operand) -> SQL of `SELECT <id> FROM ...`.
SemiJoin = Callable[[Select, Operand], tuple[str, list[Any]]]
# Called for HAVING: an aggregate call -> (sql, type).
Aggregate = Callable[[Call], tuple[str, str]]


def comparable_sql(res: Resolved) -> str:
    """SQL to compare a field with, normalising how dates and booleans may be stored."""
    ftype = res.field.type
    if ftype == "date":
        return f"substr({res.sql}, 1, 10)"
    if ftype == "datetime":   # the stored text may carry milliseconds and a zone suffix
        return f"substr({res.sql}, 1, 19)"
    if ftype == "boolean":
        return f"IFNULL(lower({res.sql}) IN ('1', '1.0', 'true'), 0)"
    if ftype in NUMBER_TYPES and not res.numeric_storage:
        return f"CAST({res.sql} AS REAL)"
    return res.sql


class Conditions:
    def __init__(self, scope: Scope, today: dt.date, semi_join: SemiJoin | None,
                 aggregate: Aggregate | None = None) -> None:
        self.scope = scope
        self.today = today
        self.semi_join = semi_join
        self.aggregate = aggregate
        self.params: list[Any] = []

    @property
    def text(self) -> str:
        return self.scope.text

    def sql(self, cond: Cond) -> str:
        if isinstance(cond, BoolOp):
            return "(" + f" {cond.op} ".join(self.sql(c) for c in cond.items) + ")"
        if isinstance(cond, Not):   # two-valued NOT: unknown counts as false first
            return f"(NOT IFNULL({self.sql(cond.item)}, 0))"
        if isinstance(cond, InCond):
            return self.in_sql(cond)
        return self.compare_sql(cond)

    # -- operands --------------------------------------------------------------------
    def operand(self, expr: Expr) -> Operand:
        if isinstance(expr, FieldPath):
            res = self.scope.resolve(expr)
            if not res.field.filterable:
                raise not_filterable(self.scope, expr.pos, res.field, "filtered")
            return Operand(comparable_sql(res), res.field.type, res.field.name, expr.pos)
        if expr.name in AGGREGATES:
            if self.aggregate is None:
                raise malformed(self.text, expr.pos, "Aggregate functions are not allowed "
                                "in the WHERE clause; use HAVING")
            sql, ftype = self.aggregate(expr)
            return Operand(sql, ftype, expr.text, expr.pos)
        if expr.name in dates.DATE_FUNCTIONS:
            sql, ftype = date_function(self.scope, expr)
            return Operand(sql, ftype, expr.text, expr.pos)
        if expr.name in PASS_THROUGH and len(expr.args) == 1:
            return self.operand(expr.args[0])
        raise malformed(self.text, expr.pos, f"Unknown function {expr.text.split('(')[0]}")

    # -- comparisons -----------------------------------------------------------------
    def compare_sql(self, cmp: Compare) -> str:
        op = self.operand(cmp.left)
        value = cmp.value
        if isinstance(value, DateLiteral):
            return self.range_sql(op, cmp.op, value)
        if value.kind == "null":
            return self.null_sql(op, cmp.op, value)
        if cmp.op == "LIKE":
            return self.like_sql(op, value)
        text_type = op.type in TEXT_TYPES
        if (text_type or op.type in ID_TYPES) and value.kind == "string" and not value.value:
            return self.null_sql(op, cmp.op, value)
        self.params.append(self.coerce(op, value))
        collate = " COLLATE NOCASE" if text_type else ""
        if cmp.op == "!=":
            return f"({op.sql} IS NULL OR {op.sql} <> ?{collate})"
        return f"{op.sql} {cmp.op} ?{collate}"

    def null_sql(self, op: Operand, cmp_op: str, value: Literal) -> str:
        blankable = op.type in TEXT_TYPES or op.type in ID_TYPES
        if cmp_op == "=":
            return f"({op.sql} IS NULL OR {op.sql} = '')" if blankable else f"({op.sql} IS NULL)"
        if cmp_op == "!=":
            return (f"({op.sql} IS NOT NULL AND {op.sql} <> '')" if blankable
                    else f"({op.sql} IS NOT NULL)")
        raise positioned("INVALID_QUERY_FILTER_OPERATOR", self.text, value.pos,
                         f"invalid operator on null value: {cmp_op}")

    def like_sql(self, op: Operand, value: Literal) -> str:
        if op.type not in TEXT_TYPES:
            raise positioned("INVALID_QUERY_FILTER_OPERATOR", self.text, op.pos,
                             f"invalid operator on {_TYPE_WORD.get(op.type, op.type)} field: "
                             "LIKE")
        if value.kind != "string":
            raise self.type_error(op, value)
        self.params.append(like_pattern(value.text))
        return f"{op.sql} LIKE ? ESCAPE '\\'"

    def range_sql(self, op: Operand, cmp_op: str, lit: DateLiteral) -> str:
        if op.type not in ("date", "datetime"):
            raise self.type_error(op, lit)
        first, last = dates.literal_range(lit.name, lit.n, self.today)
        lo, hi = first.isoformat(), last.isoformat()
        if op.type == "datetime":
            lo, hi = lo + "T00:00:00", hi + "T23:59:59"
        s = op.sql
        if cmp_op == "=":
            self.params += [lo, hi]
            return f"({s} >= ? AND {s} <= ?)"
        if cmp_op == "!=":
            self.params += [lo, hi]
            return f"({s} IS NULL OR {s} < ? OR {s} > ?)"
        if cmp_op == "LIKE":
            raise positioned("INVALID_QUERY_FILTER_OPERATOR", self.text, lit.pos,
                             "invalid operator on date field: LIKE")
        bound = {"<": lo, "<=": hi, ">": hi, ">=": lo}[cmp_op]
        self.params.append(bound)
        return f"{s} {cmp_op} ?"

    def coerce(self, op: Operand, value: Literal) -> Any:
        """The bound parameter for `value` against a field of type `op.type`."""
        ftype, kind = op.type, value.kind
        if ftype in ID_TYPES:
            if kind != "string":
                raise self.type_error(op, value)
            assert isinstance(value.value, str)
            normal = normalize_id(value.value)
            if normal is None:
                raise positioned("INVALID_QUERY_FILTER_OPERATOR", self.text, value.pos,
                                 f"invalid ID field: {value.value}")
            return normal
        if ftype in TEXT_TYPES:
            if kind != "string":
                raise self.type_error(op, value)
            return value.value
        expected = {"boolean": "boolean", "date": "date", "datetime": "datetime"}.get(
            ftype, "number")
        if kind != expected:
            raise self.type_error(op, value)
        if kind == "boolean":
            return 1 if value.value else 0
        if kind == "date":
            assert isinstance(value.value, dt.date)
            return value.value.isoformat()
        return value.value

    def type_error(self, op: Operand, value: Value) -> SalesforceError:
        word = _TYPE_WORD.get(op.type, "string")
        quoted = op.type in TEXT_TYPES or op.type in ID_TYPES
        verb = "should be" if quoted else "should not be"
        return positioned("INVALID_FIELD", self.text, value.pos,
                          f"value of filter criterion for field '{op.name}' must be of type "
                          f"{word} and {verb} enclosed in quotes")

    # -- IN / NOT IN / semi-joins ------------------------------------------------------
    def in_sql(self, cond: InCond) -> str:
        if cond.op in ("INCLUDES", "EXCLUDES"):
            raise positioned("INVALID_FIELD", self.text, cond.pos,
                             "includes or excludes operator only valid on multipicklist field")
        op = self.operand(cond.left)
        negate = cond.op == "NOT IN"
        if cond.subquery is not None:
            return self.semi_join_sql(op, cond, negate)
        ranges = [v for v in cond.values if isinstance(v, DateLiteral)]
        plain = [v for v in cond.values if isinstance(v, Literal)]
        parts = [self.range_sql(op, "=", r) for r in ranges]
        nulls = [v for v in plain if v.kind == "null" or (v.kind == "string" and v.value == ""
                 and op.type in TEXT_TYPES)]
        values = [v for v in plain if v not in nulls]
        if values:
            marks = ", ".join("?" for _ in values)
            self.params.extend(self.coerce(op, v) for v in values)
            collate = " COLLATE NOCASE" if op.type in TEXT_TYPES else ""
            parts.append(f"{op.sql}{collate} IN ({marks})")
        if nulls:
            parts.append(f"{op.sql} IS NULL")
        inner = "(" + " OR ".join(parts) + ")"
        return f"(NOT IFNULL({inner}, 0))" if negate else inner

    def semi_join_sql(self, op: Operand, cond: InCond, negate: bool) -> str:
        if op.type not in ID_TYPES or self.semi_join is None:
            raise malformed(self.text, cond.pos, "Semi join sub-selects are only allowed on "
                            "Id and reference fields, at the top level of a query")
        assert cond.subquery is not None
        sub_sql, sub_params = self.semi_join(cond.subquery, op)
        self.params.extend(sub_params)
        if negate:
            return f"({op.sql} IS NULL OR {op.sql} NOT IN ({sub_sql}))"
        return f"{op.sql} IN ({sub_sql})"


def like_pattern(raw: str) -> str:
    """A SOQL LIKE pattern (raw source text) as a SQLite LIKE pattern with ESCAPE '\\'."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            decoded = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}.get(nxt, nxt)
            out.append("\\" + nxt if nxt in "%_\\" else decoded)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def date_function(scope: Scope, call: Call) -> tuple[str, str]:
    """SQL and result type of CALENDAR_MONTH(...) and friends over one date/datetime field."""
    arg = call.args[0] if len(call.args) == 1 else None
    if isinstance(arg, Call) and arg.name == "CONVERTTIMEZONE" and len(arg.args) == 1:
        arg = arg.args[0]   # the sandbox's user is in UTC: converting is the identity
    if not isinstance(arg, FieldPath):
        raise malformed(scope.text, call.pos, f"{call.name} takes exactly one date or "
                        "datetime field")
    res = scope.resolve(arg)
    if res.field.type not in ("date", "datetime"):
        raise positioned("INVALID_FIELD", scope.text, arg.pos,
                         f"{call.name} can only be used with date or dateTime fields: "
                         f"{res.field.name}")
    if call.name in dates.DATETIME_ONLY and res.field.type != "datetime":
        raise positioned("INVALID_FIELD", scope.text, arg.pos,
                         f"{call.name} can only be used with dateTime fields: {res.field.name}")
    ftype = "date" if call.name == "DAY_ONLY" else "int"
    return dates.function_sql(call.name, res.sql), ftype
