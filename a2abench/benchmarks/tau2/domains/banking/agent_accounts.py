"""The agent's discoverable tools for bank accounts (upstream `KnowledgeTools`); outputs and
error texts are upstream's."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from a2abench.benchmarks.tau2.domains.banking import ids
from a2abench.benchmarks.tau2.domains.banking.state import format_records
from a2abench.benchmarks.tau2.domains.banking.tools import (
    BankingToolkit,
    account_balance,
    parse_balance,
)
from a2abench.benchmarks.tau2.toolkit import ToolType, tool

_W = ToolType.WRITE
_R = ToolType.READ

# Upstream close_bank_account_7392: early-closure fee and window (days) per account level.
_CHECKING_FEES = {
    "Light Blue Account": (15, 30), "Light Green Account": (15, 30),
    "Green Fee-Free Account": (15, 30), "Blue Account": (25, 60), "Green Account": (25, 60),
    "Evergreen Account": (50, 90), "Bluest Account": (100, 180)}
_SAVINGS_FEES = {
    "Bronze Account": (20, 60), "Silver Account": (35, 90), "Silver Plus Account": (35, 90),
    "Gold Account": (75, 180), "Gold Plus Account": (75, 180), "Gold Years Account": (75, 180),
    "Platinum Account": (150, 270), "Platinum Plus Account": (150, 270),
    "Diamond Elite Account": (150, 270)}


def _age_days(account: dict[str, Any]) -> int:
    try:
        return (ids.NOW - datetime.strptime(account.get("date_opened", ""), "%m/%d/%Y")).days
    except ValueError:
        return 0


def _kind(account: dict[str, Any]) -> Any:
    return account.get("account_type", account.get("class", ""))


def _txn_date(item: tuple[str, dict[str, Any]]) -> datetime:
    return _date(str(item[1].get("date", "")))


@lru_cache(maxsize=4096)
def _date(text: str) -> datetime:
    """A transaction date (strptime is ~20 us; a listing sorts every transaction of the
    account, for each call)."""
    for fmt in ("%m/%d/%Y %H:%M:%S", "%m/%d/%Y"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return datetime.min


class _AccountTools(BankingToolkit):
    @tool(_W, discoverable=True)
    def open_bank_account_4821(self, user_id: str, account_type: str, account_class: str) -> str:
        if not user_id or not account_type or not account_class:
            return "Error: Missing required parameters."
        valid = ["checking", "savings", "business_checking", "business_savings"]
        if account_type not in valid:
            return f"Error: Invalid account_type. Must be one of: {valid}"
        mine = [a for a in self.db.data("accounts").values() if a.get("user_id") == user_id]
        refused = "Error: Account eligibility requirements not met."
        live = ["OPEN", "ACTIVE"]
        if account_type == "savings" and not any(
                _kind(a) in ["checking", "personal_checking"] and a.get("status", "") in live
                and _age_days(a) >= 14 for a in mine):
            return refused
        if account_type == "business_checking":
            if any(a.get("status") == "CLOSED" for a in mine):
                return refused
            if not any(_kind(a) in ["checking", "personal_checking"]
                       and a.get("status", "") in live for a in mine):
                return refused
        if account_type == "business_savings":
            for a in mine:
                if parse_balance(a.get("current_holdings", a.get("balance", 0))) < 0:
                    return refused
            if not any(_kind(a) == "business_checking" and a.get("status", "") in live
                       and _age_days(a) >= 30 for a in mine):
                return refused
        account_id = ids.digest_id(f"account:{user_id}:{account_type}:{account_class}")
        record = {"account_id": account_id, "user_id": user_id, "account_type": account_type,
                  "account_class": account_class, "current_holdings": "0.00", "status": "OPEN",
                  "date_opened": ids.TODAY}
        if not self.db.add("accounts", account_id, record):
            return f"Failed to open account: Account ID '{account_id}' may already exist."
        return (f"Bank account opened successfully!\n  - Account ID: {account_id}\n"
                f"  - User ID: {user_id}\n  - Account Type: {account_type}\n"
                f"  - Account Class: {account_class}\n  - Status: OPEN\n"
                f"  - Initial Balance: $0.00\n  - Date Opened: {ids.TODAY}")

    @tool(_W, discoverable=True)
    def close_bank_account_7392(self, account_id: str, reason: str = "Customer requested closure",
                                waive_early_closure_fee: bool = False) -> str:
        if not account_id:
            return "Error: Missing required parameter (account_id)."
        if account_id not in self.db.data("accounts"):
            return f"Error: Account '{account_id}' not found."
        account = self.db.data("accounts")[account_id]
        if account.get("status") == "CLOSED":
            return f"Error: Account '{account_id}' is already closed."
        balance = account_balance(account)
        fee = 0.0
        if not waive_early_closure_fee:
            level, klass = account.get("level", ""), account.get("class", "")
            rule = (_CHECKING_FEES.get(level) if klass == "checking"
                    else _SAVINGS_FEES.get(level) if klass == "savings" else None)
            opened = account.get("date_opened", "")
            if rule and opened:
                try:
                    age = (ids.NOW - datetime.strptime(opened, "%m/%d/%Y")).days
                    if age < rule[1]:
                        if balance < rule[0]:
                            return "Error: Account unable to be closed."
                        fee = rule[0]
                except ValueError:
                    pass
        if balance - fee != 0:
            return ("Error: Account balance must be $0.00 before closing. Current balance: "
                    f"${balance:.2f}")
        account = self.db.wdata("accounts")[account_id]
        account["status"] = "CLOSED"
        account["date_closed"] = ids.TODAY
        account["closure_reason"] = reason
        account["early_closure_fee_waived"] = waive_early_closure_fee
        return (f"Bank account closed successfully!\n  - Account ID: {account_id}\n"
                f"  - Account Type: {account.get('account_type', 'N/A')}\n"
                f"  - Account Class: {account.get('account_class', 'N/A')}\n"
                f"  - Status: CLOSED\n  - Date Closed: {ids.TODAY}\n  - Reason: {reason}\n"
                "  - Early Closure Fee Waived: "
                f"{'Yes' if waive_early_closure_fee else 'No'}")

    @tool(_R, discoverable=True)
    def get_all_user_accounts_by_user_id_3847(self, user_id: str) -> str:
        if not user_id:
            return "Error: Missing required parameter: user_id"
        bank = self.db.query_text("accounts", f'{{"user_id": "{user_id}"}}')
        cards = self.db.query_text("credit_card_accounts", f'{{"user_id": "{user_id}"}}')
        parts = ["User accounts retrieved successfully.", "",
                 "Executed: get_all_user_accounts_by_user_id_3847", f"Accounts for user {user_id}:",
                 "", "Bank Accounts:"]
        found = "No records found" not in bank and "No results found" not in bank
        parts.append(bank if found else "  No bank accounts found.")
        parts.append("\nCredit Card Accounts:")
        found = "No records found" not in cards and "No results found" not in cards
        parts.append(cards if found else "  No credit card accounts found.")
        return "\n".join(parts)

    @tool(_W, discoverable=True)
    def transfer_funds_between_bank_accounts_7291(self, source_account_id: str,
                                                  destination_account_id: str,
                                                  amount: float) -> str:
        if not source_account_id or not destination_account_id or amount is None:
            return ("Error: Missing required parameters (source_account_id, "
                    "destination_account_id, amount).")
        try:
            amount = float(amount)
        except (ValueError, TypeError):
            return f"Error: Invalid amount '{amount}'. Must be a number."
        if amount <= 0:
            return "Error: Transfer amount must be positive."
        if source_account_id == destination_account_id:
            return "Error: Source and destination accounts cannot be the same."
        accounts = self.db.data("accounts")
        if source_account_id not in accounts:
            return f"Error: Source account '{source_account_id}' not found."
        if destination_account_id not in accounts:
            return f"Error: Destination account '{destination_account_id}' not found."
        if accounts[source_account_id].get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Source account '{source_account_id}' is not active."
        if accounts[destination_account_id].get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Destination account '{destination_account_id}' is not active."
        source_balance = account_balance(accounts[source_account_id])
        if source_balance < amount:
            return (f"Error: Insufficient funds. Source account balance is ${source_balance:.2f}, "
                    f"but transfer amount is ${amount:.2f}.")
        new_source = source_balance - amount
        new_dest = account_balance(accounts[destination_account_id]) + amount
        writable = self.db.wdata("accounts")
        writable[source_account_id]["current_holdings"] = f"${new_source:.2f}"
        writable[destination_account_id]["current_holdings"] = f"${new_dest:.2f}"
        return (f"Transfer completed successfully!\n  - Amount: ${amount:.2f}\n"
                f"  - From: {source_account_id} (new balance: ${new_source:.2f})\n"
                f"  - To: {destination_account_id} (new balance: ${new_dest:.2f})")

    def _credit(self, account_id: str, amount: Any, credit_type: str, kinds: list[str],
                classes: tuple[str, ...], wrong_class: str, prefix: str,
                dollar: str) -> str:
        if not account_id or amount is None or not credit_type:
            return "Error: Missing required parameters."
        try:
            amount = float(amount)
        except (TypeError, ValueError):
            return "Error: Invalid credit amount. Must be a number."
        if amount <= 0:
            return "Error: Credit amount must be positive."
        if credit_type not in kinds:
            return f"Error: Invalid credit_type. Must be one of: {kinds}"
        if account_id not in self.db.data("accounts"):
            return f"Error: Account '{account_id}' not found."
        account = self.db.data("accounts")[account_id]
        if account.get("class", "").lower() not in classes:
            return wrong_class
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active."
        current = account_balance(account)
        new = current + amount
        # Upstream stores checking credits as "$12.34" but savings credits as "12.34".
        self.db.wdata("accounts")[account_id]["current_holdings"] = f"{dollar}{new:.2f}"
        txn = "txn_" + ids.digest_id(f"{prefix}:{account_id}:{credit_type}:{amount}:{ids.TODAY}")
        descriptions = {"rebate_credit": "REBATE CREDIT - CUSTOMER SERVICE",
                        "interest_correction": "INTEREST CORRECTION - CUSTOMER SERVICE",
                        "fee_refund": "FEE REFUND - CUSTOMER SERVICE",
                        "goodwill_credit": "GOODWILL CREDIT - CUSTOMER SERVICE"}
        self.db.wdata("bank_account_transaction_history")[txn] = {
            "transaction_id": txn, "account_id": account_id, "date": ids.TODAY,
            "description": descriptions[credit_type], "amount": amount, "type": credit_type,
            "status": "posted"}
        return (f"\nCredit applied successfully!\n  - Transaction ID: {txn}\n"
                f"  - Account: {account_id}\n  - Credit Type: {credit_type}\n"
                f"  - Amount: ${amount:.2f}\n  - Previous Balance: ${current:.2f}\n"
                f"  - New Balance: ${new:.2f}")

    @tool(_W, discoverable=True)
    def apply_checking_account_credit_5829(self, account_id: str, amount: float,
                                           credit_type: str) -> str:
        return self._credit(
            account_id, amount, credit_type, ["rebate_credit", "fee_refund"], ("checking",),
            f"Error: Account '{account_id}' is not a checking account. Credits can only be "
            "applied to checking accounts.", "checking_credit", "$")

    @tool(_W, discoverable=True)
    def apply_savings_account_credit_6831(self, account_id: str, amount: float,
                                          credit_type: str) -> str:
        return self._credit(
            account_id, amount, credit_type,
            ["interest_correction", "fee_refund", "goodwill_credit"], ("saving", "savings"),
            f"Error: Account '{account_id}' is not a savings account. This tool only applies "
            "to savings accounts.", "savings_credit", "")

    @tool(_W, discoverable=True)
    def submit_interest_discrepancy_report_7294(self, account_id: str, user_id: str,
                                                expected_apy: float, actual_apy: float,
                                                amount_difference: float) -> str:
        if (not account_id or not user_id or expected_apy is None or actual_apy is None
                or amount_difference is None):
            return "Error: Missing required parameters."
        try:
            expected_apy, actual_apy = float(expected_apy), float(actual_apy)
            amount_difference = float(amount_difference)
        except (ValueError, TypeError):
            return "Error: expected_apy, actual_apy, and amount_difference must be numbers."
        account = self.db.data("accounts").get(account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        user = self.db.data("users").get(user_id)
        if user is None:
            return f"Error: User '{user_id}' not found."
        report_id = "IDR_" + ids.digest_id(
            f"interest_report:{account_id}:{user_id}:{expected_apy}:{actual_apy}:{ids.TODAY}")
        # Upstream writes to a table the DB does not have: add_to_db returns False, nothing
        # is stored.
        self.db.add("interest_discrepancy_reports", report_id, {})
        level = account.get("level", "Unknown")
        return (f"\nInterest Discrepancy Report Submitted Successfully!\n"
                f"  - Report ID: {report_id}\n  - Account: {account_id} ({level})\n"
                f"  - Customer: {user.get('name', 'Unknown')}\n"
                f"  - Expected APY: {expected_apy}%\n  - Actual APY: {actual_apy}%\n"
                f"  - APY Difference: {round(expected_apy - actual_apy, 4)}%\n"
                f"  - Amount Difference: ${amount_difference:.2f}\n"
                "  - Status: PENDING_REVIEW\n\nThe backend team will investigate this "
                "discrepancy and ensure correct APY calculations are applied going forward.")

    @tool(_R, discoverable=True)
    def get_bank_account_transactions_9173(self, account_id: str) -> str:
        if not account_id:
            return "Error: Missing required parameter: account_id"
        if account_id not in self.db.data("accounts"):
            return f"Error: Account '{account_id}' not found."
        txns = self.db.query("bank_account_transaction_history", account_id=account_id)
        # Stable sort, most recent first: same-date records keep their stored order.
        txns = sorted(txns, key=_txn_date, reverse=True)
        parts = ["Bank account transactions retrieved successfully.", "",
                 "Executed: get_bank_account_transactions_9173",
                 f"Transactions for account {account_id}:"]
        parts.append(format_records("bank_account_transaction_history", txns) if txns
                     else "\nNo transactions found for this account.")
        return "\n".join(parts)
