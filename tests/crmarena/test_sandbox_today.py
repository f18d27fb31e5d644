"""A per-call `today`: one shared sandbox serves tasks that each state their own date."""

from __future__ import annotations

import datetime as dt
import sqlite3

from a2abench.benchmarks.crmarena.sandbox import OrgSandbox
from tests.crmarena.conftest import TODAY


def _a_case(raw: sqlite3.Connection) -> tuple[str, dt.date, str]:
    rid, subject, created = raw.execute(
        'SELECT Id, Subject, CreatedDate FROM "Case" ORDER BY rowid LIMIT 1').fetchone()
    return rid, dt.date.fromisoformat(created[:10]), subject.split(":")[0].split()[0]


def test_soql_date_literals_follow_the_date_given_per_call(b2b: OrgSandbox,
                                                            raw: sqlite3.Connection) -> None:
    rid, day, _ = _a_case(raw)
    query = "SELECT Id FROM Case WHERE CreatedDate = TODAY"
    assert rid in b2b.observe(query, today=day)
    assert rid not in b2b.observe(query, today=day + dt.timedelta(days=1))
    assert rid in b2b.observe("SELECT Id FROM Case WHERE CreatedDate = YESTERDAY",
                              today=day + dt.timedelta(days=1))


def test_sosl_where_clauses_follow_it_too(b2b: OrgSandbox, raw: sqlite3.Connection) -> None:
    rid, day, word = _a_case(raw)
    query = f"FIND {{{word}}} RETURNING Case(Id WHERE CreatedDate = TODAY)"
    assert rid in b2b.observe(query, today=day)
    assert rid not in b2b.observe(query, today=day - dt.timedelta(days=1))


def test_without_a_date_the_sandbox_default_holds(b2b: OrgSandbox) -> None:
    count = "SELECT COUNT(Id) n FROM Case WHERE CreatedDate = LAST_N_DAYS:400"
    assert b2b.observe(count, today=dt.date(1990, 1, 1)) == "[{'n': 0}]"
    assert b2b.observe(count) == b2b.observe(count, today=TODAY) != "[{'n': 0}]"
