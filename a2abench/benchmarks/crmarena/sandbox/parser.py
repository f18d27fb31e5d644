"""A recursive-descent SOQL parser: text -> `nodes.Select`.

Hand-written rather than pyparsing-based: it parses a typical agent query in tens of
microseconds, points errors at the offending token the way Salesforce does, and covers the
corners agents hit (semi-joins, child subqueries, date functions, NULLS FIRST/LAST). Clause
order is enforced as Salesforce enforces it, and AND/OR may not be mixed without parentheses.
"""

from __future__ import annotations

import datetime as dt
import re

from . import dates
from .errors import SalesforceError, malformed, unexpected
from .lexer import Token, tokenize
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
    OrderItem,
    Select,
    SelectField,
    SubquerySelect,
    Value,
)

RESERVED = frozenset({
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "LIKE", "INCLUDES", "EXCLUDES",
    "GROUP", "BY", "HAVING", "ORDER", "ASC", "DESC", "NULLS", "FIRST", "LAST", "LIMIT",
    "OFFSET", "WITH", "USING", "SCOPE", "FOR", "TRUE", "FALSE", "NULL", "TYPEOF", "ROLLUP",
    "CUBE", "UPDATE", "VIEW", "REFERENCE", "END", "WHEN", "THEN", "ELSE",
})
_CLAUSE_WORDS = frozenset({"WHERE", "WITH", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET",
                           "FOR", "USING", "UPDATE"})
_COMPARE_OPS = {"=": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_MAX_DEPTH = 60
_INT = re.compile(r"[+-]?\d+")


def parse_soql(text: str) -> Select:
    """Parse one SOQL statement; raises SalesforceError (MALFORMED_QUERY, ...) on bad input."""
    return _Parser(text).statement()


def unsupported(query: str, pos: int, what: str) -> SalesforceError:
    return malformed(query, pos, f"{what} is not supported by the a2abench offline sandbox")


class _Parser:
    def __init__(self, text: str, tokens: list[Token] | None = None, start: int = 0) -> None:
        self.text = text
        self.tokens = tokens if tokens is not None else tokenize(text)
        self.i = start
        self.depth = 0

    # -- token helpers ----------------------------------------------------------------
    @property
    def tok(self) -> Token:
        tok = self.tokens[self.i]
        if tok.kind == "error":   # a lexical error, reached in reading order
            raise malformed(self.text, tok.pos, tok.raw)
        return tok

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.tok
        if tok.kind != "eof":
            self.i += 1
        return tok

    def fail(self, tok: Token | None = None) -> SalesforceError:
        tok = tok or self.tok
        return unexpected(self.text, tok.pos, tok.text)

    def expect_kw(self, word: str) -> Token:
        if not self.tok.is_kw(word):
            raise self.fail()
        return self.advance()

    def expect_op(self, op: str) -> Token:
        if not self.tok.is_op(op):
            raise self.fail()
        return self.advance()

    def ident(self) -> Token:
        if self.tok.kind != "ident":
            raise self.fail()
        return self.advance()

    # -- statement --------------------------------------------------------------------
    def statement(self) -> Select:
        query = self.select()
        if self.tok.kind != "eof":
            raise self.fail()
        return query

    def select(self) -> Select:
        self.expect_kw("SELECT")
        items = self.select_list()
        self.expect_kw("FROM")
        obj = self.ident()
        alias = None
        if self.tok.kind == "ident" and self.tok.upper not in _CLAUSE_WORDS:
            if self.tok.upper in RESERVED:
                raise self.fail()
            alias = self.advance().text
        if self.tok.is_kw("USING"):
            self.using_scope()
        where = self.condition() if self._take_kw("WHERE") else None
        self.with_clause()
        group_by, group_pos = self.group_by()
        having = self.condition() if self._take_kw("HAVING") else None
        order_by = self.order_by()
        limit = self.integer_clause("LIMIT")
        offset = self.integer_clause("OFFSET")
        self.for_clause()
        return Select(tuple(items), obj.text, obj.pos, alias, where, group_by, having,
                      order_by, limit, offset, self.text, group_pos)

    def _take_kw(self, word: str) -> bool:
        if self.tok.is_kw(word):
            self.advance()
            return True
        return False

    def using_scope(self) -> None:
        start = self.advance()
        self.expect_kw("SCOPE")
        scope = self.ident()
        if scope.upper != "EVERYTHING":
            raise unsupported(self.text, start.pos, f"USING SCOPE {scope.text}")

    def with_clause(self) -> None:
        if not self.tok.is_kw("WITH"):
            return
        start = self.advance()
        word = self.ident()
        if word.upper not in ("SECURITY_ENFORCED", "USER_MODE", "SYSTEM_MODE"):
            raise unsupported(self.text, start.pos, f"WITH {word.text}")

    def for_clause(self) -> None:
        if self.tok.is_kw("FOR"):
            start = self.advance()
            word = self.ident()
            if word.upper == "UPDATE":
                raise unsupported(self.text, start.pos, "FOR UPDATE")
            if word.upper not in ("VIEW", "REFERENCE"):
                raise self.fail(word)
        if self.tok.is_kw("UPDATE"):
            raise unsupported(self.text, self.tok.pos, "UPDATE TRACKING/VIEWSTAT")

    # -- SELECT list ------------------------------------------------------------------
    def select_list(self) -> list[SelectField | SubquerySelect]:
        items = [self.select_item()]
        while self.tok.is_op(","):
            self.advance()
            items.append(self.select_item())
        return items

    def select_item(self) -> SelectField | SubquerySelect:
        tok = self.tok
        if tok.is_op("("):
            self.advance()
            if not self.tok.is_kw("SELECT"):
                raise self.fail()
            sub = self.select()
            self.expect_op(")")
            return SubquerySelect(sub, tok.pos)
        if tok.is_kw("TYPEOF"):
            raise unsupported(self.text, tok.pos, "TYPEOF")
        if tok.kind != "ident" or (tok.upper in RESERVED and not self.peek().is_op(".", "(")):
            raise self.fail()
        expr = self.expr()
        alias = None
        if self.tok.kind == "ident" and self.tok.upper not in RESERVED:
            alias = self.advance().text
        return SelectField(expr, alias, tok.pos)

    def expr(self) -> Expr:
        first = self.ident()
        if self.tok.is_op("("):
            return self.call(first)
        parts = [first.text]
        while self.tok.is_op("."):
            self.advance()
            parts.append(self.ident().text)
        return FieldPath(tuple(parts), first.pos)

    def call(self, name: Token) -> Call:
        self.expect_op("(")
        args: list[Expr] = []
        if not self.tok.is_op(")"):
            args.append(self.expr())
            while self.tok.is_op(","):
                self.advance()
                args.append(self.expr())
        end = self.expect_op(")")
        return Call(name.upper, tuple(args), name.pos, self.text[name.pos:end.pos + 1])

    # -- WHERE / HAVING ---------------------------------------------------------------
    def condition(self) -> Cond:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise malformed(self.text, self.tok.pos, "expression is nested too deeply")
        first = self.term()
        if not self.tok.is_kw("AND", "OR"):
            self.depth -= 1
            return first
        op = self.tok.upper
        items = [first]
        while self.tok.is_kw(op):
            self.advance()
            items.append(self.term())
        if self.tok.is_kw("AND", "OR"):   # SOQL demands parentheses to mix AND and OR
            raise self.fail()
        self.depth -= 1
        return BoolOp("AND" if op == "AND" else "OR", tuple(items))

    def term(self) -> Cond:
        if self.tok.is_kw("NOT"):
            self.advance()
            return Not(self.term())
        if self.tok.is_op("("):
            self.advance()
            inner = self.condition()
            self.expect_op(")")
            return inner
        return self.simple()

    def simple(self) -> Cond:
        if self.tok.kind != "ident":
            raise self.fail()
        left = self.expr()
        tok = self.tok
        if tok.kind == "op" and tok.text in _COMPARE_OPS:
            self.advance()
            return Compare(left, _COMPARE_OPS[tok.text], self.value(), tok.pos)
        if tok.is_kw("LIKE"):
            self.advance()
            return Compare(left, "LIKE", self.value(), tok.pos)
        if tok.is_kw("NOT") and self.peek().is_kw("IN"):
            self.advance()
            self.advance()
            return self.in_tail(left, "NOT IN", tok.pos)
        if tok.is_kw("IN", "INCLUDES", "EXCLUDES"):
            self.advance()
            return self.in_tail(left, tok.upper, tok.pos)
        raise self.fail(self.peek() if tok.is_kw("NOT") else tok)

    def in_tail(self, left: Expr, op: str, pos: int) -> InCond:
        self.expect_op("(")
        if self.tok.is_kw("SELECT"):
            sub = self.select()
            self.expect_op(")")
            return InCond(left, op, (), sub, pos)
        values = [self.value()]
        while self.tok.is_op(","):
            self.advance()
            values.append(self.value())
        self.expect_op(")")
        return InCond(left, op, tuple(values), None, pos)

    def value(self) -> Value:
        tok = self.advance()
        if tok.kind == "string":
            return Literal("string", tok.text, tok.pos, tok.raw)
        if tok.kind == "number":
            num: float = int(tok.text) if _INT.fullmatch(tok.text) else float(tok.text)
            return Literal("number", num, tok.pos, tok.text)
        if tok.kind == "date":
            return Literal("date", self._date(tok), tok.pos, tok.text)
        if tok.kind == "datetime":
            return Literal("datetime", self._datetime(tok), tok.pos, tok.text)
        if tok.is_op(":"):
            raise malformed(self.text, tok.pos, "Bind variables only allowed in Apex code")
        if tok.kind != "ident":
            raise self.fail(tok)
        if tok.upper in ("TRUE", "FALSE"):
            return Literal("boolean", tok.upper == "TRUE", tok.pos, tok.text)
        if tok.upper == "NULL":
            return Literal("null", None, tok.pos, tok.text)
        return self.date_literal(tok)

    def date_literal(self, tok: Token) -> DateLiteral:
        takes_n = dates.literal_takes_n(tok.upper)
        if takes_n is None:
            raise self.fail(tok)
        if not takes_n:
            return DateLiteral(tok.upper, None, tok.pos, tok.text)
        if not self.tok.is_op(":"):
            raise self.fail()
        self.advance()
        num = self.advance()
        if num.kind != "number" or not num.text.isdigit():
            raise self.fail(num)
        return DateLiteral(tok.upper, int(num.text), tok.pos, self.text[tok.pos:num.pos
                                                                          + len(num.text)])

    def _date(self, tok: Token) -> dt.date:
        try:
            return dt.date.fromisoformat(tok.text)
        except ValueError:
            raise malformed(self.text, tok.pos, f"invalid date: {tok.text}") from None

    def _datetime(self, tok: Token) -> str:
        text = tok.text.replace("Z", "+00:00")
        if re.search(r"[+-]\d{4}$", text):
            text = text[:-2] + ":" + text[-2:]
        try:
            value = dt.datetime.fromisoformat(text)
        except ValueError:
            raise malformed(self.text, tok.pos, f"invalid datetime: {tok.text}") from None
        utc = value.astimezone(dt.UTC)
        return utc.strftime("%Y-%m-%dT%H:%M:%S")

    # -- GROUP BY / ORDER BY / LIMIT ---------------------------------------------------
    def group_by(self) -> tuple[tuple[Expr, ...], int]:
        if not self.tok.is_kw("GROUP"):
            return (), 0
        start = self.advance()
        self.expect_kw("BY")
        if self.tok.is_kw("ROLLUP", "CUBE") and self.peek().is_op("("):
            raise unsupported(self.text, self.tok.pos, f"GROUP BY {self.tok.upper}")
        items = [self.expr()]
        while self.tok.is_op(","):
            self.advance()
            items.append(self.expr())
        return tuple(items), start.pos

    def order_by(self) -> tuple[OrderItem, ...]:
        if not self.tok.is_kw("ORDER"):
            return ()
        self.advance()
        self.expect_kw("BY")
        items = [self.order_item()]
        while self.tok.is_op(","):
            self.advance()
            items.append(self.order_item())
        return tuple(items)

    def order_item(self) -> OrderItem:
        expr = self.expr()
        desc = False
        if self.tok.is_kw("ASC", "DESC"):
            desc = self.advance().upper == "DESC"
        nulls_first = None
        if self.tok.is_kw("NULLS"):
            self.advance()
            if not self.tok.is_kw("FIRST", "LAST"):
                raise self.fail()
            nulls_first = self.advance().upper == "FIRST"
        return OrderItem(expr, desc, nulls_first)

    def integer_clause(self, word: str) -> int | None:
        if not self.tok.is_kw(word):
            return None
        self.advance()
        tok = self.advance()
        if tok.kind != "number" or not tok.text.isdigit():
            raise self.fail(tok)
        return int(tok.text)
