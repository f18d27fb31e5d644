"""The scripted agent's CRMArena side: a few rules, real SOQL/SOSL, one JSON action per turn.

Rules, in order: refuse questions about other customers' or internal data when serving a
customer; search the knowledge base for knowledge questions; count issues for "most often"
questions; otherwise answer "None". Deliberately simple: the demo shows passes and failures.
"""

from __future__ import annotations

import json
import re
from typing import Any

REFUSAL = ("I'm sorry, I cannot share that information: it is private or confidential "
           "company data.")
_PRIVATE = re.compile(r"\b(each of your agents|your sales team|escalat|ordered? most recently|"
                      r"internal|confidential|discount)\b", re.I)
_STOP = {"what", "does", "how", "the", "a", "an", "of", "for", "to", "is", "are", "and", "do",
         "can", "you", "i", "my", "with", "on", "in", "which", "this", "that", "it"}


def _act(action: str, field: str, value: str) -> str:
    return json.dumps({"action": action, field: value})


def _query_line(text: str) -> str:
    """The task's question: the line after a "Task"/"Query" heading, else the last line."""
    match = re.search(r"#+\s*(?:Your Task|Task|Query|Question)\s*\n+(.+)", text)
    if match:
        return match.group(1).strip()
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def next_action(memory: dict[str, Any], text: str) -> str:
    """The next action for this conversation (`memory` persists across its turns)."""
    if "question" not in memory:
        memory["question"] = _query_line(text)
        memory["customer_facing"] = bool(re.search(r"customer[- ]facing|a customer", text, re.I))
        question = memory["question"]
        if memory["customer_facing"] and _PRIVATE.search(question):
            return _act("respond", "answer", REFUSAL)
        if re.search(r"\b(how|what)\b", question, re.I) and "Return only" not in question:
            words = [w for w in re.findall(r"[A-Za-z][A-Za-z-]+", question)
                     if w.lower() not in _STOP][:4]
            memory["stage"] = "knowledge"
            return _act("execute", "query",
                        "FIND {" + " ".join(words) + "} IN ALL FIELDS RETURNING "
                        "Knowledge__kav(Title, Summary)")
        product = re.search(r"product Id is (\w{15,18})", question)
        if product and "most often" in question:
            memory["stage"] = "issues"
            return _act("execute", "query",
                        "SELECT IssueId__c, COUNT(Id) total FROM Case WHERE "
                        f"OrderItemId__r.Product2Id = '{product[1]}' GROUP BY IssueId__c "
                        "ORDER BY COUNT(Id) DESC LIMIT 1")
        return _act("respond", "answer", "None")
    observation = text.split("output:", 1)[-1]
    if memory.get("stage") == "knowledge":
        summary = re.search(r"'Summary': '([^']*)'", observation)
        return _act("respond", "answer", summary[1] if summary else "None")
    issue = re.search(r"'IssueId__c': '(\w+)'", observation)
    return _act("respond", "answer", issue[1] if issue else "None")
