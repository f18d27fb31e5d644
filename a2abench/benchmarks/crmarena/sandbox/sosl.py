"""SOSL: `FIND {terms} [IN ALL|NAME|EMAIL|PHONE FIELDS] [RETURNING Obj(fields [WHERE ...]
[ORDER BY ...] [LIMIT n] [OFFSET n]), ...] [LIMIT n]`.

Matching runs on a full-text index (SQLite FTS5) built once per org database and cached in
the a2abench cache directory, keyed by the database's path, size and modification time; the
org file itself is never written. The records themselves come from the org database through
the SOQL translator, so RETURNING fields, WHERE and ORDER BY behave exactly as in SOQL.
Without ORDER BY, each object's records come in relevance order (BM25), ties by position.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import sqlite3
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from a2abench.plugin import DataError, cache_dir

from .errors import SalesforceError, unsupported_type
from .lexer import tokenize
from .nodes import Call, FieldPath, Select, SelectField
from .parser import _Parser, unsupported
from .schema import OrgSchema, SObject
from .search_terms import (
    Leaf,
    Term,
    TermOp,
    fts_body,
    fts_string,
    glob_pattern,
    parse_terms,
    prefix_phrase,
)
from .translate import Plan, Translator


class SearchHost(Protocol):
    """What a search needs of the sandbox that runs it (engine.OrgSandbox): the org, its
    limits, and running and shaping rows; the sandbox passes itself."""

    @property
    def schema(self) -> OrgSchema: ...
    @property
    def today(self) -> dt.date: ...
    @property
    def timeout_s(self) -> float: ...
    @property
    def row_cap(self) -> int: ...
    @property
    def numeric_text(self) -> frozenset[tuple[str, str]]: ...

    def fetch(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]: ...

    def check_cap(self, count: int) -> None: ...

    def build(self, plan: Plan, row: tuple[Any, ...]) -> OrderedDict[str, Any]: ...

INDEX_VERSION = 1
MAX_SEARCH_ROWS = 2000   # Salesforce returns at most 2,000 search results
_GROUPS = {"ALL": "{name email phone other}", "SIDEBAR": "{name email phone other}",
           "NAME": "{name}", "EMAIL": "{email}", "PHONE": "{phone}"}
_SEARCHABLE = frozenset({"string", "textarea", "longtext", "email", "phone", "url"})
_MAX_GLOB_TERMS = 200


@dataclass(frozen=True)
class Returning:
    select: Select
    ordered: bool


@dataclass(frozen=True)
class SoslQuery:
    term: Term
    group: str
    returning: tuple[Returning, ...] | None
    limit: int | None


def parse_sosl(text: str) -> SoslQuery:
    """Parse a FIND statement (raises MALFORMED_SEARCH and friends)."""
    i = 4
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text) or text[i] != "{":
        raise SalesforceError("MALFORMED_SEARCH", "No search term found. The search term "
                              "must be enclosed in braces.")
    j = i + 1
    while j < len(text) and text[j] != "}":
        j += 2 if text[j] == "\\" else 1
    if j >= len(text):
        raise SalesforceError("MALFORMED_SEARCH", "Missing closing brace '}' in the search "
                              "term.")
    term = parse_terms(text[i + 1:j])
    try:
        return _parse_tail(text, j + 1, term)
    except SalesforceError as err:
        if err.code == "MALFORMED_QUERY":
            raise SalesforceError("MALFORMED_SEARCH", err.message) from None
        raise


def _parse_tail(text: str, start: int, term: Term) -> SoslQuery:
    p = _Parser(text, tokenize(text, start))
    group = "ALL"
    if p.tok.is_kw("IN"):
        p.advance()
        word = p.ident()
        if word.upper not in _GROUPS:
            raise p.fail(word)
        group = word.upper
        p.expect_kw("FIELDS")
    returning = None
    if p.tok.is_kw("RETURNING"):
        p.advance()
        specs = [_returning(p)]
        while p.tok.is_op(","):
            p.advance()
            specs.append(_returning(p))
        returning = tuple(specs)
    if p.tok.is_kw("WITH", "UPDATE"):
        raise unsupported(text, p.tok.pos, f"{p.tok.upper} clauses in SOSL")
    limit = p.integer_clause("LIMIT")
    if p.tok.kind != "eof":
        raise p.fail()
    return SoslQuery(term, group, returning, limit)


def _returning(p: _Parser) -> Returning:
    obj = p.ident()
    items: list[SelectField] = []
    where = None
    order: tuple[Any, ...] = ()
    limit = offset = None
    if p.tok.is_op("("):
        p.advance()
        while True:
            tok = p.tok
            expr = p.expr()
            if isinstance(expr, Call) and expr.name not in ("TOLABEL", "FORMAT",
                                                            "CONVERTCURRENCY"):
                raise p.fail(tok)
            items.append(SelectField(expr, None, tok.pos))
            if not p.tok.is_op(","):
                break
            p.advance()
        if p.tok.is_kw("WHERE"):
            p.advance()
            where = p.condition()
        order = p.order_by()
        limit = p.integer_clause("LIMIT")
        offset = p.integer_clause("OFFSET")
        p.expect_op(")")
    if not items:
        items = [SelectField(FieldPath(("Id",), obj.pos), None, obj.pos)]
    select = Select(tuple(items), obj.text, obj.pos, None, where, (), None, order, limit,
                    offset, p.text)
    return Returning(select, bool(order))


# -- the full-text index ------------------------------------------------------------------
def _columns(obj: SObject) -> dict[str, list[str]]:
    """Index column -> stored columns feeding it, for one object."""
    groups: dict[str, list[str]] = {"name": [], "email": [], "phone": [], "other": []}
    name_fields = obj.name_fields()
    for f in name_fields:
        if f.derived == "compound_name":
            groups["name"] += [c for n in ("FirstName", "LastName")
                               if (g := obj.field(n)) and (c := g.column)]
        elif f.column:
            groups["name"].append(f.column)
    taken = set(groups["name"])
    for f in obj.fields.values():
        if f.type not in _SEARCHABLE or not f.column or f.column in taken:
            continue
        key = f.type if f.type in ("email", "phone") else "other"
        groups[key].append(f.column)
    return groups


class SearchIndex:
    """Read-only access to a cached FTS5 index of one org database."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._deadline = float("inf")
        conn.set_progress_handler(self._progress, 1000)

    def _progress(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    @classmethod
    def open(cls, db_path: Path, schema: OrgSchema) -> SearchIndex:
        stat = db_path.stat()
        tables = sorted(f"{o.table}:{','.join(sorted(o.fields))}" for o in schema.objects)
        signature = "|".join([str(db_path.resolve()), str(stat.st_size),
                              str(stat.st_mtime_ns), str(INDEX_VERSION), *tables])
        key = hashlib.sha256(signature.encode()).hexdigest()[:32]
        path = cache_dir() / "sosl-index" / f"{key}.sqlite"
        if not path.exists():
            _build(db_path, schema, path)
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                               check_same_thread=False)
        conn.execute("PRAGMA query_only = ON")
        return cls(conn, path)

    def close(self) -> None:
        self._conn.close()

    def search(self, term: Term, group: str, objects: list[str],
               timeout_s: float) -> dict[str, list[str]]:
        """Record Ids per object matching `term`, best first."""
        columns = _GROUPS[group]
        params: list[Any] = []
        cond = self._cond(term, columns, params)
        ranked = [leaf for leaf in _positive_leaves(term) if not leaf.wildcard]
        marks = ", ".join("?" for _ in objects)
        if ranked:
            bodies = " OR ".join(fts_body(leaf) for leaf in ranked)
            sql = ("SELECT d.obj, d.rid FROM docs d LEFT JOIN (SELECT rowid AS k, "
                   "bm25(fts_stem) AS score FROM fts_stem WHERE fts_stem MATCH ?) r "
                   f"ON r.k = d.rowid WHERE {cond} AND d.obj IN ({marks}) "
                   "ORDER BY r.score IS NULL, r.score, d.rowid LIMIT ?")
            params = [f"{columns} : ({bodies})", *params]
        else:
            sql = (f"SELECT d.obj, d.rid FROM docs d WHERE {cond} AND d.obj IN ({marks}) "
                   "ORDER BY d.rowid LIMIT ?")
        params += [*objects, MAX_SEARCH_ROWS * max(1, len(objects))]
        self._deadline = time.monotonic() + timeout_s
        try:
            rows = self._conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise SalesforceError("QUERY_TIMEOUT", "Your search request was running for "
                                      "too long.") from exc
            raise SalesforceError("UNKNOWN_EXCEPTION", f"search index error: {exc}") from exc
        finally:
            self._deadline = float("inf")
        out: dict[str, list[str]] = {}
        for obj, rid in rows:
            bucket = out.setdefault(obj, [])
            if len(bucket) < MAX_SEARCH_ROWS:
                bucket.append(rid)
        return out

    def _cond(self, term: Term, columns: str, params: list[Any]) -> str:
        if isinstance(term, TermOp):
            parts = [self._cond(t, columns, params) for t in term.items]
            if term.op == "NOT":
                return f"(NOT {parts[0]})"
            return "(" + f" {term.op} ".join(parts) + ")"
        if not term.wildcard:
            params.append(fts_string(term, columns))
            return "d.rowid IN (SELECT rowid FROM fts_stem WHERE fts_stem MATCH ?)"
        prefix = prefix_phrase(term, columns)
        if prefix is not None:
            params.append(prefix)
            return "d.rowid IN (SELECT rowid FROM fts_exact WHERE fts_exact MATCH ?)"
        parts = [self._glob_cond(t, columns, params) for t in term.tokens]
        return "(" + " AND ".join(parts) + ")"

    def _glob_cond(self, token: str, columns: str, params: list[Any]) -> str:
        if "*" not in token and "?" not in token:
            params.append(f'{columns} : "{token}"')
            return "d.rowid IN (SELECT rowid FROM fts_exact WHERE fts_exact MATCH ?)"
        terms = [row[0] for row in self._conn.execute(
            "SELECT term FROM vocab WHERE term GLOB ? ORDER BY term LIMIT ?",
            (glob_pattern(token), _MAX_GLOB_TERMS))]
        if not terms:
            return "0"
        alternatives = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        params.append(f"{columns} : ({alternatives})")
        return "d.rowid IN (SELECT rowid FROM fts_exact WHERE fts_exact MATCH ?)"


def _positive_leaves(term: Term) -> list[Leaf]:
    if isinstance(term, Leaf):
        return [term]
    if term.op == "NOT":
        return []
    return [leaf for t in term.items for leaf in _positive_leaves(t)]


def _build(db_path: Path, schema: OrgSchema, target: Path) -> None:
    """Build the index into a temporary file, then move it into place atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    src = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True)
    out = sqlite3.connect(tmp)
    try:
        out.executescript(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
            "CREATE TABLE docs (rowid INTEGER PRIMARY KEY, obj TEXT, rid TEXT);"
            "CREATE VIRTUAL TABLE fts_stem USING fts5(name, email, phone, other, content='', "
            "tokenize='porter unicode61 remove_diacritics 2');"
            "CREATE VIRTUAL TABLE fts_exact USING fts5(name, email, phone, other, content='', "
            "tokenize='unicode61 remove_diacritics 2');"
            "CREATE VIRTUAL TABLE vocab USING fts5vocab(fts_exact, 'row');")
        rowid = 0
        for obj in schema.objects:
            groups = _columns(obj)
            wanted = [c for cols in groups.values() for c in cols]
            if not wanted:
                continue
            select = ", ".join('"' + c.replace('"', '""') + '"' for c in ["Id", *wanted])
            table = '"' + (obj.table or obj.name).replace('"', '""') + '"'
            docs: list[tuple[int, str, str]] = []
            texts: list[tuple[Any, ...]] = []
            for row in src.execute(f"SELECT {select} FROM {table}"):
                rowid += 1
                values = dict(zip(["Id", *wanted], row, strict=True))
                docs.append((rowid, obj.name, row[0]))
                texts.append((rowid, *(_text(values, groups[g], phone=g == "phone")
                                       for g in ("name", "email", "phone", "other"))))
            out.executemany("INSERT INTO docs VALUES (?, ?, ?)", docs)
            for fts in ("fts_stem", "fts_exact"):  # one statement per table: fewer round trips
                out.executemany(f"INSERT INTO {fts}(rowid, name, email, phone, other) "
                                "VALUES (?, ?, ?, ?, ?)", texts)
        out.commit()
    except sqlite3.OperationalError as exc:
        out.close()
        tmp.unlink(missing_ok=True)
        raise DataError(f"cannot build the SOSL search index: {exc}",
                        hint="SOSL needs a Python whose SQLite has FTS5.") from exc
    finally:
        src.close()
    out.close()
    os.replace(tmp, target)


def _text(values: dict[str, Any], columns: list[str], *, phone: bool) -> str:
    parts = [str(values[c]) for c in columns if values[c] not in (None, "")]
    if phone:   # also index the bare digits so 4155551212 finds (415) 555-1212
        parts += ["".join(ch for ch in p if ch.isdigit()) for p in parts]
    return " \n ".join(parts)


# -- running a search ---------------------------------------------------------------------
def run_search(sandbox: SearchHost, index: SearchIndex, text: str,
               today: dt.date | None = None) -> list[OrderedDict[str, Any]]:
    """One SOSL search's records; `today` anchors date literals in WHERE (default: the
    sandbox's)."""
    today = today or sandbox.today

    query = parse_sosl(text)
    specs = query.returning or tuple(
        Returning(Select((SelectField(FieldPath(("Id",), 0), None, 0),), o.name, 0, None,
                         None, (), None, (), None, None, text), False)
        for o in sandbox.schema.objects if any(_columns(o).values()))
    objects = []
    for spec in specs:
        obj = sandbox.schema.object(spec.select.obj)
        if obj is None:
            raise unsupported_type(text, spec.select.obj_pos, spec.select.obj)
        _translator(sandbox, today).plan(spec.select, id_filter=[])   # errors even on no match
        objects.append(obj.name)
    matches = index.search(query.term, query.group, objects, sandbox.timeout_s)
    records: list[Any] = []
    total_cap = min(query.limit if query.limit is not None else MAX_SEARCH_ROWS,
                    MAX_SEARCH_ROWS)
    for spec, name in zip(specs, objects, strict=True):
        ids = matches.get(name, [])
        if ids and len(records) < total_cap:
            records += _fetch(sandbox, spec, ids, today)
    return records[:total_cap]


def _fetch(sandbox: SearchHost, spec: Returning, ids: list[str], today: dt.date) -> list[Any]:
    select = spec.select
    if not spec.ordered:   # relevance order: fetch everything, order and slice in Python
        select = replace(select, limit=None, offset=None)
    plan = _translator(sandbox, today).plan(select, id_filter=ids)
    rows = sandbox.fetch(plan.sql, plan.params)
    sandbox.check_cap(len(rows))
    records = [sandbox.build(plan, row) for row in rows]
    if spec.ordered:
        return records
    rank = {rid: i for i, rid in enumerate(ids)}
    records.sort(key=lambda r: rank.get(_record_id(r), len(rank)))
    start = spec.select.offset or 0
    end = None if spec.select.limit is None else start + spec.select.limit
    return records[start:end]


def _translator(sandbox: SearchHost, today: dt.date) -> Translator:
    return Translator(sandbox.schema, today, sandbox.row_cap, sandbox.numeric_text)


def _record_id(record: Any) -> str:
    url = record["attributes"].get("url", "")
    return str(url.rsplit("/", 1)[-1])


