"""Safety: read-only access, the authorizer, time limit, row cap, hostile input, fuzzing.

The fuzz tests assert two things: `observe` never raises (every failure is an observation)
and a query that parses never turns into broken SQL (no UNKNOWN_EXCEPTION, which is how a
SQLite error surfaces).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a2abench.benchmarks.crmarena.sandbox import OrgSandbox, SalesforceError

from .conftest import TODAY


@pytest.fixture()
def fresh(b2b_db: Path) -> Iterator[OrgSandbox]:
    with OrgSandbox.open(b2b_db, today=TODAY) as sandbox:
        yield sandbox


def test_connection_is_read_only(fresh: OrgSandbox) -> None:
    conn = fresh._conn
    for statement in ("CREATE TABLE x (a)", 'DELETE FROM "Case"', "UPDATE Account SET "
                      "Name = 'x'", "INSERT INTO Account (Id) VALUES ('x')", "DROP TABLE Lead"):
        with pytest.raises(sqlite3.DatabaseError):
            conn.execute(statement)


@pytest.mark.parametrize("statement", [
    "ATTACH DATABASE ':memory:' AS other",
    "PRAGMA query_only = OFF",
    "PRAGMA table_info(Account)",
    "SELECT load_extension('libevil')",
    "SELECT readfile('/etc/passwd')",
    "SELECT sqlite_version()",
    "BEGIN IMMEDIATE",
    "VACUUM",
])
def test_authorizer_denies_everything_but_reads(fresh: OrgSandbox, statement: str) -> None:
    with pytest.raises(sqlite3.DatabaseError):
        fresh._conn.execute(statement).fetchall()


@pytest.mark.parametrize(("query", "code"), [
    ("SELECT Id FROM Account WHERE Name = 'x'' OR 1=1 --'", "MALFORMED_QUERY"),
    ('SELECT Id FROM "Account"; DROP TABLE Account', "MALFORMED_QUERY"),
    ("SELECT Id FROM Account; DELETE FROM Account", "MALFORMED_QUERY"),
    ("SELECT Id FROM sqlite_master", "INVALID_TYPE"),
    ("SELECT sql FROM sqlite_schema", "INVALID_TYPE"),
    ("SELECT Id-- FROM Account", "MALFORMED_QUERY"),
    ("SELECT Id FROM Account WHERE Name LIKE '%' ESCAPE '!'", "MALFORMED_QUERY"),
    ("SELECT Id FROM Account WHERE Name = 'a' UNION SELECT Id FROM Case", "MALFORMED_QUERY"),
    ("SELECT Id FROM Account WHERE " + "(" * 5000 + "Name = 'a'" + ")" * 5000,
     "MALFORMED_QUERY"),
    ("SELECT Id FROM Account WHERE Name = '" + "x" * 200_000 + "'", "MALFORMED_QUERY"),
    ("SELECT Id, " + ", ".join(f"Account.Name{i}" for i in range(50)) + " FROM Case",
     "INVALID_FIELD"),
    ("SELECT Contact.Account.Name.X.Y.Z.W FROM Case", "MALFORMED_QUERY"),
])
def test_hostile_queries_fail_cleanly(fresh: OrgSandbox, query: str, code: str) -> None:
    with pytest.raises(SalesforceError) as info:
        fresh.query(query)
    assert info.value.code == code


def test_quotes_inside_literals_are_data(fresh: OrgSandbox) -> None:
    assert fresh.query("SELECT Id FROM Account WHERE Name = 'x\\' OR Name != \\'y'") == []
    assert fresh.query("SELECT Id FROM Account WHERE Name = 'Robert\"); DROP TABLE Account;--'"
                       ) == []
    assert fresh.query("SELECT Id FROM Account WHERE Name LIKE '%\\%%'") == []
    assert len(fresh.query("SELECT Id FROM Account")) == 50


def test_huge_in_list(fresh: OrgSandbox) -> None:
    names = ", ".join(f"'n{i}'" for i in range(5000))
    assert fresh.query(f"SELECT Id FROM Account WHERE Name IN ({names})") == []


def test_time_limit(fresh: OrgSandbox) -> None:
    fresh.timeout_s = 0.0
    heavy = ("SELECT Id, CaseId__r.Account.Name FROM CaseHistory__c WHERE "
             "CaseId__r.Subject LIKE '%x%' OR CaseId__r.Owner.Name LIKE '%y%'")
    with pytest.raises(SalesforceError) as info:
        fresh.query(heavy)
    assert info.value.code == "QUERY_TIMEOUT"
    with pytest.raises(SalesforceError) as sosl:
        fresh.query("FIND {refund OR SecureVault OR hardware}")
    assert sosl.value.code == "QUERY_TIMEOUT"
    fresh.timeout_s = 5.0
    assert isinstance(fresh.query(heavy), list)   # the connection is still usable


def test_row_cap(b2b_db: Path) -> None:
    with OrgSandbox.open(b2b_db, today=TODAY, row_cap=10) as capped:
        assert len(capped.query("SELECT Id FROM Case LIMIT 10")) == 10
        for query in ("SELECT Id FROM Case", "SELECT Name, (SELECT Id FROM Cases) FROM "
                      "Account LIMIT 5", "FIND {SecureVault} RETURNING Case(Id)",
                      "SELECT Subject, COUNT(Id) FROM Case GROUP BY Subject"):
            with pytest.raises(SalesforceError) as info:
                capped.query(query)
            assert info.value.code == "EXCEEDED_ROW_LIMIT"
        assert capped.observe("SELECT COUNT() FROM Case") == "[]"


def test_org_file_is_untouched(b2b_db: Path) -> None:
    before = hashlib.sha256(b2b_db.read_bytes()).hexdigest()
    with OrgSandbox.open(b2b_db, today=TODAY) as sandbox:
        for query in ("SELECT Id FROM Case", "FIND {refund}", "UPDATE Case SET Status = 'x'",
                      "SELECT Name, (SELECT Id FROM Cases) FROM Account"):
            sandbox.observe(query)
    assert hashlib.sha256(b2b_db.read_bytes()).hexdigest() == before


def test_concurrent_use_gives_the_same_answers(b2b: OrgSandbox) -> None:
    queries = ["SELECT Id, Subject FROM Case WHERE Status = 'Closed'",
               "SELECT StageName, COUNT(Id) FROM Opportunity GROUP BY StageName",
               "FIND {SecureVault} RETURNING Case(Id)",
               "SELECT Name, (SELECT Id FROM Cases) FROM Account LIMIT 5"]
    expected = [b2b.observe(q) for q in queries]
    results: list[list[str]] = []

    def worker() -> None:
        results.append([b2b.observe(q) for q in queries * 5])

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected * 5 for r in results) and len(results) == 4


# -- fuzzing ------------------------------------------------------------------------------
_FIELDS = ["Id", "Name", "Subject", "Status", "CreatedDate", "ClosedDate", "Amount",
           "Account.Name", "Owner.Name", "Owner.Email", "IsConverted", "StageName",
           "Description", "CloseDate", "AccountId", "Bogus", "Account.Owner.Name"]
_OBJECTS = ["Case", "Account", "Opportunity", "Lead", "Contact", "Foo", "Order"]
_VALUES = ["'Closed'", "'x'", "5", "5.5", "-3", "true", "null", "TODAY", "LAST_N_DAYS:30",
           "2023-01-01", "2023-01-01T00:00:00Z", "'001Sb0000000001IAA'", "THIS_QUARTER",
           "('a', 'b')", "(SELECT Id FROM Account)", "''"]
_OPS = ["=", "!=", "<", ">=", "LIKE", "IN", "NOT IN", "INCLUDES"]


# The strategies are built once: hypothesis validates and caches a strategy object, so one
# built inside the composite at every draw cost most of the test's time.
_SELECTED = st.lists(st.sampled_from(
    [*_FIELDS, "COUNT(Id)", "COUNT()", "MAX(Amount)", "CALENDAR_YEAR(CreatedDate)"]),
    min_size=1, max_size=4)
_OBJECT = st.sampled_from(_OBJECTS)
_CONDS = st.lists(st.tuples(st.sampled_from(_FIELDS), st.sampled_from(_OPS),
                            st.sampled_from(_VALUES)), max_size=3)
_JOINER = st.sampled_from([" AND ", " OR ", " AND NOT "])
_FIELD = st.sampled_from(_FIELDS)
_DIRECTION = st.sampled_from(["", "DESC", "ASC NULLS LAST"])
_LIMIT = st.integers(0, 50)


@st.composite
def soql_like(draw: st.DrawFn) -> str:
    text = f"SELECT {', '.join(draw(_SELECTED))} FROM {draw(_OBJECT)}"
    conds = draw(_CONDS)
    if conds:
        text += " WHERE " + draw(_JOINER).join(f"{f} {o} {v}" for f, o, v in conds)
    if draw(st.booleans()):
        text += f" GROUP BY {draw(_FIELD)}"
    if draw(st.booleans()):
        text += f" ORDER BY {draw(_FIELD)} " + draw(_DIRECTION)
    if draw(st.booleans()):
        text += f" LIMIT {draw(_LIMIT)}"
    return text


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soql_like())
def test_fuzz_grammar(b2b: OrgSandbox, query: str) -> None:
    observation = b2b.observe(query)
    assert isinstance(observation, str)
    assert not observation.startswith("UNKNOWN_EXCEPTION"), (query, observation)


_SOSL = st.builds(
    lambda term, group, ret: f"FIND {{{term}}}{group}{ret}",
    st.text(alphabet="abcdeorefundSecureVault*?\"()- ANDORNOT\\", max_size=30),
    st.sampled_from(["", " IN ALL FIELDS", " IN NAME FIELDS", " IN PHONE FIELDS"]),
    st.sampled_from(["", " RETURNING Case(Id)", " RETURNING Knowledge__kav(Title ORDER BY "
                     "Title LIMIT 2), Lead", " RETURNING Foo", " LIMIT 3"]))


@settings(max_examples=300, deadline=None)
@given(_SOSL)
def test_fuzz_sosl(b2b: OrgSandbox, query: str) -> None:
    observation = b2b.observe(query)
    assert not observation.startswith("UNKNOWN_EXCEPTION"), (query, observation)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_any_text(b2b: OrgSandbox, text: str) -> None:
    assert isinstance(b2b.observe(text), str)
    assert isinstance(b2b.observe("SELECT Id FROM Case WHERE " + text), str)
    assert isinstance(b2b.observe("FIND {" + text), str)
