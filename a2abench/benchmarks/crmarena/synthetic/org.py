"""A small, coherent synthetic CRMArena org written as a SQLite dump.

Tables and columns follow the org's published schema (our own catalog in
`sandbox/catalog.py`); Ids are well-formed 18-character Salesforce Ids; datetimes are stored
the way the official dumps store them (`2021-06-07T10:50:00.000+0000`). The same `seed`
gives byte-identical table contents. The service side (accounts, orders, cases with their
history, emails and chats, knowledge) lives here; the sales side (leads, opportunities,
quotes, contracts, activities, call transcripts) is in `sales.py`.
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..sandbox.catalog import OrgKind, field_types, org_fields
from ..sandbox.ids import make_id
from . import vocab

Row = dict[str, Any]
SCALES = {"tiny": 0.4, "small": 1.0, "large": 14.0}
START = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
END = dt.datetime(2024, 6, 30, 23, 0, tzinfo=dt.UTC)
REFUND_ISSUE = {"b2b": "Billing discrepancy", "b2c": "Refund request",
                "original": "Return request"}
REFUND_APPROVED = "I have approved a full refund for this order."
PREFIXES = {
    "User": "005", "Account": "001", "Contact": "003", "Case": "500", "Knowledge__kav": "ka0",
    "ProductCategory": "0ZG", "Product2": "01t", "ProductCategoryProduct": "0ZH",
    "Pricebook2": "01s", "PricebookEntry": "01u", "Order": "801", "OrderItem": "802",
    "EmailMessage": "02s", "LiveChatTranscript": "570", "Issue__c": "a03",
    "CaseHistory__c": "a02", "Opportunity": "006", "OpportunityLineItem": "00k",
    "Quote": "0Q0", "QuoteLineItem": "0QL", "Contract": "800",
    "VoiceCallTranscript__c": "a04", "Task": "00T", "Event": "00U", "Territory2": "0MI",
    "UserTerritory2Association": "0R0", "Lead": "00Q", "Profile": "00e", "RecordType": "012",
    "Catalog": "0ZS", "LiveChatVisitor": "571",
}


def sf_datetime(value: dt.datetime) -> str:
    # isoformat, in C, spells what strftime("%Y-%m-%dT%H:%M:%S") does for years 1000-9999
    # (the generator's dates are 2020-2030): a few times faster, on ~30,000 rows.
    return value.isoformat(timespec="seconds")[:19] + ".000+0000"


def sf_date(value: dt.date | dt.datetime) -> str:
    return value.isoformat()[:10]


class OrgBuilder:
    """Holds the random source, Id counters and the rows of every table while generating."""

    def __init__(self, org: OrgKind, seed: int, scale: float) -> None:
        self.org = org
        self.rng = random.Random(f"a2abench-synthetic:{org}:{seed}")
        self.scale = scale
        self.tables: dict[str, list[Row]] = {name: [] for name in org_fields(org)}
        self._serial = 0

    def new_id(self, obj: str) -> str:
        self._serial += 1
        return make_id(PREFIXES[obj], self._serial)

    def add(self, obj: str, **values: Any) -> Row:
        row: Row = {"Id": self.new_id(obj), **values}
        self.tables.setdefault(obj, []).append(row)
        return row

    def count(self, base: float, minimum: int = 1) -> int:
        return max(minimum, round(base * self.scale))

    def when(self, start: dt.datetime = START, end: dt.datetime = END) -> dt.datetime:
        """A business-hours moment between `start` and `end`."""
        span = max(1, int((end - start).total_seconds() // 86400))
        day = start + dt.timedelta(days=self.rng.randrange(span))
        return day.replace(hour=self.rng.randrange(8, 18), minute=self.rng.randrange(60),
                           second=self.rng.randrange(60))

    def person(self) -> tuple[str, str]:
        return self.rng.choice(vocab.FIRST_NAMES), self.rng.choice(vocab.LAST_NAMES)

    def phone(self) -> str:
        r = self.rng
        return f"({r.randrange(201, 990)}) {r.randrange(200, 999)}-{r.randrange(1000, 9999)}"


# -- people and catalogue --------------------------------------------------------------
def build_users(b: OrgBuilder) -> list[Row]:
    profile = make_id(PREFIXES["Profile"], 1)
    users = []
    used: set[tuple[str, str]] = set()
    for i in range(min(60, 12 + b.count(8))):
        first, last = b.person()
        while (first, last) in used:
            first, last = b.person()
        used.add((first, last))
        handle = f"{first[0]}{last}".lower()
        users.append(b.add(
            "User", FirstName=first, LastName=last, Email=f"{handle}@example-crm.com",
            Phone=b.phone(), Username=f"{handle}{i}@example-crm.com", Alias=handle[:8],
            ProfileId=profile, LanguageLocaleKey="en_US", EmailEncodingKey="UTF-8",
            TimeZoneSidKey="America/Los_Angeles", LocaleSidKey="en_US"))
    return users


def build_accounts(b: OrgBuilder, users: list[Row]) -> list[Row]:
    accounts = []
    for i in range(b.count(50, 10)):
        state = b.rng.choice(vocab.STATES)
        if b.org == "b2b":
            name = (f"{b.rng.choice(vocab.COMPANY_HEADS)} {b.rng.choice(vocab.COMPANY_TAILS)}"
                    f" {i + 1}")
            accounts.append(b.add(
                "Account", Name=name, Industry=b.rng.choice(vocab.INDUSTRIES),
                NumberOfEmployees=b.rng.randrange(20, 5000), Phone=b.phone(),
                ShippingState=state, Description=f"{name} is a customer based in {state}."))
            continue
        first, last = b.person()
        row = b.add("Account", FirstName=first, LastName=last, Phone=b.phone(),
                    PersonEmail=f"{first}.{last}{i}@mail.example".lower(), ShippingState=state)
        if b.org == "b2c":
            row.update(Name=f"{first} {last}", Description="Consumer account.")
        else:
            row.update(RecordTypeId=make_id(PREFIXES["RecordType"], 1),
                       ShippingCity=vocab.CITIES[state])
        accounts.append(row)
    return accounts


def build_contacts(b: OrgBuilder, accounts: list[Row], users: list[Row]) -> list[Row]:
    contacts = []
    for acc in accounts:
        for _ in range(b.rng.choice((1, 1, 2)) if b.org == "b2b" else 1):
            if b.org == "b2c":
                contacts.append(b.add("Contact", AccountId=acc["Id"]))
                continue
            first, last = ((acc["FirstName"], acc["LastName"]) if b.org == "original"
                           else b.person())
            row = b.add("Contact", AccountId=acc["Id"], FirstName=first, LastName=last,
                        Email=f"{first}.{last}.{len(contacts)}@client.example".lower())
            if b.org == "original":
                row["OwnerId"] = b.rng.choice(users)["Id"]
            contacts.append(row)
    return contacts


def build_catalogue(b: OrgBuilder) -> tuple[list[Row], list[Row]]:
    """Products, categories, price books and entries; returns (products, standard entries)."""
    catalog_id = make_id(PREFIXES["Catalog"], 1)
    categories: dict[str, Row] = {}
    products = []
    for i, (name, category, description, _, _) in enumerate(vocab.PRODUCTS[b.org]):
        if category not in categories:
            categories[category] = b.add("ProductCategory", Name=category, CatalogId=catalog_id)
        prod = b.add("Product2", Name=name, Description=f"{name}: {description}.",
                     IsActive=1, External_ID__c=f"SKU-{1000 + i}")
        products.append(prod)
        b.add("ProductCategoryProduct", ProductCategoryId=categories[category]["Id"],
              ProductId=prod["Id"])
    books = [b.add("Pricebook2", Name="Standard Price Book", IsActive=1,
                   Description="List prices for every product.",
                   ValidFrom=sf_datetime(START), ValidTo=sf_datetime(END.replace(year=2030))),
             b.add("Pricebook2", Name="Partner Price Book", IsActive=1,
                   Description="Prices for resellers, ten percent below list.",
                   ValidFrom=sf_datetime(START), ValidTo=sf_datetime(END.replace(year=2030)))]
    standard = []
    for prod, spec in zip(products, vocab.PRODUCTS[b.org], strict=True):
        price = spec[3]
        standard.append(b.add("PricebookEntry", Pricebook2Id=books[0]["Id"],
                              Product2Id=prod["Id"], UnitPrice=price))
        b.add("PricebookEntry", Pricebook2Id=books[1]["Id"], Product2Id=prod["Id"],
              UnitPrice=round(price * 0.9, 2))
    return products, standard


def build_knowledge(b: OrgBuilder, issues: list[Row]) -> dict[str, Row]:
    """Product FAQs, issue guides and policy articles; returns policy articles by kind."""
    for name, _, description, _, facts in vocab.PRODUCTS[b.org]:
        body = " ".join(f"Q: {q} A: {a}" for q, a in facts)
        b.add("Knowledge__kav", Title=f"{name} FAQ", Summary=f"Common questions about {name}.",
              FAQ_Answer__c=f"{name} is a {description}. {body}",
              UrlName=name.lower().replace(" ", "-") + "-faq")
    for issue in issues:
        b.add("Knowledge__kav", Title=f"Troubleshooting: {issue['Name']}",
              Summary=f"How agents resolve {issue['Name'].lower()} cases.",
              FAQ_Answer__c=f"Confirm the affected product, reproduce the problem and follow "
                            f"the {issue['Name'].lower()} checklist before escalating.",
              UrlName="troubleshooting-" + issue["Name"].lower().replace(" ", "-"))
    policies = {}
    kinds = ("refund",) if b.org == "original" else ("refund", "discount", "quantity", "bant")
    for kind in kinds:
        title, summary, body = vocab.POLICY_ARTICLES[kind]
        n = vocab.POLICY_NUMBERS.get(kind, 0)
        policies[kind] = b.add("Knowledge__kav", Title=title, Summary=summary.format(n=n),
                               FAQ_Answer__c=body.format(n=n),
                               UrlName=title.lower().replace(" ", "-"))
    return policies


def build_issues(b: OrgBuilder) -> list[Row]:
    issues = []
    for name, complaint in vocab.ISSUES[b.org]:
        text = f"Customers report: {complaint.format(p='the product')}"
        row = b.add("Issue__c", Name=name)
        if b.org == "b2b":
            row["IssueDescription__c"] = text
        elif b.org == "b2c":
            row["Description__c"] = text
        issues.append(row)
    return issues


# -- orders and cases --------------------------------------------------------------------
def build_orders(b: OrgBuilder, accounts: list[Row], users: list[Row], products: list[Row],
                 entries: list[Row]) -> list[tuple[Row, Row]]:
    """Orders and their items; returns (order, item) pairs."""
    pairs = []
    book = entries[0]["Pricebook2Id"]
    for _ in range(b.count(100, 20)):
        acc = b.rng.choice(accounts)
        order = b.add("Order", AccountId=acc["Id"], Status="Activated", Pricebook2Id=book,
                      EffectiveDate=sf_date(b.when()))
        if b.org != "original":
            order["OwnerId"] = b.rng.choice(users)["Id"]
        for k in b.rng.sample(range(len(products)), b.rng.choice((1, 2, 2, 3))):
            qty = float(b.rng.randrange(1, 20) if b.org == "b2b" else b.rng.choice((1, 1, 2)))
            item = b.add("OrderItem", OrderId=order["Id"], Product2Id=products[k]["Id"],
                         PricebookEntryId=entries[k]["Id"], Quantity=qty,
                         UnitPrice=entries[k]["UnitPrice"])
            pairs.append((order, item))
    return pairs


def build_cases(b: OrgBuilder, pairs: list[tuple[Row, Row]], contacts: list[Row],
                users: list[Row], issues: list[Row], products: list[Row],
                policies: dict[str, Row]) -> None:
    by_account: dict[str, list[Row]] = {}
    for c in contacts:
        by_account.setdefault(c["AccountId"], []).append(c)
    speed = {u["Id"]: b.rng.uniform(0.4, 2.2) for u in users}   # agent handle-time factor
    weights = {p["Id"]: b.rng.sample(range(len(issues)), 3) for p in products}
    product_names = {p["Id"]: p["Name"] for p in products}
    plans: list[tuple[tuple[Row, Row], dt.datetime, int]] = []
    for _ in range(b.count(120, 30)):
        order, item = b.rng.choice(pairs)
        top = weights[item["Product2Id"]]
        issue = b.rng.choice(top * 3 + list(range(len(issues))))
        plans.append(((order, item), _after(b, order, 1, 120), issue))
    for prod in products:   # a busy month per product with its leading issue
        mine = [p for p in pairs if p[1]["Product2Id"] == prod["Id"]]
        if not mine:
            continue
        month = b.when(START + dt.timedelta(days=200), END - dt.timedelta(days=40))
        for _ in range(b.count(4, 3)):
            moment = month.replace(day=b.rng.randrange(1, 28))
            day = sf_date(moment)
            before = [p for p in mine if p[0]["EffectiveDate"] < day] or mine
            plans.append((b.rng.choice(before), moment, weights[prod["Id"]][0]))
    plans.sort(key=lambda p: p[1])
    for (order, item), created, issue_ix in plans:
        contact = b.rng.choice(by_account.get(order["AccountId"], contacts))
        _one_case(b, order, item, contact, created, issues[issue_ix], users, speed,
                  product_names[item["Product2Id"]], policies)


def _after(b: OrgBuilder, order: Row, lo: int, hi: int) -> dt.datetime:
    start = dt.datetime.fromisoformat(order["EffectiveDate"]).replace(tzinfo=dt.UTC)
    moment = start + dt.timedelta(days=b.rng.randrange(lo, hi), hours=b.rng.randrange(8, 18),
                                  minutes=b.rng.randrange(60))
    return min(moment, END - dt.timedelta(days=1))


def _one_case(b: OrgBuilder, order: Row, item: Row, contact: Row, created: dt.datetime,
              issue: Row, users: list[Row], speed: dict[str, float], product: str,
              policies: dict[str, Row]) -> None:
    first = b.rng.choice(users)
    owners = [first]
    if b.rng.random() < 0.3:
        owners.append(b.rng.choice([u for u in users if u is not first]))
    hours = b.rng.lognormvariate(3.0, 0.6) * speed[owners[-1]["Id"]]
    closed = created + dt.timedelta(hours=hours)
    open_case = closed > END or b.rng.random() < 0.06
    complaint = dict(vocab.ISSUES[b.org])[issue["Name"]].format(p=product)
    case = b.add(
        "Case", AccountId=order["AccountId"], ContactId=contact["Id"],
        OwnerId=owners[-1]["Id"], CreatedDate=sf_datetime(created),
        ClosedDate=None if open_case else sf_datetime(closed),
        Status=b.rng.choice(("New", "Working", "Escalated")) if open_case else "Closed",
        Priority=b.rng.choice(vocab.CASE_PRIORITIES), Subject=f"{issue['Name']}: {product}",
        Description=complaint, IssueId__c=issue["Id"], OrderItemId__c=item["Id"])
    history = [("Case Creation", created, None, None)]
    assigned = created + dt.timedelta(minutes=b.rng.randrange(1, 30))
    history.append(("Owner Assignment", assigned, None, owners[0]["Id"]))
    if len(owners) > 1:
        moved = assigned + (closed - assigned) * b.rng.uniform(0.1, 0.5)
        history.append(("Owner Assignment", moved, owners[0]["Id"], owners[1]["Id"]))
    if not open_case:
        history.append(("Case Closed", closed, None, None))
    for kind, moment, old, new in history:
        b.add("CaseHistory__c", CaseId__c=case["Id"], Field__c=kind, OldValue__c=old,
              NewValue__c=new, CreatedDate=sf_datetime(moment))
    _case_messages(b, case, contact, owners[-1], created, complaint, issue, policies)


def _case_messages(b: OrgBuilder, case: Row, contact: Row, agent: Row, created: dt.datetime,
                   complaint: str, issue: Row, policies: dict[str, Row]) -> None:
    customer = contact.get("Email") or f"customer.{contact['Id'][-6:].lower()}@mail.example"
    b.add("EmailMessage", ParentId=case["Id"], Subject=case["Subject"], TextBody=complaint,
          FromAddress=customer, ToIds=agent["Id"], MessageDate=sf_datetime(created),
          RelatedToId=case["Id"] if b.org != "original" else None)
    reply_at = created + dt.timedelta(hours=b.rng.randrange(1, 48))
    if issue["Name"] == REFUND_ISSUE[b.org] and b.rng.random() < 0.7:
        reply = f"Thank you for your patience. {REFUND_APPROVED}"
    else:
        reply = "Thank you for reaching out. We are looking into this and will update you."
    if b.rng.random() < 0.8 or "refund" in reply:
        b.add("EmailMessage", ParentId=case["Id"], Subject="Re: " + case["Subject"],
              TextBody=reply, FromAddress=agent["Email"], ToIds=contact["Id"],
              MessageDate=sf_datetime(reply_at),
              RelatedToId=case["Id"] if b.org != "original" else None)
    if b.rng.random() < 0.3:
        body = (f"Customer: {complaint}\nAgent: I am sorry to hear that. Let me check.\n"
                f"Agent: {reply}")
        b.add("LiveChatTranscript", AccountId=case["AccountId"], ContactId=contact["Id"],
              CaseId=case["Id"], OwnerId=agent["Id"], Body=body,
              EndTime=sf_datetime(created + dt.timedelta(minutes=b.rng.randrange(5, 40))),
              LiveChatVisitorId=make_id(PREFIXES["LiveChatVisitor"], b.rng.randrange(1, 999)))


# -- writing -----------------------------------------------------------------------------
_DECLARED = {"int": "INTEGER", "boolean": "INTEGER", "double": "REAL", "currency": "REAL",
             "percent": "REAL"}


def _in_order(rows: list[Row], lower: list[str]) -> Iterator[list[object]]:
    """Each row's values in the table's column order, its keys matched without case (a later
    key wins over an earlier one spelt differently); the match is worked out once per key set."""
    plans: dict[tuple[str, ...], list[str | None]] = {}
    for row in rows:
        keys = tuple(row)
        plan = plans.get(keys)
        if plan is None:
            spelt = {k.lower(): k for k in keys}
            plan = plans[keys] = [spelt.get(c) for c in lower]
        yield [None if k is None else row[k] for k in plan]


def write_sqlite(path: Path, org: OrgKind, tables: dict[str, list[Row]]) -> None:
    """Write `tables` with the org's exact table and column spelling, in a stable order."""
    types = {(o, f.lower()): t for (o, f), (t, _) in field_types().items()}
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(tmp)
    try:
        for obj, columns in org_fields(org).items():
            decl = ", ".join(f'"{c}" {_DECLARED.get(types.get((obj, c.lower()), ""), "TEXT")}'
                             for c in columns)
            conn.execute(f'CREATE TABLE "{obj}" ({decl})')
            marks = ", ".join("?" for _ in columns)
            conn.executemany(f'INSERT INTO "{obj}" VALUES ({marks})',
                             _in_order(tables.get(obj, []), [c.lower() for c in columns]))
        conn.commit()
    finally:
        conn.close()
    tmp.replace(path)
