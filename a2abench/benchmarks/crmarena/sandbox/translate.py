"""SOQL syntax tree -> a `Plan`: one parameterised SQLite statement plus the recipe to rebuild
Salesforce-shaped records (nested relationship records, child-subquery results, aggregate
keys such as `expr0`) from its rows.

Three plan kinds: `records` (a plain SELECT, possibly with child subqueries), `aggregate`
(aggregate functions and/or GROUP BY; records are AggregateResult) and `count` (`SELECT
COUNT()`: Salesforce answers with totalSize only and no records).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from . import dates
from .conditions import AGGREGATES, PASS_THROUGH, Conditions, Operand, comparable_sql, date_function
from .errors import malformed, positioned, unsupported_type
from .nodes import Call, Expr, FieldPath, OrderItem, Select, SelectField, SubquerySelect
from .resolve import Scope, not_filterable
from .schema import ID_TYPES, NUMBER_TYPES, TEXT_TYPES, OrgSchema, SObject
from .serialize import Converter, converter

PARENT_IDS = "__PARENT_IDS__"   # replaced by `?, ?, ...` when a child query runs
MAX_OFFSET = 2000
_UNGROUPABLE = frozenset({"longtext", "textarea", "double", "currency", "percent",
                          "datetime"})


@dataclass(frozen=True)
class StepOut:
    key: str
    id_index: int
    type_index: int | None
    type_name: str


@dataclass(frozen=True)
class Output:
    key: str
    index: int
    conv: Converter
    steps: tuple[StepOut, ...] = ()


@dataclass
class ChildPlan:
    key: str
    plan: Plan
    fk_index: int
    limit: int | None
    offset: int


@dataclass
class Plan:
    sql: str
    params: list[Any]
    object: str
    kind: Literal["records", "aggregate", "count"]
    outputs: list[Output | ChildPlan] = field(default_factory=list)
    id_index: int | None = None


class _Columns:
    def __init__(self) -> None:
        self.sql: list[str] = []

    def add(self, expr: str) -> int:
        if expr in self.sql:
            return self.sql.index(expr)
        self.sql.append(expr)
        return len(self.sql) - 1


class Translator:
    def __init__(self, schema: OrgSchema, today: dt.date, row_cap: int,
                 numeric_text: frozenset[tuple[str, str]] = frozenset()) -> None:
        self.schema = schema
        self.today = today
        self.row_cap = row_cap
        self.numeric_text = numeric_text
        self._scopes = 0
        self._id_filter: list[str] | None = None

    def _scope(self, obj: SObject, select: Select) -> Scope:
        prefix = f"q{self._scopes}_"
        self._scopes += 1
        return Scope(self.schema, obj, select.alias, prefix, select.text, self.numeric_text)

    def plan(self, select: Select, id_filter: list[str] | None = None) -> Plan:
        """Plan one SELECT; `id_filter` restricts a records plan to those Ids (SOSL)."""
        obj = self.schema.object(select.obj)
        if obj is None:
            raise unsupported_type(select.text, select.obj_pos, select.obj)
        self._id_filter = id_filter
        return self._plan(select, self._scope(obj, select))

    def _plan(self, select: Select, scope: Scope) -> Plan:
        _check_limits(select)
        calls = [i.expr for i in select.items if isinstance(i, SelectField)
                 and isinstance(i.expr, Call)]
        if any(c.name == "COUNT" and not c.args for c in calls):
            return self._count_plan(select, scope)
        if select.group_by or any(c.name in AGGREGATES for c in calls):
            return self._aggregate_plan(select, scope)
        if select.having is not None:
            raise malformed(select.text, select.group_pos, "HAVING clause requires GROUP BY")
        return self._records_plan(select, scope)

    # -- plain records -------------------------------------------------------------
    def _records_plan(self, select: Select, scope: Scope) -> Plan:
        plan, _ = self._records(select, scope, None)
        return plan

    def _records(self, select: Select, scope: Scope,
                 child_fk: str | None) -> tuple[Plan, int | None]:
        """The records plan; for a child subquery (`child_fk` set) also the FK's row index.

        A child plan's SQL ends in `... IN (__PARENT_IDS__) ORDER BY ... LIMIT ?`: the
        runner binds its WHERE params, then the parent ids, then the row cap. Child LIMIT
        and OFFSET apply per parent, after grouping.
        """
        cols = _Columns()
        id_index = cols.add(f'{scope.base}."Id"')
        outputs: list[Output | ChildPlan] = []
        seen: set[tuple[str, ...]] = set()
        for item in select.items:
            if isinstance(item, SubquerySelect):
                if child_fk is not None:
                    raise malformed(select.text, item.pos, "Nesting of child relationship "
                                    "subqueries is not supported")
                outputs.append(self._child_plan(scope.obj, item))
                continue
            outputs.append(self._record_field(item, scope, cols, seen))
        fk_index = cols.add(child_fk) if child_fk else None
        where = self._conditions(scope)
        where_sql = where.sql(select.where) if select.where is not None else "1"
        if child_fk:
            where_sql = f"({where_sql}) AND {child_fk} IN ({PARENT_IDS})"
        elif self._id_filter is not None:
            marks = ", ".join("?" for _ in self._id_filter)
            where_sql = f'({where_sql}) AND {scope.base}."Id" IN ({marks})'
            where.params.extend(self._id_filter)
        order = self._order_sql(select.order_by, scope)
        tail = "LIMIT ? OFFSET ?" if not child_fk else "LIMIT ?"
        sql = (f"SELECT {', '.join(cols.sql)} FROM {scope.from_sql()} WHERE {where_sql} "
               f"ORDER BY {order} {tail}")
        params = [*where.params]
        if not child_fk:
            params += [self._sql_limit(select.limit), select.offset or 0]
        return Plan(sql, params, scope.obj.name, "records", outputs, id_index), fk_index

    def _record_field(self, item: SelectField, scope: Scope, cols: _Columns,
                      seen: set[tuple[str, ...]]) -> Output:
        if item.alias:
            raise malformed(scope.text, item.pos, "Only aggregate expressions use field "
                            "aliasing")
        expr = _unwrap(item.expr)
        if isinstance(expr, Call):
            if expr.name in dates.DATE_FUNCTIONS:
                raise malformed(scope.text, expr.pos, f"{expr.name} can only be used in an "
                                "aggregate query (with GROUP BY)")
            raise malformed(scope.text, expr.pos, f"Unknown function {expr.name}")
        res = scope.resolve(expr)
        if res.identity in seen:
            raise malformed(scope.text, expr.pos, f"duplicate field selected: {expr.text}")
        seen.add(res.identity)
        steps = tuple(StepOut(s.key, cols.add(s.id_sql),
                              cols.add(s.type_sql) if s.type_sql else None, s.type_name)
                      for s in res.steps)
        return Output(res.field.name, cols.add(res.sql), converter(res.field.type), steps)

    def _child_plan(self, parent: SObject, item: SubquerySelect) -> ChildPlan:
        sub = item.query
        rel = parent.children.get(sub.obj.lower())
        if rel is None:
            raise positioned(
                "INVALID_TYPE", sub.text, sub.obj_pos,
                f"Didn't understand relationship '{sub.obj}' in FROM part of query call. If "
                "you are attempting to use a custom relationship, be sure to append the "
                "'__r' after the custom relationship name. Please reference your WSDL or the "
                "describe call for the appropriate names.")
        child = self.schema.object(rel.child)
        assert child is not None
        _check_limits(sub)
        if sub.group_by or any(isinstance(i, SelectField) and isinstance(i.expr, Call)
                               and i.expr.name in AGGREGATES for i in sub.items):
            raise malformed(sub.text, sub.obj_pos, "Aggregate functions are not allowed in "
                            "child relationship subqueries")
        scope = self._scope(child, sub)
        fk = child.field(rel.field)
        assert fk is not None
        plan, fk_index = self._records(sub, scope, Scope.column_sql(scope.base, fk))
        assert fk_index is not None
        return ChildPlan(rel.name, plan, fk_index, sub.limit, sub.offset or 0)

    # -- SELECT COUNT() ------------------------------------------------------------
    def _count_plan(self, select: Select, scope: Scope) -> Plan:
        if len(select.items) != 1:
            raise malformed(select.text, select.items[1].pos if len(select.items) > 1 else 0,
                            "COUNT() cannot be used with other fields in the SELECT list")
        where = self._conditions(scope)
        where_sql = where.sql(select.where) if select.where is not None else "1"
        group = ""
        if select.group_by:
            group = " GROUP BY " + ", ".join(self._group_sql(e, scope)[1]
                                             for e in select.group_by)
        inner = (f"SELECT 1 FROM {scope.from_sql()} WHERE {where_sql}{group} "
                 f"LIMIT ? OFFSET ?")
        params = [*where.params, select.limit if select.limit is not None else -1,
                  select.offset or 0]
        return Plan(f"SELECT COUNT(*) FROM ({inner})", params, scope.obj.name, "count")

    # -- aggregates ------------------------------------------------------------------
    def _aggregate_plan(self, select: Select, scope: Scope) -> Plan:
        groups = {ident: (sql, ftype) for ident, sql, ftype in
                  (self._group_sql(e, scope) for e in select.group_by)}
        cols = _Columns()
        outputs: list[Output | ChildPlan] = []
        counter = 0
        for item in select.items:
            if isinstance(item, SubquerySelect):
                raise malformed(select.text, item.pos, "Grouped query cannot use child "
                                "relationships in the SELECT list")
            expr = _unwrap(item.expr)
            if isinstance(expr, Call) and expr.name in AGGREGATES:
                sql, ftype = self._aggregate_sql(expr, scope)
            else:
                ident, sql, ftype = self._group_sql(expr, scope, check=False)
                if ident not in groups:
                    name = expr.text if isinstance(expr, Call) else expr.parts[-1]
                    raise malformed(select.text, item.pos,
                                    f"Field must be grouped or aggregated: {name}")
            if item.alias:
                key = item.alias
            elif isinstance(expr, Call):
                key, counter = f"expr{counter}", counter + 1
            else:
                key = scope.resolve(expr).field.name
            outputs.append(Output(key, cols.add(sql), _agg_converter(expr, ftype)))
        having = Conditions(scope, self.today, None, lambda c: self._aggregate_sql(c, scope))
        having_sql = f" HAVING {having.sql(select.having)}" if select.having else ""
        where = self._conditions(scope)
        where_sql = where.sql(select.where) if select.where is not None else "1"
        group_sql = (" GROUP BY " + ", ".join(s for s, _ in groups.values())) if groups else ""
        order = self._aggregate_order(select, scope, groups)
        sql = (f"SELECT {', '.join(cols.sql)} FROM {scope.from_sql()} WHERE {where_sql}"
               f"{group_sql}{having_sql}{order} LIMIT ? OFFSET ?")
        params = [*where.params, *having.params, self._sql_limit(select.limit),
                  select.offset or 0]
        return Plan(sql, params, scope.obj.name, "aggregate", outputs)

    def _group_sql(self, expr: Expr, scope: Scope,
                   check: bool = True) -> tuple[tuple[str, ...], str, str]:
        expr = _unwrap(expr)
        if isinstance(expr, Call):
            if expr.name not in dates.DATE_FUNCTIONS:
                raise malformed(scope.text, expr.pos, f"Cannot group by {expr.name}")
            sql, ftype = date_function(scope, expr)
            arg = expr.args[0]
            inner = _unwrap(arg) if isinstance(arg, Call) else arg
            parts = inner.parts if isinstance(inner, FieldPath) else ()
            return ("fn", expr.name.lower(), *(p.lower() for p in parts)), sql, ftype
        res = scope.resolve(expr)
        if check and res.field.type in _UNGROUPABLE:
            raise not_filterable(scope, expr.pos, res.field, "grouped")
        return res.identity, res.sql, res.field.type

    def _aggregate_sql(self, call: Call, scope: Scope) -> tuple[str, str]:
        if call.name == "COUNT" and not call.args:
            raise malformed(scope.text, call.pos, "COUNT() cannot be used with other fields "
                            "in the SELECT list")
        arg = call.args[0] if len(call.args) == 1 else None
        if not isinstance(arg, FieldPath):
            raise malformed(scope.text, call.pos, f"{call.name} takes exactly one field")
        res = scope.resolve(arg)
        ftype = res.field.type
        unsupported = (ftype == "longtext"
                       or (call.name in ("SUM", "AVG") and ftype not in NUMBER_TYPES)
                       or (call.name in ("MIN", "MAX") and ftype == "boolean"))
        if unsupported:
            raise positioned("INVALID_FIELD", scope.text, arg.pos,
                             f"field {res.field.name} does not support aggregate operator "
                             f"{call.name}")
        value = comparable_sql(res)
        if call.name == "COUNT":
            return f"COUNT({res.sql})", "int"
        if call.name == "COUNT_DISTINCT":
            return f"COUNT(DISTINCT {res.sql})", "int"
        if call.name == "SUM":
            return f"SUM({value})", "int" if ftype == "int" else "double"
        if call.name == "AVG":
            return f"AVG({value})", "double"
        collate = " COLLATE NOCASE" if ftype in TEXT_TYPES else ""
        return f"{call.name}({value}{collate})", ftype

    def _aggregate_order(self, select: Select, scope: Scope,
                         groups: dict[tuple[str, ...], tuple[str, str]]) -> str:
        parts = []
        for item in select.order_by:
            expr = _unwrap(item.expr)
            if isinstance(expr, Call) and expr.name in AGGREGATES:
                sql, ftype = self._aggregate_sql(expr, scope)
            else:
                ident, sql, ftype = self._group_sql(expr, scope, check=False)
                if ident not in groups:
                    name = expr.text if isinstance(expr, Call) else expr.parts[-1]
                    raise malformed(select.text, getattr(expr, "pos", 0),
                                    f"Ordered field must be grouped or aggregated: {name}")
            parts.append(_direction(sql, ftype, item))
        return (" ORDER BY " + ", ".join(parts)) if parts else ""

    # -- shared pieces ---------------------------------------------------------------
    def _conditions(self, scope: Scope) -> Conditions:
        return Conditions(scope, self.today, self._semi_join)

    def _semi_join(self, sub: Select, left: Operand) -> tuple[str, list[Any]]:
        obj = self.schema.object(sub.obj)
        if obj is None:
            raise unsupported_type(sub.text, sub.obj_pos, sub.obj)
        if (len(sub.items) != 1 or not isinstance(sub.items[0], SelectField)
                or not isinstance(sub.items[0].expr, FieldPath)):
            raise malformed(sub.text, sub.obj_pos, "Semi join sub-selects must select "
                            "exactly one Id or reference field")
        _check_limits(sub)
        scope = self._scope(obj, sub)
        res = scope.resolve(sub.items[0].expr)
        if res.field.type not in ID_TYPES:
            raise positioned("INVALID_FIELD", sub.text, sub.items[0].pos,
                             f"Semi join sub-selects can only select Id or reference fields, "
                             f"not {res.field.name}")
        cond = Conditions(scope, self.today, None)
        where = cond.sql(sub.where) if sub.where is not None else "1"
        limit = f" LIMIT {int(sub.limit)}" if sub.limit is not None else ""
        return (f"SELECT {res.sql} FROM {scope.from_sql()} WHERE ({where}) AND {res.sql} "
                f"IS NOT NULL{limit}", cond.params)

    def _order_sql(self, items: tuple[OrderItem, ...], scope: Scope) -> str:
        parts = []
        for item in items:
            expr = _unwrap(item.expr)
            if isinstance(expr, Call):
                if expr.name not in dates.DATE_FUNCTIONS:
                    raise malformed(scope.text, expr.pos, f"Cannot order by {expr.name} in a "
                                    "non-aggregate query")
                sql, ftype = date_function(scope, expr)
            else:
                res = scope.resolve(expr)
                if not res.field.filterable:
                    raise not_filterable(scope, expr.pos, res.field, "sorted")
                sql, ftype = comparable_sql(res), res.field.type
            parts.append(_direction(sql, ftype, item))
        rowid = "rowid" if scope.obj.rowid else '"Id"'
        parts.append(f"{scope.base}.{rowid}")   # insertion order, as Salesforce mostly returns
        return ", ".join(parts)

    def _sql_limit(self, limit: int | None) -> int:
        cap = self.row_cap + 1   # one extra row tells us the cap was exceeded
        return cap if limit is None else min(limit, cap)


def _unwrap(expr: Expr) -> Expr:
    while isinstance(expr, Call) and expr.name in PASS_THROUGH and len(expr.args) == 1:
        expr = expr.args[0]   # toLabel()/FORMAT(): the sandbox has no labels or locales
    return expr


def _direction(sql: str, ftype: str, item: OrderItem) -> str:
    collate = " COLLATE NOCASE" if ftype in TEXT_TYPES else ""
    text = f"{sql}{collate} {'DESC' if item.desc else 'ASC'}"
    if item.nulls_first is not None:
        text += " NULLS FIRST" if item.nulls_first else " NULLS LAST"
    return text


def _agg_converter(expr: Expr, ftype: str) -> Converter:
    if isinstance(expr, Call) and expr.name in ("SUM", "AVG", "COUNT", "COUNT_DISTINCT"):
        return converter("int" if ftype == "int" else "double")
    return converter(ftype)


def _check_limits(select: Select) -> None:
    if select.offset is not None and select.offset > MAX_OFFSET:
        raise positioned("NUMBER_OUTSIDE_VALID_RANGE", select.text, select.obj_pos,
                         f"Maximum SOQL offset allowed is {MAX_OFFSET}")
