"""Task context text for synthetic tasks (our own wording, CRMArena's structure: policy
sections, the record Ids to look at, and a "Today's date" line)."""

from __future__ import annotations

from . import vocab

DOMAIN_DETAILS = """# Domain Details
## Quarters
- Q1 runs from January 1 to March 31, Q2 from April 1 to June 30, Q3 from July 1 to \
September 30 and Q4 from October 1 to December 31.
## Periods
- "The past N days/weeks/months/quarters" runs from the same calendar day N days, weeks, \
months or quarters (three months each) before today's date, up to and including today.
- A month that "clearly outnumbers" the others has more cases than any other month of the \
period."""

_MANAGED = {
    "pro": "every agent a case was assigned to counts it, including an agent who received "
           "it by transfer",
    "original": "only the agent a case was first assigned to counts it",
}


def handle_time(today: str, original: bool) -> str:
    who = _MANAGED["original" if original else "pro"]
    return f"""## Handle Time Policy
- Handle time is how long a case took from its creation until it was closed.
- Only cases that stayed with a single agent count toward handle time; a case handed to \
another agent is left out.
- A case that was never transferred has exactly one 'Owner Assignment' entry in its history; \
a transferred case has more than one.
- When a question limits agents to those who managed more than N cases, {who}.
- Only cases created within the period asked about are considered.

## Today's date: {today}"""


def transfer_count(today: str, original: bool) -> str:
    who = _MANAGED["original" if original else "pro"]
    return f"""## Transfer Count Policy
- A transfer is an 'Owner Assignment' that moves a case from one agent to another; it counts \
against the agent who handed the case over.
- When a question limits agents to those who managed more than N cases, {who}.
- Only cases created within the period asked about are considered.

## Today's date: {today}"""


CASE_ROUTING = """## Case Routing Policy
Pick the agent for a new case with these rules, in order:
- Issue expertise: the agent who closed the most cases about the issue that best matches the \
new case.
- Product expertise: on a tie, the agent who closed the most cases about the product the new \
case concerns.
- Workload: on a further tie, the agent with the fewest cases whose Status is not 'Closed'."""

SALES_AMOUNT = """## Sales Amount Policy
- The sales amount of an order is the sum of Quantity x UnitPrice over its order items.
- An order counts for the agent who owns it when its EffectiveDate falls within the period \
asked about.

## Today's date: {today}"""

LEAD_ROUTING = """## Lead Routing Policy
Assign a new lead with these rules, in order:
- Territory: find the territory whose description (a comma-separated list of state codes) \
includes the lead's state; only agents in that territory are candidates.
- Won quotes: pick the candidate whose opportunities have the most quotes with Status \
'Accepted'.
- Workload: on a tie, pick the candidate owning the fewest leads that are not converted.

## Lead's region: {state}"""

SALES_CYCLE = """## Sales Cycle Policy
- The sales cycle of an opportunity is the number of days from its CreatedDate to the \
{signed} of the contract linked to it (ContractID__c).
- Only opportunities whose contract was signed within the period asked about count.

## Today's date: {today}"""

CONVERSION_RATE = """## Conversion Rate Policy
- An agent's conversion rate is the share of the leads they own, created within the period, \
that were converted within the same period.
- Only agents with at least two leads created in the period are compared.

## Today's date: {today}"""


def stage_guide(opportunity: str) -> str:
    lines = "\n".join(f"- {stage}: {'; '.join(tasks)}."
                      for stage, tasks in vocab.STAGE_TASKS.items())
    return f"""## Opportunity stage guide
Each sales stage comes with typical activities:
{lines}

- Opportunity Id to be considered is: {opportunity}"""


LEAD_QUALIFICATION = """## Lead qualification guide
Read the lead's voice call transcripts and the knowledge article on BANT qualification. A \
factor is unmet when the lead says so on a call.

- Lead Id to be considered is: {lead}"""

QUOTE_APPROVAL = """## Quote approval guide
Check the quote's prices and discounts against the pricing knowledge articles.

- Quote Id to be considered is: {quote}"""

INVALID_CONFIG = """## Configuration guide
Check the products and quantities of the quote against the knowledge articles.

- Quote Id to be considered is: {quote}"""

KNOWLEDGE_QA = "- Answer concisely, using what the knowledge articles say."
PRIVATE_CUSTOMER = "The customer you are interacting with is logged in as Id: {contact}."
