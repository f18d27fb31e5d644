"""The agent's discoverable tools for debit cards (upstream `KnowledgeTools`); outputs and
error texts are upstream's."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from a2abench.benchmarks.tau2.domains.banking import ids
from a2abench.benchmarks.tau2.domains.banking.state import BankingDB
from a2abench.benchmarks.tau2.domains.banking.tools import BankingToolkit, title, validate_pin
from a2abench.benchmarks.tau2.toolkit import ToolType, tool

_W = ToolType.WRITE
_R = ToolType.READ

_ACTIVATION_TOOL = {
    "new_account": "activate_debit_card_8291", "first_card": "activate_debit_card_8291",
    "lost": "activate_debit_card_8292", "stolen": "activate_debit_card_8292",
    "fraud": "activate_debit_card_8292", "expired": "activate_debit_card_8293",
    "damaged": "activate_debit_card_8293", "upgrade": "activate_debit_card_8293",
    "bank_reissue": "activate_debit_card_8293"}
_ATM_DEFAULTS = {
    "blue account": 500, "green account": 600, "light blue account": 400,
    "green fee-free account": 500, "evergreen account": 750, "bluest account": 1500,
    "dark green account": 300, "gold years account": 600, "purple account": 1000}


def _check_activation(db: BankingDB, card_id: Any, last4: Any, expiry: Any, cvv: Any, pin: Any,
                      allowed: list[str], name: str) -> str | None:
    """Upstream `_validate_activation_common`: the error text, or None."""
    if not all([card_id, last4, expiry, cvv, pin]):
        return ("Error: Missing required parameters. Required: card_id, last_4_digits, "
                "expiration_date, cvv, pin.")
    problem = validate_pin(pin)
    if problem:
        return f"Error: {problem}"
    if not cvv.isdigit() or len(cvv) != 3:
        return "Error: CVV must be exactly 3 digits."
    if not last4.isdigit() or len(last4) != 4:
        return "Error: Last 4 digits must be exactly 4 digits."
    cards = db.data("debit_cards")
    if card_id not in cards:
        return f"Error: Debit card '{card_id}' not found."
    card = cards[card_id]
    reason = card.get("issue_reason", "new_account")
    if reason not in allowed:
        return (f"Error: Wrong activation tool. This card has issue_reason='{reason}'. Please "
                f"use {_ACTIVATION_TOOL.get(reason, 'unknown')} instead of {name}.")
    if card.get("status") == "ACTIVE":
        return f"Error: Debit card '{card_id}' is already active."
    if card.get("status") != "PENDING":
        return (f"Error: Debit card '{card_id}' cannot be activated. Current status: "
                f"{card.get('status')}. Only PENDING cards can be activated.")
    if card.get("last_4_digits") != last4:
        return "Error: Card verification failed. The last 4 digits do not match our records."
    account_id = card.get("account_id")
    if (account_id and account_id in db.data("accounts")
            and db.data("accounts")[account_id].get("status") != "OPEN"):
        return (f"Error: The linked checking account '{account_id}' is no longer open. "
                "Card cannot be activated.")
    return None


def _expiry(order_date: str) -> str:
    try:
        parts = order_date.split("/")
        month, year = parts[0], str(int(parts[2]) + 4)
        day = ("31" if month in ["01", "03", "05", "07", "08", "10", "12"]
               else "28" if month == "02" else "30")
        return f"{month}/{day}/{year}"
    except (ValueError, IndexError):
        return "12/31/2029"


class _DebitTools(BankingToolkit):
    @tool(_W, discoverable=True)
    def order_debit_card_5739(self, account_id: str, user_id: str, delivery_option: str,
                              delivery_fee: float, card_design: str, design_fee: float,
                              shipping_address: str,
                              excess_replacement_fee: float | None = None) -> str:
        excess: Any = excess_replacement_fee or 0
        try:
            delivery_fee = float(delivery_fee) if delivery_fee is not None else None
        except (TypeError, ValueError):
            return "Error: delivery_fee must be a number."
        try:
            design_fee = float(design_fee) if design_fee is not None else None
        except (TypeError, ValueError):
            return "Error: design_fee must be a number."
        try:
            excess = float(excess)
        except (TypeError, ValueError):
            excess = 0
        if not all([account_id, user_id, delivery_option, delivery_fee is not None, card_design,
                    design_fee is not None, shipping_address]):
            return ("Error: Missing required parameters. Required: account_id, user_id, "
                    "delivery_option, delivery_fee, card_design, design_fee, shipping_address.")
        deliveries = ["STANDARD", "EXPEDITED", "RUSH"]
        if delivery_option.upper() not in deliveries:
            return f"Error: Invalid delivery_option. Must be one of: {deliveries}"
        delivery_option = delivery_option.upper()
        designs = ["CLASSIC", "PREMIUM", "CUSTOM"]
        if card_design.upper() not in designs:
            return f"Error: Invalid card_design. Must be one of: {designs}"
        card_design = card_design.upper()
        if account_id not in self.db.data("accounts"):
            return f"Error: Account '{account_id}' not found."
        account = self.db.data("accounts")[account_id]
        if account.get("class") != "checking":
            return (f"Error: Debit cards can only be ordered for checking accounts. Account "
                    f"'{account_id}' is a {account.get('class')} account.")
        if account.get("status") != "OPEN":
            return (f"Error: Account must be OPEN. Account '{account_id}' has status: "
                    f"{account.get('status')}")
        if account.get("user_id") != user_id:
            return f"Error: Account '{account_id}' does not belong to user '{user_id}'."
        try:
            holdings = float(str(account.get("current_holdings", "0")).replace(",", ""))
        except ValueError:
            holdings = 0.0
        if holdings < 25.0:
            return ("Error: Account must have a minimum balance of $25. Current balance: "
                    f"${holdings:.2f}")
        for order in self.db.data("debit_card_orders").values():
            if order.get("account_id") == account_id and order.get("status") == "PENDING":
                return (f"Error: There is already a pending debit card order for account "
                        f"'{account_id}'.")
        cards = self.db.data("debit_cards")
        if sum(1 for c in cards.values()
               if c.get("account_id") == account_id and c.get("status") == "ACTIVE") >= 1:
            return (f"Error: Account '{account_id}' already has an active debit card. Maximum "
                    "1 active card per checking account.")
        total = delivery_fee + design_fee + excess
        if total > 0 and holdings < total:
            return (f"Error: Insufficient funds for fees. Total fees: ${total:.2f}. Current "
                    f"balance: ${holdings:.2f}")
        expected = {"STANDARD": "7-10 business days", "EXPEDITED": "3-5 business days",
                    "RUSH": "1-2 business days"}[delivery_option]
        order_id = ids.debit_card_order_id(account_id, user_id, delivery_option)
        record = {"order_id": order_id, "account_id": account_id, "user_id": user_id,
                  "delivery_option": delivery_option, "card_design": card_design,
                  "shipping_address": shipping_address, "delivery_fee": delivery_fee,
                  "design_fee": design_fee, "excess_replacement_fee": excess,
                  "total_fee": total, "order_date": ids.TODAY,
                  "expected_delivery": expected, "status": "PENDING"}
        if not self.db.add("debit_card_orders", order_id, record):
            return "Error: Failed to create debit card order. Order may already exist."
        fees: list[str] = []
        if total > 0:
            self.db.wdata("accounts")[account_id]["current_holdings"] = f"{holdings - total:.2f}"
            if delivery_fee > 0:
                fees.append(f"Delivery ${delivery_fee}")
            if design_fee > 0:
                fees.append(f"Design ${design_fee}")
            if excess > 0:
                fees.append(f"Excess Replacement ${excess:.0f}")
            fee_txn = f"btxn_dcfee_{order_id[-8:]}"
            self.db.add("bank_account_transaction_history", fee_txn, {
                "transaction_id": fee_txn, "account_id": account_id, "date": ids.TODAY,
                "description": f"DEBIT CARD ORDER FEE - {', '.join(fees)}", "amount": -total,
                "type": "debit_card_fee", "status": "posted"})
        card_id = ids.debit_card_id(account_id, user_id, ids.TODAY)
        seed = f"card_details:{card_id}"
        last4 = "".join(c for c in ids.digest_id(seed + ":last4", 8) if c.isdigit())[:4]
        cvv = "".join(c for c in ids.digest_id(seed + ":cvv", 6) if c.isdigit())[:3]
        holder = "CARDHOLDER"
        if user_id in self.db.data("users"):
            holder = self.db.data("users")[user_id].get("name", "CARDHOLDER").upper()
        existing = [c for c in self.db.data("debit_cards").values()
                    if c.get("account_id") == account_id]
        closed = next((c for c in existing if c.get("status") == "CLOSED"), None)
        if closed:
            why = closed.get("closure_reason", "first_card")
            reason = (("fraud" if why == "fraud_suspected" else why)
                      if why in ["lost", "stolen", "fraud", "fraud_suspected"] else "first_card")
        else:
            reason = "first_card" if existing else "new_account"
        self.db.add("debit_cards", card_id, {
            "card_id": card_id, "account_id": account_id, "user_id": user_id,
            "cardholder_name": holder, "last_4_digits": last4.zfill(4), "cvv": cvv.zfill(3),
            "status": "PENDING", "issue_date": ids.TODAY, "expiration_date": _expiry(ids.TODAY),
            "card_design": card_design, "issue_reason": reason})
        parts = ["Debit Card Order Confirmed", f"Order ID: {order_id}", f"Card ID: {card_id}",
                 f"Linked Account: {account_id}", f"Delivery Option: {delivery_option}",
                 f"Card Design: {card_design}", f"Shipping Address: {shipping_address}",
                 f"Expected Delivery: {expected}", "",
                 "Note: Card will arrive with status PENDING. Customer must call to activate "
                 "after receiving the card."]
        if total > 0:
            details = []
            if delivery_fee > 0:
                details.append(f"Delivery: ${delivery_fee}")
            if design_fee > 0:
                details.append(f"Design: ${design_fee}")
            if excess > 0:
                details.append(f"Excess Replacement: ${excess:.0f}")
            parts.append(f"Total Fees: ${total:.2f} ({', '.join(details)}) - CHARGED to "
                         f"account {account_id}")
            parts.append(f"New Account Balance: ${holdings - total:.2f}")
        else:
            parts.append("Total Fees: $0 (No additional charges)")
        return "\n".join(parts)

    def _activate(self, card_id: Any, last4: Any, expiry: Any, cvv: Any, pin: Any,
                  allowed: list[str], name: str) -> tuple[str | None, dict[str, Any]]:
        error = _check_activation(self.db, card_id, last4, expiry, cvv, pin, allowed, name)
        if error:
            return error, {}
        card = self.db.wdata("debit_cards")[card_id]
        card["status"] = "ACTIVE"
        card["activated_date"] = ids.TODAY
        return None, card

    def _others(self, card_id: str, account_id: Any) -> list[tuple[str, dict[str, Any]]]:
        return [(cid, c) for cid, c in self.db.wdata("debit_cards").items()
                if cid != card_id and c.get("account_id") == account_id
                and c.get("status") == "ACTIVE"]

    @tool(_W, discoverable=True)
    def activate_debit_card_8291(self, card_id: str, last_4_digits: str, expiration_date: str,
                                 cvv: str, pin: str) -> str:
        error, card = self._activate(card_id, last_4_digits, expiration_date, cvv, pin,
                                     ["new_account", "first_card"], "activate_debit_card_8291")
        if error:
            return error
        gone = []
        for other_id, other in self._others(card_id, card.get("account_id")):
            other.update({"status": "DEACTIVATED", "deactivated_date": ids.TODAY,
                          "deactivation_reason": "New card activated"})
            gone.append(other_id)
        parts = ["New Debit Card Activation Successful", f"Card ID: {card_id}", "Status: ACTIVE",
                 f"Activation Date: {ids.TODAY}", "",
                 "Your card is now ready to use at any ATM or point of sale terminal.",
                 "For security, please sign the back of your card."]
        if gone:
            parts.append(f"\nNote: Previous card(s) have been deactivated: {', '.join(gone)}")
        return "\n".join(parts)

    @tool(_W, discoverable=True)
    def activate_debit_card_8292(self, card_id: str, last_4_digits: str, expiration_date: str,
                                 cvv: str, pin: str) -> str:
        error, card = self._activate(card_id, last_4_digits, expiration_date, cvv, pin,
                                     ["lost", "stolen", "fraud"], "activate_debit_card_8292")
        if error:
            return error
        reason = card.get("issue_reason", "lost")
        gone = []
        for other_id, other in self._others(card_id, card.get("account_id")):
            other.update({"status": "DEACTIVATED", "deactivated_date": ids.TODAY,
                          "deactivation_reason": f"Replacement card activated ({reason})"})
            gone.append(other_id)
        parts = ["Replacement Debit Card Activation Successful", f"Card ID: {card_id}",
                 f"Replacement Reason: {title(reason)}", "Status: ACTIVE",
                 f"Activation Date: {ids.TODAY}", "",
                 "Your replacement card is now ready to use.", "",
                 "IMPORTANT SECURITY REMINDERS:",
                 "- Please review your recent transactions for any unauthorized charges",
                 "- Report any suspicious activity immediately"]
        if reason == "fraud":
            parts.append("- Since fraud was suspected, we recommend changing your online "
                         "banking password")
        if gone:
            parts.append(f"\nPrevious card(s) have been deactivated for security: "
                         f"{', '.join(gone)}")
        return "\n".join(parts)

    @tool(_W, discoverable=True)
    def activate_debit_card_8293(self, card_id: str, last_4_digits: str, expiration_date: str,
                                 cvv: str, pin: str) -> str:
        error, card = self._activate(card_id, last_4_digits, expiration_date, cvv, pin,
                                     ["expired", "damaged", "upgrade", "bank_reissue"],
                                     "activate_debit_card_8293")
        if error:
            return error
        reason = card.get("issue_reason", "expired")
        grace = []
        for other_id, other in self._others(card_id, card.get("account_id")):
            other.update({"status": "GRACE_PERIOD", "grace_period_ends": ids.TODAY,
                          "deactivation_reason": f"Reissued card activated ({reason})"})
            grace.append(other_id)
        parts = ["Reissued Debit Card Activation Successful", f"Card ID: {card_id}",
                 f"Reissue Reason: {title(reason)}", "Status: ACTIVE",
                 f"Activation Date: {ids.TODAY}", "", "Your reissued card is now ready to use."]
        if grace:
            parts.append(f"\nNote: Your previous card(s) ({', '.join(grace)}) will remain "
                         "active for 24 hours as a grace period.")
            parts.append("After 24 hours, the old card(s) will be automatically deactivated.")
        if reason in ["expired", "bank_reissue"]:
            parts.append("\nReminder: If your card number changed, please update any recurring "
                         "payments with your new card details.")
        return "\n".join(parts)

    @tool(_W, discoverable=True)
    def close_debit_card_4721(self, card_id: str, reason: str) -> str:
        if not card_id or not reason:
            return "Error: Missing required parameters. Required: card_id, reason."
        reasons = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed",
                   "account_closing"]
        if reason.lower() not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        reason = reason.lower()
        if card_id not in self.db.data("debit_cards"):
            return f"Error: Debit card '{card_id}' not found."
        previous = self.db.data("debit_cards")[card_id].get("status")
        if previous not in ["ACTIVE", "PENDING"]:
            return (f"Error: Debit card '{card_id}' cannot be closed. Current status: {previous}. "
                    "Only ACTIVE or PENDING cards can be closed.")
        self.db.wdata("debit_cards")[card_id].update(
            {"status": "CLOSED", "closed_date": ids.TODAY, "closure_reason": reason})
        parts = ["Debit Card Closed Successfully", f"Card ID: {card_id}",
                 f"Previous Status: {previous}", "New Status: CLOSED",
                 f"Closure Reason: {title(reason)}", f"Closure Date: {ids.TODAY}", ""]
        if reason in ["lost", "stolen", "fraud_suspected"]:
            parts.append("IMPORTANT: This card has been immediately deactivated for security.")
            parts.append("Any pending transactions may still be processed.")
            if reason == "fraud_suspected":
                parts.append("Please advise the customer to review recent transactions and file "
                             "disputes for any unauthorized charges.")
                parts.append("Also recommend changing their online banking password.")
        parts += ["", "Note: This card cannot be reactivated. If the customer needs a new card, "
                  "they can order one through the standard ordering process.",
                  "Any recurring payments linked to this card will need to be updated with new "
                  "payment information."]
        return "\n".join(parts)

    @tool(_W, discoverable=True)
    def freeze_debit_card_3892(self, card_id: str) -> str:
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if card_id not in self.db.data("debit_cards"):
            return f"Error: Debit card '{card_id}' not found."
        status = self.db.data("debit_cards")[card_id].get("status")
        if status == "FROZEN":
            return f"Error: Debit card '{card_id}' is already frozen."
        if status != "ACTIVE":
            return (f"Error: Debit card '{card_id}' cannot be frozen. Current status: {status}. "
                    "Only ACTIVE cards can be frozen.")
        self.db.wdata("debit_cards")[card_id].update({"status": "FROZEN",
                                                     "frozen_date": ids.TODAY})
        return "\n".join([
            "Debit Card Frozen Successfully", f"Card ID: {card_id}", "Status: FROZEN",
            f"Frozen Date: {ids.TODAY}", "", "While frozen:",
            "- All new purchase transactions will be declined",
            "- Recurring payments and subscriptions will be declined",
            "- Pending transactions already authorized may still process", "",
            "To unfreeze, the customer can call customer service or use the mobile app.",
            "If the card is confirmed lost or stolen, recommend closing the card permanently "
            "instead."])

    @tool(_W, discoverable=True)
    def unfreeze_debit_card_3893(self, card_id: str) -> str:
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if card_id not in self.db.data("debit_cards"):
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.data("debit_cards")[card_id]
        if card.get("status") == "ACTIVE":
            return f"Error: Debit card '{card_id}' is already active."
        if card.get("status") != "FROZEN":
            return (f"Error: Debit card '{card_id}' cannot be unfrozen. Current status: "
                    f"{card.get('status')}. Only FROZEN cards can be unfrozen.")
        account_id = card.get("account_id")
        if (account_id and account_id in self.db.data("accounts")
                and self.db.data("accounts")[account_id].get("status") != "OPEN"):
            return (f"Error: The linked checking account '{account_id}' is no longer open. "
                    "Card cannot be unfrozen.")
        self.db.wdata("debit_cards")[card_id].update({"status": "ACTIVE",
                                                     "unfrozen_date": ids.TODAY})
        return "\n".join(["Debit Card Unfrozen Successfully", f"Card ID: {card_id}",
                          "Status: ACTIVE", f"Unfrozen Date: {ids.TODAY}", "",
                          "The card is now active and ready to use immediately.",
                          "All transactions will process normally."])

    @tool(_W, discoverable=True)
    def clear_debit_card_fraud_alert_4892(self, card_id: str, reason: str) -> str:
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not reason:
            return "Error: Missing required parameter: reason."
        reasons = ["customer_verified", "velocity_clear"]
        if reason not in reasons:
            return f"Error: Invalid reason '{reason}'. Must be one of: {', '.join(reasons)}"
        if card_id not in self.db.data("debit_cards"):
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.data("debit_cards")[card_id]
        if reason == "velocity_clear":
            if not card.get("velocity_blocked", False):
                return f"Error: Debit card '{card_id}' does not have an active velocity block."
            self.db.wdata("debit_cards")[card_id].update(
                {"velocity_blocked": False, "velocity_cleared_date": ids.TODAY})
            return "\n".join([
                "Velocity Block Cleared Successfully", f"Card ID: {card_id}",
                f"Cleared Date: {ids.TODAY}", "",
                "The card is now unblocked and ready for normal use.",
                "The velocity monitoring will continue - if the same unusual patterns recur,",
                "the card may be blocked again automatically."])
        if not card.get("fraud_alert_active", False):
            return f"Error: Debit card '{card_id}' does not have an active fraud alert."
        if card.get("alert_source") == "bank_initiated":
            return ("Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's "
                    "fraud detection system and cannot be cleared by customer service agents. "
                    "Please transfer the customer to the security team using "
                    "transfer_to_human_agents.")
        self.db.wdata("debit_cards")[card_id].update(
            {"fraud_alert_active": False, "alert_source": None,
             "fraud_alert_cleared_date": ids.TODAY})
        return "\n".join([
            "Fraud Alert Cleared Successfully", f"Card ID: {card_id}", f"Cleared Date: {ids.TODAY}",
            "", "The fraud alert has been removed from the card.",
            "All transactions will process normally.", "",
            "Remind the customer to review recent transactions and report any unauthorized "
            "charges."])

    @tool(_W, discoverable=True)
    def reset_debit_card_pin_6284(self, card_id: str, last_4_digits: str, new_pin: str) -> str:
        if not all([card_id, last_4_digits, new_pin]):
            return ("Error: Missing required parameters. Required: card_id, last_4_digits, "
                    "new_pin.")
        if not last_4_digits.isdigit() or len(last_4_digits) != 4:
            return "Error: Last 4 digits must be exactly 4 digits."
        problem = validate_pin(new_pin)
        if problem:
            return f"Error: {problem}"
        if card_id not in self.db.data("debit_cards"):
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.data("debit_cards")[card_id]
        if card.get("last_4_digits") != last_4_digits:
            return ("Error: Card verification failed. The last 4 digits do not match our "
                    "records.")
        if card.get("status") != "ACTIVE":
            return (f"Error: Cannot reset PIN. Card status is {card.get('status')}. Only ACTIVE "
                    "cards can have their PIN reset.")
        self.db.wdata("debit_cards")[card_id].update(
            {"pin_last_changed": ids.TODAY, "pin_locked": False, "pin_attempts_remaining": 3})
        return "\n".join([
            "Debit Card PIN Reset Successfully", f"Card ID: {card_id}",
            f"PIN Changed: {ids.TODAY}", "", "The new PIN is effective immediately.",
            "Your card has been unlocked and is ready to use.",
            "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
            "", "Security reminder: Never share your PIN with anyone."])

    @tool(_W, discoverable=True)
    def change_debit_card_pin_6285(self, card_id: str, current_pin: str, new_pin: str) -> str:
        if not all([card_id, current_pin, new_pin]):
            return ("Error: Missing required parameters. Required: card_id, current_pin, "
                    "new_pin.")
        if not current_pin.isdigit() or len(current_pin) != 4:
            return "Error: Current PIN must be exactly 4 digits."
        problem = validate_pin(new_pin)
        if problem:
            return f"Error: {problem}"
        if current_pin == new_pin:
            return "Error: New PIN must be different from current PIN."
        if card_id not in self.db.data("debit_cards"):
            return f"Error: Debit card '{card_id}' not found."
        status = self.db.data("debit_cards")[card_id].get("status")
        if status != "ACTIVE":
            return (f"Error: Cannot change PIN. Card status is {status}. Only ACTIVE cards can "
                    "have their PIN changed.")
        self.db.wdata("debit_cards")[card_id]["pin_last_changed"] = ids.TODAY
        return "\n".join([
            "Debit Card PIN Changed Successfully", f"Card ID: {card_id}",
            f"PIN Changed: {ids.TODAY}", "", "The new PIN is effective immediately.",
            "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
            "", "Security reminder: Never share your PIN with anyone."])

    @tool(_R, discoverable=True)
    def get_debit_cards_by_account_id_7823(self, account_id: str) -> str:
        if not account_id:
            return "Error: Missing required parameter 'account_id'."
        if account_id not in self.db.data("accounts"):
            return f"Error: Account '{account_id}' not found."
        klass = self.db.data("accounts")[account_id].get("class", "").lower()
        if klass not in ["checking", "business_checking"]:
            return (f"Error: Account '{account_id}' is not a checking account. Debit cards are "
                    "only available for checking accounts.")
        found = []
        for cid, card in self.db.data("debit_cards").items():
            if card.get("account_id") != account_id:
                continue
            info = {"card_id": cid, **card}
            if "last_4_digits" in info and "card_number_last_4" not in info:
                info["card_number_last_4"] = info.pop("last_4_digits")
            if "issue_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("issue_date")
            elif "created_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("created_date")
            found.append(info)
        if not found:
            return f"No debit cards found for account '{account_id}'."
        found.sort(key=lambda c: c.get("date_issued") or "", reverse=True)
        return json.dumps(found, indent=2)

    @tool(_W, discoverable=True)
    def request_temporary_debit_card_limit_increase_8374(self, card_id: str, limit_type: str,
                                                         new_limit: int) -> str:
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not limit_type:
            return "Error: Missing required parameter: limit_type."
        if limit_type not in ["atm", "purchase"]:
            return f"Error: Invalid limit_type '{limit_type}'. Must be 'atm' or 'purchase'."
        if new_limit is None:  # upstream's check: a JSON null gets here, whatever the type says
            return "Error: Missing required parameter: new_limit."  # type: ignore[unreachable]
        try:
            value = float(new_limit)
        except (ValueError, TypeError):
            return f"Error: new_limit must be an integer, got '{new_limit}'."
        if not value.is_integer():
            return f"Error: new_limit must be an integer, got '{value}'."
        limit = int(value)
        if limit <= 0:
            return "Error: new_limit must be a positive amount."
        if card_id not in self.db.data("debit_cards"):
            return f"Error: Debit card '{card_id}' not found."
        card = self.db.data("debit_cards")[card_id]
        if card.get("status") != "ACTIVE":
            return (f"Error: Debit card '{card_id}' is not active. Current status: "
                    f"{card.get('status')}. Only ACTIVE cards can have limit increases.")
        account_id = card.get("account_id")
        if not account_id or account_id not in self.db.data("accounts"):
            return f"Error: Could not find linked account for debit card '{card_id}'."
        account = self.db.data("accounts")[account_id]
        if account.get("status") != "OPEN":
            return (f"Error: The linked account '{account_id}' is not in good standing. Account "
                    f"status: {account.get('status')}.")
        opened = account.get("date_opened")
        if opened:
            try:
                age = (datetime.strptime(ids.TODAY, "%m/%d/%Y")
                       - datetime.strptime(opened, "%m/%d/%Y")).days
                if age < 60:
                    return ("Error: Account must be at least 60 days old for a temporary limit "
                            f"increase. Account age: {age} days.")
            except ValueError:
                pass
        if limit_type == "atm":
            current = card.get("daily_atm_limit")
            field, name = "daily_atm_limit", "Daily ATM Withdrawal Limit"
            if current is None:
                level = account.get("level", "").lower()
                if "light green" in level:
                    return ("Error: Light Green Account (teen checking) cards have policy-based "
                            "limits that cannot be modified. The daily ATM withdrawal limit of "
                            "$150 is fixed by account policy for safety reasons. The customer "
                            "may request the parent/guardian to withdraw cash from their own "
                            "account if needed.")
                current = _ATM_DEFAULTS.get(level)
                if current is None:
                    return ("Error: Could not determine the default ATM limit for account type "
                            f"'{account.get('level')}'. Please verify the account type.")
        else:
            current = card.get("daily_purchase_limit")
            field, name = "daily_purchase_limit", "Daily Purchase Limit"
        if current is None:
            return (f"Error: The card does not have a {name.lower()} configured. This may be a "
                    "restricted account type where limits are set by account policy and cannot "
                    "be modified.")
        ceiling = int(current * 1.5)
        if limit > ceiling:
            return (f"Error: Requested limit ${limit} exceeds the maximum allowed temporary "
                    f"increase. Maximum temporary limit is ${ceiling} (150% of current "
                    f"${current} limit).")
        if limit <= current:
            return (f"Error: Requested limit ${limit} is not higher than the current limit of "
                    f"${current}.")
        self.db.wdata("debit_cards")[card_id].update({
            field: limit, f"temporary_{limit_type}_limit_increase": True,
            f"original_{limit_type}_limit": current,
            f"temporary_{limit_type}_limit_expires": ids.TODAY})
        return "\n".join([
            f"Temporary {name} Increase Granted Successfully", f"Card ID: {card_id}",
            f"Previous Limit: ${current}", f"New Temporary Limit: ${limit}",
            f"Increase Amount: ${limit - current}", "", "Important Information:",
            "- This temporary increase expires in 24 hours",
            f"- After expiration, the limit will revert to ${current}",
            "- Only one temporary increase is allowed per 24-hour period", "",
            "Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have "
            "its own",
            "per-transaction or daily limits that Rho-Bank cannot override. The customer may "
            "need to",
            "use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs."])
