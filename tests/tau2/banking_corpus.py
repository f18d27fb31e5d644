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


def _c(tool: str, requestor: str = "assistant", /, **arguments: Any) -> Call:
    return {"name": tool, "requestor": requestor, "arguments": arguments}


def _direct(call: Call) -> Call:
    """A discoverable agent tool called by its own name (upstream dispatches it too)."""
    if call["name"] != "call_discoverable_agent_tool":
        return call
    inner = json.loads(call["arguments"].get("arguments", "{}") or "{}")
    return _c(call["arguments"]["agent_tool_name"], **(inner if isinstance(inner, dict) else {}))


def _edges(user_id: str) -> list[Call]:
    """Hand-picked error paths of the always-visible agent and user tools."""
    return [
        _c("get_current_time"), _c("get_user_information_by_id", user_id=user_id),
        _c("get_user_information_by_id", user_id='x"y'),
        _c("get_user_information_by_name", customer_name="Nobody Here"),
        _c("get_user_information_by_email", email="nobody@example.com"),
        _c("get_referrals_by_user", user_id=user_id),
        _c("get_credit_card_transactions_by_user", user_id=user_id),
        _c("get_credit_card_accounts_by_user", user_id=user_id),
        _c("change_user_email", user_id="nope", new_email="a@b.c"),
        _c("change_user_email", user_id=user_id, new_email="new@example.com"),
        _c("transfer_to_human_agents", summary="s", reason="bogus"),
        _c("transfer_to_human_agents", summary="s"),
        _c("transfer_to_human_agents", summary="s", reason="fraud_or_security_concern"),
        _c("transfer_to_human_agents", summary="s", extra=1),
        _c("log_verification", name="N", user_id=user_id, address="A", email="E",
           phone_number="P", date_of_birth="01/01/1990", time_verified="2025-11-14 03:40:00 EST"),
        _c("log_verification", name="N", user_id=user_id, address="A", email="E",
           phone_number="P", date_of_birth="01/01/1990", time_verified="2025-11-14 03:40:00 EST"),
        _c("list_discoverable_agent_tools"),
        _c("unlock_discoverable_agent_tool", agent_tool_name="no_such_tool_1234"),
        _c("call_discoverable_agent_tool", agent_tool_name="no_such_tool_1234"),
        _c("call_discoverable_agent_tool", agent_tool_name="get_payment_history_6183",
           arguments="{}"),
        _c("unlock_discoverable_agent_tool", agent_tool_name="get_payment_history_6183"),
        _c("unlock_discoverable_agent_tool", agent_tool_name="example_agent_tool_0000"),
        _c("call_discoverable_agent_tool", agent_tool_name="example_agent_tool_0000"),
        _c("call_discoverable_agent_tool", agent_tool_name="example_agent_tool_0000",
           arguments="[1, 2]"),
        _c("call_discoverable_agent_tool", agent_tool_name="example_agent_tool_0000",
           arguments='{"x": 1}'),
        _c("list_discoverable_agent_tools"),
        _c("give_discoverable_user_tool", discoverable_tool_name="query_database"),
        _c("give_discoverable_user_tool", discoverable_tool_name="get_referral_link",
           arguments="{bad"),
        _c("give_discoverable_user_tool", discoverable_tool_name="get_referral_link",
           arguments='{"colour": "red"}'),
        _c("call_discoverable_user_tool", "user", discoverable_tool_name="get_referral_link",
           arguments=json.dumps({"user_id": user_id, "card_name": "Gold Rewards Card"})),
        _c("give_discoverable_user_tool", discoverable_tool_name="get_referral_link",
           arguments=json.dumps({"user_id": user_id})),
        _c("list_discoverable_user_tools", "user"),
        _c("call_discoverable_user_tool", "user", discoverable_tool_name="get_referral_link",
           arguments=json.dumps({"user_id": user_id})),
        _c("call_discoverable_user_tool", "user", discoverable_tool_name="get_referral_link",
           arguments=json.dumps({"user_id": user_id, "card_name": "Gold Rewards Card",
                                 "x": 1})),
        _c("call_discoverable_user_tool", "user", discoverable_tool_name="get_referral_link",
           arguments=json.dumps({"user_id": user_id, "card_name": "Gold Rewards Card"})),
        _c("call_discoverable_user_tool", "user", discoverable_tool_name="get_referral_link",
           arguments=json.dumps({"user_id": user_id, "card_name": "Gold Rewards Card"})),
        _c("call_discoverable_user_tool", "user", discoverable_tool_name="nope_0000"),
        _c("request_human_agent_transfer", "user"), _c("request_human_agent_transfer", "user"),
        _c("submit_transaction", "user", user_id=user_id, credit_card_type="Nope Card",
           merchant_name="M", amount=10.5, category="Travel"),
        _c("submit_transaction", "user", user_id=user_id, credit_card_type="Silver Rewards Card",
           merchant_name="M", amount=127.43, category="Travel"),
        _c("submit_transaction", "user", user_id=user_id, credit_card_type="Silver Rewards Card",
           merchant_name="M", amount=127.43, category="Travel"),
        _c("apply_for_credit_card", "user", card_type="Nope", customer_name="N",
           annual_income=1),
        _c("apply_for_credit_card", "user", card_type="Gold Rewards Card", customer_name="N",
           annual_income=100000),
        _c("apply_for_credit_card", "user", card_type="Gold Rewards Card", customer_name="N",
           annual_income=100000.0),
        _c("apply_for_credit_card", "user", card_type="Gold Rewards Card", customer_name="N",
           annual_income="lots"),
        _c("submit_referral", "user", user_id=user_id, account_type="Blue Account"),
        _c("submit_referral", "user", user_id=user_id, account_type="Blue Account"),
        _c("no_such_tool"), _c("get_current_time", "user"),
        _c("get_current_time", requestor="user"),  # an argument named like upstream's own
    ]


def sequences(data_root: Path) -> list[dict[str, Any]]:
    out = []
    all_tasks = tasks(data_root)
    first = all_tasks[0]
    user_id = next((a["arguments"]["user_id"] for t in all_tasks
                    for a in t["evaluation_criteria"].get("actions") or []
                    if a["name"] == "log_verification"), "")
    out.append({"id": "edges", "task": first["id"], "calls": _edges(user_id)})
    for task in all_tasks:
        gold = [_call(a) for a in task["evaluation_criteria"].get("actions") or []]
        out.append({"id": f"gold:{task['id']}", "task": task["id"], "calls": gold})
        unlocks = [c for c in gold if c["name"] != "unlock_discoverable_agent_tool"]
        out.append({"id": f"nounlock:{task['id']}", "task": task["id"], "calls": unlocks})
        for kind in ("extra", "missing", "strings", "badjson"):
            calls = [(_perturb(c, kind) or c) for c in gold]
            if calls != gold:
                out.append({"id": f"{kind}:{task['id']}", "task": task["id"], "calls": calls})
        direct = [_direct(c) for c in gold]
        if direct != gold:
            out.append({"id": f"direct:{task['id']}", "task": task["id"], "calls": direct})
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
