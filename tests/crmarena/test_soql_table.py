"""Table-driven SOQL checks on the synthetic b2b org (seed 0, today = 2023-06-15).

Each success case pairs a SOQL query with an oracle: SQLite SQL written by hand against the
raw tables. The sandbox's records (walked along the selected paths, or taken in key order
for aggregate results) must equal the oracle's rows, in order. Error cases name the
Salesforce error code and a piece of its message. `{Object:n}` stands for the Id of the
n-th row of a table (`{Object:n:Field}` for a field, `{id15:Object:n}` for a 15-char Id).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

import pytest

from a2abench.benchmarks.crmarena.sandbox import OrgSandbox, SalesforceError

from .conftest import fill, normal

NAME = "TRIM(COALESCE({a}.FirstName, '') || ' ' || COALESCE({a}.LastName, ''))"


@dataclass(frozen=True)
class Q:
    id: str
    soql: str
    sql: str = ""
    error: str = ""          # expected error code
    says: str = ""           # expected piece of the error message
    count: bool = False      # SELECT COUNT(): compare totalSize with the oracle's count


def n(alias: str) -> str:
    return NAME.format(a=alias)


CASES: list[Q] = [
    # -- plain selects and filters ----------------------------------------------------
    Q("all-ids", "SELECT Id FROM Account", "SELECT Id FROM Account ORDER BY rowid"),
    Q("eq-picklist", "SELECT Id, Name, Industry FROM Account WHERE Industry = 'Technology'",
      "SELECT Id, Name, Industry FROM Account WHERE Industry = 'Technology' ORDER BY rowid"),
    Q("eq-case-insensitive", "SELECT Id FROM Account WHERE Industry = 'technology'",
      "SELECT Id FROM Account WHERE Industry = 'Technology' ORDER BY rowid"),
    Q("lowercase-keywords", "select id, name from account where industry = 'Retail'",
      "SELECT Id, Name FROM Account WHERE Industry = 'Retail' ORDER BY rowid"),
    Q("not-null", "SELECT Id FROM Case WHERE ClosedDate != null",
      'SELECT Id FROM "Case" WHERE ClosedDate IS NOT NULL ORDER BY rowid'),
    Q("is-null", "SELECT Id, Status FROM Case WHERE ClosedDate = null",
      'SELECT Id, Status FROM "Case" WHERE ClosedDate IS NULL ORDER BY rowid'),
    Q("neq", "SELECT Id FROM Case WHERE Status != 'Closed'",
      "SELECT Id FROM \"Case\" WHERE Status <> 'Closed' ORDER BY rowid"),
    Q("neq-ltgt", "SELECT Id FROM Case WHERE Status <> 'Closed'",
      "SELECT Id FROM \"Case\" WHERE Status <> 'Closed' ORDER BY rowid"),
    Q("int-gt", "SELECT Name, NumberOfEmployees FROM Account WHERE NumberOfEmployees > 1000",
      "SELECT Name, NumberOfEmployees FROM Account WHERE NumberOfEmployees > 1000 "
      "ORDER BY rowid"),
    Q("int-range", "SELECT Id FROM Account WHERE NumberOfEmployees >= 1000 AND "
      "NumberOfEmployees <= 3000", "SELECT Id FROM Account WHERE NumberOfEmployees "
      "BETWEEN 1000 AND 3000 ORDER BY rowid"),
    Q("currency-lt", "SELECT Id, Amount FROM Opportunity WHERE Amount < 50000",
      "SELECT Id, Amount FROM Opportunity WHERE Amount < 50000 ORDER BY rowid"),
    Q("decimal-literal", "SELECT Id FROM OrderItem WHERE UnitPrice > 1199.5",
      "SELECT Id FROM OrderItem WHERE UnitPrice > 1199.5 ORDER BY rowid"),
    Q("bool-true", "SELECT Id, Name FROM Lead WHERE IsConverted = true",
      "SELECT Id, " + n("Lead") + " FROM Lead WHERE IsConverted = 1 ORDER BY rowid"),
    Q("bool-false", "SELECT Id FROM Lead WHERE IsConverted = FALSE",
      "SELECT Id FROM Lead WHERE IsConverted = 0 ORDER BY rowid"),
    Q("bool-select", "SELECT Name, IsActive FROM Product2",
      "SELECT Name, IsActive FROM Product2 ORDER BY rowid"),
    Q("like-prefix", "SELECT Name FROM Account WHERE Name LIKE 'Tidal%'",
      "SELECT Name FROM Account WHERE Name LIKE 'Tidal%' ORDER BY rowid"),
    Q("like-contains", "SELECT Name FROM Account WHERE Name LIKE '%Systems%'",
      "SELECT Name FROM Account WHERE Name LIKE '%Systems%' ORDER BY rowid"),
    Q("like-underscore", "SELECT Name FROM Account WHERE Name LIKE '_idal%'",
      "SELECT Name FROM Account WHERE Name LIKE '_idal%' ORDER BY rowid"),
    Q("like-case-insensitive", "SELECT Name FROM Account WHERE Name LIKE 'tidal%'",
      "SELECT Name FROM Account WHERE Name LIKE 'Tidal%' ORDER BY rowid"),
    Q("not-like", "SELECT Name FROM Account WHERE NOT Name LIKE '%a%'",
      "SELECT Name FROM Account WHERE Name NOT LIKE '%a%' ORDER BY rowid"),
    Q("in-list", "SELECT Id, StageName FROM Opportunity WHERE StageName IN ('Closed', "
      "'Quote')", "SELECT Id, StageName FROM Opportunity WHERE StageName IN ('Closed', "
      "'Quote') ORDER BY rowid"),
    Q("not-in-list", "SELECT Id FROM Opportunity WHERE StageName NOT IN ('Closed')",
      "SELECT Id FROM Opportunity WHERE StageName <> 'Closed' ORDER BY rowid"),
    Q("or", "SELECT Id FROM Case WHERE Status = 'New' OR Status = 'Working'",
      "SELECT Id FROM \"Case\" WHERE Status IN ('New', 'Working') ORDER BY rowid"),
    Q("and-or-parens", "SELECT Id FROM Case WHERE (Status = 'Closed' OR Status = "
      "'Escalated') AND Priority = 'High'", "SELECT Id FROM \"Case\" WHERE Status IN "
      "('Closed', 'Escalated') AND Priority = 'High' ORDER BY rowid"),
    Q("not-eq", "SELECT Id FROM Case WHERE NOT Status = 'Closed'",
      "SELECT Id FROM \"Case\" WHERE Status <> 'Closed' ORDER BY rowid"),
    Q("not-group", "SELECT Id FROM Case WHERE NOT (Status = 'Closed' OR Priority = 'Low')",
      "SELECT Id FROM \"Case\" WHERE Status <> 'Closed' AND Priority <> 'Low' ORDER BY rowid"),
    Q("not-null-field", "SELECT Id FROM Opportunity WHERE NOT ContractID__c = null",
      "SELECT Id FROM Opportunity WHERE ContractID__c IS NOT NULL ORDER BY rowid"),
    Q("id-eq", "SELECT Id, Subject FROM Case WHERE Id = '{Case:0}'",
      "SELECT Id, Subject FROM \"Case\" WHERE Id = '{Case:0}'"),
    Q("id-15-char", "SELECT Id FROM Case WHERE Id = '{id15:Case:3}'",
      "SELECT Id FROM \"Case\" WHERE Id = '{Case:3}'"),
    Q("id-in", "SELECT Id FROM Case WHERE Id IN ('{Case:0}', '{Case:1}', '{Case:2}')",
      "SELECT Id FROM \"Case\" WHERE Id IN ('{Case:0}', '{Case:1}', '{Case:2}') "
      "ORDER BY rowid"),
    Q("reference-eq", "SELECT Id FROM Case WHERE AccountId = '{Account:0}'",
      "SELECT Id FROM \"Case\" WHERE AccountId = '{Account:0}' ORDER BY rowid"),
    Q("reference-null", "SELECT Id FROM Opportunity WHERE ContractID__c = null",
      "SELECT Id FROM Opportunity WHERE ContractID__c IS NULL ORDER BY rowid"),
    Q("order-asc-limit", "SELECT Name FROM Account ORDER BY Name ASC LIMIT 5",
      "SELECT Name FROM Account ORDER BY Name COLLATE NOCASE, rowid LIMIT 5"),
    Q("order-desc", "SELECT Id, CreatedDate FROM Case ORDER BY CreatedDate DESC LIMIT 3",
      "SELECT Id, CreatedDate FROM \"Case\" ORDER BY CreatedDate DESC, rowid LIMIT 3"),
    Q("order-two-keys", "SELECT Name, Industry FROM Account ORDER BY Industry, Name DESC",
      "SELECT Name, Industry FROM Account ORDER BY Industry COLLATE NOCASE, "
      "Name COLLATE NOCASE DESC, rowid"),
    Q("order-nulls-last", "SELECT Id, ClosedDate FROM Case ORDER BY ClosedDate ASC NULLS "
      "LAST LIMIT 200", "SELECT Id, ClosedDate FROM \"Case\" ORDER BY ClosedDate "
      "NULLS LAST, rowid LIMIT 200"),
    Q("order-nulls-first-desc", "SELECT Id FROM Case ORDER BY ClosedDate DESC NULLS FIRST "
      "LIMIT 10", "SELECT Id FROM \"Case\" ORDER BY ClosedDate DESC NULLS FIRST, rowid "
      "LIMIT 10"),
    Q("limit-offset", "SELECT Id FROM Account ORDER BY Name LIMIT 2 OFFSET 3",
      "SELECT Id FROM Account ORDER BY Name COLLATE NOCASE, rowid LIMIT 2 OFFSET 3"),
    Q("limit-zero", "SELECT Id FROM Account LIMIT 0", "SELECT Id FROM Account LIMIT 0"),
    Q("from-alias", "SELECT c.Id, c.Subject FROM Case c WHERE c.Status = 'Escalated'",
      "SELECT Id, Subject FROM \"Case\" WHERE Status = 'Escalated' ORDER BY rowid"),
    Q("object-prefix", "SELECT Case.Subject FROM Case LIMIT 3",
      "SELECT Subject FROM \"Case\" ORDER BY rowid LIMIT 3"),
    Q("compound-name", "SELECT Name, Email FROM Contact LIMIT 4",
      f"SELECT {n('Contact')}, Email FROM Contact ORDER BY rowid LIMIT 4"),
    Q("compound-name-filter", "SELECT Id FROM User WHERE Name = '{User:2:FirstName} "
      "{User:2:LastName}'", "SELECT Id FROM User WHERE rowid = 3"),
    Q("compound-name-like", "SELECT Name FROM Lead WHERE Name LIKE 'O%'",
      f"SELECT {n('Lead')} FROM Lead WHERE FirstName LIKE 'O%' ORDER BY rowid"),
    Q("field-case-insensitive", "SELECT ID, SUBJECT FROM CASE LIMIT 2",
      "SELECT Id, Subject FROM \"Case\" ORDER BY rowid LIMIT 2"),
    Q("datetime-literal", "SELECT Id FROM Case WHERE CreatedDate > 2023-01-01T00:00:00Z",
      "SELECT Id FROM \"Case\" WHERE CreatedDate > '2023-01-01T00:00:00' ORDER BY rowid"),
    Q("datetime-offset", "SELECT Id FROM Case WHERE CreatedDate < 2022-06-01T00:00:00+02:00",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 19) < '2022-05-31T22:00:00' "
      "ORDER BY rowid"),
    Q("datetime-millis", "SELECT Id FROM Case WHERE CreatedDate >= 2024-01-01T00:00:00.000Z",
      "SELECT Id FROM \"Case\" WHERE CreatedDate >= '2024-01-01T00:00:00' ORDER BY rowid"),
    Q("date-literal", "SELECT Id, CloseDate FROM Opportunity WHERE CloseDate >= 2023-01-01",
      "SELECT Id, CloseDate FROM Opportunity WHERE CloseDate >= '2023-01-01' ORDER BY rowid"),
    Q("date-eq", "SELECT Id FROM Order WHERE EffectiveDate = {Order:4:EffectiveDate}",
      "SELECT Id FROM \"Order\" WHERE EffectiveDate = '{Order:4:EffectiveDate}' "
      "ORDER BY rowid"),
    Q("date-range", "SELECT Id FROM Order WHERE EffectiveDate > 2022-12-31 AND "
      "EffectiveDate < 2023-07-01", "SELECT Id FROM \"Order\" WHERE EffectiveDate BETWEEN "
      "'2023-01-01' AND '2023-06-30' ORDER BY rowid"),
    Q("with-security", "SELECT Id FROM Account WITH SECURITY_ENFORCED LIMIT 1",
      "SELECT Id FROM Account ORDER BY rowid LIMIT 1"),
    Q("for-view", "SELECT Id FROM Account LIMIT 1 FOR VIEW",
      "SELECT Id FROM Account ORDER BY rowid LIMIT 1"),
    Q("tolabel", "SELECT toLabel(StageName) FROM Opportunity LIMIT 3",
      "SELECT StageName FROM Opportunity ORDER BY rowid LIMIT 3"),
    Q("escaped-quote", "SELECT Id FROM Account WHERE Name = 'O\\'Brien'",
      "SELECT Id FROM Account WHERE Name = 'O''Brien'"),
    Q("empty-string-is-null", "SELECT Id FROM Opportunity WHERE ContractID__c = ''",
      "SELECT Id FROM Opportunity WHERE ContractID__c IS NULL ORDER BY rowid"),
    # -- relative date literals (today = Thursday 2023-06-15) -----------------------------
    Q("today", "SELECT Id FROM Case WHERE CreatedDate = TODAY",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) = '2023-06-15'"),
    Q("yesterday", "SELECT Id FROM Case WHERE CreatedDate = YESTERDAY",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) = '2023-06-14'"),
    Q("last-n-days", "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:30",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2023-05-16' AND "
      "'2023-06-15' ORDER BY rowid"),
    Q("last-n-days-year", "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:365",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2022-06-15' AND "
      "'2023-06-15' ORDER BY rowid"),
    Q("next-n-days", "SELECT Id FROM Opportunity WHERE CloseDate = NEXT_N_DAYS:30",
      "SELECT Id FROM Opportunity WHERE CloseDate BETWEEN '2023-06-16' AND '2023-07-15' "
      "ORDER BY rowid"),
    Q("n-days-ago", "SELECT Id FROM Order WHERE EffectiveDate = N_DAYS_AGO:10",
      "SELECT Id FROM \"Order\" WHERE EffectiveDate = '2023-06-05'"),
    Q("this-week", "SELECT Id FROM Case WHERE CreatedDate = THIS_WEEK",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2023-06-11' AND "
      "'2023-06-17' ORDER BY rowid"),
    Q("last-week", "SELECT Id FROM Case WHERE CreatedDate = LAST_WEEK",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2023-06-04' AND "
      "'2023-06-10' ORDER BY rowid"),
    Q("this-month", "SELECT Id FROM Opportunity WHERE CloseDate = THIS_MONTH",
      "SELECT Id FROM Opportunity WHERE CloseDate BETWEEN '2023-06-01' AND '2023-06-30' "
      "ORDER BY rowid"),
    Q("last-month", "SELECT Id FROM Case WHERE CreatedDate = LAST_MONTH",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 7) = '2023-05' ORDER BY rowid"),
    Q("next-month", "SELECT Id FROM Opportunity WHERE CloseDate = NEXT_MONTH",
      "SELECT Id FROM Opportunity WHERE substr(CloseDate, 1, 7) = '2023-07' ORDER BY rowid"),
    Q("last-90-days", "SELECT Id FROM Case WHERE CreatedDate = LAST_90_DAYS",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2023-03-17' AND "
      "'2023-06-15' ORDER BY rowid"),
    Q("next-90-days", "SELECT Id FROM Opportunity WHERE CloseDate = NEXT_90_DAYS",
      "SELECT Id FROM Opportunity WHERE CloseDate BETWEEN '2023-06-16' AND '2023-09-13' "
      "ORDER BY rowid"),
    Q("this-quarter", "SELECT Id FROM Case WHERE CreatedDate = THIS_QUARTER",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2023-04-01' AND "
      "'2023-06-30' ORDER BY rowid"),
    Q("last-quarter", "SELECT Id FROM Case WHERE CreatedDate = LAST_QUARTER",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2023-01-01' AND "
      "'2023-03-31' ORDER BY rowid"),
    Q("next-quarter", "SELECT Id FROM Opportunity WHERE CloseDate = NEXT_QUARTER",
      "SELECT Id FROM Opportunity WHERE CloseDate BETWEEN '2023-07-01' AND '2023-09-30' "
      "ORDER BY rowid"),
    Q("last-n-months", "SELECT Id FROM Case WHERE CreatedDate = LAST_N_MONTHS:6",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2022-12-01' AND "
      "'2023-05-31' ORDER BY rowid"),
    Q("last-n-quarters", "SELECT Id FROM Case WHERE CreatedDate = LAST_N_QUARTERS:2",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2022-10-01' AND "
      "'2023-03-31' ORDER BY rowid"),
    Q("this-year", "SELECT Id FROM Case WHERE CreatedDate = THIS_YEAR",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 4) = '2023' ORDER BY rowid"),
    Q("last-year", "SELECT Id FROM Case WHERE CreatedDate = LAST_YEAR",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 4) = '2022' ORDER BY rowid"),
    Q("last-n-years", "SELECT Id FROM Case WHERE CreatedDate = LAST_N_YEARS:2",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 4) IN ('2021', '2022') "
      "ORDER BY rowid"),
    Q("n-months-ago", "SELECT Id FROM Case WHERE CreatedDate = N_MONTHS_AGO:3",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 7) = '2023-03' ORDER BY rowid"),
    Q("n-quarters-ago", "SELECT Id FROM Case WHERE CreatedDate = N_QUARTERS_AGO:2",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2022-10-01' AND "
      "'2022-12-31' ORDER BY rowid"),
    Q("last-n-weeks", "SELECT Id FROM Case WHERE CreatedDate = LAST_N_WEEKS:8",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2023-04-16' AND "
      "'2023-06-10' ORDER BY rowid"),
    Q("this-fiscal-year", "SELECT Id FROM Case WHERE CreatedDate = THIS_FISCAL_YEAR",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 4) = '2023' ORDER BY rowid"),
    Q("after-range", "SELECT Id FROM Case WHERE CreatedDate > LAST_MONTH",
      "SELECT Id FROM \"Case\" WHERE CreatedDate > '2023-05-31T23:59:59' ORDER BY rowid"),
    Q("before-range", "SELECT Id FROM Case WHERE CreatedDate < THIS_YEAR",
      "SELECT Id FROM \"Case\" WHERE CreatedDate < '2023-01-01' ORDER BY rowid"),
    Q("not-in-range", "SELECT Id FROM Case WHERE CreatedDate != LAST_YEAR",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 4) <> '2022' ORDER BY rowid"),
    Q("range-and-status", "SELECT Id FROM Case WHERE CreatedDate = LAST_N_MONTHS:12 AND "
      "Status = 'Closed'", "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) "
      "BETWEEN '2022-06-01' AND '2023-05-31' AND Status = 'Closed' ORDER BY rowid"),
    # -- relationship paths -----------------------------------------------------------
    Q("parent-field", "SELECT Id, Account.Name FROM Case LIMIT 5",
      "SELECT c.Id, a.Name FROM \"Case\" c LEFT JOIN Account a ON a.Id = c.AccountId "
      "ORDER BY c.rowid LIMIT 5"),
    Q("owner-name", "SELECT Subject, Owner.Name FROM Case LIMIT 5",
      f"SELECT c.Subject, {n('u')} FROM \"Case\" c LEFT JOIN User u ON u.Id = c.OwnerId "
      "ORDER BY c.rowid LIMIT 5"),
    Q("owner-fields", "SELECT Owner.FirstName, Owner.Email FROM Opportunity LIMIT 3",
      "SELECT u.FirstName, u.Email FROM Opportunity o LEFT JOIN User u ON u.Id = o.OwnerId "
      "ORDER BY o.rowid LIMIT 3"),
    Q("two-levels", "SELECT Contact.Account.Name FROM Case LIMIT 4",
      "SELECT a.Name FROM \"Case\" c LEFT JOIN Contact k ON k.Id = c.ContactId LEFT JOIN "
      "Account a ON a.Id = k.AccountId ORDER BY c.rowid LIMIT 4"),
    Q("three-levels", "SELECT Id, Quote.Opportunity.Owner.Name FROM QuoteLineItem LIMIT 4",
      f"SELECT l.Id, {n('u')} FROM QuoteLineItem l LEFT JOIN Quote q ON q.Id = l.QuoteId "
      "LEFT JOIN Opportunity o ON o.Id = q.OpportunityId LEFT JOIN User u ON "
      "u.Id = o.OwnerId ORDER BY l.rowid LIMIT 4"),
    Q("filter-parent", "SELECT Id FROM Case WHERE Account.ShippingState = 'IL'",
      "SELECT c.Id FROM \"Case\" c JOIN Account a ON a.Id = c.AccountId WHERE "
      "a.ShippingState = 'IL' ORDER BY c.rowid"),
    Q("filter-owner", "SELECT Id FROM Case WHERE Owner.LastName = '{User:0:LastName}'",
      "SELECT c.Id FROM \"Case\" c JOIN User u ON u.Id = c.OwnerId WHERE u.LastName = "
      "'{User:0:LastName}' ORDER BY c.rowid"),
    Q("order-parent", "SELECT Id, Account.Name FROM Opportunity ORDER BY Account.Name LIMIT 6",
      "SELECT o.Id, a.Name FROM Opportunity o LEFT JOIN Account a ON a.Id = o.AccountId "
      "ORDER BY a.Name COLLATE NOCASE, o.rowid LIMIT 6"),
    Q("custom-relationship", "SELECT CaseId__r.Subject, NewValue__c FROM CaseHistory__c "
      "WHERE Field__c = 'Owner Assignment' LIMIT 5", "SELECT c.Subject, h.NewValue__c FROM "
      "CaseHistory__c h LEFT JOIN \"Case\" c ON c.Id = h.CaseId__c WHERE h.Field__c = "
      "'Owner Assignment' ORDER BY h.rowid LIMIT 5"),
    Q("order-account-path", "SELECT Id FROM OrderItem WHERE Order.AccountId = "
      "'{Account:5}'", "SELECT i.Id FROM OrderItem i JOIN \"Order\" o ON o.Id = i.OrderId "
      "WHERE o.AccountId = '{Account:5}' ORDER BY i.rowid"),
    Q("prefixed-path-filter", "SELECT Product2Id FROM OrderItem WHERE "
      "OrderItem.Order.AccountId = '{Account:5}'", "SELECT i.Product2Id FROM OrderItem i "
      "JOIN \"Order\" o ON o.Id = i.OrderId WHERE o.AccountId = '{Account:5}' "
      "ORDER BY i.rowid"),
    Q("product-like", "SELECT Id, Product2.Name FROM OrderItem WHERE Product2.Name LIKE "
      "'%Gateway%'", "SELECT i.Id, p.Name FROM OrderItem i JOIN Product2 p ON p.Id = "
      "i.Product2Id WHERE p.Name LIKE '%Gateway%' ORDER BY i.rowid"),
    Q("pricebookentry-column-spelling", "SELECT PricebookEntry.UnitPrice, PricebookEntryId "
      "FROM OrderItem LIMIT 3", "SELECT e.UnitPrice, i.PriceBookEntryId FROM OrderItem i "
      "LEFT JOIN PricebookEntry e ON e.Id = i.PriceBookEntryId ORDER BY i.rowid LIMIT 3"),
    Q("what-name", "SELECT Subject, What.Name FROM Task LIMIT 4",
      "SELECT t.Subject, o.Name FROM Task t LEFT JOIN Opportunity o ON o.Id = t.WhatId "
      "ORDER BY t.rowid LIMIT 4"),
    Q("junction", "SELECT User.Name, Territory2.Name FROM UserTerritory2Association LIMIT 4",
      f"SELECT {n('u')}, t.Name FROM UserTerritory2Association j LEFT JOIN User u ON "
      "u.Id = j.UserId LEFT JOIN Territory2 t ON t.Id = j.Territory2Id ORDER BY j.rowid "
      "LIMIT 4"),
    Q("email-parent", "SELECT Parent.Subject, Subject FROM EmailMessage LIMIT 3",
      "SELECT c.Subject, e.Subject FROM EmailMessage e LEFT JOIN \"Case\" c ON c.Id = "
      "e.ParentId ORDER BY e.rowid LIMIT 3"),
    Q("converted-account", "SELECT ConvertedAccount.Name FROM Lead WHERE IsConverted = true",
      "SELECT a.Name FROM Lead l LEFT JOIN Account a ON a.Id = l.ConvertedAccountId WHERE "
      "l.IsConverted = 1 ORDER BY l.rowid"),
    Q("null-relationship", "SELECT Id, ContractID__r.Status FROM Opportunity LIMIT 8",
      "SELECT o.Id, k.Status FROM Opportunity o LEFT JOIN Contract k ON k.Id = "
      "o.ContractID__c ORDER BY o.rowid LIMIT 8"),
    Q("lead-custom-lookup", "SELECT LeadId__r.Name FROM VoiceCallTranscript__c LIMIT 3",
      f"SELECT {n('l')} FROM VoiceCallTranscript__c v LEFT JOIN Lead l ON l.Id = "
      "v.LeadId__c ORDER BY v.rowid LIMIT 3"),
    Q("issue-lookup", "SELECT Subject, IssueId__r.Name FROM Case LIMIT 3",
      "SELECT c.Subject, i.Name FROM \"Case\" c LEFT JOIN Issue__c i ON i.Id = c.IssueId__c "
      "ORDER BY c.rowid LIMIT 3"),
    # -- aggregates -------------------------------------------------------------------
    Q("count-all", "SELECT COUNT() FROM Case", "SELECT COUNT(*) FROM \"Case\"", count=True),
    Q("count-where", "SELECT COUNT() FROM Case WHERE Status = 'Closed'",
      "SELECT COUNT(*) FROM \"Case\" WHERE Status = 'Closed'", count=True),
    Q("count-limit", "SELECT COUNT() FROM Case LIMIT 5", "SELECT 5", count=True),
    Q("count-group", "SELECT COUNT() FROM Case GROUP BY Status",
      "SELECT COUNT(DISTINCT Status) FROM \"Case\"", count=True),
    Q("count-id", "SELECT COUNT(Id) FROM Case", "SELECT COUNT(Id) FROM \"Case\""),
    Q("count-field-nulls", "SELECT COUNT(ClosedDate) FROM Case",
      "SELECT COUNT(ClosedDate) FROM \"Case\""),
    Q("group-alias", "SELECT Status, COUNT(Id) cnt FROM Case GROUP BY Status",
      "SELECT Status, COUNT(*) FROM \"Case\" GROUP BY Status ORDER BY Status"),
    Q("group-order-count", "SELECT Status, COUNT(Id) FROM Case GROUP BY Status ORDER BY "
      "COUNT(Id) DESC, Status", "SELECT Status, COUNT(*) FROM \"Case\" GROUP BY Status "
      "ORDER BY COUNT(*) DESC, Status"),
    Q("having", "SELECT OwnerId, COUNT(Id) FROM Case GROUP BY OwnerId HAVING COUNT(Id) > 8 "
      "ORDER BY OwnerId", "SELECT OwnerId, COUNT(*) FROM \"Case\" GROUP BY OwnerId HAVING "
      "COUNT(*) > 8 ORDER BY OwnerId"),
    Q("issue-count-tool", "SELECT IssueId__c, COUNT(Id) IssueCount FROM Case WHERE "
      "OrderItemId__c IN ('{OrderItem:0}', '{OrderItem:1}', '{OrderItem:2}', "
      "'{OrderItem:3}') GROUP BY IssueId__c ORDER BY IssueId__c", "SELECT IssueId__c, "
      "COUNT(*) FROM \"Case\" WHERE OrderItemId__c IN ('{OrderItem:0}', '{OrderItem:1}', "
      "'{OrderItem:2}', '{OrderItem:3}') GROUP BY IssueId__c ORDER BY IssueId__c"),
    Q("sum-avg", "SELECT SUM(Amount), AVG(Amount) FROM Opportunity",
      "SELECT SUM(Amount), AVG(Amount) FROM Opportunity"),
    Q("min-max-date", "SELECT MIN(CloseDate), MAX(CloseDate) FROM Opportunity",
      "SELECT MIN(CloseDate), MAX(CloseDate) FROM Opportunity"),
    Q("max-datetime", "SELECT MAX(CreatedDate) latest FROM Case",
      "SELECT MAX(CreatedDate) FROM \"Case\""),
    Q("count-distinct", "SELECT COUNT_DISTINCT(OwnerId) FROM Case",
      "SELECT COUNT(DISTINCT OwnerId) FROM \"Case\""),
    Q("sum-by-stage", "SELECT StageName, SUM(Amount) total FROM Opportunity GROUP BY "
      "StageName ORDER BY SUM(Amount) DESC", "SELECT StageName, SUM(Amount) FROM "
      "Opportunity GROUP BY StageName ORDER BY SUM(Amount) DESC"),
    Q("group-parent-field", "SELECT Account.ShippingState, COUNT(Id) FROM Case GROUP BY "
      "Account.ShippingState ORDER BY Account.ShippingState", "SELECT a.ShippingState, "
      "COUNT(*) FROM \"Case\" c LEFT JOIN Account a ON a.Id = c.AccountId GROUP BY "
      "a.ShippingState ORDER BY a.ShippingState"),
    Q("group-owner-name", "SELECT Owner.Name, COUNT(Id) FROM Opportunity GROUP BY "
      "Owner.Name ORDER BY Owner.Name", f"SELECT {n('u')} AS nm, COUNT(*) FROM Opportunity "
      "o LEFT JOIN User u ON u.Id = o.OwnerId GROUP BY nm ORDER BY nm COLLATE NOCASE"),
    Q("calendar-year", "SELECT CALENDAR_YEAR(CreatedDate), COUNT(Id) FROM Case GROUP BY "
      "CALENDAR_YEAR(CreatedDate) ORDER BY CALENDAR_YEAR(CreatedDate)", "SELECT "
      "CAST(substr(CreatedDate, 1, 4) AS INTEGER) y, COUNT(*) FROM \"Case\" GROUP BY y "
      "ORDER BY y"),
    Q("calendar-month", "SELECT CALENDAR_MONTH(CreatedDate) m, COUNT(Id) c FROM Case WHERE "
      "CreatedDate = LAST_N_MONTHS:12 GROUP BY CALENDAR_MONTH(CreatedDate) ORDER BY "
      "CALENDAR_MONTH(CreatedDate)", "SELECT CAST(substr(CreatedDate, 6, 2) AS INTEGER) m, "
      "COUNT(*) FROM \"Case\" WHERE substr(CreatedDate, 1, 10) BETWEEN '2022-06-01' AND "
      "'2023-05-31' GROUP BY m ORDER BY m"),
    Q("calendar-quarter", "SELECT CALENDAR_QUARTER(CloseDate), COUNT(Id) FROM Opportunity "
      "GROUP BY CALENDAR_QUARTER(CloseDate) ORDER BY CALENDAR_QUARTER(CloseDate)",
      "SELECT (CAST(substr(CloseDate, 6, 2) AS INTEGER) + 2) / 3 q, COUNT(*) FROM "
      "Opportunity GROUP BY q ORDER BY q"),
    Q("day-only", "SELECT DAY_ONLY(CreatedDate), COUNT(Id) FROM Case GROUP BY "
      "DAY_ONLY(CreatedDate) ORDER BY DAY_ONLY(CreatedDate) DESC LIMIT 3", "SELECT "
      "substr(CreatedDate, 1, 10) d, COUNT(*) FROM \"Case\" GROUP BY d ORDER BY d DESC "
      "LIMIT 3"),
    Q("day-in-week", "SELECT DAY_IN_WEEK(CreatedDate) d, COUNT(Id) FROM Case GROUP BY "
      "DAY_IN_WEEK(CreatedDate) ORDER BY DAY_IN_WEEK(CreatedDate)", "SELECT "
      "CAST(strftime('%w', substr(CreatedDate, 1, 10)) AS INTEGER) + 1 d, COUNT(*) FROM "
      "\"Case\" GROUP BY d ORDER BY d"),
    Q("hour-in-day", "SELECT HOUR_IN_DAY(CreatedDate), COUNT(Id) FROM Case GROUP BY "
      "HOUR_IN_DAY(CreatedDate) ORDER BY HOUR_IN_DAY(CreatedDate)", "SELECT "
      "CAST(substr(CreatedDate, 12, 2) AS INTEGER) h, COUNT(*) FROM \"Case\" GROUP BY h "
      "ORDER BY h"),
    Q("where-calendar-year", "SELECT Id FROM Case WHERE CALENDAR_YEAR(CreatedDate) = 2022",
      "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 4) = '2022' ORDER BY rowid"),
    Q("where-month-and-year", "SELECT Id FROM Case WHERE CALENDAR_MONTH(CreatedDate) = 3 "
      "AND CALENDAR_YEAR(CreatedDate) = 2023", "SELECT Id FROM \"Case\" WHERE "
      "substr(CreatedDate, 1, 7) = '2023-03' ORDER BY rowid"),
    Q("where-day-only", "SELECT Id FROM Case WHERE DAY_ONLY(CreatedDate) = "
      "{day:Case:7:CreatedDate}", "SELECT Id FROM \"Case\" WHERE substr(CreatedDate, 1, 10) "
      "= '{day:Case:7:CreatedDate}' ORDER BY rowid"),
    Q("convert-timezone", "SELECT CALENDAR_YEAR(convertTimezone(CreatedDate)) y, COUNT(Id) "
      "FROM Case GROUP BY CALENDAR_YEAR(convertTimezone(CreatedDate)) ORDER BY "
      "CALENDAR_YEAR(convertTimezone(CreatedDate))", "SELECT CAST(substr(CreatedDate, 1, 4) "
      "AS INTEGER) y, COUNT(*) FROM \"Case\" GROUP BY y ORDER BY y"),
    Q("min-text", "SELECT MIN(Name), MAX(Name) FROM Account",
      "SELECT MIN(Name COLLATE NOCASE), MAX(Name COLLATE NOCASE) FROM Account"),
    Q("sum-quantity", "SELECT SUM(Quantity) FROM OrderItem WHERE Product2Id = "
      "'{Product2:0}'", "SELECT SUM(Quantity) FROM OrderItem WHERE Product2Id = "
      "'{Product2:0}'"),
    Q("discount-breach", "SELECT COUNT(Id), SUM(TotalPrice) FROM QuoteLineItem WHERE "
      "Discount > 20", "SELECT COUNT(*), SUM(TotalPrice) FROM QuoteLineItem WHERE "
      "Discount > 20"),
    Q("avg-having", "SELECT QuoteId, AVG(Discount) FROM QuoteLineItem GROUP BY QuoteId "
      "HAVING AVG(Discount) > 15 ORDER BY QuoteId", "SELECT QuoteId, AVG(Discount) FROM "
      "QuoteLineItem GROUP BY QuoteId HAVING AVG(Discount) > 15 ORDER BY QuoteId"),
    Q("converted-by-owner", "SELECT OwnerId, COUNT(Id) FROM Lead WHERE IsConverted = true "
      "GROUP BY OwnerId ORDER BY COUNT(Id) DESC, OwnerId LIMIT 3", "SELECT OwnerId, "
      "COUNT(*) FROM Lead WHERE IsConverted = 1 GROUP BY OwnerId ORDER BY COUNT(*) DESC, "
      "OwnerId LIMIT 3"),
    Q("aggregate-date-filter", "SELECT COUNT(Id) FROM Case WHERE CreatedDate = THIS_YEAR",
      "SELECT COUNT(*) FROM \"Case\" WHERE substr(CreatedDate, 1, 4) = '2023'"),
    Q("group-two-fields", "SELECT Status, Priority, COUNT(Id) FROM Case GROUP BY Status, "
      "Priority ORDER BY Status, Priority", "SELECT Status, Priority, COUNT(*) FROM \"Case\" "
      "GROUP BY Status, Priority ORDER BY Status, Priority"),
    Q("group-limit", "SELECT Industry, AVG(NumberOfEmployees) FROM Account GROUP BY "
      "Industry ORDER BY Industry LIMIT 2", "SELECT Industry, AVG(NumberOfEmployees) FROM "
      "Account GROUP BY Industry ORDER BY Industry LIMIT 2"),
    Q("history-transfers", "SELECT OldValue__c, COUNT(Id) FROM CaseHistory__c WHERE "
      "Field__c = 'Owner Assignment' AND OldValue__c != null GROUP BY OldValue__c ORDER BY "
      "COUNT(Id) DESC, OldValue__c LIMIT 5", "SELECT OldValue__c, COUNT(*) FROM "
      "CaseHistory__c WHERE Field__c = 'Owner Assignment' AND OldValue__c IS NOT NULL "
      "GROUP BY OldValue__c ORDER BY COUNT(*) DESC, OldValue__c LIMIT 5"),
    # -- semi-joins -------------------------------------------------------------------
    Q("semi-join", "SELECT Id FROM Case WHERE Id IN (SELECT CaseId__c FROM CaseHistory__c "
      "WHERE Field__c = 'Owner Assignment' AND OldValue__c != null)", "SELECT Id FROM "
      "\"Case\" WHERE Id IN (SELECT CaseId__c FROM CaseHistory__c WHERE OldValue__c IS NOT "
      "NULL) ORDER BY rowid"),
    Q("semi-join-parent", "SELECT Id FROM Case WHERE AccountId IN (SELECT Id FROM Account "
      "WHERE ShippingState = 'IL')", "SELECT Id FROM \"Case\" WHERE AccountId IN (SELECT Id "
      "FROM Account WHERE ShippingState = 'IL') ORDER BY rowid"),
    Q("anti-join", "SELECT Id FROM Case WHERE Id NOT IN (SELECT ParentId FROM EmailMessage "
      "WHERE Subject LIKE 'Re:%')", "SELECT Id FROM \"Case\" WHERE Id NOT IN (SELECT "
      "ParentId FROM EmailMessage WHERE Subject LIKE 'Re:%') ORDER BY rowid"),
    Q("semi-join-path", "SELECT Id FROM Opportunity WHERE OwnerId IN (SELECT UserId FROM "
      "UserTerritory2Association WHERE Territory2.Name = 'Pacific Coast')", "SELECT Id "
      "FROM Opportunity WHERE OwnerId IN (SELECT j.UserId FROM UserTerritory2Association j "
      "JOIN Territory2 t ON t.Id = j.Territory2Id WHERE t.Name = 'Pacific Coast') "
      "ORDER BY rowid"),
    Q("semi-join-and", "SELECT Id FROM Quote WHERE Status = 'Accepted' AND OpportunityId IN "
      "(SELECT Id FROM Opportunity WHERE StageName = 'Closed')", "SELECT Id FROM Quote "
      "WHERE Status = 'Accepted' AND OpportunityId IN (SELECT Id FROM Opportunity WHERE "
      "StageName = 'Closed') ORDER BY rowid"),
    # -- errors -----------------------------------------------------------------------
    Q("e-unknown-object", "SELECT Id FROM Foo", error="INVALID_TYPE",
      says="sObject type 'Foo' is not supported"),
    Q("e-unknown-field", "SELECT Foo FROM Case", error="INVALID_FIELD",
      says="No such column 'Foo' on entity 'Case'"),
    Q("e-unknown-parent-field", "SELECT Account.Foo FROM Case", error="INVALID_FIELD",
      says="No such column 'Foo' on entity 'Account'"),
    Q("e-unknown-relationship", "SELECT Foo.Name FROM Case", error="INVALID_FIELD",
      says="Didn't understand relationship 'Foo'"),
    Q("e-field-as-relationship", "SELECT AccountId.Name FROM Case", error="INVALID_FIELD",
      says="Didn't understand relationship 'AccountId'"),
    Q("e-name-entity", "SELECT Owner.Department FROM Case", error="INVALID_FIELD",
      says="No such column 'Department' on entity 'Name'"),
    Q("e-eof", "SELECT Id FROM Case WHERE", error="MALFORMED_QUERY",
      says="unexpected token: '<EOF>'"),
    Q("e-empty", "", error="MALFORMED_QUERY", says="unexpected token: '<EOF>'"),
    Q("e-no-fields", "SELECT FROM Case", error="MALFORMED_QUERY",
      says="unexpected token: 'FROM'"),
    Q("e-and-or-mix", "SELECT Id FROM Case WHERE Status = 'New' AND Priority = 'High' OR "
      "Status = 'Closed'", error="MALFORMED_QUERY", says="unexpected token: 'OR'"),
    Q("e-clause-order", "SELECT Id FROM Case LIMIT 5 ORDER BY Id", error="MALFORMED_QUERY",
      says="unexpected token: 'ORDER'"),
    Q("e-filter-longtext", "SELECT Id FROM Case WHERE Description LIKE '%refund%'",
      error="INVALID_FIELD", says="field 'Description' can not be filtered"),
    Q("e-sort-longtext", "SELECT Id FROM Case ORDER BY Description", error="INVALID_FIELD",
      says="can not be sorted"),
    Q("e-group-longtext", "SELECT Description, COUNT(Id) FROM Case GROUP BY Description",
      error="INVALID_FIELD", says="can not be grouped"),
    Q("e-group-datetime", "SELECT CreatedDate, COUNT(Id) FROM Case GROUP BY CreatedDate",
      error="INVALID_FIELD", says="field 'CreatedDate' can not be grouped"),
    Q("e-group-currency", "SELECT Amount, COUNT(Id) FROM Opportunity GROUP BY Amount",
      error="INVALID_FIELD", says="can not be grouped"),
    Q("e-not-grouped", "SELECT Status, COUNT(Id) FROM Case", error="MALFORMED_QUERY",
      says="Field must be grouped or aggregated: Status"),
    Q("e-not-grouped-2", "SELECT Status, Priority, COUNT(Id) FROM Case GROUP BY Status",
      error="MALFORMED_QUERY", says="Field must be grouped or aggregated: Priority"),
    Q("e-count-with-fields", "SELECT Id, COUNT() FROM Case", error="MALFORMED_QUERY",
      says="COUNT()"),
    Q("e-alias-plain", "SELECT Name n FROM Account", error="MALFORMED_QUERY",
      says="Only aggregate expressions use field aliasing"),
    Q("e-duplicate", "SELECT Id, id FROM Case", error="MALFORMED_QUERY",
      says="duplicate field selected: id"),
    Q("e-bad-id", "SELECT Id FROM Case WHERE AccountId = 'Acme'",
      error="INVALID_QUERY_FILTER_OPERATOR", says="invalid ID field: Acme"),
    Q("e-bad-id-in", "SELECT Id FROM Case WHERE Id IN ('{Case:0}', '12345')",
      error="INVALID_QUERY_FILTER_OPERATOR", says="invalid ID field: 12345"),
    Q("e-date-for-datetime", "SELECT Id FROM Case WHERE CreatedDate > 2023-01-01",
      error="INVALID_FIELD", says="must be of type dateTime and should not be enclosed"),
    Q("e-quoted-date", "SELECT Id FROM Case WHERE CreatedDate > '2023-01-01T00:00:00Z'",
      error="INVALID_FIELD", says="must be of type dateTime"),
    Q("e-datetime-for-date", "SELECT Id FROM Opportunity WHERE CloseDate > "
      "2023-01-01T00:00:00Z", error="INVALID_FIELD", says="must be of type date "),
    Q("e-quoted-number", "SELECT Id FROM Opportunity WHERE Amount > '100'",
      error="INVALID_FIELD", says="must be of type double and should not be enclosed"),
    Q("e-unquoted-string", "SELECT Id FROM Account WHERE Name = 5", error="INVALID_FIELD",
      says="must be of type string and should be enclosed in quotes"),
    Q("e-quoted-bool", "SELECT Id FROM Lead WHERE IsConverted = 'true'",
      error="INVALID_FIELD", says="must be of type boolean"),
    Q("e-bare-word", "SELECT Id FROM Case WHERE Status = Closed", error="MALFORMED_QUERY",
      says="unexpected token: 'Closed'"),
    Q("e-bind-variable", "SELECT Id FROM Case WHERE Id = :caseId", error="MALFORMED_QUERY",
      says="Bind variables only allowed in Apex code"),
    Q("e-like-number", "SELECT Id FROM Opportunity WHERE Amount LIKE '1%'",
      error="INVALID_QUERY_FILTER_OPERATOR", says="LIKE"),
    Q("e-like-id", "SELECT Id FROM Case WHERE AccountId LIKE '001%'",
      error="INVALID_QUERY_FILTER_OPERATOR", says="invalid operator on id field"),
    Q("e-date-literal-on-text", "SELECT Id FROM Case WHERE Subject = TODAY",
      error="INVALID_FIELD", says="must be of type string"),
    Q("e-sum-text", "SELECT SUM(Name) FROM Account", error="INVALID_FIELD",
      says="does not support aggregate operator SUM"),
    Q("e-aggregate-in-where", "SELECT Id FROM Case WHERE COUNT(Id) > 1",
      error="MALFORMED_QUERY", says="Aggregate functions are not allowed"),
    Q("e-having-no-group", "SELECT Id FROM Case HAVING COUNT(Id) > 1",
      error="MALFORMED_QUERY", says="HAVING clause requires GROUP BY"),
    Q("e-offset", "SELECT Id FROM Case OFFSET 3000", error="NUMBER_OUTSIDE_VALID_RANGE",
      says="Maximum SOQL offset allowed is 2000"),
    Q("e-typeof", "SELECT TYPEOF What WHEN Opportunity THEN Name END FROM Task",
      error="MALFORMED_QUERY", says="TYPEOF is not supported"),
    Q("e-for-update", "SELECT Id FROM Case LIMIT 1 FOR UPDATE", error="MALFORMED_QUERY",
      says="FOR UPDATE is not supported"),
    Q("e-dml-update", "UPDATE Case SET Status = 'Closed'", error="MALFORMED_QUERY",
      says="unexpected token: 'UPDATE'"),
    Q("e-dml-delete", "DELETE FROM Case", error="MALFORMED_QUERY",
      says="unexpected token: 'DELETE'"),
    Q("e-dml-insert", "INSERT INTO Case (Subject) VALUES ('x')", error="MALFORMED_QUERY",
      says="unexpected token: 'INSERT'"),
    Q("e-sql-join", "SELECT c.Id FROM Case c JOIN Account a ON a.Id = c.AccountId",
      error="MALFORMED_QUERY", says="unexpected token: 'JOIN'"),
    Q("e-includes", "SELECT Id FROM Case WHERE Status INCLUDES ('New')",
      error="INVALID_FIELD", says="multipicklist"),
    Q("e-double-quotes", "SELECT Id FROM Case WHERE Status = \"Closed\"",
      error="MALFORMED_QUERY", says="no viable alternative at character '\"'"),
    Q("e-unterminated", "SELECT Id FROM Case WHERE Status = 'Closed", error="MALFORMED_QUERY",
      says="'<EOF>'"),
    Q("e-semi-join-field", "SELECT Id FROM Account WHERE Id IN (SELECT Name FROM Account)",
      error="INVALID_FIELD", says="Semi join sub-selects can only select Id"),
    Q("e-child-relationship", "SELECT Name, (SELECT Id FROM Foos) FROM Account",
      error="INVALID_TYPE", says="Didn't understand relationship 'Foos' in FROM part"),
    Q("e-lowercase-find", "find {Acme}", error="MALFORMED_QUERY",
      says="unexpected token: 'find'"),
    Q("e-date-function-on-text", "SELECT CALENDAR_MONTH(Name), COUNT(Id) FROM Account "
      "GROUP BY CALENDAR_MONTH(Name)", error="INVALID_FIELD", says="CALENDAR_MONTH"),
    Q("e-day-only-on-date", "SELECT DAY_ONLY(CloseDate), COUNT(Id) FROM Opportunity GROUP "
      "BY DAY_ONLY(CloseDate)", error="INVALID_FIELD", says="dateTime fields"),
    Q("e-date-function-plain", "SELECT CALENDAR_MONTH(CreatedDate) FROM Case",
      error="MALFORMED_QUERY", says="aggregate query"),
    Q("e-negative-limit", "SELECT Id FROM Case LIMIT -1", error="MALFORMED_QUERY",
      says="unexpected token: '-1'"),
    Q("e-using-scope", "SELECT Id FROM Case USING SCOPE Mine", error="MALFORMED_QUERY",
      says="USING SCOPE Mine is not supported"),
    Q("e-rollup", "SELECT Status, COUNT(Id) FROM Case GROUP BY ROLLUP(Status)",
      error="MALFORMED_QUERY", says="GROUP BY ROLLUP is not supported"),
    Q("e-unknown-date-literal", "SELECT Id FROM Case WHERE CreatedDate = LAST_DECADE",
      error="MALFORMED_QUERY", says="unexpected token: 'LAST_DECADE'"),
    Q("e-trailing-semicolon", "SELECT Id FROM Account;", error="MALFORMED_QUERY",
      says="unexpected token: ';'"),
    Q("e-select-star", "SELECT * FROM Account", error="MALFORMED_QUERY",
      says="unexpected token: '*'"),
    Q("e-literal-without-n", "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS",
      error="MALFORMED_QUERY", says="unexpected token"),
]


def _select_paths(soql: str) -> list[list[str]]:
    """The selected field paths, split by plain text handling (kept independent of the
    parser under test)."""
    head = re.split(r"\s+from\s+", soql, maxsplit=1, flags=re.IGNORECASE)[0]
    fields = re.sub(r"^\s*select\s+", "", head, flags=re.IGNORECASE)
    paths = []
    for item in fields.split(","):
        token = item.strip().split()[0]
        token = re.sub(r"^tolabel\((.*)\)$", r"\1", token, flags=re.IGNORECASE)
        parts = token.split(".")
        if len(parts) > 1 and parts[0].lower() in ("c", "case"):
            parts = parts[1:]
        paths.append(parts)
    return paths


def _walk(record: dict[str, Any], path: list[str]) -> Any:
    node: Any = record
    for part in path:
        if node is None:
            return None
        lower = {k.lower(): k for k in node}
        node = node[lower[part.lower()]]
    return node


def _values(query: Q, records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    aggregate = re.search(r"\b(count|sum|avg|min|max|count_distinct)\s*\(|group by",
                          query.soql, re.IGNORECASE)
    if aggregate:
        return [tuple(normal(v) for k, v in r.items() if k != "attributes") for r in records]
    paths = _select_paths(query.soql)
    return [tuple(normal(_walk(r, p)) for p in paths) for r in records]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_soql(case: Q, b2b: OrgSandbox, raw: sqlite3.Connection) -> None:
    soql = fill(case.soql, raw)
    if case.error:
        with pytest.raises(SalesforceError) as info:
            b2b.query(soql)
        assert info.value.code == case.error, str(info.value)
        assert case.says in info.value.message
        assert str(info.value) == f"{case.error}: {info.value.message}"
        return
    expected = [tuple(normal(v) for v in row) for row in raw.execute(fill(case.sql, raw))]
    result = b2b.soql(soql)
    if case.count:
        assert result.records == []
        assert result.total_size == expected[0][0]
        return
    assert _values(case, result.records) == expected


def test_table_is_large_and_varied() -> None:
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)
    assert sum(1 for c in CASES if c.error) >= 40


def test_cases_are_not_trivially_empty(raw: sqlite3.Connection) -> None:
    """Most oracles return rows, so equality checks real content, not two empty lists."""
    filled = [raw.execute(fill(c.sql, raw)).fetchall() for c in CASES if c.sql]
    assert sum(1 for rows in filled if rows) >= 0.85 * len(filled)
