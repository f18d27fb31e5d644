"""SOSL on the synthetic b2b org: matching rules checked against plain-Python oracles over
the raw rows, plus RETURNING options, errors and the cached index."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

import pytest

from a2abench import _paths
from a2abench.benchmarks.crmarena.sandbox import OrgSandbox, SalesforceError

from .conftest import TODAY

TEXT_COLUMNS = {
    "Case": ("Subject", "Description"),
    "Knowledge__kav": ("Title", "Summary", "FAQ_Answer__c", "UrlName"),
    "Lead": ("FirstName", "LastName", "Company", "Email", "Phone", "Title"),
    "Contact": ("FirstName", "LastName", "Email"),
    "Product2": ("Name", "Description", "External_ID__c"),
}


def words(text: str | None) -> set[str]:
    return set(re.findall(r"[0-9a-z]+", (text or "").lower()))


def oracle(raw: sqlite3.Connection, obj: str, test: str, columns: tuple[str, ...] = ()) -> set[str]:
    """Ids of `obj` rows whose chosen columns, as one bag of words, satisfy `test` (a Python
    boolean expression over `has('word')`)."""
    cols = columns or TEXT_COLUMNS[obj]
    out = set()
    for row in raw.execute(f'SELECT Id, {", ".join(cols)} FROM "{obj}"'):
        bag = set().union(*(words(v) for v in row[1:]))
        if eval(test, {"has": lambda w, b=bag: w in b}):
            out.add(row[0])
    return out


def ids(sandbox: OrgSandbox, sosl: str) -> list[str]:
    return [r["attributes"]["url"].rsplit("/", 1)[1] for r in sandbox.sosl(sosl).records]


@pytest.mark.parametrize(("sosl", "obj", "test"), [
    ("FIND {SecureVault} RETURNING Case(Id)", "Case", "has('securevault')"),
    ("FIND {securevault gateway} RETURNING Case(Id)", "Case",
     "has('securevault') and has('gateway')"),
    ("FIND {SecureVault AND Hardware} RETURNING Case(Id)", "Case",
     "has('securevault') and has('hardware')"),
    ("FIND {SecureVault OR PulseMetrics} RETURNING Case(Id)", "Case",
     "has('securevault') or has('pulsemetrics')"),
    ("FIND {SecureVault AND NOT fault} RETURNING Case(Id)", "Case",
     "has('securevault') and not has('fault')"),
    ("FIND {(login OR billing) AND LedgerLink} RETURNING Case(Id)", "Case",
     "(has('login') or has('billing')) and has('ledgerlink')"),
    ("FIND {\"license activation\"} RETURNING Case(Id)", "Case",
     "has('license') and has('activation')"),
    ("FIND {OptiPower} IN ALL FIELDS RETURNING Knowledge__kav(Id)", "Knowledge__kav",
     "has('optipower')"),
    ("FIND {the OptiPower} RETURNING Knowledge__kav(Id)", "Knowledge__kav",
     "has('optipower')"),
    ("FIND {refund} RETURNING Knowledge__kav(Id)", "Knowledge__kav", "has('refund')"),
])
def test_matching_against_oracle(sosl: str, obj: str, test: str, b2b: OrgSandbox,
                                 raw: sqlite3.Connection) -> None:
    expected = oracle(raw, obj, test)
    assert expected, "the oracle should find something, or the check is empty"
    assert set(ids(b2b, sosl)) == expected


def test_name_fields_only(b2b: OrgSandbox, raw: sqlite3.Connection) -> None:
    first = raw.execute("SELECT FirstName FROM Lead ORDER BY rowid LIMIT 1").fetchone()[0]
    got = set(ids(b2b, f"FIND {{{first}}} IN NAME FIELDS RETURNING Lead(Id)"))
    assert got == oracle(raw, "Lead", f"has('{first.lower()}')", ("FirstName", "LastName",
                                                                  "Company"))


def test_email_and_phone_fields(b2b: OrgSandbox, raw: sqlite3.Connection) -> None:
    email, phone = raw.execute("SELECT Email, Phone FROM Lead ORDER BY rowid "
                               "LIMIT 1").fetchone()
    assert ids(b2b, f"FIND {{{email}}} IN EMAIL FIELDS RETURNING Lead(Id)") == [
        raw.execute("SELECT Id FROM Lead ORDER BY rowid LIMIT 1").fetchone()[0]]
    digits = "".join(ch for ch in phone if ch.isdigit())
    lead = ids(b2b, f"FIND {{{digits}}} IN PHONE FIELDS RETURNING Lead(Id, Phone)")
    assert raw.execute("SELECT Id FROM Lead ORDER BY rowid LIMIT 1").fetchone()[0] in lead
    dashed = f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"
    assert lead == ids(b2b, f"FIND {{{dashed}}} IN PHONE FIELDS RETURNING Lead(Id)")
    assert ids(b2b, f"FIND {{{digits}}} IN NAME FIELDS RETURNING Lead(Id)") == []


def test_wildcards(b2b: OrgSandbox, raw: sqlite3.Connection) -> None:
    def starts(prefix: str) -> set[str]:
        return {i for i in oracle(raw, "Case", "True")
                if any(w.startswith(prefix) for w in words(" ".join(
                    str(v) for v in raw.execute('SELECT Subject, Description FROM "Case" '
                                                "WHERE Id = ?", (i,)).fetchone())))}
    assert set(ids(b2b, "FIND {SecureV*} RETURNING Case(Id)")) == starts("securev")
    assert set(ids(b2b, "FIND {Secure?ault} RETURNING Case(Id)")) == oracle(
        raw, "Case", "has('securevault')")
    assert set(ids(b2b, "FIND {Sec*ault} RETURNING Case(Id)")) == oracle(
        raw, "Case", "has('securevault')")


def test_stemming_finds_other_word_forms(b2b: OrgSandbox) -> None:
    titles = {r["Title"] for r in b2b.query("FIND {policies} RETURNING Knowledge__kav(Title)")}
    assert "Quote Discount Limit" in titles   # its body says "policy"


def test_relevance_orders_results(b2b: OrgSandbox) -> None:
    rows = b2b.query("FIND {refund OR eligibility OR window} RETURNING Knowledge__kav(Title)")
    assert rows[0]["Title"] == "Refund Eligibility Window"


def test_returning_options(b2b: OrgSandbox, raw: sqlite3.Connection) -> None:
    everything = oracle(raw, "Case", "has('securevault')")
    closed = {i for (i,) in raw.execute("SELECT Id FROM \"Case\" WHERE Status = 'Closed'")}
    got = ids(b2b, "FIND {SecureVault} RETURNING Case(Id WHERE Status = 'Closed')")
    assert set(got) == everything & closed
    ordered = b2b.query("FIND {SecureVault} RETURNING Case(Subject, CreatedDate ORDER BY "
                        "CreatedDate DESC LIMIT 3)")
    assert [r["CreatedDate"] for r in ordered] == sorted(
        (r["CreatedDate"] for r in b2b.query("FIND {SecureVault} RETURNING "
                                            "Case(CreatedDate)")), reverse=True)[:3]
    paged = ids(b2b, "FIND {SecureVault} RETURNING Case(Id ORDER BY CreatedDate LIMIT 2 "
                "OFFSET 1)")
    assert paged == ids(b2b, "FIND {SecureVault} RETURNING Case(Id ORDER BY CreatedDate "
                        "LIMIT 3)")[1:]
    assert len(ids(b2b, "FIND {SecureVault} RETURNING Case(Id), Product2(Id) LIMIT 4")) == 4
    nested = b2b.query("FIND {SecureVault} RETURNING Case(Subject, Account.Name LIMIT 1)")
    assert set(nested[0]) == {"Subject", "Account"}
    assert nested[0]["Account"]["attributes"]["type"] == "Account"


def test_objects_come_in_returning_order(b2b: OrgSandbox) -> None:
    records = b2b.sosl("FIND {SecureVault} RETURNING Product2(Id), Case(Id)").records
    kinds = [r["attributes"]["type"] for r in records]
    assert kinds[0] == "Product2" and kinds[-1] == "Case"
    assert kinds == sorted(kinds, key=lambda k: k != "Product2")


def test_without_returning_every_object_answers_with_ids(b2b: OrgSandbox) -> None:
    rows = b2b.query("FIND {SecureVault}")
    assert rows and all(set(r) == {"Id"} for r in rows)
    kinds = {r["attributes"]["type"] for r in b2b.sosl("FIND {SecureVault}").records}
    assert {"Case", "Product2", "Knowledge__kav"} <= kinds


@pytest.mark.parametrize(("sosl", "code", "says"), [
    ("FIND refund", "MALFORMED_SEARCH", "enclosed in braces"),
    ("FIND {refund", "MALFORMED_SEARCH", "Missing closing brace"),
    ("FIND {a}", "INVALID_SEARCH", "longer than one character"),
    ("FIND {\"refund}", "MALFORMED_SEARCH", "Unbalanced quotes"),
    ("FIND {(refund}", "MALFORMED_SEARCH", "Unbalanced parentheses"),
    ("FIND {refund} RETURNING Foo(Id)", "INVALID_TYPE", "sObject type 'Foo'"),
    ("FIND {refund} RETURNING Knowledge__kav(Nope)", "INVALID_FIELD", "No such column"),
    ("FIND {refund} RETURNING Case(Id WHERE Description = 'x')", "INVALID_FIELD",
     "can not be filtered"),
    ("FIND {refund} IN BODY FIELDS", "MALFORMED_SEARCH", "unexpected token: 'BODY'"),
    ("FIND {refund} RETURNING Case(Id) WITH SNIPPET", "MALFORMED_SEARCH",
     "WITH clauses in SOSL is not supported"),
    ("FIND {refund} RETURNING Case(COUNT(Id))", "MALFORMED_SEARCH", "unexpected token"),
    ("FIND {refund} LIMIT 5 garbage", "MALFORMED_SEARCH", "unexpected token: 'garbage'"),
])
def test_errors(sosl: str, code: str, says: str, b2b: OrgSandbox) -> None:
    with pytest.raises(SalesforceError) as info:
        b2b.query(sosl)
    assert info.value.code == code
    assert says in info.value.message
    assert b2b.observe(sosl) == str(info.value)


def test_index_is_cached_outside_the_org_file(b2b_db: Path) -> None:
    before = hashlib.sha256(b2b_db.read_bytes()).hexdigest()
    listing = sorted(p.name for p in b2b_db.parent.iterdir())
    with OrgSandbox.open(b2b_db, today=TODAY) as first:
        first.query("FIND {refund}")
        index_files = list((_paths.cache_dir() / "sosl-index").glob("*.sqlite"))
        assert len(index_files) == 1
        stamp = index_files[0].stat().st_mtime_ns
    with OrgSandbox.open(b2b_db, today=TODAY) as second:
        second.query("FIND {refund}")
    assert list((_paths.cache_dir() / "sosl-index").glob("*.sqlite")) == index_files
    assert index_files[0].stat().st_mtime_ns == stamp          # reused, not rebuilt
    assert hashlib.sha256(b2b_db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in b2b_db.parent.iterdir()) == listing


def test_a_changed_org_gets_a_new_index(tmp_path: Path, b2b_db: Path) -> None:
    copy = tmp_path / "copy.db"
    copy.write_bytes(b2b_db.read_bytes())
    with OrgSandbox.open(copy) as sandbox:
        sandbox.query("FIND {refund}")
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE Knowledge__kav SET Title = 'Zebra handbook' WHERE rowid = 1")
    conn.commit()
    conn.close()
    with OrgSandbox.open(copy) as sandbox:
        assert sandbox.query("FIND {zebra} RETURNING Knowledge__kav(Title)") == [
            {"Title": "Zebra handbook"}]
    assert len(list((_paths.cache_dir() / "sosl-index").glob("*.sqlite"))) == 2
