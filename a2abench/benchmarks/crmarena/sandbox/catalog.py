# ruff: noqa: E501  (data tables: one field or one object per line)
"""Our own definitions of the CRMArena org objects: field API names, Salesforce types, short
descriptions, and which fields each org (b2b, b2c, original) carries.

API names and types are facts about Salesforce; every description here is written for this
project (the official schema text is CC BY-NC data and is never shipped). Reference fields
say "References <Object> object." so that the same inference function that reads the official
schema records (`schema.infer_references`) derives the relationships from this catalog too.

Types: id, reference, string, textarea (filterable), longtext (not filterable, like Salesforce
long text areas), picklist, email, phone, url, boolean, int, double, currency, percent, date,
datetime.
"""

from __future__ import annotations

from typing import Literal

OrgKind = Literal["b2b", "b2c", "original"]
ORGS: tuple[OrgKind, ...] = ("b2b", "b2c", "original")

# Object.Field | type | description
_FIELDS = """
User.Id|id|Record Id of the employee (agent) user
User.FirstName|string|Given name of the employee
User.LastName|string|Family name of the employee
User.Email|email|Work email address of the employee
User.Phone|phone|Work phone number of the employee
User.Username|string|Login name, unique across the org
User.Alias|string|Short handle shown in lists
User.ProfileId|reference|Id of the permission profile assigned to the employee
User.LanguageLocaleKey|picklist|Display language code such as en_US
User.EmailEncodingKey|picklist|Character set used for outgoing email such as UTF-8
User.TimeZoneSidKey|picklist|Time zone identifier such as America/New_York
User.LocaleSidKey|picklist|Regional format code such as en_US
Account.Id|id|Record Id of the account
Account.Name|string|Account (company or person) name
Account.Description|longtext|Free-text notes about the account
Account.Industry|picklist|Industry sector of the account
Account.NumberOfEmployees|int|Head count of the account
Account.Phone|phone|Main phone number of the account
Account.ShippingState|string|Two-letter state code of the shipping address
Account.ShippingCity|string|City of the shipping address
Account.FirstName|string|Given name of the person account
Account.LastName|string|Family name of the person account
Account.PersonEmail|email|Email address of the person account
Account.RecordTypeId|reference|Id of the record type (person or business account)
Contact.Id|id|Record Id of the contact
Contact.AccountId|reference|Account the contact belongs to. References Account object.
Contact.Email|email|Email address of the contact
Contact.FirstName|string|Given name of the contact
Contact.LastName|string|Family name of the contact
Contact.OwnerId|reference|Employee who owns the contact. References User object.
Case.Id|id|Record Id of the case
Case.AccountId|reference|Customer account of the case. References Account object.
Case.ContactId|reference|Customer contact who raised the case. References Contact object.
Case.OwnerId|reference|Agent currently owning the case. References User object.
Case.CreatedDate|datetime|When the case was opened (UTC)
Case.ClosedDate|datetime|When the case was closed (UTC); empty while open
Case.Description|longtext|Customer's account of the problem
Case.IssueId__c|reference|Id of the Issue__c record the case was classified under
Case.OrderItemId__c|reference|Id of the OrderItem record the case is about
Case.Priority|picklist|Urgency of the case
Case.Status|picklist|Lifecycle state of the case, e.g. New, Working, Closed
Case.Subject|string|One-line summary of the case
Knowledge__kav.Id|id|Record Id of the knowledge article version
Knowledge__kav.Title|string|Headline of the article
Knowledge__kav.Summary|textarea|Short abstract of the article
Knowledge__kav.FAQ_Answer__c|longtext|Body text of the article
Knowledge__kav.UrlName|string|URL slug of the article, unique
ProductCategory.Id|id|Record Id of the product category
ProductCategory.Name|string|Category label
ProductCategory.CatalogId|reference|Id of the catalog holding the category
Product2.Id|id|Record Id of the product
Product2.Name|string|Product name
Product2.Description|textarea|Marketing description of the product
Product2.IsActive|boolean|Whether the product can be sold
Product2.External_ID__c|string|Identifier of the product in outside systems
ProductCategoryProduct.Id|id|Record Id of the category assignment
ProductCategoryProduct.ProductCategoryId|reference|Category side of the assignment. References ProductCategory object.
ProductCategoryProduct.ProductId|reference|Product side of the assignment. References Product2 object.
Pricebook2.Id|id|Record Id of the price book
Pricebook2.Name|string|Price book name
Pricebook2.Description|string|What the price book is for
Pricebook2.IsActive|boolean|Whether the price book is in use
Pricebook2.ValidFrom|datetime|First moment the prices apply (UTC)
Pricebook2.ValidTo|datetime|Last moment the prices apply (UTC)
PricebookEntry.Id|id|Record Id of the price book entry
PricebookEntry.Pricebook2Id|reference|Price book of the entry. References Pricebook2 object.
PricebookEntry.Product2Id|reference|Product priced by the entry. References Product2 object.
PricebookEntry.UnitPrice|currency|List price of one unit
Order.Id|id|Record Id of the order
Order.AccountId|reference|Customer account that placed the order. References Account object.
Order.OwnerId|reference|Sales agent credited with the order. References User object.
Order.EffectiveDate|date|Date the order took effect
Order.Pricebook2Id|reference|Price book used for the order. References Pricebook2 object.
Order.Status|picklist|Order state, Draft or Activated
OrderItem.Id|id|Record Id of the order line
OrderItem.OrderId|reference|Order the line belongs to. References Order object.
OrderItem.PricebookEntryId|reference|Price book entry of the line. References PricebookEntry object.
OrderItem.Product2Id|reference|Product on the line. References Product2 object.
OrderItem.Quantity|double|Units ordered
OrderItem.UnitPrice|currency|Price charged per unit
EmailMessage.Id|id|Record Id of the email
EmailMessage.Subject|string|Subject line
EmailMessage.TextBody|longtext|Plain-text body
EmailMessage.FromAddress|email|Sender address
EmailMessage.ToIds|string|Recipient record Ids
EmailMessage.MessageDate|datetime|When the email was sent (UTC)
EmailMessage.ParentId|reference|Case the email belongs to. References Case object.
EmailMessage.RelatedToId|reference|Record the email is about. References Case and Opportunity objects.
LiveChatTranscript.Id|id|Record Id of the chat transcript
LiveChatTranscript.AccountId|reference|Customer account in the chat. References Account object.
LiveChatTranscript.Body|longtext|Full chat text
LiveChatTranscript.CaseId|reference|Case discussed in the chat. References Case object.
LiveChatTranscript.ContactId|reference|Customer contact in the chat. References Contact object.
LiveChatTranscript.EndTime|datetime|When the chat ended (UTC)
LiveChatTranscript.LiveChatVisitorId|reference|Id of the web visitor session
LiveChatTranscript.OwnerId|reference|Agent who handled the chat. References User object.
Issue__c.Id|id|Record Id of the issue
Issue__c.Name|string|Short label of the issue type
Issue__c.IssueDescription__c|longtext|Longer explanation of the issue type
Issue__c.Description__c|longtext|Longer explanation of the issue type
CaseHistory__c.Id|id|Record Id of the history entry
CaseHistory__c.CaseId__c|reference|Case the entry belongs to. References Case object.
CaseHistory__c.CreatedDate|datetime|When the change happened (UTC)
CaseHistory__c.Field__c|picklist|Kind of change: Case Creation, Owner Assignment or Case Closed
CaseHistory__c.OldValue__c|string|Previous owner (a User Id) for Owner Assignment entries, else empty
CaseHistory__c.NewValue__c|string|New owner (a User Id) for Owner Assignment entries, else empty
Opportunity.Id|id|Record Id of the opportunity
Opportunity.AccountId|reference|Prospect account. References Account object.
Opportunity.Amount|currency|Expected deal value
Opportunity.CloseDate|date|Expected or actual close date
Opportunity.ContactId|reference|Main contact on the deal. References Contact object.
Opportunity.ContractID__c|reference|Contract signed for the deal. References Contract object.
Opportunity.CreatedDate|datetime|When the opportunity was opened (UTC)
Opportunity.Description|longtext|Notes on the deal
Opportunity.Name|string|Deal name
Opportunity.OwnerId|reference|Sales agent working the deal. References User object.
Opportunity.Probability|percent|Estimated chance of winning
Opportunity.StageName|picklist|Sales stage: Qualification, Discovery, Quote, Negotiation or Closed
OpportunityLineItem.Id|id|Record Id of the opportunity product
OpportunityLineItem.OpportunityId|reference|Deal the product belongs to. References Opportunity object.
OpportunityLineItem.PricebookEntryId|reference|Price book entry used. References PricebookEntry object.
OpportunityLineItem.Product2Id|reference|Product on the deal. References Product2 object.
OpportunityLineItem.Quantity|double|Units on the deal
OpportunityLineItem.TotalPrice|currency|Line total after discount
Quote.Id|id|Record Id of the quote
Quote.AccountId|reference|Account quoted. References Account object.
Quote.ContactId|reference|Contact the quote is addressed to. References Contact object.
Quote.CreatedDate|datetime|When the quote was drafted (UTC)
Quote.Description|longtext|Notes on the quote
Quote.ExpirationDate|date|Last day the quote is valid
Quote.Name|string|Quote name
Quote.OpportunityId|reference|Deal the quote belongs to. References Opportunity object.
Quote.Status|picklist|Quote state such as Draft, Needs Review, Approved, Accepted, Denied
QuoteLineItem.Id|id|Record Id of the quote line
QuoteLineItem.Discount|percent|Discount granted on the line, in percent
QuoteLineItem.OpportunityLineItemId|reference|Deal product mirrored by the line. References OpportunityLineItem object.
QuoteLineItem.PricebookEntryId|reference|Price book entry used. References PricebookEntry object.
QuoteLineItem.Product2Id|reference|Product quoted. References Product2 object.
QuoteLineItem.Quantity|double|Units quoted
QuoteLineItem.QuoteId|reference|Quote the line belongs to. References Quote object.
QuoteLineItem.TotalPrice|currency|Line total after discount
QuoteLineItem.UnitPrice|currency|Price per unit before discount
Contract.Id|id|Record Id of the contract
Contract.AccountId|reference|Customer account bound by the contract. References Account object.
Contract.CompanySignedDate|date|Day our company signed
Contract.ContractTerm|int|Length of the contract in months
Contract.CustomerSignedDate|date|Day the customer signed
Contract.Description|longtext|Terms of the contract
Contract.StartDate|date|First day the contract is in force
Contract.Status|picklist|Contract state such as Draft, Activated, Signed
VoiceCallTranscript__c.Id|id|Record Id of the call transcript
VoiceCallTranscript__c.TranscriptBody__c|longtext|Full call text
VoiceCallTranscript__c.Body__c|longtext|Full call text
VoiceCallTranscript__c.CreatedDate|datetime|When the call started (UTC)
VoiceCallTranscript__c.EndTime__c|datetime|When the call ended (UTC)
VoiceCallTranscript__c.LeadId__c|reference|Lead on the call. References Lead object.
VoiceCallTranscript__c.OpportunityId__c|reference|Deal discussed on the call. References Opportunity object.
Task.Id|id|Record Id of the activity
Task.ActivityDate|date|Due date of the activity
Task.Description|longtext|Details of the activity
Task.OwnerId|reference|Agent assigned to the activity. References User object.
Task.Priority|picklist|Importance: Low, Medium, High or Urgent
Task.Status|picklist|Progress: Not Started, In Progress, Completed, Deferred or Waiting
Task.Subject|string|What the activity is
Task.WhatId|reference|Deal the activity supports. References Opportunity object.
Event.Id|id|Record Id of the calendar event
Event.Description|longtext|Agenda or notes
Event.DurationInMinutes|int|Length of the event in minutes
Event.IsAllDayEvent|boolean|Whether the event fills whole days
Event.Location|string|Where the event takes place
Event.OwnerId|reference|Agent hosting the event. References User object.
Event.StartDateTime|datetime|When the event starts (UTC)
Event.Subject|string|Title of the event
Event.WhatId|reference|Deal the event supports. References Opportunity object.
Territory2.Id|id|Record Id of the sales territory
Territory2.Name|string|Territory name
Territory2.Description|textarea|Comma-separated two-letter state codes covered by the territory
UserTerritory2Association.Id|id|Record Id of the territory membership
UserTerritory2Association.Territory2Id|reference|Territory of the membership. References Territory2 object.
UserTerritory2Association.UserId|reference|Agent in the territory. References User object.
Lead.Id|id|Record Id of the lead
Lead.Company|string|Company the lead works for
Lead.ConvertedAccountId|reference|Account created on conversion. References Account object.
Lead.ConvertedContactId|reference|Contact created on conversion. References Contact object.
Lead.ConvertedDate|date|Day the lead was converted
Lead.CreatedDate|datetime|When the lead entered the system (UTC)
Lead.Email|email|Email address of the lead
Lead.FirstName|string|Given name of the lead
Lead.IsConverted|boolean|Whether the lead has been converted
Lead.LastName|string|Family name of the lead
Lead.OwnerId|reference|Agent who owns the lead. References User object.
Lead.Phone|phone|Phone number of the lead
Lead.Status|picklist|Lead stage: New, Contacted, Qualified, Proposal, Negotiation or Closed
Lead.Title|string|Job title of the lead
"""

# Which fields each org's tables carry (API names as the published schema spells them).
_ORG_FIELDS: dict[OrgKind, str] = {
    "b2b": """
User: Id FirstName LastName Email Phone Username Alias ProfileId LanguageLocaleKey EmailEncodingKey TimeZoneSidKey LocaleSidKey
Account: Id Name Description Industry NumberOfEmployees Phone ShippingState
Contact: Id AccountId Email FirstName LastName
Case: Id AccountId ClosedDate ContactId CreatedDate Description IssueId__c OrderItemId__c OwnerId Priority Status Subject
Knowledge__kav: Id FAQ_Answer__c Summary Title UrlName
ProductCategory: Id CatalogId Name
Product2: Id Description External_ID__c IsActive Name
ProductCategoryProduct: Id ProductCategoryId ProductId
Pricebook2: Id Description IsActive Name ValidFrom ValidTo
PricebookEntry: Id Pricebook2Id Product2Id UnitPrice
Order: Id AccountId EffectiveDate OwnerId Pricebook2Id Status
OrderItem: Id OrderId PriceBookEntryId Product2Id Quantity UnitPrice
EmailMessage: Id FromAddress MessageDate ParentId RelatedToId Subject TextBody ToIds
LiveChatTranscript: Id AccountId Body CaseId ContactId EndTime LiveChatVisitorId OwnerId
Issue__c: Id IssueDescription__c Name
CaseHistory__c: Id CaseId__c CreatedDate Field__c NewValue__c OldValue__c
Opportunity: Id AccountId Amount CloseDate ContactId ContractID__c CreatedDate Description Name OwnerId Probability StageName
OpportunityLineItem: Id OpportunityId PricebookEntryId Product2Id Quantity TotalPrice
Quote: Id AccountId ContactId CreatedDate Description ExpirationDate Name OpportunityId Status
QuoteLineItem: Id Discount OpportunityLineItemId PricebookEntryId Product2Id Quantity QuoteId TotalPrice UnitPrice
Contract: Id AccountId CompanySignedDate ContractTerm CustomerSignedDate Description StartDate Status
VoiceCallTranscript__c: Id TranscriptBody__c CreatedDate EndTime__c LeadId__c OpportunityId__c
Task: Id ActivityDate Description OwnerId Priority Status Subject WhatId
Event: Id Description DurationInMinutes IsAllDayEvent Location OwnerId StartDateTime Subject WhatId
Territory2: Id Description Name
UserTerritory2Association: Id Territory2Id UserId
Lead: Id Company ConvertedAccountId ConvertedContactId ConvertedDate CreatedDate Email FirstName IsConverted LastName OwnerId Phone Status Title
""",
    "b2c": """
User: Id FirstName LastName Email Phone Username Alias ProfileId LanguageLocaleKey EmailEncodingKey TimeZoneSidKey LocaleSidKey
Account: Id Description FirstName LastName Name PersonEmail Phone ShippingState
Contact: Id AccountId
Case: Id AccountId ClosedDate ContactId CreatedDate Description IssueId__c OrderItemId__c OwnerId Priority Status Subject
Knowledge__kav: Id FAQ_Answer__c Summary Title UrlName
ProductCategory: Id CatalogId Name
Product2: Id Description External_ID__c IsActive Name
ProductCategoryProduct: Id ProductCategoryId ProductId
Pricebook2: Id Description IsActive Name ValidFrom ValidTo
PricebookEntry: Id Pricebook2Id Product2Id UnitPrice
Order: Id AccountId EffectiveDate OwnerId Pricebook2Id Status
OrderItem: Id OrderId PricebookEntryId Product2Id Quantity UnitPrice
EmailMessage: Id FromAddress MessageDate ParentId RelatedToId Subject TextBody ToIds
LiveChatTranscript: Id AccountId Body CaseId ContactId EndTime LiveChatVisitorId OwnerId
Issue__c: Id Description__c Name
CaseHistory__c: Id CaseId__c CreatedDate Field__c NewValue__c OldValue__c
Opportunity: Id AccountId Amount CloseDate ContactId ContractID__c CreatedDate Description Name OwnerId Probability StageName
OpportunityLineItem: Id OpportunityId PricebookEntryId Product2Id Quantity TotalPrice
Quote: Id AccountId ContactId CreatedDate Description ExpirationDate Name OpportunityId Status
QuoteLineItem: Id Discount OpportunityLineItemId PricebookEntryId Product2Id Quantity QuoteId TotalPrice UnitPrice
Contract: Id AccountId ContractTerm CustomerSignedDate Description StartDate Status
VoiceCallTranscript__c: Id Body__c CreatedDate EndTime__c LeadId__c OpportunityId__c
Task: Id ActivityDate Description OwnerId Priority Status Subject WhatId
Event: Id Description DurationInMinutes IsAllDayEvent Location OwnerId StartDateTime Subject WhatId
Territory2: Id Description Name
UserTerritory2Association: Id Territory2Id UserId
Lead: Id ConvertedAccountId ConvertedContactId ConvertedDate CreatedDate Email FirstName IsConverted LastName OwnerId Phone Status
""",
    "original": """
User: Id Alias Email EmailEncodingKey FirstName LanguageLocaleKey LastName LocaleSidKey Phone TimeZoneSidKey Username
Account: Id FirstName LastName PersonEmail Phone RecordTypeId ShippingCity ShippingState
Contact: Id AccountId Email FirstName LastName OwnerId
Case: Id AccountId ClosedDate ContactId CreatedDate Description IssueId__c OrderItemId__c OwnerId Priority Status Subject
Knowledge__kav: Id FAQ_Answer__c Summary Title UrlName
ProductCategory: Id CatalogId Name
Product2: Id Description External_ID__c IsActive Name
ProductCategoryProduct: Id ProductCategoryId ProductId
Pricebook2: Id Description IsActive Name ValidFrom ValidTo
PricebookEntry: Id Pricebook2Id Product2Id UnitPrice
Order: Id AccountId EffectiveDate Pricebook2Id Status
OrderItem: Id OrderId PriceBookEntryId Product2Id Quantity UnitPrice
EmailMessage: Id FromAddress MessageDate ParentId Subject TextBody ToIds
LiveChatTranscript: Id AccountId Body CaseId ContactId EndTime LiveChatVisitorId OwnerId
Issue__c: Id Name
CaseHistory__c: Id CaseId__c CreatedDate Field__c NewValue__c OldValue__c
""",
}

# Lookups whose target may be a User or a queue: Salesforce answers them through the
# polymorphic "Name" entity (attributes type 'Name', only Name-entity fields reachable).
POLYMORPHIC: frozenset[tuple[str, str]] = frozenset({
    ("Case", "OwnerId"), ("Lead", "OwnerId"), ("Task", "OwnerId"), ("Event", "OwnerId"),
    ("Order", "OwnerId"), ("LiveChatTranscript", "OwnerId"), ("Task", "WhatId"),
    ("Event", "WhatId"), ("EmailMessage", "RelatedToId"),
})

# Fields of the polymorphic Name entity (those a CRMArena User table can provide).
NAME_ENTITY_FIELDS: tuple[str, ...] = (
    "Id", "Name", "FirstName", "LastName", "Alias", "Email", "Phone", "Title", "Username",
    "ProfileId", "Type",
)

# Fields SOSL searches IN NAME FIELDS, per object (others fall back to a `Name` column).
NAME_FIELDS: dict[str, tuple[str, ...]] = {
    "User": ("Name", "FirstName", "LastName"),
    "Contact": ("Name", "FirstName", "LastName"),
    "Lead": ("Name", "FirstName", "LastName", "Company"),
    "Account": ("Name", "FirstName", "LastName"),
    "Case": ("Subject",),
    "EmailMessage": ("Subject",),
    "Task": ("Subject",),
    "Event": ("Subject",),
    "Knowledge__kav": ("Title",),
}

# Person objects whose `Name` is the compound "FirstName LastName" when no column holds it.
COMPOUND_NAME_OBJECTS: frozenset[str] = frozenset({"User", "Contact", "Lead", "Account"})

# Child relationship names Salesforce gives standard lookups (child object, field) -> name.
# Anything else gets the plural of the child object (plus `__r` for custom lookups).
CHILD_RELATIONSHIPS: dict[tuple[str, str], str] = {
    ("EmailMessage", "ParentId"): "EmailMessages",
    ("Task", "WhatId"): "Tasks",
    ("Event", "WhatId"): "Events",
    ("ProductCategoryProduct", "ProductId"): "ProductCategoryProducts",
}


def field_types() -> dict[tuple[str, str], tuple[str, str]]:
    """(object, field) -> (type, description) for every field we know."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for line in _FIELDS.strip().splitlines():
        path, ftype, description = line.split("|")
        obj, field = path.split(".")
        out[(obj, field)] = (ftype, description)
    return out


def org_fields(org: OrgKind) -> dict[str, list[str]]:
    """Object -> field API names (as the published schema spells them) for one org."""
    out: dict[str, list[str]] = {}
    for line in _ORG_FIELDS[org].strip().splitlines():
        obj, names = line.split(":")
        out[obj.strip()] = names.split()
    return out


def org_schema_records(org: OrgKind) -> list[dict[str, object]]:
    """The org's objects in the Hugging Face schema-record shape, with our descriptions.

    Field order is alphabetical (Hugging Face stores `fields` as a struct sorted by name),
    which is the order the official prompt lists them in.
    """
    types = field_types()
    lowered = {(o, f.lower()): v for (o, f), v in types.items()}
    records: list[dict[str, object]] = []
    for obj, names in org_fields(org).items():
        fields = {name: lowered[(obj, name.lower())][1] for name in sorted(names)}
        records.append({"object": obj, "fields": fields})
    return records
