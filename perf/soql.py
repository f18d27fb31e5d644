"""SOQL/SOSL sandbox timings over a generated ~30,000-row org.

    python perf/soql.py [--repeat 30] [--scale large] [--seed 0]

For each agent-shaped query it measures, taking the median of `--repeat` runs:
  parse+translate  SOQL text -> syntax tree -> parameterised SQL plan
  execute          running the plan and building Salesforce-shaped records
  baseline         the same SQL on a plain sqlite3 connection, rows only (same run)
  SOSL             a whole FIND search on a warm index
and prints p50 / p90 / max across queries, the execute/baseline ratio, and the one-off
cost of building the SOSL index. Targets: p50 parse+translate <= 0.5 ms, p50 SOQL execute
<= 5 ms, p50 SOSL <= 10 ms.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SOQL = [
    "SELECT Id, Name FROM Account LIMIT 20",
    "SELECT Id, Subject, Status FROM Case WHERE Status != 'Closed'",
    "SELECT Id, Subject, Priority FROM Case WHERE Id = '{case}'",
    "SELECT Id, Subject FROM Case WHERE AccountId = '{account}'",
    "SELECT Id, Subject, Account.Name, Owner.Name FROM Case WHERE CreatedDate = "
    "LAST_N_MONTHS:3",
    "SELECT COUNT() FROM Opportunity",
    "SELECT COUNT(Id) FROM Case WHERE Status = 'Closed'",
    "SELECT FirstName, LastName FROM Contact WHERE LastName = 'Chen'",
    "SELECT OwnerId, COUNT(Id) FROM Case WHERE CreatedDate = LAST_N_MONTHS:6 GROUP BY "
    "OwnerId ORDER BY COUNT(Id) DESC LIMIT 5",
    "SELECT IssueId__c, COUNT(Id) IssueCount FROM Case WHERE OrderItemId__c IN "
    "(SELECT Id FROM OrderItem WHERE Product2Id = '{product}') GROUP BY IssueId__c",
    "SELECT NewValue__c, OldValue__c, CreatedDate FROM CaseHistory__c WHERE CaseId__c = "
    "'{case}'",
    "SELECT NewValue__c, CreatedDate FROM CaseHistory__c WHERE CreatedDate >= "
    "2023-01-01T00:00:00Z AND CreatedDate <= 2023-03-31T23:59:59Z AND Field__c = "
    "'Owner Assignment'",
    "SELECT Id, CreatedDate, ClosedDate, OwnerId FROM Case WHERE CreatedDate = "
    "LAST_N_QUARTERS:2 AND Status = 'Closed'",
    "SELECT Account.ShippingState, COUNT(Id) FROM Case WHERE ClosedDate != null GROUP BY "
    "Account.ShippingState",
    "SELECT CALENDAR_MONTH(CreatedDate), COUNT(Id) FROM Case WHERE CreatedDate = "
    "LAST_N_MONTHS:10 GROUP BY CALENDAR_MONTH(CreatedDate)",
    "SELECT Id, Name, StageName, Amount FROM Opportunity WHERE OwnerId = '{user}'",
    "SELECT Id, Subject, Status, ActivityDate FROM Task WHERE WhatId = '{opp}'",
    "SELECT Id, Subject FROM Task WHERE WhatId = '{opp}' AND Status = 'Not Started'",
    "SELECT Id, Quantity, Discount, UnitPrice, Product2.Name FROM QuoteLineItem WHERE "
    "QuoteId = '{quote}'",
    "SELECT Id, Status, OpportunityId FROM Quote WHERE Status = 'Accepted'",
    "SELECT UserId FROM UserTerritory2Association WHERE Territory2Id IN (SELECT Id FROM "
    "Territory2 WHERE Description LIKE '%OR%')",
    "SELECT OwnerId, COUNT(Id) FROM Lead WHERE IsConverted = true AND CreatedDate = "
    "LAST_N_QUARTERS:4 GROUP BY OwnerId",
    "SELECT Id, CreatedDate, ContractID__c FROM Opportunity WHERE ContractID__c != null",
    "SELECT Id, CompanySignedDate FROM Contract WHERE CompanySignedDate = LAST_N_DAYS:90",
    "SELECT Id, EffectiveDate, OwnerId FROM Order WHERE EffectiveDate = LAST_N_MONTHS:5",
    "SELECT OrderId, Quantity, UnitPrice FROM OrderItem WHERE Order.EffectiveDate = "
    "LAST_N_MONTHS:2",
    "SELECT Product2Id FROM OrderItem WHERE OrderItem.Order.AccountId = '{account}'",
    "SELECT Id, Title, Summary FROM Knowledge__kav",
    "SELECT Id, TextBody, FromAddress, MessageDate FROM EmailMessage WHERE ParentId = "
    "'{case}'",
    "SELECT Body, EndTime FROM LiveChatTranscript WHERE CaseId = '{case}'",
    "SELECT Id, TranscriptBody__c FROM VoiceCallTranscript__c WHERE LeadId__c = '{lead}'",
    "SELECT Name, (SELECT Id, Subject FROM Cases) FROM Account WHERE Id = '{account}'",
    "SELECT Id FROM Case WHERE Id IN (SELECT CaseId__c FROM CaseHistory__c WHERE "
    "OldValue__c != null) AND CreatedDate = THIS_YEAR",
    "SELECT StageName, SUM(Amount), AVG(Amount) FROM Opportunity GROUP BY StageName",
    "SELECT Id, Name, Email FROM User",
    "SELECT Id, Subject FROM Case WHERE Subject LIKE '%Gateway%' ORDER BY CreatedDate DESC "
    "LIMIT 10",
]
SOSL = [
    "FIND {refund} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, FAQ_Answer__c)",
    "FIND {Quote Discount} RETURNING Knowledge__kav(Id, Title, Summary)",
    "FIND {qualification BANT} RETURNING Knowledge__kav(Id, Title)",
    "FIND {Chen} IN NAME FIELDS RETURNING Lead(Name, Phone), Contact(Name)",
    "FIND {SecureVault} RETURNING Product2(Id, Name), Case(Id, Subject LIMIT 5)",
    "FIND {power optimisation controller} IN ALL FIELDS RETURNING Product2(Id, Name)",
    "FIND {\"license activation\"} RETURNING Case(Id, Subject LIMIT 20)",
    "FIND {polic*} RETURNING Knowledge__kav(Title)",
    "FIND {hardware OR fault} RETURNING Issue__c(Id, Name)",
    "FIND {refund AND NOT eligibility} RETURNING Knowledge__kav(Title), EmailMessage(Id "
    "LIMIT 5)",
    "FIND {example-crm.com} IN EMAIL FIELDS RETURNING User(Id, Email) LIMIT 10",
    "FIND {Pacific}",
]


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return (f"p50 {statistics.median(ordered):7.3f} ms   p90 {p90:7.3f} ms   "
            f"max {ordered[-1]:7.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--scale", default="large")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="a2abench-soql-"))
    os.environ["A2ABENCH_CACHE_DIR"] = str(work / "cache")

    from a2abench.benchmarks.crmarena.sandbox import OrgSandbox
    from a2abench.benchmarks.crmarena.sandbox.parser import parse_soql
    from a2abench.benchmarks.crmarena.sandbox.translate import Translator
    from a2abench.benchmarks.crmarena.synthetic import generate_org

    db = work / "org.db"
    scale: float | str = args.scale if args.scale in ("tiny", "small", "large") else float(
        args.scale)
    start = time.perf_counter()
    generate_org(db, org="b2b", seed=args.seed, scale=scale)
    gen_s = time.perf_counter() - start
    raw = sqlite3.connect(db)
    total = sum(raw.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]
                for (t,) in raw.execute("SELECT name FROM sqlite_master WHERE type='table'"))
    ids = {key: raw.execute(f'SELECT Id FROM "{table}" ORDER BY rowid LIMIT 1 OFFSET 7'
                            ).fetchone()[0]
           for key, table in (("case", "Case"), ("account", "Account"), ("product",
                              "Product2"), ("user", "User"), ("opp", "Opportunity"),
                              ("quote", "Quote"), ("lead", "Lead"))}
    sandbox = OrgSandbox.open(db, today=dt.date(2023, 6, 15))
    start = time.perf_counter()
    sandbox.query("FIND {warmup}")   # the first search builds the cached FTS5 index
    index_s = time.perf_counter() - start
    queries = [q.format(**ids) for q in SOQL]
    failing = [q for q in [*queries, *SOSL] if not sandbox.observe(q).startswith("[")]
    if failing:   # timing error paths would flatter the figures
        raise SystemExit(f"queries answered with an error: {failing}")

    translate, execute, baseline = [], [], []
    for text in queries:
        def plan_it(text: str = text) -> object:
            return Translator(sandbox.schema, sandbox.today, sandbox.row_cap,
                              sandbox.numeric_text).plan(parse_soql(text))
        plan = plan_it()
        translate.append(median_ms(plan_it, args.repeat))
        execute.append(median_ms(lambda plan=plan: sandbox._run(plan), args.repeat))  # type: ignore[misc]
        sql, params = plan.sql, plan.params  # type: ignore[attr-defined]
        if "__PARENT_IDS__" in sql:
            baseline.append(execute[-1])
            continue
        baseline.append(median_ms(lambda sql=sql, params=params: raw.execute(
            sql, params).fetchall(), args.repeat))

    sosl = [median_ms(lambda q=q: sandbox.sosl(q), args.repeat) for q in SOSL]
    observe = [median_ms(lambda q=q: sandbox.observe(q), args.repeat) for q in queries]
    ratios = [e / b for e, b in zip(execute, baseline, strict=True) if b > 0]

    print(f"org: b2b scale={args.scale} seed={args.seed}, {total} rows, generated in "
          f"{gen_s:.2f} s; SOSL index built in {index_s:.2f} s")
    print(f"{len(queries)} SOQL queries, {len(SOSL)} SOSL searches, median of "
          f"{args.repeat} runs each")
    print(f"parse+translate   {summary(translate)}   (target p50 <= 0.5 ms)")
    print(f"SOQL execute      {summary(execute)}   (target p50 <= 5 ms)")
    print(f"SQLite baseline   {summary(baseline)}")
    print(f"execute/baseline  p50 {statistics.median(ratios):.2f}x")
    print(f"SOQL observe()    {summary(observe)}   (end to end, string included)")
    print(f"SOSL search       {summary(sosl)}   (target p50 <= 10 ms)")
    sandbox.close()
    raw.close()


if __name__ == "__main__":
    main()
