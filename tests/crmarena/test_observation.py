"""Exact observation strings, on a tiny org written by hand.

The expected strings are what `str()` of the official connector's result prints under
Python 3.10/3.11: top-level rows as dicts without `attributes`, nested records as
OrderedDicts with theirs, API v59.0 record URLs, `[]` for no rows and for `SELECT COUNT()`.
"""

from __future__ import annotations

import sqlite3
import sys
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a2abench.benchmarks.crmarena.sandbox import OrgSandbox
from a2abench.benchmarks.crmarena.sandbox.engine import preprocess_soql
from a2abench.benchmarks.crmarena.sandbox.ids import make_id
from a2abench.benchmarks.crmarena.sandbox.serialize import connector_rows, sf_repr, to_datetime

from .conftest import TODAY

ACME, GLOBEX = make_id("001", 1, "Tt"), make_id("001", 2, "Tt")
ANA, BO = make_id("005", 1, "Tt"), make_id("005", 2, "Tt")
C1, C2, C3 = (make_id("500", i, "Tt") for i in (1, 2, 3))
OPP = make_id("006", 1, "Tt")
KA1, KA2 = make_id("ka0", 1, "Tt"), make_id("ka0", 2, "Tt")
LEAD = make_id("00Q", 1, "Tt")
URL = "/services/data/v59.0/sobjects"


def _attrs(obj: str, rid: str, url_obj: str | None = None) -> str:
    return (f"OrderedDict([('type', '{obj}'), ('url', '{URL}/{url_obj or obj}/{rid}')])")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OrgSandbox]:
    path = tmp_path_factory.mktemp("tiny") / "tiny.db"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE Account (Id TEXT, Name TEXT, Industry TEXT, NumberOfEmployees INTEGER,
                              Description TEXT);
        CREATE TABLE User (Id TEXT, FirstName TEXT, LastName TEXT, Email TEXT);
        CREATE TABLE "Case" (Id TEXT, Subject TEXT, AccountId TEXT, OwnerId TEXT,
                             Status TEXT, CreatedDate TEXT, ClosedDate TEXT, Description TEXT);
        CREATE TABLE Opportunity (Id TEXT, Name TEXT, Amount REAL, AccountId TEXT,
                                  OwnerId TEXT, StageName TEXT, CloseDate TEXT);
        CREATE TABLE Product2 (Id TEXT, Name TEXT, IsActive TEXT);
        CREATE TABLE Knowledge__kav (Id TEXT, Title TEXT, Summary TEXT, FAQ_Answer__c TEXT,
                                     UrlName TEXT);
        CREATE TABLE Lead (Id TEXT, FirstName TEXT, LastName TEXT, Phone TEXT, Email TEXT,
                           Company TEXT);
    """)
    conn.executemany("INSERT INTO Account VALUES (?, ?, ?, ?, ?)", [
        (ACME, "Acme", "Retail", 120, "Long notes"), (GLOBEX, "Globex", None, 40, None)])
    conn.executemany("INSERT INTO User VALUES (?, ?, ?, ?)", [
        (ANA, "Ana", "Lima", "ana@example.com"), (BO, "Bo", "Chen", "bo@example.com")])
    conn.executemany('INSERT INTO "Case" VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        (C1, "Broken hinge", ACME, ANA, "Closed", "2023-06-01T09:00:00.000+0000",
         "2023-06-02T10:30:00.000+0000", "It broke"),
        (C2, "Late delivery", ACME, BO, "New", "2023-06-10T11:00:00Z", None, ""),
        (C3, "Refund", None, ANA, "New", "2023-06-12 08:15:00", None, None)])
    conn.execute("INSERT INTO Opportunity VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (OPP, "Acme deal", 12000.0, ACME, BO, "Quote", "2023-07-01"))
    conn.executemany("INSERT INTO Product2 VALUES (?, ?, ?)", [
        (make_id("01t", 1, "Tt"), "Hinge", "true"), (make_id("01t", 2, "Tt"), "Lid", "false")])
    conn.executemany("INSERT INTO Knowledge__kav VALUES (?, ?, ?, ?, ?)", [
        (KA1, "Refund policy", "Refunds within 30 days", "Approve refunds only within 30 "
         "days of the order.", "refund-policy"),
        (KA2, "Shipping times", "Delivery windows", "Orders ship in two days.", "shipping")])
    conn.execute("INSERT INTO Lead VALUES (?, ?, ?, ?, ?, ?)",
                 (LEAD, "Joe", "Smith", "(415) 555-1212", "joe.smith@example.com", "Initech"))
    conn.commit()
    conn.close()
    with OrgSandbox.open(path, today=TODAY) as sandbox:
        yield sandbox


def test_plain_rows(tiny: OrgSandbox) -> None:
    assert tiny.observe("SELECT Id, Name FROM Account") == (
        f"[{{'Id': '{ACME}', 'Name': 'Acme'}}, {{'Id': '{GLOBEX}', 'Name': 'Globex'}}]")


def test_nested_relationship_keeps_attributes(tiny: OrgSandbox) -> None:
    expected = (f"[{{'Subject': 'Broken hinge', 'Account': OrderedDict([('attributes', "
                f"{_attrs('Account', ACME)}), ('Name', 'Acme')])}}]")
    assert tiny.observe(f"SELECT Subject, Account.Name FROM Case WHERE Id = '{C1}'") == expected


def test_polymorphic_owner_is_a_name_entity(tiny: OrgSandbox) -> None:
    expected = (f"[{{'Owner': OrderedDict([('attributes', {_attrs('Name', ANA, 'User')}), "
                f"('Name', 'Ana Lima'), ('Email', 'ana@example.com')])}}]")
    got = tiny.observe(f"SELECT Owner.Name, Owner.Email FROM Case WHERE Id = '{C1}'")
    assert got == expected


def test_non_polymorphic_owner_keeps_user_type(tiny: OrgSandbox) -> None:
    expected = (f"[{{'Owner': OrderedDict([('attributes', {_attrs('User', BO)}), "
                "('FirstName', 'Bo')])}]")
    assert tiny.observe("SELECT Owner.FirstName FROM Opportunity") == expected


def test_empty_lookup_is_none(tiny: OrgSandbox) -> None:
    expected = (f"[{{'Id': '{C2}', 'Account': OrderedDict([('attributes', "
                f"{_attrs('Account', ACME)}), ('Name', 'Acme')])}}, "
                f"{{'Id': '{C3}', 'Account': None}}]")
    assert tiny.observe("SELECT Id, Account.Name FROM Case WHERE Status = 'New'") == expected
    # ... and a lookup that is empty in every row is dropped like any all-None column.
    assert tiny.observe(f"SELECT Id, Account.Name FROM Case WHERE Id = '{C3}'") == (
        f"[{{'Id': '{C3}'}}]")


def test_all_none_columns_are_dropped(tiny: OrgSandbox) -> None:
    got = tiny.observe("SELECT Id, ClosedDate FROM Case WHERE Status = 'New'")
    assert got == f"[{{'Id': '{C2}'}}, {{'Id': '{C3}'}}]"
    some = tiny.observe("SELECT Subject, ClosedDate FROM Case ORDER BY Subject")
    assert some == ("[{'Subject': 'Broken hinge', 'ClosedDate': '2023-06-02T10:30:00.000+0000'}"
                    ", {'Subject': 'Late delivery', 'ClosedDate': None}, {'Subject': 'Refund',"
                    " 'ClosedDate': None}]")


def test_datetimes_print_like_the_rest_api(tiny: OrgSandbox) -> None:
    got = tiny.query("SELECT CreatedDate FROM Case")
    assert [r["CreatedDate"] for r in got] == [
        "2023-06-01T09:00:00.000+0000", "2023-06-10T11:00:00.000+0000",
        "2023-06-12T08:15:00.000+0000"]


def test_empty_string_reads_back_as_null(tiny: OrgSandbox) -> None:
    assert tiny.query(f"SELECT Id, Description FROM Case WHERE Id = '{C2}'") == [{"Id": C2}]


def test_numbers_and_booleans(tiny: OrgSandbox) -> None:
    assert tiny.observe("SELECT Amount FROM Opportunity") == "[{'Amount': 12000.0}]"
    assert tiny.observe("SELECT NumberOfEmployees FROM Account WHERE Name = 'acme'") == (
        "[{'NumberOfEmployees': 120}]")
    assert tiny.observe("SELECT Name, IsActive FROM Product2") == (
        "[{'Name': 'Hinge', 'IsActive': True}, {'Name': 'Lid', 'IsActive': False}]")
    assert tiny.observe("SELECT Name FROM Product2 WHERE IsActive = false") == (
        "[{'Name': 'Lid'}]")


def test_count_returns_no_records(tiny: OrgSandbox) -> None:
    assert tiny.observe("SELECT COUNT() FROM Case") == "[]"
    assert tiny.soql("SELECT COUNT() FROM Case").total_size == 3


def test_aggregate_keys(tiny: OrgSandbox) -> None:
    assert tiny.observe("SELECT COUNT(Id) FROM Case") == "[{'expr0': 3}]"
    assert tiny.observe("SELECT Status, COUNT(Id) n, MAX(CreatedDate) FROM Case GROUP BY "
                        "Status ORDER BY Status") == (
        "[{'Status': 'Closed', 'n': 1, 'expr0': '2023-06-01T09:00:00.000+0000'}, "
        "{'Status': 'New', 'n': 2, 'expr0': '2023-06-12T08:15:00.000+0000'}]")
    assert tiny.observe("SELECT SUM(Amount) FROM Opportunity") == "[{'expr0': 12000.0}]"
    assert tiny.observe("SELECT Owner.Name, COUNT(Id) FROM Case GROUP BY Owner.Name "
                        "ORDER BY Owner.Name") == (
        "[{'Name': 'Ana Lima', 'expr0': 2}, {'Name': 'Bo Chen', 'expr0': 1}]")


def test_no_rows(tiny: OrgSandbox) -> None:
    assert tiny.observe("SELECT Id FROM Case WHERE Subject = 'nothing'") == "[]"


def test_child_subquery(tiny: OrgSandbox) -> None:
    expected = (
        f"[{{'Name': 'Acme', 'Cases': OrderedDict([('totalSize', 2), ('done', True), "
        f"('records', [OrderedDict([('attributes', {_attrs('Case', C1)}), ('Subject', "
        f"'Broken hinge')]), OrderedDict([('attributes', {_attrs('Case', C2)}), ('Subject', "
        f"'Late delivery')])])])}}, {{'Name': 'Globex', 'Cases': None}}]")
    assert tiny.observe("SELECT Name, (SELECT Subject FROM Cases ORDER BY Subject) FROM "
                        "Account ORDER BY Name") == expected
    limited = tiny.query("SELECT Name, (SELECT Id FROM Cases WHERE Status = 'New' LIMIT 1) "
                         "FROM Account WHERE Name = 'Acme'")
    assert limited[0]["Cases"]["totalSize"] == 1
    assert limited[0]["Cases"]["records"][0]["Id"] == C2


def test_error_layout(tiny: OrgSandbox) -> None:
    assert tiny.observe("SELECT Id FROM") == (
        "MALFORMED_QUERY: \nSELECT Id FROM\n              ^\nERROR at Row:1:Column:15\n"
        "unexpected token: '<EOF>'")
    assert tiny.observe("SELECT Id,\n  Nope\nFROM Account") == (
        "INVALID_FIELD: \n  Nope\n  ^\nERROR at Row:2:Column:3\nNo such column 'Nope' on "
        "entity 'Account'. If you are attempting to use a custom field, be sure to append "
        "the '__c' after the custom field name. Please reference your WSDL or the describe "
        "call for the appropriate names.")


def test_code_fences_are_stripped_and_collapsed(tiny: OrgSandbox) -> None:
    assert preprocess_soql("```sql\nSELECT Id\n  FROM Account\n```") == "SELECT Id FROM Account"
    assert preprocess_soql("```\nSELECT Id FROM Account\n```") == "SELECT Id FROM Account"
    fenced = tiny.observe("Here:\n```soql\nSELECT Name\nFROM Account\nWHERE Name = 'Acme'\n```")
    assert fenced == "[{'Name': 'Acme'}]"
    # Upstream only knows sql/SQL/soql/SOQL as fence tags: others stay in the query.
    assert tiny.observe("```Sql\nSELECT Name FROM Account\n```").startswith(
        "MALFORMED_QUERY: \nSql SELECT Name FROM Account")


def test_find_routing_is_case_sensitive(tiny: OrgSandbox) -> None:
    assert tiny.observe("FIND {refund} RETURNING Knowledge__kav(Id)") == f"[{{'Id': '{KA1}'}}]"
    assert tiny.observe(" FIND {refund}").startswith("MALFORMED_QUERY: ")
    assert tiny.observe("Find {refund}").startswith("MALFORMED_QUERY: ")


def test_sosl_rows_lose_attributes_and_keep_mixed_keys(tiny: OrgSandbox) -> None:
    got = tiny.observe("FIND {Joe OR refund} RETURNING Lead(Name, Phone), "
                       "Knowledge__kav(Title)")
    assert got == ("[{'Name': 'Joe Smith', 'Phone': '(415) 555-1212'}, "
                   "{'Title': 'Refund policy'}]")


def test_connector_rows_matches_upstream_rule() -> None:
    recs: list[OrderedDict[str, Any]] = [
        OrderedDict(attributes={}, Id="a", X=None, Y=1),
        OrderedDict(attributes={}, Id="b", X=None, Y=None)]
    assert connector_rows(recs) == [{"Id": "a", "Y": 1}, {"Id": "b", "Y": None}]
    assert connector_rows([]) == []
    mixed = [OrderedDict(attributes={}, Id="a", Name=None), OrderedDict(attributes={}, Id="b")]
    assert connector_rows(mixed) == [{"Id": "a"}, {"Id": "b"}]


@pytest.mark.parametrize(("stored", "printed"), [
    ("2021-06-07T10:50:00.000+0000", "2021-06-07T10:50:00.000+0000"),
    ("2021-06-07T10:50:00Z", "2021-06-07T10:50:00.000+0000"),
    ("2021-06-07 10:50:00", "2021-06-07T10:50:00.000+0000"),
    ("2021-06-07T10:50:00.5+00:00", "2021-06-07T10:50:00.500+0000"),
    ("2021-06-07T12:50:00+0200", "2021-06-07T10:50:00.000+0000"),
    ("2021-06-07", "2021-06-07T00:00:00.000+0000"),
    ("not a date", "not a date"),
])
def test_to_datetime(stored: str, printed: str) -> None:
    assert to_datetime(stored) == printed


_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                     st.floats(allow_nan=False))
_keys = st.text(max_size=6)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(_keys, inner, max_size=3),
        st.dictionaries(_keys, inner, max_size=3).map(lambda d: OrderedDict(d))),
    max_leaves=12)


@pytest.mark.slow
@pytest.mark.skipif(sys.version_info >= (3, 12), reason="OrderedDict repr changed in 3.12")
@given(_values)
def test_sf_repr_is_the_python_311_repr(value: Any) -> None:
    assert sf_repr(value) == repr(value)


def test_sf_repr_prints_the_list_form_of_ordered_dicts() -> None:
    assert sf_repr(OrderedDict([("a", 1), ("b", OrderedDict())])) == (
        "OrderedDict([('a', 1), ('b', OrderedDict())])")
    assert sf_repr([{"k": OrderedDict(x=None)}]) == "[{'k': OrderedDict([('x', None)])}]"


def test_open_rejects_missing_and_non_org_files(tmp_path: Path) -> None:
    from a2abench.errors import DataCorrupt, DataMissing

    with pytest.raises(DataMissing):
        OrgSandbox.open(tmp_path / "absent.db")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"definitely not sqlite" * 100)
    with pytest.raises(DataCorrupt):
        OrgSandbox.open(junk)
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    with pytest.raises(DataCorrupt):
        OrgSandbox.open(empty)
