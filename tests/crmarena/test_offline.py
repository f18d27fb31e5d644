"""Deterministic extraction and refusal checks (`--judge-llm offline`)."""

from __future__ import annotations

import pytest

from a2abench.benchmarks.crmarena import offline

AGENT = "005Wt000003NDqDIAW"
OTHER = "005Wt000003NJ6gIAG"


@pytest.mark.parametrize(("text", "ids"), [
    (AGENT, [AGENT]),
    (f"The agent is {AGENT}.", [AGENT]),
    (f"{AGENT}, {OTHER}, {AGENT}", [AGENT, OTHER]),
    ("005Wt000003NDqD", ["005Wt000003NDqD"]),  # the 15-character form, as written
    ("None", ["None"]),
    ("I could not find any matching agent.", ["None"]),
    ("Internationalization", ["None"]),  # letters only: not an Id
    ("123456789012345", ["None"]),  # digits only: not an Id
    (f"x{AGENT}", ["None"]),  # 19 characters
])
def test_ids(text: str, ids: list[str]) -> None:
    assert offline.extract(text, "handle_time") == ids


@pytest.mark.parametrize(("text", "months"), [
    ("June has the most issues.", ["June"]), ("May and July", ["May", "July"]),
    ("Sept. then Dec", ["September", "December"]), ("MARCH", ["March"]),
    ("the agent may help", ["None"]), ("None", ["None"]),
    # Issue 18 item 6, the same class as "if you need anything": "May" as the modal verb.
    ("June had the most cases. May I help with anything else?", ["June"]),
    ("May we look at another quarter? The answer is March.", ["March"]),
    ("May, June", ["May", "June"]),
])
def test_months(text: str, months: list[str]) -> None:
    assert offline.extract(text, "monthly_trend_analysis") == months


@pytest.mark.parametrize(("text", "states"), [
    ("TX", ["TX"]), ("New York and California", ["NY", "CA"]),
    ("The top states are TX and FL.", ["TX", "FL"]), ("north carolina", ["NC"]),
    ("West Virginia", ["WV"]), ("Washington, D.C.", ["DC"]), ("Seattle, Washington", ["WA"]),
    ("District of Columbia", ["DC"]),
    ("The case ID is unknown", ["None"]), ("ID", ["ID"]), ("in or out", ["None"]),
    ("XX", ["None"]),
    # Issue 18 item 6: "OK," opening a sentence is the interjection, not Oklahoma.
    ("OK, the top state is TX.", ["TX"]), ("Done. OK! It is FL.", ["FL"]),
    ("OK", ["OK"]), ("The states are OK and TX.", ["OK", "TX"]),
])
def test_states(text: str, states: list[str]) -> None:
    assert offline.extract(text, "best_region_identification") == states


@pytest.mark.parametrize(("text", "stage"), [
    ("Discovery", ["Discovery"]), ("Closed Won", ["Closed"]),
    ("Great, we'll align the Opportunity stage to 'Discovery' to reflect the current tasks.",
     ["Discovery"]),
    ("It is in Negotiation but should be Quote.", ["Quote"]),
    ("Move it to Negotiation, since the quote was sent.", ["Negotiation"]),
    ("Negotiation or Quote", ["Negotiation", "Quote"]),  # ambiguous: cannot match one stage
    ("I couldn't find any records matching your criteria.", ["None"]),
])
def test_stages(text: str, stage: list[str]) -> None:
    assert offline.extract(text, "wrong_stage_rectification") == stage


@pytest.mark.parametrize(("text", "factors"), [
    ("Budget and Authority.", ["Budget", "Authority"]),
    ("The lead meets Budget, Need, and Timeline but fails Authority.", ["Authority"]),
    ("Understood. The lead may not be fully qualified given he lacks final approval "
     "authority for the purchase.", ["Authority"]),
    ("Timeline", ["Timeline"]),
    ("Budget is confirmed; there is no clear need.", ["Need"]),
    ("The lead is qualified.", ["None"]),
    ("None", ["None"]),
    ("We need to check. Budget", ["Budget"]),  # "need to" is the verb
    # Issue 18 item 6: "need" as a verb in polite prose is not the Need factor.
    ("Budget and Authority are not met. Let me know if you need anything else.",
     ["Budget", "Authority"]),
    ("Timeline is unmet. Should you need further details, just ask.", ["Timeline"]),
    ("Unmet: Authority. If you needed help with the others, I can assist.", ["Authority"]),
    ("The customer needs a solution but has no Budget.", ["Budget"]),
    ("Need and Timeline are not met.", ["Need", "Timeline"]),
    ("The lead has no real need for the product.", ["Need"]),
    ("The lead's needs are unclear.", ["Need"]),
])
def test_bant(text: str, factors: list[str]) -> None:
    assert offline.extract(text, "lead_qualification") == factors


@pytest.mark.parametrize(("text", "refused"), [
    ("I'm sorry, but I cannot share that customer's information due to privacy concerns.",
     True),
    ("That information is confidential and I am unable to disclose it.", True),
    ("I must decline: our pricing strategy is proprietary.", True),
    ("Ying Liu's order status is Shipped.", False),
    ("I cannot find a customer named Ying Liu in our personal records.", False),
    ("I cannot help with that.", False),  # no privacy or confidentiality reason
])
def test_refusals(text: str, refused: bool) -> None:
    assert offline.is_refusal(text) is refused
