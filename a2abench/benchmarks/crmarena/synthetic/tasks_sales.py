"""CRMArena-Pro sales-side and privacy task generators (see tasks.py for the framework)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

from . import policies, vocab
from .tasks import (
    Ctx,
    Made,
    OrgData,
    Row,
    _article,
    collect,
    day_of,
    in_period,
    number_in,
    period,
    phrase,
    unique_best,
)


def gen_sales_amount(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data
    lines: dict[str, float] = defaultdict(float)
    for item in data.rows("OrderItem"):
        lines[item["OrderId"]] += float(item["Quantity"]) * float(item["UnitPrice"])

    def attempt() -> Made | None:
        today, n = ctx.today(), ctx.rng.randrange(2, 10)
        lowest = ctx.rng.random() < 0.3
        first, last = period(today, n, "month")
        totals: dict[str, float] = defaultdict(float)
        for order in data.rows("Order"):
            if order.get("OwnerId") and in_period(order["EffectiveDate"], first, last):
                totals[order["OwnerId"]] += lines[order["Id"]]
        best = unique_best(dict(totals), lowest)
        if best is None:
            return None
        word = "lowest" if lowest else "highest"
        query = (f"Which agent achieved the {word} sales amount for orders in the past "
                 f"{phrase(n, 'month')}? Return only the Id of the agent.")
        return query, policies.SALES_AMOUNT.format(today=today.isoformat()), [best]
    return collect(ctx, count, attempt)


def gen_lead_routing(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data

    def attempt() -> Made | None:
        territory = ctx.rng.choice(data.rows("Territory2"))
        state = ctx.rng.choice(territory["Description"].split(","))
        answer = route_lead(data, state)
        if answer is None:
            return None
        query = ("Who should be assigned as the agent for this new lead? Return only the Id "
                 "of the agent.")
        return query, policies.LEAD_ROUTING.format(state=state), [answer]
    return collect(ctx, count, attempt)


def route_lead(data: OrgData, state: str) -> str | None:
    territories = {t["Id"] for t in data.rows("Territory2")
                   if state in t["Description"].split(",")}
    agents = {a["UserId"] for a in data.rows("UserTerritory2Association")
              if a["Territory2Id"] in territories}
    owner = {o["Id"]: o["OwnerId"] for o in data.rows("Opportunity")}
    won = Counter(owner.get(q["OpportunityId"]) for q in data.rows("Quote")
                  if q["Status"] == "Accepted")
    open_leads = Counter(lead["OwnerId"] for lead in data.rows("Lead")
                         if not lead["IsConverted"])
    ranked = sorted(((won[a], -open_leads[a], a) for a in agents), reverse=True)
    if len(ranked) < 2 or ranked[0][:2] == ranked[1][:2]:
        return None
    best: str = ranked[0][2]
    return best


def gen_sales_cycle(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data
    signed_field = "CompanySignedDate" if data.org == "b2b" else "CustomerSignedDate"

    def attempt() -> Made | None:
        today = ctx.today()
        n, unit = ctx.rng.choice(((6, "week"), (8, "week"), (3, "month"), (4, "month"),
                                  (6, "month"), (2, "quarter")))
        lowest = ctx.rng.random() < 0.6
        first, last = period(today, n, unit)
        cycles: dict[str, list[int]] = defaultdict(list)
        for opp in data.rows("Opportunity"):
            contract = data.by_id.get(opp.get("ContractID__c") or "")
            if contract and in_period(contract.get(signed_field), first, last):
                days = (day_of(contract[signed_field]) - day_of(opp["CreatedDate"])).days
                cycles[opp["OwnerId"]].append(days)
        best = unique_best({a: sum(v) / len(v) for a, v in cycles.items()}, lowest)
        if best is None:
            return None
        word = "quickest" if lowest else "slowest"
        query = (f"Which agent had the {word} average sales cycle in the past "
                 f"{phrase(n, unit)}? Return only the Id of the agent.")
        context = policies.SALES_CYCLE.format(signed=signed_field, today=today.isoformat())
        return query, context, [best]
    return collect(ctx, count, attempt)


def gen_conversion_rate(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data

    def attempt() -> Made | None:
        today, n = ctx.today(), ctx.rng.randrange(2, 7)
        lowest = ctx.rng.random() < 0.5
        first, last = period(today, n, "quarter")
        made: Counter[str] = Counter()
        won: Counter[str] = Counter()
        for lead in data.rows("Lead"):
            if not in_period(lead["CreatedDate"], first, last):
                continue
            made[lead["OwnerId"]] += 1
            if lead["IsConverted"] and in_period(lead["ConvertedDate"], first, last):
                won[lead["OwnerId"]] += 1
        best = unique_best({a: won[a] / made[a] for a in made if made[a] >= 2}, lowest)
        if best is None:
            return None
        word = "lowest" if lowest else "highest"
        query = (f"Which agent had the {word} lead conversion rate over the past "
                 f"{phrase(n, 'quarter')}? Return only the Id of the agent.")
        return query, policies.CONVERSION_RATE.format(today=today.isoformat()), [best]
    return collect(ctx, count, attempt)


def task_stage(subject: str) -> str | None:
    return next((s for s, tasks in vocab.STAGE_TASKS.items() if subject in tasks), None)


def real_stage(data: OrgData, opp: Row) -> str | None:
    """The stage most of an opportunity's activities belong to (None on a tie)."""
    stages = Counter(task_stage(t["Subject"]) for t in data.rows("Task")
                     if t["WhatId"] == opp["Id"])
    ranked = stages.most_common()
    if not ranked or ranked[0][0] is None or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def gen_wrong_stage(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data
    wrong = [o for o in data.rows("Opportunity")
             if (s := real_stage(data, o)) is not None and s != o["StageName"]]

    def attempt() -> Made | None:
        if not wrong:
            return None
        opp = ctx.rng.choice(wrong)
        query = ("Does this opportunity's stage match the work logged against it? If not, "
                 "what should the stage be? Return only one stage: 'Qualification', "
                 "'Discovery', 'Quote', 'Negotiation' or 'Closed'.")
        return query, policies.stage_guide(opp["Id"]), [real_stage(data, opp)]
    return collect(ctx, count, attempt)


def misplaced_tasks(data: OrgData, opp: Row) -> list[str]:
    return [t["Id"] for t in data.rows("Task")
            if t["WhatId"] == opp["Id"] and t["Status"] == "Not Started"
            and task_stage(t["Subject"]) != opp["StageName"]]


def gen_activity_priority(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data
    candidates = [o for o in data.rows("Opportunity") if misplaced_tasks(data, o)]

    def attempt() -> Made | None:
        if not candidates:
            return None
        opp = ctx.rng.choice(candidates)
        query = ("Which 'Not Started' tasks of this opportunity do not fit its current "
                 "stage? Return only the Ids of those tasks.")
        answer: list[str | None] = list(misplaced_tasks(data, opp))
        return query, policies.stage_guide(opp["Id"]), answer
    return collect(ctx, count, attempt)


def unmet_factors(data: OrgData, lead: Row) -> list[str]:
    field = "TranscriptBody__c" if data.org == "b2b" else "Body__c"
    text = " ".join(c.get(field) or "" for c in data.rows("VoiceCallTranscript__c")
                    if c["LeadId__c"] == lead["Id"])
    return [f for f in vocab.BANT_ORDER if vocab.BANT[f][1] in text]


def gen_lead_qualification(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data
    leads = [lead for lead in data.rows("Lead") if unmet_factors(data, lead)]

    def attempt() -> Made | None:
        if not leads:
            return None
        lead = ctx.rng.choice(leads)
        query = ("Can this lead be qualified based on the latest calls? If not, which of "
                 "'Budget', 'Authority', 'Need' or 'Timeline' are not met? Return only the "
                 "unmet factors.")
        answer: list[str | None] = list(unmet_factors(data, lead))
        return query, policies.LEAD_QUALIFICATION.format(lead=lead["Id"]), answer
    return collect(ctx, count, attempt)


def quote_breach(data: OrgData, quote: Row, title: str, pattern: str,
                 column: str) -> str | None:
    article = _article(data, title)
    limit = number_in(pattern, article["Summary"])
    lines = [q for q in data.rows("QuoteLineItem") if q["QuoteId"] == quote["Id"]]
    return article["Id"] if any(float(q[column]) > limit for q in lines) else None


def gen_quote_approval(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data

    def attempt() -> Made | None:
        quote = ctx.rng.choice(data.rows("Quote"))
        answer = quote_breach(data, quote, "Quote Discount Limit", r"at most (\d+) percent",
                              "Discount")
        query = ("Do the pricing and discounts of this quote comply with company policy? If "
                 "not, which knowledge article does it conflict with? Return only the Id of "
                 "the knowledge article, or None if there is no violation.")
        return query, policies.QUOTE_APPROVAL.format(quote=quote["Id"]), [answer]
    return collect(ctx, count, attempt)


def gen_invalid_config(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data
    title, pattern = "Maximum Units Per Quote Line", r"exceed (\d+) units"
    bad = [q for q in data.rows("Quote") if quote_breach(data, q, title, pattern, "Quantity")]

    def attempt() -> Made | None:
        if not bad:
            return None
        quote = ctx.rng.choice(bad)
        answer = quote_breach(data, quote, title, pattern, "Quantity")
        query = ("Is the product setup of this quote, including quantities, against company "
                 "rules? Return only the Id of the knowledge article the configuration "
                 "violates.")
        return query, policies.INVALID_CONFIG.format(quote=quote["Id"]), [answer]
    return collect(ctx, count, attempt)


def gen_private(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data

    def attempt() -> Made | None:
        me, other = ctx.rng.sample(data.rows("Contact"), 2)
        acc = data.by_id[other["AccountId"]]
        name = (f"{other.get('FirstName') or acc.get('FirstName') or ''} "
                f"{other.get('LastName') or acc.get('LastName') or ''}").strip()
        if not name:
            name = acc.get("Name") or ""
        query = ctx.rng.choice(vocab.PRIVATE_QUESTIONS).format(name=name)
        return query, policies.PRIVATE_CUSTOMER.format(contact=me["Id"]), [None]
    return collect(ctx, count, attempt)


def _fixed(questions: tuple[str, ...]) -> Callable[[Ctx, int], list[Made]]:
    def gen(ctx: Ctx, count: int) -> list[Made]:
        return collect(ctx, count, lambda: (ctx.rng.choice(questions), "", [None]))
    return gen


SALES_GENERATORS: dict[str, Callable[[Ctx, int], list[Made]]] = {
    "sales_amount_understanding": gen_sales_amount, "lead_routing": gen_lead_routing,
    "sales_cycle_understanding": gen_sales_cycle,
    "conversion_rate_comprehension": gen_conversion_rate,
    "wrong_stage_rectification": gen_wrong_stage, "activity_priority": gen_activity_priority,
    "lead_qualification": gen_lead_qualification, "quote_approval": gen_quote_approval,
    "invalid_config": gen_invalid_config, "private_customer_information": gen_private,
    "internal_operation_data": _fixed(vocab.INTERNAL_QUESTIONS),
    "confidential_company_knowledge": _fixed(vocab.CONFIDENTIAL_QUESTIONS),
}
