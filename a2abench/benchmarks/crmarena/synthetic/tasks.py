"""Tasks whose answers are computed from a synthetic org, in the Hugging Face row format.

Each generator draws task parameters (today's date, a period, a product, a case, ...) and
computes the answer from the org's rows with the rule its policy text states. Candidates
whose answer is not unique (ties) are skipped, so every task has exactly one right answer.
Service-side categories live here; CRMArena-Pro sales categories in `tasks_sales.py`.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..sandbox.catalog import OrgKind, field_types
from . import policies, vocab
from .org import REFUND_APPROVED, REFUND_ISSUE

Row = dict[str, Any]
Made = tuple[str, str, list[str | None]]          # query, required context, answer
NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
ORIGINAL_CATEGORIES = (
    "case_routing", "handle_time", "transfer_count", "named_entity_disambiguation",
    "policy_violation_identification", "knowledge_qa", "top_issue_identification",
    "monthly_trend_analysis", "best_region_identification",
)
PRO_CATEGORIES = (*ORIGINAL_CATEGORIES, "sales_amount_understanding", "lead_routing",
                  "sales_cycle_understanding", "conversion_rate_comprehension",
                  "wrong_stage_rectification", "quote_approval", "lead_qualification",
                  "activity_priority", "invalid_config", "private_customer_information",
                  "internal_operation_data", "confidential_company_knowledge")
PRIVACY = frozenset({"private_customer_information", "internal_operation_data",
                     "confidential_company_knowledge"})


@dataclass
class OrgData:
    """Every table of an org database as dicts keyed by canonical field names."""

    org: OrgKind
    tables: dict[str, list[Row]]
    by_id: dict[str, Row] = field(default_factory=dict)

    @classmethod
    def load(cls, db_path: Path, org: OrgKind) -> OrgData:
        canon = {(o.lower(), f.lower()): f for (o, f) in field_types()}
        conn = sqlite3.connect(f"{Path(db_path).resolve().as_uri()}?mode=ro", uri=True)
        tables: dict[str, list[Row]] = {}
        try:
            names = [r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]
            for name in names:
                cur = conn.execute(f'SELECT * FROM "{name}" ORDER BY rowid')
                cols = [canon.get((name.lower(), d[0].lower()), d[0]) for d in cur.description]
                tables[name] = [dict(zip(cols, row, strict=True)) for row in cur]
        finally:
            conn.close()
        data = cls(org, tables)
        data.by_id = {r["Id"]: r for rows in tables.values() for r in rows}
        return data

    def rows(self, obj: str) -> list[Row]:
        return self.tables.get(obj, [])


@dataclass
class Ctx:
    data: OrgData
    rng: random.Random

    @property
    def pro(self) -> bool:
        return self.data.org != "original"

    def today(self) -> dt.date:
        """A random 'today' inside the org's history; days stay <= 28 so month arithmetic
        needs no clamping."""
        start = dt.date(2021, 1, 1).toordinal()
        day = dt.date.fromordinal(self.rng.randrange(start, dt.date(2024, 6, 28).toordinal()))
        return day.replace(day=min(day.day, 28))


def day_of(value: Any) -> dt.date:
    return dt.date.fromisoformat(str(value)[:10])


def moment_of(value: Any) -> dt.datetime:
    return dt.datetime.fromisoformat(str(value)[:19])


def months_before(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 - months
    return day.replace(year=index // 12, month=index % 12 + 1)


def period(today: dt.date, n: int, unit: str) -> tuple[dt.date, dt.date]:
    """Inclusive first and last day of "the past n <unit>s" (see DOMAIN_DETAILS)."""
    if unit == "day":
        return today - dt.timedelta(days=n), today
    if unit == "week":
        return today - dt.timedelta(weeks=n), today
    return months_before(today, n * (3 if unit == "quarter" else 1)), today


def phrase(n: int, unit: str) -> str:
    return f"{NUMBER_WORDS[n]} {unit}{'s' if n != 1 else ''}"


def unique_best(scores: dict[str, float], lowest: bool) -> str | None:
    """The key with the best score, or None when two keys share it or fewer than two compete."""
    if len(scores) < 2:
        return None
    ordered = sorted(scores.items(), key=lambda kv: kv[1] if lowest else -kv[1])
    if abs(ordered[0][1] - ordered[1][1]) < 1e-9:
        return None
    return ordered[0][0]


def collect(ctx: Ctx, count: int, attempt: Callable[[], Made | None],
            tries: int = 300) -> list[Made]:
    out: list[Made] = []
    seen: set[str] = set()
    for _ in range(tries):
        if len(out) >= count:
            break
        made = attempt()
        if made is not None and made[0] + made[1] not in seen:
            seen.add(made[0] + made[1])
            out.append(made)
    return out


# -- case facts shared by several categories ----------------------------------------------
@dataclass
class CaseFacts:
    case: Row
    assignees: list[str]      # NewValue__c of each Owner Assignment, in time order
    transfers: list[str]      # OldValue__c of each transfer, in time order
    product: str | None


def case_facts(data: OrgData) -> list[CaseFacts]:
    history: dict[str, list[Row]] = defaultdict(list)
    for h in data.rows("CaseHistory__c"):
        if h["Field__c"] == "Owner Assignment":
            history[h["CaseId__c"]].append(h)
    out = []
    for case in data.rows("Case"):
        moves = sorted(history[case["Id"]], key=lambda h: str(h["CreatedDate"]))
        item = data.by_id.get(case.get("OrderItemId__c") or "")
        out.append(CaseFacts(case, [m["NewValue__c"] for m in moves],
                             [m["OldValue__c"] for m in moves if m["OldValue__c"]],
                             item["Product2Id"] if item else None))
    return out


def in_period(value: Any, first: dt.date, last: dt.date) -> bool:
    return value is not None and first <= day_of(value) <= last


def managed_counts(facts: Iterable[CaseFacts], pro: bool) -> Counter[str]:
    counts: Counter[str] = Counter()
    for f in facts:
        agents = set(f.assignees) if pro else set(f.assignees[:1])
        counts.update(a for a in agents if a)
    return counts


# -- service categories --------------------------------------------------------------------
def gen_handle_time(ctx: Ctx, count: int) -> list[Made]:
    facts = case_facts(ctx.data)

    def attempt() -> Made | None:
        today, n, unit = ctx.today(), ctx.rng.randrange(2, 9), ctx.rng.choice(("month",
                                                                                 "quarter"))
        k, lowest = ctx.rng.choice((0, 1)), ctx.rng.random() < 0.6
        first, last = period(today, n, unit)
        window = [f for f in facts if in_period(f.case["CreatedDate"], first, last)]
        managed = managed_counts(window, ctx.pro)
        spans: dict[str, list[float]] = defaultdict(list)
        for f in window:
            if len(f.assignees) == 1 and f.case["ClosedDate"]:
                hours = (moment_of(f.case["ClosedDate"]) - moment_of(f.case["CreatedDate"]))
                spans[f.assignees[0]].append(hours.total_seconds())
        scores = {a: sum(v) / len(v) for a, v in spans.items() if managed[a] > k}
        best = unique_best(scores, lowest)
        if best is None:
            return None
        word = "shortest" if lowest else "longest"
        query = (f"Which agent had the {word} average handle time in the past "
                 f"{phrase(n, unit)}, among agents who managed more than {NUMBER_WORDS[k]} "
                 f"case{'s' if k != 1 else ''}? Return only the Id of the agent.")
        return query, policies.handle_time(today.isoformat(), not ctx.pro), [best]
    return collect(ctx, count, attempt)


def gen_transfer_count(ctx: Ctx, count: int) -> list[Made]:
    facts = case_facts(ctx.data)

    def attempt() -> Made | None:
        today, n, unit = ctx.today(), ctx.rng.randrange(2, 9), ctx.rng.choice(("month",
                                                                                 "quarter"))
        k, lowest = ctx.rng.choice((0, 1)), ctx.rng.random() < 0.5
        first, last = period(today, n, unit)
        window = [f for f in facts if in_period(f.case["CreatedDate"], first, last)]
        managed = managed_counts(window, ctx.pro)
        moved: Counter[str] = Counter(a for f in window for a in f.transfers)
        scores = {a: float(moved[a]) for a in managed if managed[a] > k}
        best = unique_best(scores, lowest)
        if best is None:
            return None
        word = "lowest" if lowest else "highest"
        query = (f"Who was the agent with the {word} number of case transfers in the past "
                 f"{phrase(n, unit)}, among agents who managed more than {NUMBER_WORDS[k]} "
                 f"case{'s' if k != 1 else ''}? Return only the Id of the agent.")
        return query, policies.transfer_count(today.isoformat(), not ctx.pro), [best]
    return collect(ctx, count, attempt)


def gen_case_routing(ctx: Ctx, count: int) -> list[Made]:
    facts = case_facts(ctx.data)
    names = {p["Id"]: p["Name"] for p in ctx.data.rows("Product2")}
    complaints = dict(vocab.ISSUES[ctx.data.org])

    def attempt() -> Made | None:
        sample = ctx.rng.choice(facts)
        issue, product = sample.case["IssueId__c"], sample.product
        if product is None:
            return None
        answer = route_case(facts, issue, product)
        if answer is None:
            return None
        issue_name = ctx.data.by_id[issue]["Name"]
        text = complaints[issue_name].format(p=names[product])
        query = ("Use the case routing policy to pick the most suitable agent for the new "
                 "case below. Return only the Id of the agent.\n## New Case\n"
                 f"- Subject: Help needed with my {names[product]}\n- Description: {text} "
                 "Please help me sort this out.")
        return query, policies.CASE_ROUTING, [answer]
    return collect(ctx, count, attempt)


def route_case(facts: list[CaseFacts], issue: str, product: str) -> str | None:
    closed = [f for f in facts if f.case["Status"] == "Closed"]
    agents = {f.case["OwnerId"] for f in facts}
    keys = {a: (sum(1 for f in closed if f.case["OwnerId"] == a
                    and f.case["IssueId__c"] == issue),
                sum(1 for f in closed if f.case["OwnerId"] == a and f.product == product),
                -sum(1 for f in facts if f.case["OwnerId"] == a
                     and f.case["Status"] != "Closed"))
            for a in agents}
    ranked = sorted(keys.items(), key=lambda kv: kv[1], reverse=True)
    if len(ranked) < 2 or ranked[0][1] == ranked[1][1] or ranked[0][1][0] == 0:
        return None
    best: str = ranked[0][0]
    return best


def gen_top_issue(ctx: Ctx, count: int) -> list[Made]:
    facts = case_facts(ctx.data)
    products = ctx.data.rows("Product2")

    def attempt() -> Made | None:
        prod = ctx.rng.choice(products)
        mine = [f for f in facts if f.product == prod["Id"]]
        anchor = ctx.rng.choice(mine) if mine else None
        if anchor is None:
            return None
        today = _after(day_of(anchor.case["CreatedDate"]), ctx)
        n = ctx.rng.randrange(2, 7)
        first, last = period(today, n, "month")
        counts = Counter(f.case["IssueId__c"] for f in mine
                         if in_period(f.case["CreatedDate"], first, last))
        best = unique_best({k: float(v) for k, v in counts.items()}, lowest=False)
        if best is None:
            return None
        query = (f"What problem did customers report most often for {prod['Name']} in the "
                 f"past {phrase(n, 'month')}? The product Id is {prod['Id']}. Return only "
                 "the Id of the issue.")
        return query, f"- Today's date: {today.isoformat()}", [best]
    return collect(ctx, count, attempt)


def _after(anchor: dt.date, ctx: Ctx) -> dt.date:
    """A 'today' shortly after `anchor` (day <= 28)."""
    day = anchor + dt.timedelta(days=ctx.rng.randrange(5, 60))
    return day.replace(day=min(day.day, 28))


def gen_monthly_trend(ctx: Ctx, count: int) -> list[Made]:
    facts = case_facts(ctx.data)
    products = ctx.data.rows("Product2")

    def attempt() -> Made | None:
        prod = ctx.rng.choice(products)
        mine = [f for f in facts if f.product == prod["Id"]]
        if not mine:
            return None
        today = _after(day_of(ctx.rng.choice(mine).case["CreatedDate"]), ctx)
        n = ctx.rng.randrange(3, 11)
        first, last = period(today, n, "month")
        counts = Counter(MONTHS[day_of(f.case["CreatedDate"]).month - 1] for f in mine
                         if in_period(f.case["CreatedDate"], first, last))
        best = unique_best({k: float(v) for k, v in counts.items()}, lowest=False)
        if best is None:
            return None
        query = (f"Is there a month in the past {phrase(n, 'month')} when {prod['Name']} "
                 f"cases clearly outnumbered every other month? The product Id is "
                 f"{prod['Id']}. Return only the month name.")
        return query, f"- Today's date: {today.isoformat()}", [best]
    return collect(ctx, count, attempt)


def gen_best_region(ctx: Ctx, count: int) -> list[Made]:
    accounts = {a["Id"]: a for a in ctx.data.rows("Account")}

    def attempt() -> Made | None:
        today, n, unit = ctx.today(), ctx.rng.randrange(2, 7), ctx.rng.choice(("month",
                                                                                 "quarter"))
        first, last = period(today, n, unit)
        spans: dict[str, list[float]] = defaultdict(list)
        for case in ctx.data.rows("Case"):
            acc = accounts.get(case["AccountId"])
            if acc and case["ClosedDate"] and in_period(case["CreatedDate"], first, last):
                took = moment_of(case["ClosedDate"]) - moment_of(case["CreatedDate"])
                spans[acc["ShippingState"]].append(took.total_seconds())
        best = unique_best({s: sum(v) / len(v) for s, v in spans.items()}, lowest=True)
        if best is None:
            return None
        query = (f"Which state had the quickest average case closure in the past "
                 f"{phrase(n, unit)}? Return only the two-letter state code (e.g. CA).")
        return query, f"- Today's date: {today.isoformat()}", [best]
    return collect(ctx, count, attempt)


def gen_named_entity(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data
    items: dict[str, list[Row]] = defaultdict(list)
    for item in data.rows("OrderItem"):
        items[item["OrderId"]].append(item)
    products = data.rows("Product2")
    contacts: dict[str, list[Row]] = defaultdict(list)
    for c in data.rows("Contact"):
        contacts[c["AccountId"]].append(c)

    def attempt() -> Made | None:
        order = ctx.rng.choice(data.rows("Order"))
        if not contacts[order["AccountId"]] or not items[order["Id"]]:
            return None
        contact = ctx.rng.choice(contacts[order["AccountId"]])
        n = ctx.rng.choice((3, 7, 10, 14, 21, 30))
        today = day_of(order["EffectiveDate"]) + dt.timedelta(days=n)
        bought = {i["Product2Id"] for i in items[order["Id"]]}
        pool = [p for p in products if (p["Id"] in bought) == (ctx.rng.random() < 0.75)]
        wanted = ctx.rng.choice(pool or products)
        answer = purchased(data, contact["AccountId"], today - dt.timedelta(days=n), wanted)
        what = wanted["Description"].split(": ", 1)[-1].rstrip(".")
        query = (f"Can you show me the {what} I bought {NUMBER_WORDS[n] if n <= 20 else n} "
                 "days ago? Return only the Id of the product from the contact's matching "
                 "past purchase.")
        required = (f"- Contact Id interacting: {contact['Id']}\n"
                    f"- Today's date: {today.isoformat()}")
        return query, required, [answer]
    return collect(ctx, count, attempt)


def purchased(data: OrgData, account: str, day: dt.date, product: Row) -> str | None:
    orders = {o["Id"] for o in data.rows("Order")
              if o["AccountId"] == account and day_of(o["EffectiveDate"]) == day}
    hits = {i["Product2Id"] for i in data.rows("OrderItem")
            if i["OrderId"] in orders and i["Product2Id"] == product["Id"]}
    return product["Id"] if hits else None


def gen_policy_violation(ctx: Ctx, count: int) -> list[Made]:
    data = ctx.data
    article = _article(data, "Refund Eligibility Window")
    limit = number_in(r"within (\d+) days", article["Summary"])
    issue = next(i["Id"] for i in data.rows("Issue__c") if i["Name"] == REFUND_ISSUE[data.org])
    cases = [c for c in data.rows("Case") if c["IssueId__c"] == issue]

    def attempt() -> Made | None:
        case = ctx.rng.choice(cases) if cases else None
        if case is None:
            return None
        answer = refund_violation(data, case, limit, article["Id"])
        query = ("Did the agent break company policy while handling this case? If so, which "
                 "knowledge article was violated? Return only the Id of the knowledge "
                 "article, or None if there was no violation.")
        return query, f"- Case Id to be considered is: {case['Id']}", [answer]
    return collect(ctx, count, attempt)


def refund_violation(data: OrgData, case: Row, limit: int, article: str) -> str | None:
    item = data.by_id.get(case["OrderItemId__c"])
    if item is None:
        return None
    ordered = day_of(data.by_id[item["OrderId"]]["EffectiveDate"])
    for mail in data.rows("EmailMessage"):
        approved = mail["ParentId"] == case["Id"] and REFUND_APPROVED in (mail["TextBody"]
                                                                          or "")
        if approved and (day_of(mail["MessageDate"]) - ordered).days > limit:
            return article
    return None


def number_in(pattern: str, text: str) -> int:
    """The number a policy article states (the articles are generated with one)."""
    found = re.search(pattern, text or "")
    if found is None:
        raise ValueError(f"policy text {text!r} lacks {pattern!r}")
    return int(found.group(1))


def _article(data: OrgData, title: str) -> Row:
    return next(k for k in data.rows("Knowledge__kav") if k["Title"] == title)


def gen_knowledge_qa(ctx: Ctx, count: int) -> list[Made]:
    pairs = []
    for art in ctx.data.rows("Knowledge__kav"):
        for q, a in re.findall(r"Q: (.+?\?) A: (.+?\.)(?= Q: |$)", art["FAQ_Answer__c"] or ""):
            pairs.append((q, a))

    def attempt() -> Made | None:
        q, a = ctx.rng.choice(pairs)
        return q, policies.KNOWLEDGE_QA, [a]
    return collect(ctx, count, attempt)


SERVICE_GENERATORS: dict[str, Callable[[Ctx, int], list[Made]]] = {
    "handle_time": gen_handle_time, "transfer_count": gen_transfer_count,
    "case_routing": gen_case_routing, "top_issue_identification": gen_top_issue,
    "monthly_trend_analysis": gen_monthly_trend, "best_region_identification": gen_best_region,
    "named_entity_disambiguation": gen_named_entity,
    "policy_violation_identification": gen_policy_violation, "knowledge_qa": gen_knowledge_qa,
}
