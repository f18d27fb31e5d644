"""The org schema: objects, fields, types, lookups and relationship names.

`OrgSchema.from_records` reads the Hugging Face schema records (`[{"object", "fields"}]`);
`OrgSchema.builtin(org)` reads our own catalog. Both go through `infer_references`, so the
relationships of the official schema and of our synthetic org come from one rule set.
`bind()` lays a schema over the tables and columns a SQLite org actually has.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .catalog import (
    CHILD_RELATIONSHIPS,
    COMPOUND_NAME_OBJECTS,
    NAME_FIELDS,
    POLYMORPHIC,
    OrgKind,
    field_types,
    org_schema_records,
)

TEXT_TYPES = frozenset({"string", "textarea", "longtext", "picklist", "email", "phone", "url"})
NUMBER_TYPES = frozenset({"int", "double", "currency", "percent"})
ID_TYPES = frozenset({"id", "reference"})

_REFERENCES = re.compile(r"References\s+(.+?)\s+objects?\b(?!\s+if\b)", re.IGNORECASE)
# Standard lookups whose name does not spell the target object.
_NAME_RULES = {"ownerid": "User", "userid": "User", "productid": "Product2",
               "convertedaccountid": "Account", "convertedcontactid": "Contact"}


@dataclass(frozen=True)
class Field:
    name: str                          # canonical API name
    type: str
    description: str = ""
    targets: tuple[str, ...] = ()      # referenced objects, for lookups
    relationship: str | None = None    # e.g. "Account", "Owner", "CaseId__r"
    polymorphic: bool = False
    column: str | None = None          # the SQLite column, once bound
    derived: str | None = None         # "compound_name" for a computed Name

    @property
    def filterable(self) -> bool:
        return self.type != "longtext"

    def read_from(self, column: str) -> Field:
        """This field stored in `column`: `replace(self, column=column)`, spelt out (every
        opened org binds ~250 fields, and `replace` takes twice as long)."""
        return Field(self.name, self.type, self.description, self.targets, self.relationship,
                     self.polymorphic, column, self.derived)


@dataclass(frozen=True)
class ChildRelationship:
    name: str
    child: str
    field: str


@dataclass
class SObject:
    name: str
    fields: dict[str, Field] = field(default_factory=dict)          # lower name -> Field
    relationships: dict[str, Field] = field(default_factory=dict)   # lower rel name -> Field
    children: dict[str, ChildRelationship] = field(default_factory=dict)
    table: str | None = None
    rowid: bool = True          # False for a WITHOUT ROWID table

    def field(self, name: str) -> Field | None:
        return self.fields.get(name.lower())

    def name_fields(self) -> list[Field]:
        wanted = NAME_FIELDS.get(self.name, ("Name",))
        return [f for n in wanted if (f := self.field(n)) is not None]


def infer_references(obj: str, fname: str, description: str,
                     objects: Iterable[str]) -> tuple[str, ...]:
    """Objects a field refers to, from its description or Salesforce's naming rules.

    "References X object" (or "X and Y objects") in the description wins; a conditional
    reference ("References User object if ...") is a text field, not a lookup. Otherwise
    `OwnerId`/`UserId` -> User, `ProductId` -> Product2, `ParentId` on EmailMessage -> Case,
    `<Object>Id` and custom `<Object>Id__c` -> that object when it exists.
    """
    by_lower = {o.lower(): o for o in objects}
    found = _REFERENCES.search(description or "")
    if found:
        names = re.split(r",\s*|\s+and\s+", found.group(1))
        targets = tuple(by_lower[n.strip().lower()] for n in names
                        if n.strip().lower() in by_lower)
        if targets:
            return targets
    lower = fname.lower()
    if lower in _NAME_RULES and _NAME_RULES[lower].lower() in by_lower:
        return (by_lower[_NAME_RULES[lower].lower()],)
    if lower == "parentid" and obj == "EmailMessage" and "case" in by_lower:
        return (by_lower["case"],)
    base = None
    if lower.endswith("id__c") and len(lower) > 5:
        base = lower[:-5]
    elif lower.endswith("id") and len(lower) > 2 and not lower.endswith("__c"):
        base = lower[:-2]
    if base:
        for candidate in (base, base + "__c"):
            if candidate in by_lower:
                return (by_lower[candidate],)
    return ()


def relationship_name(fname: str) -> str | None:
    """`AccountId` -> `Account`; custom `CaseId__c` -> `CaseId__r`."""
    if fname.endswith("__c"):
        return fname[:-3] + "__r"
    if fname.lower().endswith("id") and len(fname) > 2:
        return fname[:-2]
    return None


def _plural(name: str) -> str:
    if name.endswith("y") and name[-2:-1] not in "aeiou":
        return name[:-1] + "ies"
    if name.endswith(("s", "x", "ch", "sh")):
        return name + "es"
    return name + "s"


def _guess_type(fname: str, description: str) -> str:
    lower, text = fname.lower(), (description or "").lower()
    if lower == "id":
        return "id"
    if lower.startswith("is") and fname[2:3].isupper():
        return "boolean"
    if "yyyy-mm-ddthh" in text or lower.endswith(("datetime", "time", "time__c")):
        return "datetime"
    if "yyyy-mm-dd" in text or lower.endswith(("date", "date__c")):
        return "date"
    if lower.endswith("email") or (lower.endswith("address") and "email" in text):
        return "email"
    if lower.endswith("phone"):
        return "phone"
    return "string"


class OrgSchema:
    """Objects and fields of one org, with lookups, relationship names and child relationships."""

    def __init__(self, objects: Mapping[str, SObject], records: list[dict[str, Any]]) -> None:
        self._objects = {name.lower(): obj for name, obj in objects.items()}
        self.records = records

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_records(cls, records: list[dict[str, Any]]) -> OrgSchema:
        """Build from Hugging Face schema records `[{"object": ..., "fields": {name: text}}]`.

        Fields whose value is None are dropped (the Hugging Face struct holds the union of
        every object's keys, filled with None).
        """
        known = field_types()
        known_lower = {(o, f.lower()): (f, t, d) for (o, f), (t, d) in known.items()}
        clean: list[dict[str, Any]] = []
        for rec in records:
            fields = {k: v for k, v in dict(rec["fields"]).items() if v is not None}
            clean.append({"object": rec["object"], "fields": fields})
        names = [r["object"] for r in clean]
        objects: dict[str, SObject] = {}
        for rec in clean:
            obj = SObject(rec["object"])
            for fname, desc in rec["fields"].items():
                canon, ftype, _ = known_lower.get((obj.name, fname.lower()),
                                                  (fname, _guess_type(fname, desc), ""))
                obj.fields[fname.lower()] = _make_field(obj.name, canon, ftype, desc, names)
            if "id" not in obj.fields:   # every sObject has an Id, listed or not
                obj.fields["id"] = Field("Id", "id", "Record Id")
            objects[obj.name] = obj
        _link(objects)
        return cls(objects, clean)

    @classmethod
    def builtin(cls, org: OrgKind) -> OrgSchema:
        """Our own definitions of the objects and fields of `org` (see catalog.py).

        One shared instance per org (every sandbox opening starts from it): read it, `bind()`
        it, never change it."""
        return _builtin(org)

    # -- lookup -----------------------------------------------------------------------
    @property
    def objects(self) -> list[SObject]:
        return list(self._objects.values())

    def object(self, name: str) -> SObject | None:
        return self._objects.get(name.lower())

    def foreign_keys(self) -> list[tuple[str, str, str]]:
        """(object, field, referenced object) for every lookup."""
        return [(o.name, f.name, t) for o in self._objects.values()
                for f in o.fields.values() for t in f.targets]

    def schema_text(self, template: str | None = None) -> str:
        """The schema as the official prompt shows it (upstream's SCHEMA_STRING layout).

        `template` may carry `{object_names}` and `{object_fields}`; the default reproduces
        the official layout. Objects and fields appear in record order.
        """
        blocks = []
        for rec in self.records:
            lines = "\n".join(f"  - {k}: {v}" for k, v in rec["fields"].items())
            blocks.append(f"{rec['object']}\n{lines}")
        layout = template or (
            "The objects available in the Salesforce instance are:\n{object_names}\n\n"
            "## The fields available for the objects along with their descriptions and "
            "dependencies are:\n{object_fields}\n")
        return layout.format(object_names=", ".join(r["object"] for r in self.records),
                             object_fields="\n".join(blocks))

    # -- binding to a database ---------------------------------------------------------
    def bind(self, tables: Mapping[str, list[str]]) -> OrgSchema:
        """The schema restricted to (and extended by) the tables/columns a database has.

        Table and column names match case-insensitively. Columns the schema does not know
        get a type guessed from their name; a person object without a `Name` column gets the
        compound "FirstName LastName" Name Salesforce computes.
        """
        names = list(tables)
        catalog = _catalog()
        objects: dict[str, SObject] = {}
        for table, columns in tables.items():
            known = self.object(table)
            obj = SObject(known.name if known else table, table=table)
            for column in columns:
                base = known.field(column) if known else None
                if base is None:   # not in this schema: our catalog, else a guess
                    canon, ftype, desc = catalog.get((obj.name.lower(), column.lower()),
                                                     (column, _guess_type(column, ""), ""))
                    base = _make_field(obj.name, canon, ftype, desc, names)
                obj.fields[column.lower()] = base.read_from(column)
            if (obj.name in COMPOUND_NAME_OBJECTS and "name" not in obj.fields
                    and "firstname" in obj.fields and "lastname" in obj.fields):
                obj.fields["name"] = Field("Name", "string", "Full name",
                                           derived="compound_name")
            objects[obj.name] = obj
        _link(objects)
        return OrgSchema(objects, self.records)


@functools.cache
def _catalog() -> dict[tuple[str, str], tuple[str, str, str]]:
    """(object, field) in lower case -> (field, type, description), read-only."""
    return {(o.lower(), f.lower()): (f, t, d) for (o, f), (t, d) in field_types().items()}


@functools.cache
def _builtin(org: OrgKind) -> OrgSchema:
    return OrgSchema.from_records(org_schema_records(org))


def _make_field(obj: str, fname: str, ftype: str, desc: str, objects: list[str]) -> Field:
    targets = infer_references(obj, fname, desc, objects) if ftype in ("reference", "string",
                                                                        "id") else ()
    if fname.lower() == "id":
        return Field(fname, "id", desc)
    if not targets:
        return Field(fname, ftype, desc)
    poly = len(targets) > 1 or (obj, fname) in POLYMORPHIC
    return Field(fname, "reference", desc, targets, relationship_name(fname), poly)


def _link(objects: dict[str, SObject]) -> None:
    """Drop lookups to absent objects; index relationship names and child relationships."""
    present = {o.lower(): o for o in objects}
    for obj in objects.values():
        for key, f in list(obj.fields.items()):
            if not f.targets:
                continue
            targets = tuple(present[t.lower()] for t in f.targets if t.lower() in present)
            f = replace(f, targets=targets) if targets else replace(
                f, targets=(), relationship=None, polymorphic=False)
            obj.fields[key] = f
            if f.relationship:
                obj.relationships[f.relationship.lower()] = f
    for obj in objects.values():
        for f in obj.fields.values():
            if not f.targets or f.name.lower() in ("ownerid", "profileid"):
                continue
            custom = f.name.endswith("__c")
            default = _plural(obj.name.removesuffix("__c")) + ("__r" if custom else "")
            child_name = CHILD_RELATIONSHIPS.get((obj.name, f.name), default)
            for target in f.targets:
                parent = objects[target]
                parent.children.setdefault(child_name.lower(),
                                           ChildRelationship(child_name, obj.name, f.name))
