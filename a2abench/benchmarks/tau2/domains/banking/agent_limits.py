"""The agent's discoverable tools for credit-card payments and credit limits (upstream
`KnowledgeTools`); outputs and error texts are upstream's."""

from __future__ import annotations

from typing import Any

from a2abench.benchmarks.tau2.domains.banking import ids
from a2abench.benchmarks.tau2.domains.banking.tools import BankingToolkit, account_balance
from a2abench.benchmarks.tau2.toolkit import ToolType, tool

_W = ToolType.WRITE
_R = ToolType.READ


def _dollars(value: Any) -> float:
    try:
        return float(str(value).replace("$", "").replace(",", ""))
    except (ValueError, TypeError):
        return 0.0


class _LimitTools(BankingToolkit):
    @tool(_W, discoverable=True)
    def pay_credit_card_from_checking_9182(self, user_id: str, checking_account_id: str,
                                           credit_card_account_id: str, amount: float) -> str:
        if not user_id or not checking_account_id or not credit_card_account_id or amount is None:
            return ("Error: Missing required parameters (user_id, checking_account_id, "
                    "credit_card_account_id, amount).")
        try:
            amount = float(amount)
            if amount <= 0:
                return "Error: Payment amount must be a positive number."
        except (ValueError, TypeError):
            return "Error: Invalid payment amount. Must be a positive number."
        accounts = self.db.data("accounts")
        if checking_account_id not in accounts:
            return f"Error: Checking account '{checking_account_id}' not found."
        checking = accounts[checking_account_id]
        if checking.get("user_id") != user_id:
            return (f"Error: Checking account '{checking_account_id}' does not belong to user "
                    f"'{user_id}'.")
        if checking.get("class") != "checking":
            return f"Error: Account '{checking_account_id}' is not a checking account."
        balance = account_balance(checking)
        if amount > balance:
            return (f"Error: Insufficient funds in checking account. Available balance: "
                    f"${balance:.2f}, requested payment: ${amount:.2f}.")
        cards = self.db.data("credit_card_accounts")
        if credit_card_account_id not in cards:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        card = cards[credit_card_account_id]
        if card.get("user_id") != user_id:
            return (f"Error: Credit card account '{credit_card_account_id}' does not belong to "
                    f"user '{user_id}'.")
        owed = _dollars(card.get("current_balance", "$0.00"))
        if amount > owed:
            return (f"Error: Payment amount (${amount:.2f}) exceeds credit card balance "
                    f"(${owed:.2f}). Please specify an amount up to the outstanding balance.")
        new_checking, new_owed = balance - amount, owed - amount
        self.db.wdata("accounts")[checking_account_id]["current_holdings"] = f"{new_checking:.2f}"
        self.db.wdata("credit_card_accounts")[credit_card_account_id]["current_balance"] = (
            f"${new_owed:.2f}")
        return (f"Payment processed successfully!\n  - Payment Amount: ${amount:.2f}\n"
                f"  - From Checking Account: {checking_account_id}\n"
                f"  - To Credit Card Account: {credit_card_account_id}\n"
                f"  - New Checking Balance: ${new_checking:.2f}\n"
                f"  - New Credit Card Balance: ${new_owed:.2f}\n"
                "The payment has been applied immediately.")

    @tool(_W, discoverable=True)
    def submit_credit_limit_increase_request_7392(self, credit_card_account_id: str,
                                                  user_id: str,
                                                  requested_increase_amount: int) -> str:
        if not credit_card_account_id or not user_id or requested_increase_amount is None:
            return "Error: Missing required parameters."
        try:
            value = float(requested_increase_amount)
        except (TypeError, ValueError):
            return "Error: Invalid requested_increase_amount. Must be a whole number."
        if not value.is_integer():
            return ("Error: Invalid requested_increase_amount. Must be a whole number of "
                    "dollars.")
        amount = int(value)
        if amount <= 0:
            return "Error: Requested increase amount must be positive."
        cards = self.db.data("credit_card_accounts")
        if credit_card_account_id not in cards:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        if cards[credit_card_account_id].get("user_id") != user_id:
            return (f"Error: Credit card account '{credit_card_account_id}' does not belong to "
                    f"user '{user_id}'.")
        request_id = ids.cli_request_id(credit_card_account_id, user_id, amount)
        record = {"request_id": request_id, "credit_card_account_id": credit_card_account_id,
                  "user_id": user_id, "requested_increase_amount": amount,
                  "submitted_at": ids.TODAY, "status": "PENDING"}
        if not self.db.add("credit_limit_increase_requests", request_id, record):
            return "Error: A similar request may already exist."
        return ("Credit limit increase request submitted successfully.\n\n"
                "Executed: submit_credit_limit_increase_request_7392\n"
                f"  - Request ID: {request_id}\n  - Account: {credit_card_account_id}\n"
                f"  - Requested Increase: ${amount:,}\n  - Status: PENDING")

    @tool(_R, discoverable=True)
    def get_credit_limit_increase_history_4829(self, credit_card_account_id: str) -> str:
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        found = self.db.query_text("credit_limit_increase_requests",
                                   f'{{"credit_card_account_id": "{credit_card_account_id}"}}')
        parts = ["Credit limit increase history retrieved.", "",
                 "Executed: get_credit_limit_increase_history_4829",
                 f"Credit limit increase history for account {credit_card_account_id}:"]
        if "No records found" not in found and "No results found" not in found:
            parts.append(found)
        else:
            parts.append("\nNo credit limit increase requests found for this account.")
        return "\n".join(parts)

    @tool(_R, discoverable=True)
    def get_payment_history_6183(self, credit_card_account_id: str, months: int) -> str:
        if not credit_card_account_id or months is None:
            return "Error: Missing required parameters (credit_card_account_id, months)."
        try:
            months = int(months)
            if months <= 0:
                return "Error: months must be a positive integer."
        except (ValueError, TypeError):
            return "Error: Invalid months value. Must be a positive integer."
        payments = [p for p in self.db.data("payment_history").values()
                    if p.get("credit_card_account_id") == credit_card_account_id]
        if not payments:
            return f"No payment history found for account '{credit_card_account_id}'."
        payments.sort(key=lambda p: p.get("payment_date") or "", reverse=True)
        payments = payments[:months]
        on_time = 0
        for payment in payments:
            if payment.get("status") != "ON_TIME":
                break
            on_time += 1
        parts = [f"Payment history for account '{credit_card_account_id}' (last {months} "
                 "months):", f"Consecutive on-time payments: {on_time}"]
        parts.extend(f"\n  - Payment Date: {p.get('payment_date')}\n    Amount: "
                     f"{p.get('amount')}\n    Status: {p.get('status')}" for p in payments)
        return "\n".join(parts)

    @tool(_W, discoverable=True)
    def approve_credit_limit_increase_5847(self, credit_card_account_id: str, user_id: str,
                                           new_credit_limit: int) -> str:
        if not credit_card_account_id or not user_id or new_credit_limit is None:
            return "Error: Missing required parameters."
        cards = self.db.data("credit_card_accounts")
        if credit_card_account_id not in cards:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        card = cards[credit_card_account_id]
        if card.get("user_id") != user_id:
            return (f"Error: Credit card account '{credit_card_account_id}' does not belong to "
                    f"user '{user_id}'.")
        if self._limit_blocked(card, credit_card_account_id, user_id):
            return "Error: Credit limit increase request cannot be approved at this time."
        current = _dollars(card.get("credit_limit", "$0.00"))
        new = float(new_credit_limit)
        self.db.wdata("credit_card_accounts")[credit_card_account_id]["credit_limit"] = (
            f"${new:.2f}")
        request_id = ids.cli_request_id(credit_card_account_id, user_id, new - current)
        self.db.add("credit_limit_increase_requests", request_id, {
            "request_id": request_id, "credit_card_account_id": credit_card_account_id,
            "user_id": user_id, "previous_limit": f"${current:.2f}", "new_limit": f"${new:.2f}",
            "increase_amount": f"${new - current:.2f}", "decision_date": ids.TODAY,
            "status": "APPROVED"})
        return (f"Credit limit increase approved!\n  - Account: {credit_card_account_id}\n"
                f"  - Previous Limit: ${current:.2f}\n  - New Limit: ${new:.2f}\n"
                f"  - Increase: ${new - current:.2f}\n  - Effective Date: {ids.TODAY}\n"
                "The customer will receive a confirmation email.")

    def _limit_blocked(self, card: dict[str, Any], account_id: str, user_id: str) -> bool:
        """Upstream's eligibility checks: pending disputes, pending replacement cards, bad
        standing (one generic error for all)."""
        if any(d.get("user_id") == user_id and d.get("status") in
               ["SUBMITTED", "UNDER_REVIEW", "PENDING"]
               for d in self.db.data("transaction_disputes").values()):
            return True
        if any(o.get("credit_card_account_id") == account_id and o.get("status") in
               ["PENDING", "PROCESSING", "SHIPPED"]
               for o in self.db.data("credit_card_orders").values()):
            return True
        return card.get("account_status", "").upper() in [
            "PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED"]

    @tool(_W, discoverable=True)
    def deny_credit_limit_increase_5848(self, credit_card_account_id: str, user_id: str,
                                        denial_reason: str) -> str:
        if not credit_card_account_id or not user_id or not denial_reason:
            return "Error: Missing required parameters."
        reasons = ["insufficient_account_age", "cooldown_period_active", "pending_disputes",
                   "pending_replacement_card", "past_due_balance", "high_utilization",
                   "insufficient_payment_history", "requested_amount_exceeds_limit", "other"]
        if denial_reason not in reasons:
            return f"Error: Invalid denial_reason. Must be one of: {', '.join(reasons)}"
        if credit_card_account_id not in self.db.data("credit_card_accounts"):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        request_id = ids.cli_request_id(credit_card_account_id, user_id, 0.0)
        self.db.add("credit_limit_increase_requests", request_id, {
            "request_id": request_id, "credit_card_account_id": credit_card_account_id,
            "user_id": user_id, "denial_reason": denial_reason, "decision_date": ids.TODAY,
            "status": "DENIED"})
        return (f"Credit limit increase request denied.\n  - Account: {credit_card_account_id}\n"
                f"  - Denial Reason: {denial_reason}\n  - Date: {ids.TODAY}\n"
                "The customer will receive a notification explaining the denial.")
