"""`OrgSandbox`: a read-only "Salesforce" over a CRMArena SQLite org dump.

Safety model: the database is opened read-only (`mode=ro` URI plus `PRAGMA query_only`); an
authorizer lets statements read tables and call a short list of SQL functions and denies
everything else (ATTACH, PRAGMA, writes, load_extension, ...); a progress handler enforces
the per-query time limit; every result is capped at `row_cap` rows. The SQL we run is our
own translation: agent text reaches SQLite only as bound parameters or as identifiers that
matched the schema and were quoted.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from a2abench.plugin import DataCorrupt, DataMissing

from .catalog import OrgKind
from .errors import SalesforceError
from .parser import parse_soql
from .schema import NUMBER_TYPES, OrgSchema
from .serialize import attributes, connector_rows, sf_repr
from .translate import PARENT_IDS, ChildPlan, Output, Plan, Translator

_ALLOWED_FUNCTIONS = frozenset({
    "substr", "lower", "upper", "trim", "coalesce", "ifnull", "nullif", "strftime", "count",
    "sum", "avg", "min", "max", "like", "length", "cast",
})
_FENCED = re.compile(r"```(?:sql|SQL|soql|SOQL)?([\S\s]+?)```")
_FENCED_ANY = re.compile(r"```([\S\s]+?)```")


@dataclass
class QueryResult:
    """What simple-salesforce returns: records (OrderedDicts with `attributes`) and totalSize."""

    records: list[OrderedDict[str, Any]]
    total_size: int


def preprocess_soql(text: str) -> str:
    """The connector's fence handling: the first fenced block, whitespace collapsed."""
    matches = _FENCED.findall(text) + _FENCED_ANY.findall(text)
    if matches:
        return " ".join(matches[0].split())
    return text


def detect_org(tables: dict[str, list[str]]) -> OrgKind:
    """Which CRMArena org a database looks like (decides the default schema descriptions)."""
    lower = {t.lower(): t for t in tables}   # a later spelling wins, as it always did
    if "opportunity" not in lower:
        return "original"
    account = tables[lower["account"]] if "account" in lower else []
    return "b2c" if any(c.lower() == "personemail" for c in account) else "b2b"


class OrgSandbox:
    """Answers SOQL and SOSL over one org database exactly as the official connector would."""

    def __init__(self, conn: sqlite3.Connection, schema: OrgSchema, today: dt.date,
                 *, db_path: Path, timeout_s: float, row_cap: int,
                 numeric_text: frozenset[tuple[str, str]]) -> None:
        self._conn = conn
        self.schema = schema
        self.today = today
        self.db_path = db_path
        self.timeout_s = timeout_s
        self.row_cap = row_cap
        self.numeric_text = numeric_text
        self._lock = threading.Lock()
        self._deadline = float("inf")
        self._search: Any = None     # sosl.SearchIndex, built on the first FIND
        conn.set_progress_handler(self._progress, 1000)
        conn.set_authorizer(self._authorize)

    # -- construction ----------------------------------------------------------------
    @classmethod
    def open(cls, db_path: Path, *, schema: OrgSchema | None = None,
             today: dt.date | None = None, timeout_s: float = 5.0,
             row_cap: int = 2000) -> OrgSandbox:
        """Open an org database read-only.

        `schema` gives descriptions, types and lookups (default: our own catalog for the org
        the tables look like); the tables and columns present in the file decide what can be
        queried. `today` anchors relative date literals (TODAY, LAST_N_DAYS:n, ...); tasks
        state it, and without it the latest CreatedDate in the org is used.
        """
        path = Path(db_path)
        if not path.is_file():
            raise DataMissing(f"the org database {path} does not exist",
                              hint="Pass --crm-db PATH or generate a synthetic org.")
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                               check_same_thread=False)
        try:
            conn.execute("PRAGMA query_only = ON")
            tables, declared, rowless = _read_tables(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise DataCorrupt(f"{path} is not a readable SQLite org database: {exc}") from exc
        if not tables:
            conn.close()
            raise DataCorrupt(f"{path} holds no tables with an Id column",
                              hint="Point --crm-db at a CRMArena org dump.")
        base = schema or OrgSchema.builtin(detect_org(tables))
        bound = base.bind(tables)
        for obj in bound.objects:
            obj.rowid = obj.table not in rowless
        numeric_text = frozenset(
            (obj.name, f.name) for obj in bound.objects for f in obj.fields.values()
            if f.type in NUMBER_TYPES and f.column
            and _affinity(declared[obj.table or obj.name].get(f.column, "")) in ("TEXT", ""))
        _limit_connection(conn)
        return cls(conn, bound, today or _latest_created(conn, bound), db_path=path,
                   timeout_s=timeout_s, row_cap=row_cap, numeric_text=numeric_text)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            if self._search is not None:
                self._search.close()

    def __enter__(self) -> OrgSandbox:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- the connector surface ---------------------------------------------------------
    # `today` (every method below): the date relative literals mean for this call, e.g. the
    # task's "Today's date"; None means the sandbox's own `today`.
    def query(self, text: str, *, today: dt.date | None = None) -> list[dict[str, Any]]:
        """Records as `SalesforceConnector.run_query` returns them (raises SalesforceError).

        Routing follows the connector: text starting with `FIND` is SOSL; anything else is
        SOQL after the connector's code-fence stripping.
        """
        # Upstream routes on a case-sensitive `FIND` prefix and strips fences for SOQL only.
        try:
            result = (self.sosl(text, today=today) if text.startswith("FIND")
                      else self.soql(preprocess_soql(text), today=today))
        except (RecursionError, OverflowError, ValueError) as exc:
            # A query the engine cannot take apart or compute (5,000 nested NOTs,
            # LAST_N_DAYS:999999999999) is the agent's malformed query, as Salesforce would
            # answer it, never a crash of the harness.
            raise SalesforceError("MALFORMED_QUERY", f"the query cannot be processed "
                                  f"({type(exc).__name__}: {str(exc)[:120]})") from None
        return connector_rows(result.records)

    def observe(self, text: str, *, today: dt.date | None = None) -> str:
        """The exact observation the official connector produces: `str(list)`, `[]`, or
        `CODE: message`."""
        try:
            rows = self.query(text, today=today)
        except SalesforceError as err:
            return str(err)
        return sf_repr(rows)

    def soql(self, text: str, *, today: dt.date | None = None) -> QueryResult:
        """Run one SOQL statement; records keep their `attributes` like simple-salesforce's."""
        select = parse_soql(text)
        plan = Translator(self.schema, today or self.today, self.row_cap,
                          self.numeric_text).plan(select)
        with self._lock:
            return self._run(plan)

    def sosl(self, text: str, *, today: dt.date | None = None) -> QueryResult:
        """Run one SOSL search (`FIND {...} ...`); results keep their `attributes`."""
        from .sosl import SearchIndex, run_search

        with self._lock:
            if self._search is None:
                self._search = SearchIndex.open(self.db_path, self.schema)
            records = run_search(self, self._search, text, today)
            return QueryResult(records, len(records))

    # -- execution ---------------------------------------------------------------------
    def fetch(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        """Run translated SQL under the time limit; sqlite failures become Salesforce errors."""
        self._deadline = time.monotonic() + self.timeout_s
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise SalesforceError("QUERY_TIMEOUT", "Your query request was running for "
                                      "too long.") from exc
            raise SalesforceError("UNKNOWN_EXCEPTION", f"sandbox database error: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise SalesforceError("UNKNOWN_EXCEPTION", f"sandbox database error: {exc}") from exc
        finally:
            self._deadline = float("inf")

    def check_cap(self, count: int) -> None:
        if count > self.row_cap:
            raise SalesforceError(
                "EXCEEDED_ROW_LIMIT", f"The query returned more than {self.row_cap} rows, "
                "the limit of this offline sandbox. Add a WHERE filter or a LIMIT.")

    def _run(self, plan: Plan) -> QueryResult:
        rows = self.fetch(plan.sql, plan.params)
        if plan.kind == "count":   # Salesforce sends totalSize only: the connector sees []
            return QueryResult([], int(rows[0][0]))
        self.check_cap(len(rows))
        if plan.kind == "aggregate":
            records = []
            for row in rows:
                rec: OrderedDict[str, Any] = OrderedDict(attributes=attributes("AggregateResult"))
                for out in plan.outputs:
                    assert isinstance(out, Output)
                    rec[out.key] = out.conv(row[out.index])
                records.append(rec)
            return QueryResult(records, len(records))
        children = {c.key: self._children(c, [r[plan.id_index or 0] for r in rows])
                    for c in plan.outputs if isinstance(c, ChildPlan)}
        records = [self.build(plan, row, children) for row in rows]
        return QueryResult(records, len(records))

    def build(self, plan: Plan, row: tuple[Any, ...],
              children: dict[str, dict[Any, Any]] | None = None) -> OrderedDict[str, Any]:
        """One record in simple-salesforce's shape from one row of `plan`."""
        rid = row[plan.id_index] if plan.id_index is not None else None
        rec: OrderedDict[str, Any] = OrderedDict(attributes=attributes(plan.object, rid))
        for out in plan.outputs:
            if isinstance(out, ChildPlan):
                rec[out.key] = (children or {}).get(out.key, {}).get(rid)
                continue
            target: OrderedDict[str, Any] | None = rec
            for step in out.steps:
                assert target is not None
                if step.key not in target:
                    related = row[step.id_index]
                    url_type = row[step.type_index] if step.type_index is not None else None
                    target[step.key] = None if related is None else OrderedDict(
                        attributes=attributes(step.type_name, related, url_type))
                target = target[step.key]
                if target is None:
                    break
            if target is not None:
                target[out.key] = out.conv(row[out.index])
        return rec

    def _children(self, child: ChildPlan, parent_ids: list[Any]) -> dict[Any, Any]:
        ids = [i for i in parent_ids if i is not None]
        if not ids:
            return {}
        plan = child.plan
        sql = plan.sql.replace(PARENT_IDS, ", ".join("?" for _ in ids))
        rows = self.fetch(sql, [*plan.params, *ids, self.row_cap + 1])
        self.check_cap(len(rows))
        grouped: dict[Any, list[OrderedDict[str, Any]]] = {}
        for row in rows:
            grouped.setdefault(row[child.fk_index], []).append(self.build(plan, row))
        out: dict[Any, Any] = {}
        for parent, records in grouped.items():
            end = None if child.limit is None else child.offset + child.limit
            kept = records[child.offset:end]
            if kept:
                out[parent] = OrderedDict(totalSize=len(kept), done=True, records=kept)
        return out

    # -- guards ------------------------------------------------------------------------
    def _progress(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def _authorize(self, action: int, arg1: str | None, arg2: str | None,
                   db_name: str | None, trigger: str | None) -> int:
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ):
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _ALLOWED_FUNCTIONS:
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY


def _read_tables(conn: sqlite3.Connection) -> tuple[dict[str, list[str]],
                                                    dict[str, dict[str, str]], set[str]]:
    tables: dict[str, list[str]] = {}
    declared: dict[str, dict[str, str]] = {}
    rowless: set[str] = set()
    for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' "
                                  "AND name NOT LIKE 'sqlite_%' ORDER BY name"):
        info = conn.execute(f'PRAGMA table_info("{name.replace(chr(34), chr(34) * 2)}")')
        cols = {row[1]: str(row[2] or "") for row in info}
        if "id" not in {c.lower() for c in cols}:
            continue
        tables[name] = list(cols)
        declared[name] = cols
        if "WITHOUT ROWID" in (sql or "").upper():
            rowless.add(name)
    return tables, declared, rowless


def _affinity(declared: str) -> str:
    """SQLite's column affinity for a declared type ('' = none)."""
    upper = declared.upper()
    if "INT" in upper:
        return "INTEGER"
    if any(word in upper for word in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if not upper or "BLOB" in upper:
        return ""
    return "REAL" if any(w in upper for w in ("REAL", "FLOA", "DOUB")) else "NUMERIC"


def _latest_created(conn: sqlite3.Connection, schema: OrgSchema) -> dt.date:
    """The default `today`: the latest CreatedDate in the org (else the latest date)."""
    best: list[str] = []
    for wanted in (("createddate",), None):
        for obj in schema.objects:
            for f in obj.fields.values():
                if f.type not in ("date", "datetime") or not f.column:
                    continue
                if wanted and f.name.lower() not in wanted:
                    continue
                col = '"' + f.column.replace('"', '""') + '"'
                table = '"' + (obj.table or obj.name).replace('"', '""') + '"'
                row = conn.execute(f"SELECT MAX(substr({col}, 1, 10)) FROM {table} "
                                   f"WHERE {col} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-*'")
                value = row.fetchone()[0]
                if value:
                    best.append(value)
        if best:
            break
    for value in sorted(best, reverse=True):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            continue
    return dt.date.today()


def _limit_connection(conn: sqlite3.Connection) -> None:
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, 1_000_000)
    conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 20_000)
    disable = getattr(conn, "enable_load_extension", None)
    if disable is not None:
        disable(False)
