"""The customer's tools (upstream `KnowledgeUserTools`), sharing the agent's DB.

Discoverable user tools only work once the agent handed them over
(`give_discoverable_user_tool` writes `user_discoverable_tools`); each call is logged in
`user_discoverable_tool_calls`. Outputs and error texts are upstream's.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from typing import Any

from a2abench.benchmarks.tau2.domains.banking import ids
from a2abench.benchmarks.tau2.domains.banking.tools import (
    KNOWN_USER_TOOLS,
    BankingToolkit,
    parse_balance,
)
from a2abench.benchmarks.tau2.toolkit import ToolType, tool

_W = ToolType.WRITE

CARD_TYPES = [
    "Bronze Rewards Card", "Business Bronze Rewards Card", "Business Gold Rewards Card",
    "Business Platinum Rewards Card", "Business Silver Rewards Card", "Crypto-Cash Back",
    "Diamond Elite Card", "EcoCard", "Gold Rewards Card", "Green Rewards Card",
    "Platinum Rewards Card", "Silver Rewards Card", "Silver Zoom Card"]
# Upstream CREDIT_CARD_REWARDS: percent back per category ("default" otherwise), in its order.
REWARDS: dict[str, dict[str, float]] = {
    "Bronze Rewards Card": {"default": 1.0},
    "Silver Rewards Card": {"Travel": 4.0, "Software": 4.0, "default": 1.0},
    "Gold Rewards Card": {"default": 2.5},
    "Platinum Rewards Card": {"default": 10.0},
    "Business Bronze Rewards Card": {"default": 1.0},
    "Business Silver Rewards Card": {"Travel": 10.0, "Software": 10.0, "default": 1.0},
    "Green Rewards Card": {"Sustainable": 3.0, "default": 1.0},
    "Business Gold Rewards Card": {"Operations": 2.5, "default": 1.0},
    "Business Platinum Rewards Card": {"Travel": 4.0, "Software": 4.0, "Media": 4.0,
                                       "default": 1.5},
    "Silver Zoom Card": {"Transportation": 3.0, "default": 1.0},
    "Diamond Elite Card": {"default": 5.0},
    "EcoCard": {"Green": 5.0, "default": 1.0},
    "Crypto-Cash Back": {"default": 2.0},
}


class KnowledgeUserTools(BankingToolkit):
    owner = "KnowledgeUserTools"

    def _not_given(self, name: str) -> str | None:
        found = self.db.query_text("user_discoverable_tools", f'{{"tool_name": "{name}"}}')
        if "No records found" in found:
            return (f"Error: Tool '{name}' has not been given to you by the agent. The agent "
                    "must first use `give_discoverable_user_tool` to give this tool to you.")
        return None

    def _log_call(self, name: str, args: dict[str, Any]) -> None:
        self.db.add("user_discoverable_tool_calls", ids.user_tool_call_id(name, args),
                    {"tool_name": name, "arguments": args, "called_at": ids.TODAY,
                     "status": "CALLED"})

    @tool(_W, discoverable=True)
    def submit_cash_back_dispute_0589(self, user_id: str, transaction_id: str) -> str:
        error = self._not_given("submit_cash_back_dispute_0589")
        if error:
            return error
        args = {"user_id": user_id, "transaction_id": transaction_id}
        self._log_call("submit_cash_back_dispute_0589", args)
        dispute = ids.dispute_id(user_id, transaction_id)
        config = self.db.data("task_config")
        auto = bool(config) and config.get("dispute_settings", {}).get(
            "auto_resolve_disputes", False)
        record = {"dispute_id": dispute, "user_id": user_id, "transaction_id": transaction_id,
                  "submitted_at": ids.TODAY, "status": "RESOLVED" if auto else "SUBMITTED"}
        if auto:
            record["resolution"] = "APPROVED"
            status = ("Status: RESOLVED - The dispute has been reviewed and approved. The "
                      "transaction rewards need to be updated.")
        else:
            status = "Status: SUBMITTED - Your dispute has been queued for review."
        stored = self.db.add("cash_back_disputes", dispute, record)
        text = ("Cash back dispute submitted successfully. Your case has been queued for "
                "review.\n\nExecuted: submit_cash_back_dispute_0589\n"
                f"Arguments: {json.dumps(args, indent=2)}\n")
        return text + (f"Dispute ID: {dispute}\n{status}" if stored else
                       "Note: Dispute may have already been submitted for this transaction.")

    @tool(_W, discoverable=True)
    def get_referral_link(self, user_id: str, card_name: str) -> str:
        error = self._not_given("get_referral_link")
        if error:
            return error
        args = {"user_id": user_id, "card_name": card_name}
        self._log_call("get_referral_link", args)
        referral = ids.referral_link_id(user_id, card_name)
        stored = self.db.add("referrals", referral, {
            "referral_id": referral, "referrer_id": user_id, "referred_account_type": card_name,
            "referral_status": "NO_PROGRESS", "date": ids.TODAY})
        text = ("Referral link generated successfully. Share this link with the person you want "
                "to refer.\n\nExecuted: get_referral_link\n"
                f"Arguments: {json.dumps(args, indent=2)}\n")
        return text + (f"Referral ID: {referral}\n"
                       f"Referral link: https://rhobank.com/refer/{referral}" if stored else
                       "Note: A referral link for this card may have already been generated.")

    @tool(ToolType.READ, discoverable=True)
    def get_card_last_4_digits(self, credit_card_account_id: str) -> str:
        error = self._not_given("get_card_last_4_digits")
        if error:
            return error
        args = {"credit_card_account_id": credit_card_account_id}
        self._log_call("get_card_last_4_digits", args)
        found = self.db.query_text("credit_card_accounts",
                                   f'{{"account_id": "{credit_card_account_id}"}}')
        if "No results found" in found or "No records found" in found:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        digest = hashlib.sha256(f"card_last4:{credit_card_account_id}".encode()).hexdigest()
        last4 = "".join(c for c in digest if c.isdigit())[:4].ljust(4, "0")
        return ("Card information retrieved successfully.\n\nExecuted: get_card_last_4_digits\n"
                f"Arguments: {json.dumps(args, indent=2)}\nLast 4 digits of card: {last4}")

    @tool(_W, discoverable=True)
    def deposit_check_3847(self, account_id: str, check_amount: float) -> str:
        error = self._not_given("deposit_check_3847")
        if error:
            return error
        args = {"account_id": account_id, "check_amount": check_amount}
        self._log_call("deposit_check_3847", args)
        try:
            check_amount = float(check_amount)
        except (ValueError, TypeError):
            return f"Error: Invalid check amount '{check_amount}'. Must be a number."
        if check_amount <= 0:
            return "Error: Check amount must be positive."
        if account_id not in self.db.data("accounts"):
            return f"Error: Account '{account_id}' not found."
        account = self.db.data("accounts")[account_id]
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active."
        current = parse_balance(account.get("current_holdings", account.get("balance", 0)))
        new = current + check_amount
        self.db.wdata("accounts")[account_id]["current_holdings"] = f"${new:.2f}"
        return ("Check deposited successfully. Funds will be available according to your "
                "account's deposit policy.\n\nExecuted: deposit_check_3847\n"
                f"Arguments: {json.dumps(args, indent=2)}\nCheck deposit processed!\n"
                f"  - Account: {account_id}\n  - Check Amount: ${check_amount:.2f}\n"
                f"  - Previous Balance: ${current:.2f}\n  - New Balance: ${new:.2f}")

    @tool(_W)
    def apply_for_credit_card(self, card_type: str, customer_name: str, annual_income: float,
                              rho_bank_subscription: bool = False) -> str:
        if card_type not in CARD_TYPES:
            return f"Error: Invalid card_type '{card_type}'. Must be one of: {CARD_TYPES}"
        try:
            annual_income = float(annual_income)
        except (TypeError, ValueError):
            return "Error: Invalid annual_income. Must be a number."
        app_id = ids.application_id(card_type, customer_name, annual_income,
                                    rho_bank_subscription)
        record = {"application_id": app_id, "card_type": card_type,
                  "customer_name": customer_name, "annual_income": annual_income,
                  "rho_bank_subscription": rho_bank_subscription, "status": "PENDING",
                  "date": ids.TODAY}
        if not self.db.add("credit_card_applications", app_id, record):
            return f"Failed to submit application: Record ID '{app_id}' may already exist."
        return ("Credit card application submitted:\nYour application has been successfully "
                "submitted. You will receive a decision within 5-7 business days via email.")

    @tool(_W)
    def submit_referral(self, user_id: str, account_type: str) -> str:
        referral = ids.referral_id(user_id, account_type)
        record = {"referral_id": referral, "referrer_id": user_id,
                  "referred_account_type": account_type, "referral_status": "NO_PROGRESS",
                  "date": ids.TODAY}
        if not self.db.add("referrals", referral, record):
            return f"Failed to submit referral: Record ID '{referral}' may already exist."
        return (f"Referral request submitted successfully!\n  - Referral ID: {referral}\n"
                f"  - Referrer ID: {user_id}\n  - Account Type: {account_type}\n"
                f"  - Status: NO_PROGRESS\n  - Date: {ids.TODAY}\n\n"
                "Share your referral ID with the person you're referring. They will need to use "
                "this when applying for their account.")

    def query_database(self, database_name: str, constraints: str = "{}") -> str:
        """A helper (not a tool) upstream exposes for env functions."""
        return self.db.query_text(database_name, constraints)

    @tool(_W)
    def call_discoverable_user_tool(self, discoverable_tool_name: str,
                                    arguments: str = "{}") -> str:
        method = self.discoverable(discoverable_tool_name)
        if method is None:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            args = json.loads(arguments, parse_int=float)  # upstream: numbers become floats
        except json.JSONDecodeError as e:
            return f"Error: Invalid JSON in arguments: {e}"
        params = inspect.signature(method).parameters
        for name, param in params.items():
            if param.default is inspect.Parameter.empty and name not in args:
                return f"Error: Missing required parameter: {name}"
        for name in args:
            if name not in params:
                return f"Error: Unexpected parameter: {name}"
        try:
            result: str = method(**args)  # every discoverable user tool returns its text
            return result
        except TypeError as e:
            return f"Error: Invalid arguments for tool '{discoverable_tool_name}': {e}"

    @tool(ToolType.READ)
    def list_discoverable_user_tools(self) -> str:
        found = self.db.query_text("user_discoverable_tools", "{}")
        if "No results found" in found:  # never true upstream either (see the agent twin)
            return "No tools have been given to you yet by the agent."
        return f"Tools given to you by the agent:\n{found}"

    @tool(_W)
    def request_human_agent_transfer(self) -> str:
        existing = self.db.query_text("human_transfer_requests", "{}")
        if "No records found" in existing or "No results found" in existing:
            count = 1
        else:  # upstream counts the occurrences of "request_id" in the listing
            count = existing.count("request_id") + 1
        request_id = f"transfer_request_{count}"
        self.db.add("human_transfer_requests", request_id, {
            "request_id": request_id, "request_number": count, "requested_at": ids.TODAY,
            "status": "PENDING"})
        return f"Transfer request #{count} submitted.\nThe agent will process your request."

    @tool(_W)
    def submit_transaction(self, user_id: str, credit_card_type: str, merchant_name: str,
                           amount: float, category: str) -> str:
        if credit_card_type not in REWARDS:
            return (f"Error: Unknown credit card type '{credit_card_type}'. Available types: "
                    f"{list(REWARDS)}")
        txn = ids.transaction_id(user_id, credit_card_type, merchant_name, amount, category)
        rates = REWARDS[credit_card_type]
        rate = rates.get(category, rates["default"])
        points = int(amount * rate)
        record = {"transaction_id": txn, "user_id": user_id,
                  "credit_card_type": credit_card_type, "merchant_name": merchant_name,
                  "transaction_amount": f"${amount:.2f}", "transaction_date": ids.TODAY,
                  "category": category, "status": "COMPLETED",
                  "rewards_earned": f"{points} points"}
        if not self.db.add("credit_card_transaction_history", txn, record):
            return f"Failed to submit transaction: Record ID '{txn}' may already exist."
        return (f"Transaction submitted successfully!\n  - Transaction ID: {txn}\n"
                f"  - User ID: {user_id}\n  - Card Type: {credit_card_type}\n"
                f"  - Merchant: {merchant_name}\n  - Amount: ${amount:.2f}\n"
                f"  - Category: {category}\n  - Date: {ids.TODAY}\n"
                f"  - Rewards Earned: {points} points ({rate}% cashback rate)\n")


KNOWN_USER_TOOLS.append(KnowledgeUserTools)
