"""Call sequences and trajectories for banking_knowledge fidelity, shared by our tests and by
scripts/tau2_banking_golden.py (which runs them through upstream tau2-bench to record hashes).

Pure Python + json only: it is imported by upstream's own venv too.

Per task: the gold actions in order ("gold"), and perturbed copies that reach error paths
("perturb:<kind>"): every discoverable call without its unlock, with an unexpected argument,
with a missing argument, with numbers as strings, and with invalid JSON. Also BM25 and grep
queries with their expected ranked ids and scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Call = dict[str, Any]
DISCOVERABLE_CALLS = ("call_discoverable_agent_tool", "call_discoverable_user_tool")


def tasks(data_root: Path) -> list[dict[str, Any]]:
    folder = data_root / "tau2" / "domains" / "banking_knowledge" / "tasks"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("task_*.json"))]


def _call(action: dict[str, Any]) -> Call:
    return {"name": action["name"], "requestor": action.get("requestor", "assistant"),
            "arguments": dict(action.get("arguments") or {})}


def _perturb(call: Call, kind: str) -> Call | None:
    if call["name"] not in DISCOVERABLE_CALLS:
        return None
    args = dict(call["arguments"])
    inner = json.loads(args.get("arguments", "{}") or "{}")
    if not isinstance(inner, dict):
        return None
    if kind == "extra":
        inner["unexpected_field"] = "x"
    elif kind == "missing":
        if not inner:
            return None
        inner.pop(sorted(inner)[0])
    elif kind == "strings":
        inner = {k: str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
                 for k, v in inner.items()}
    elif kind == "badjson":
        args["arguments"] = "{not json"
        return {**call, "arguments": args}
    args["arguments"] = json.dumps(inner)
    return {**call, "arguments": args}


def sequences(data_root: Path) -> list[dict[str, Any]]:
    out = []
    for task in tasks(data_root):
        gold = [_call(a) for a in task["evaluation_criteria"].get("actions") or []]
        out.append({"id": f"gold:{task['id']}", "task": task["id"], "calls": gold})
        unlocks = [c for c in gold if c["name"] != "unlock_discoverable_agent_tool"]
        out.append({"id": f"nounlock:{task['id']}", "task": task["id"], "calls": unlocks})
        for kind in ("extra", "missing", "strings", "badjson"):
            calls = [(_perturb(c, kind) or c) for c in gold]
            if calls != gold:
                out.append({"id": f"{kind}:{task['id']}", "task": task["id"], "calls": calls})
    return out


QUERIES = [
    "credit card dispute", "how do I open a savings account", "ATM fee rebate",
    "debit card PIN reset", "transfer to human agent reason codes", "annual fee waiver",
    "credit limit increase eligibility", "business checking", "cash back dispute",
    "overdraft", "referral bonus", "lost card replacement expedited shipping",
    "interest rate APY gold account", "Rho-Bank+ subscription", "", "   ",
]
GREP_PATTERNS = ["credit.*card", "fee|charge", "unlock_discoverable_agent_tool", "[unclosed",
                 "ZZZ-no-such-text", "_\\d{4}\\b", "Diamond Elite"]


def prose_free(call: Call, content: str) -> str:
    """The output without upstream docstring prose (what a run without upstream's source can
    still reproduce): unlock/give outputs keep their fixed frame, ATM scans are dropped."""
    if call["name"] == "unlock_discoverable_agent_tool" and "\n\nYou can now use" in content:
        return content.split("\n", 1)[0] + content[content.rindex("\n\nYou can now use"):]
    if call["name"] == "give_discoverable_user_tool" and "\nArguments: " in content:
        return content.split("\n", 1)[0] + content[content.index("\nArguments: "):]
    if "get_atm_deposit_images_8473" in json.dumps(call["arguments"]):
        return ""
    return content
