"""The sales side of a synthetic CRMArena-Pro org (b2b and b2c).

Territories with their agents, leads (some converted, some with qualification calls),
opportunities with products, contracts, quotes with discounted lines, and the activities
(tasks, events) whose subjects reveal the stage a deal is really in.
"""

from __future__ import annotations

import datetime as dt

from . import vocab
from .org import END, START, OrgBuilder, Row, sf_date, sf_datetime


def build_sales(b: OrgBuilder, users: list[Row], accounts: list[Row], contacts: list[Row],
                products: list[Row], entries: list[Row]) -> None:
    build_territories(b, users)
    build_leads(b, users, accounts, contacts)
    by_account: dict[str, list[Row]] = {}
    for c in contacts:
        by_account.setdefault(c["AccountId"], []).append(c)
    close_speed = {u["Id"]: b.rng.uniform(0.5, 2.0) for u in users}
    for _ in range(b.count(70, 15)):
        acc = b.rng.choice(accounts)
        build_opportunity(b, acc, b.rng.choice(by_account[acc["Id"]]), b.rng.choice(users),
                          products, entries, close_speed)


def build_territories(b: OrgBuilder, users: list[Row]) -> None:
    territories = [b.add("Territory2", Name=name, Description=states)
                   for name, states in vocab.TERRITORIES]
    for i, user in enumerate(users):
        b.add("UserTerritory2Association", UserId=user["Id"],
              Territory2Id=territories[i % len(territories)]["Id"])


def build_leads(b: OrgBuilder, users: list[Row], accounts: list[Row],
                contacts: list[Row]) -> None:
    skill = {u["Id"]: b.rng.uniform(0.1, 0.7) for u in users}   # conversion propensity
    for i in range(b.count(70, 15)):
        owner = b.rng.choice(users)
        first, last = b.person()
        created = b.when()
        lead = b.add("Lead", FirstName=first, LastName=last, OwnerId=owner["Id"],
                     Email=f"{first}.{last}.{i}@prospect.example".lower(), Phone=b.phone(),
                     CreatedDate=sf_datetime(created), IsConverted=0)
        if b.org == "b2b":
            lead["Company"] = (f"{b.rng.choice(vocab.COMPANY_HEADS)} "
                               f"{b.rng.choice(vocab.COMPANY_TAILS)}")
            lead["Title"] = b.rng.choice(vocab.JOB_TITLES)
        converted_at = created + dt.timedelta(days=b.rng.randrange(3, 90))
        if b.rng.random() < skill[owner["Id"]] and converted_at < END:
            contact = b.rng.choice(contacts)
            lead.update(IsConverted=1, Status="Closed", ConvertedDate=sf_date(converted_at),
                        ConvertedAccountId=contact["AccountId"], ConvertedContactId=contact["Id"])
            continue
        lead["Status"] = b.rng.choice(vocab.LEAD_STATUSES[:5])
        if b.rng.random() < 0.5:
            qualification_calls(b, lead, created)


def qualification_calls(b: OrgBuilder, lead: Row, created: dt.datetime) -> None:
    """One or two calls whose statements show which BANT factors the lead fails."""
    failing = [f for f in vocab.BANT_ORDER if b.rng.random() < 0.4]
    if not failing:
        failing = [b.rng.choice(vocab.BANT_ORDER)]
    lines = [vocab.BANT[f][1 if f in failing else 0] for f in vocab.BANT_ORDER]
    b.rng.shuffle(lines)
    cut = b.rng.randrange(1, len(lines))
    for k, part in enumerate((lines[:cut], lines[cut:])):
        start = created + dt.timedelta(days=2 + 5 * k, hours=b.rng.randrange(0, 6))
        talk = "\n".join(f"Lead: {line}\nAgent: Thanks, noted." for line in part)
        b.add("VoiceCallTranscript__c", LeadId__c=lead["Id"], CreatedDate=sf_datetime(start),
              EndTime__c=sf_datetime(start + dt.timedelta(minutes=b.rng.randrange(10, 40))),
              **{_body(b): f"Agent: Hello {lead['FirstName']}, thanks for your time.\n{talk}"})


def _body(b: OrgBuilder) -> str:
    return "TranscriptBody__c" if b.org == "b2b" else "Body__c"


def build_opportunity(b: OrgBuilder, acc: Row, contact: Row, owner: Row,
                      products: list[Row], entries: list[Row],
                      close_speed: dict[str, float]) -> None:
    stage = b.rng.choice(vocab.STAGES)
    created = b.when(START, END - dt.timedelta(days=30))
    picks = b.rng.sample(range(len(products)), b.rng.choice((1, 2, 3)))
    name = acc.get("Name") or f"{acc.get('FirstName')} {acc.get('LastName')}"
    opp = b.add("Opportunity", AccountId=acc["Id"], ContactId=contact["Id"],
                OwnerId=owner["Id"], StageName=stage,
                Probability=vocab.STAGE_PROBABILITY[stage], CreatedDate=sf_datetime(created),
                CloseDate=sf_date(created + dt.timedelta(days=b.rng.randrange(30, 150))),
                Name=f"{name} - {products[picks[0]]['Name']}",
                Description=f"Deal for {len(picks)} product(s).")
    lines = []
    for k in picks:
        qty = float(b.rng.randrange(1, 40) if b.org == "b2b" else b.rng.randrange(1, 4))
        price = entries[k]["UnitPrice"]
        lines.append(b.add("OpportunityLineItem", OpportunityId=opp["Id"],
                           Product2Id=products[k]["Id"], PricebookEntryId=entries[k]["Id"],
                           Quantity=qty, TotalPrice=round(qty * price, 2)))
    opp["Amount"] = round(sum(line["TotalPrice"] for line in lines), 2)
    if stage in ("Negotiation", "Closed") or b.rng.random() < 0.2:
        _contract(b, opp, acc, created, close_speed[owner["Id"]])
    if stage in ("Quote", "Negotiation", "Closed") or b.rng.random() < 0.3:
        _quote(b, opp, acc, contact, lines, entries, products, created, stage)
    _activities(b, opp, owner, created, stage)


def _contract(b: OrgBuilder, opp: Row, acc: Row, created: dt.datetime, speed: float) -> None:
    signed = created + dt.timedelta(days=max(3, round(b.rng.uniform(10, 60) * speed)))
    signed = min(signed, END)
    contract = b.add("Contract", AccountId=acc["Id"], StartDate=sf_date(signed),
                     CustomerSignedDate=sf_date(signed), ContractTerm=b.rng.choice((12, 24, 36)),
                     Status=b.rng.choice(("Activated", "Signed")),
                     Description="Standard subscription terms.")
    if b.org == "b2b":
        contract["CompanySignedDate"] = sf_date(signed + dt.timedelta(days=b.rng.randrange(0, 4)))
        contract["StartDate"] = contract["CompanySignedDate"]
    opp["ContractID__c"] = contract["Id"]


def _quote(b: OrgBuilder, opp: Row, acc: Row, contact: Row, lines: list[Row],
           entries: list[Row], products: list[Row], created: dt.datetime, stage: str) -> None:
    made = created + dt.timedelta(days=b.rng.randrange(3, 20))
    status = "Accepted" if stage == "Closed" and b.rng.random() < 0.8 else b.rng.choice(
        vocab.QUOTE_STATUSES)
    quote = b.add("Quote", OpportunityId=opp["Id"], AccountId=acc["Id"],
                  ContactId=contact["Id"], Name=f"Quote for {opp['Name']}", Status=status,
                  CreatedDate=sf_datetime(made), Description="Pricing as discussed.",
                  ExpirationDate=sf_date(made + dt.timedelta(days=30)))
    limit = vocab.POLICY_NUMBERS["discount"]
    too_many = vocab.POLICY_NUMBERS["quantity"]
    for line in lines:
        k = next(i for i, p in enumerate(products) if p["Id"] == line["Product2Id"])
        roll = b.rng.random()
        discount = float(b.rng.randrange(limit + 1, limit + 15) if roll < 0.15
                         else b.rng.randrange(0, limit + 1))
        qty = float(b.rng.randrange(too_many + 1, too_many + 40)) if roll > 0.9 else (
            line["Quantity"])
        price = entries[k]["UnitPrice"]
        b.add("QuoteLineItem", QuoteId=quote["Id"], Product2Id=line["Product2Id"],
              PricebookEntryId=entries[k]["Id"], OpportunityLineItemId=line["Id"],
              Quantity=qty, UnitPrice=price, Discount=discount,
              TotalPrice=round(qty * price * (1 - discount / 100), 2))


def _activities(b: OrgBuilder, opp: Row, owner: Row, created: dt.datetime,
                stage: str) -> None:
    """Tasks matching the stage; some deals carry the activities of another stage."""
    real = stage
    if b.rng.random() < 0.25:   # the stage label lags behind (or runs ahead of) the work
        real = b.rng.choice([s for s in vocab.STAGES if s != stage])
    subjects = list(vocab.STAGE_TASKS[real])
    b.rng.shuffle(subjects)
    subjects = subjects[:b.rng.randrange(2, 4)]
    if real == stage and b.rng.random() < 0.4:   # a stray open task from another stage
        other = b.rng.choice([s for s in vocab.STAGES if s != stage])
        subjects.append(b.rng.choice(vocab.STAGE_TASKS[other]))
    for subject in subjects:
        due = created + dt.timedelta(days=b.rng.randrange(1, 60))
        status = "Not Started" if subject not in vocab.STAGE_TASKS[stage] else b.rng.choice(
            vocab.TASK_STATUSES)
        b.add("Task", WhatId=opp["Id"], OwnerId=owner["Id"], Subject=subject,
              Status=status, Priority=b.rng.choice(vocab.TASK_PRIORITIES),
              ActivityDate=sf_date(due), Description=f"{subject} for {opp['Name']}.")
    if b.rng.random() < 0.5:
        start = created + dt.timedelta(days=b.rng.randrange(1, 30), hours=b.rng.randrange(1, 8))
        b.add("Event", WhatId=opp["Id"], OwnerId=owner["Id"], Subject=f"Meeting: {opp['Name']}",
              StartDateTime=sf_datetime(start), DurationInMinutes=b.rng.choice((30, 45, 60)),
              IsAllDayEvent=0, Location=b.rng.choice(("Video call", "Customer office")),
              Description="Progress review with the customer.")
