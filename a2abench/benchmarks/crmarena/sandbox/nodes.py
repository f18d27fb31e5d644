"""The SOQL syntax tree the parser produces and the translator consumes."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal as Lit


@dataclass(frozen=True, slots=True)
class FieldPath:
    parts: tuple[str, ...]
    pos: int

    @property
    def text(self) -> str:
        return ".".join(self.parts)


@dataclass(frozen=True, slots=True)
class Call:
    name: str                      # upper case: COUNT, SUM, CALENDAR_MONTH, ...
    args: tuple[Expr, ...]
    pos: int
    text: str                      # source spelling, for messages


Expr = FieldPath | Call


@dataclass(frozen=True, slots=True)
class Literal:
    kind: Lit["string", "number", "boolean", "null", "date", "datetime"]
    value: str | float | bool | dt.date | None    # datetimes: UTC 'YYYY-MM-DDTHH:MM:SS'
    pos: int
    text: str


@dataclass(frozen=True, slots=True)
class DateLiteral:
    name: str                      # upper case, e.g. LAST_N_DAYS
    n: int | None
    pos: int
    text: str


Value = Literal | DateLiteral


@dataclass(frozen=True, slots=True)
class Compare:
    left: Expr
    op: str                        # = != < <= > >= LIKE
    value: Value
    pos: int


@dataclass(frozen=True, slots=True)
class InCond:
    left: Expr
    op: str                        # IN, NOT IN, INCLUDES, EXCLUDES
    values: tuple[Value, ...]
    subquery: Select | None
    pos: int


@dataclass(frozen=True, slots=True)
class BoolOp:
    op: Lit["AND", "OR"]
    items: tuple[Cond, ...]


@dataclass(frozen=True, slots=True)
class Not:
    item: Cond


Cond = Compare | InCond | BoolOp | Not


@dataclass(frozen=True, slots=True)
class SelectField:
    expr: Expr
    alias: str | None
    pos: int


@dataclass(frozen=True, slots=True)
class SubquerySelect:
    query: Select
    pos: int


@dataclass(frozen=True, slots=True)
class OrderItem:
    expr: Expr
    desc: bool
    nulls_first: bool | None


@dataclass(frozen=True, slots=True)
class Select:
    items: tuple[SelectField | SubquerySelect, ...]
    obj: str
    obj_pos: int
    alias: str | None
    where: Cond | None
    group_by: tuple[Expr, ...]
    having: Cond | None
    order_by: tuple[OrderItem, ...]
    limit: int | None
    offset: int | None
    text: str                      # the whole statement, for positioned errors
    group_pos: int = 0
