"""The schema: lookup inference (checked against the official foreign-key list), our own
catalog against the official schema files, relationship names and the prompt's schema text."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from a2abench.benchmarks.crmarena.sandbox.catalog import ORGS, OrgKind, org_schema_records
from a2abench.benchmarks.crmarena.sandbox.schema import OrgSchema, infer_references
from a2abench.benchmarks.crmarena.synthetic import generate_org
from tests.conftest import shared_data

SCHEMA_FILES = {"b2b": "b2b_schema.json", "b2c": "b2c_schema.json",
                "original": "original_schema.json"}


def official(name: str) -> list[dict[str, object]]:
    records: list[dict[str, object]] = json.loads(
        shared_data("crmarena", "schema", name).read_text())
    return records


def dependencies() -> list[tuple[str, str, str]]:
    text = shared_data("crmarena", "schema", "original_dependencies.txt").read_text()
    out, obj = [], ""
    for line in text.splitlines():
        if m := re.match(r"Dependencies for (\S+):", line):
            obj = m.group(1)
        elif m := re.match(r"\s*- Field: (\S+), Referenced Object: (\S+)", line):
            out.append((obj, m.group(1), m.group(2)))
    return out


def lowered(keys: list[tuple[str, str, str]]) -> set[tuple[str, str, str]]:
    return {(o, f.lower(), t) for o, f, t in keys}


@pytest.mark.parametrize("name", ["original_schema.json",
                                  "original_schema_with_dependencies.json"])
def test_inference_reproduces_every_official_foreign_key(name: str) -> None:
    deps = dependencies()
    assert len(deps) >= 19
    inferred = lowered(OrgSchema.from_records(official(name)).foreign_keys())
    assert lowered(deps) <= inferred


@pytest.mark.parametrize("org", ["b2b", "b2c"])
def test_inference_on_pro_schemas(org: OrgKind) -> None:
    schema = OrgSchema.from_records(official(SCHEMA_FILES[org]))
    keys = lowered(schema.foreign_keys())
    present = {(o.name, f.lower()) for o in schema.objects for f in o.fields}
    assert {d for d in lowered(dependencies()) if d[:2] in present} <= keys
    assert {("Case", "ownerid", "User"), ("Task", "whatid", "Opportunity"),
            ("VoiceCallTranscript__c", "leadid__c", "Lead"),
            ("Lead", "convertedaccountid", "Account"),
            ("EmailMessage", "relatedtoid", "Case"),
            ("EmailMessage", "relatedtoid", "Opportunity")} <= keys
    assert not any(f in ("newvalue__c", "oldvalue__c", "profileid", "catalogid")
                   for _, f, _ in keys)
    related = schema.object("EmailMessage").field("RelatedToId")
    assert related is not None and related.polymorphic


@pytest.mark.parametrize("org", ORGS)
def test_our_catalog_infers_the_same_lookups_as_the_official_schema(org: OrgKind) -> None:
    ours = lowered(OrgSchema.builtin(org).foreign_keys())
    theirs = lowered(OrgSchema.from_records(official(SCHEMA_FILES[org])).foreign_keys())
    assert ours == theirs


@pytest.mark.parametrize("org", ORGS)
def test_generated_org_matches_official_objects_and_fields(org: OrgKind,
                                                           tmp_path: Path) -> None:
    path = tmp_path / f"{org}.db"
    generate_org(path, org=org, scale="tiny")
    conn = sqlite3.connect(path)
    tables = {name: [c[1] for c in conn.execute(f'PRAGMA table_info("{name}")')]
              for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    records = official(SCHEMA_FILES[org])
    assert set(tables) == {r["object"] for r in records}
    for rec in records:
        fields = set(rec["fields"])
        assert set(tables[str(rec["object"])]) == fields | {"Id"}, rec["object"]


def test_the_builtin_records_mirror_the_official_field_lists() -> None:
    for org in ORGS:
        ours = {r["object"]: set(r["fields"]) for r in org_schema_records(org)}
        theirs = {r["object"]: set(r["fields"]) | {"Id"}
                  for r in official(SCHEMA_FILES[org])}
        assert ours == theirs


def test_schema_text_layout() -> None:
    records = [{"object": "Account", "fields": {"Id": "Record id", "Name": "The name",
                                                "Phone": None}},
               {"object": "Case", "fields": {"AccountId": "References Account object"}}]
    text = OrgSchema.from_records(records).schema_text()
    assert text == (
        "The objects available in the Salesforce instance are:\nAccount, Case\n\n"
        "## The fields available for the objects along with their descriptions and "
        "dependencies are:\nAccount\n  - Id: Record id\n  - Name: The name\nCase\n"
        "  - AccountId: References Account object\n")
    custom = OrgSchema.from_records(records).schema_text("{object_names}|{object_fields}")
    assert custom.startswith("Account, Case|Account\n  - Id: Record id")


def test_schema_text_of_the_official_b2b_schema() -> None:
    records = official("b2b_schema.json")
    text = OrgSchema.from_records(records).schema_text()
    assert text.count("\n  - ") == sum(len(r["fields"]) for r in records)
    assert "\nVoiceCallTranscript__c\n  - TranscriptBody__c: " in text


def test_relationship_names_and_children() -> None:
    schema = OrgSchema.builtin("b2b")
    case = schema.object("case")
    assert case is not None
    assert {"account", "owner", "contact", "issueid__r", "orderitemid__r"} <= set(
        case.relationships)
    assert case.relationships["owner"].polymorphic
    history = schema.object("CaseHistory__c")
    assert history is not None and history.relationships["caseid__r"].targets == ("Case",)
    account = schema.object("Account")
    assert account is not None
    assert {"cases", "contacts", "opportunities", "orders", "contracts", "quotes"} <= set(
        account.children)
    assert {"emailmessages", "casehistories__r", "livechattranscripts"} <= set(case.children)
    opp = schema.object("Opportunity")
    assert opp is not None
    assert {"tasks", "events", "quotes", "opportunitylineitems",
            "voicecalltranscripts__r"} <= set(opp.children)


def test_bind_follows_the_database() -> None:
    schema = OrgSchema.builtin("b2b").bind({
        "account": ["ID", "name", "Extra_Score__c"],
        "Contact": ["Id", "FirstName", "LastName", "AccountId"],
        "Widget": ["Id", "IsShiny", "MadeDate"]})
    account = schema.object("Account")
    assert account is not None and account.table == "account"
    assert account.field("name") is not None and account.field("name").column == "name"
    assert account.field("Industry") is None
    assert account.field("Extra_Score__c").type == "string"
    contact = schema.object("Contact")
    assert contact is not None and contact.field("Name").derived == "compound_name"
    widget = schema.object("Widget")
    assert widget is not None
    assert widget.field("IsShiny").type == "boolean"
    assert widget.field("MadeDate").type == "date"


@pytest.mark.parametrize(("obj", "field", "description", "targets"), [
    ("Case", "OwnerId", "", ("User",)),
    ("EmailMessage", "ParentId", "", ("Case",)),
    ("ProductCategoryProduct", "ProductId", "", ("Product2",)),
    ("X", "CaseId__c", "", ("Case",)),
    ("X", "IssueId__c", "", ("Issue__c",)),
    ("X", "Foo", "References Case and Opportunity objects.", ("Case", "Opportunity")),
    ("X", "NewValue__c", "References User object if the change is an assignment", ()),
    ("X", "ProfileId", "", ()),
    ("X", "External_ID__c", "", ()),
])
def test_infer_references(obj: str, field: str, description: str,
                          targets: tuple[str, ...]) -> None:
    objects = ["Case", "Opportunity", "User", "Product2", "Issue__c", "X"]
    assert infer_references(obj, field, description, objects) == targets


def test_sandbox_over_the_official_schema_records(b2b_db: Path) -> None:
    from a2abench.benchmarks.crmarena.sandbox import OrgSandbox

    from .conftest import TODAY

    queries = ["SELECT Subject, Owner.Name, Account.Name FROM Case LIMIT 3",
               "SELECT CaseId__r.Subject, COUNT(Id) FROM CaseHistory__c GROUP BY "
               "CaseId__r.Subject ORDER BY CaseId__r.Subject LIMIT 3",
               "SELECT PricebookEntry.UnitPrice FROM OrderItem LIMIT 2",
               "SELECT Name, (SELECT Subject FROM Tasks) FROM Opportunity LIMIT 2",
               "FIND {SecureVault} RETURNING Product2(Name)"]
    official_schema = OrgSchema.from_records(official("b2b_schema.json"))
    with OrgSandbox.open(b2b_db, today=TODAY) as ours, OrgSandbox.open(
            b2b_db, schema=official_schema, today=TODAY) as theirs:
        for query in queries:
            assert theirs.observe(query) == ours.observe(query)
        case = next(r for r in official("b2b_schema.json") if r["object"] == "Case")
        assert theirs.schema.object("Case").field("OwnerId").description == (
            case["fields"]["OwnerId"])
