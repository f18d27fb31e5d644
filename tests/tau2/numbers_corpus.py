"""Issue 18 item 1: every tau2 tool whose schema has numbers, called with each number form.

A *variant* is a tool-call sequence with concrete JSON arguments (`2`, `2.0` or `2.5`); the
golden file `golden/numbers.json` holds upstream tau2-bench's output for each (sha256 of every
tool result, error flag, DB hashes) and the rewards of the trajectories below. It was recorded
by `scripts/tau2_numbers_golden.py` with upstream at the pinned commit. Only stdlib here, so
the recorder can import this module next to upstream.

Tools with numbers (pydantic schemas at the pinned commit): airline `book_reservation`
(`total_baggages`, `nonfree_baggages`, `payment_methods[].amount`: integer),
`update_reservation_baggages` (integer), `send_certificate` (integer); telecom `refuel_data`
(`gb_amount`: number), `get_bills_for_customer` (`limit`: integer) and the phone's
`set_apn_settings` (`apn_settings.mms_port`: integer or null). Retail and mock have none.
"""

from __future__ import annotations

import copy
from typing import Any

Call = dict[str, Any]  # {"name", "arguments", "requestor"}
FORMS = ("int", "float", "frac")

_BOOKING = {  # airline task 8's gold booking
    "user_id": "sophia_silva_7557", "origin": "ORD", "destination": "PHL",
    "flight_type": "one_way", "cabin": "economy",
    "flights": [{"flight_number": "HAT271", "date": "2024-05-26"}],
    "passengers": [{"first_name": "Sophia", "last_name": "Silva", "dob": "1957-10-05"},
                   {"first_name": "Kevin", "last_name": "Smith", "dob": "2001-04-12"}],
    "payment_methods": [{"payment_id": "certificate_8045380", "amount": 348}],
    "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"}
TELECOM_TASK = "[mobile_data_issue]data_mode_off|data_usage_exceeded[PERSONA:None]"


def _c(name: str, requestor: str = "assistant", **arguments: Any) -> Call:
    return {"name": name, "arguments": arguments, "requestor": requestor}


def _num(form: str, whole: int, frac: float) -> int | float:
    """`whole` as an int, as a float, or `frac` (a number with a fractional part, or an int
    where that field stays whole in the "frac" form)."""
    return {"int": whole, "float": float(whole), "frac": frac}[form]


def booking(form: str) -> dict[str, Any]:
    args = copy.deepcopy(_BOOKING)
    args["payment_methods"][0]["amount"] = _num(form, 348, 348.5)
    args["total_baggages"] = _num(form, 0, 0.5)
    args["nonfree_baggages"] = _num(form, 0, 0)  # "frac" varies one number per field kind
    return args


def baggages(form: str, total: int = 2, nonfree: int = 0) -> dict[str, Any]:
    return {"reservation_id": "YAX4DR", "total_baggages": _num(form, total, total + 0.5),
            "nonfree_baggages": _num(form, nonfree, nonfree),
            "payment_id": "credit_card_4938634"}


def apn(form: str) -> dict[str, Any]:
    return {"apn_settings": {"apn_name": "internet", "mms_apn": "mms",
                             "mms_port": _num(form, 8080, 8080.5)}}


def families() -> dict[str, tuple[str, str]]:
    """family -> (domain, the tool whose arguments vary)."""
    return {"book": ("airline", "book_reservation"),
            "baggages": ("airline", "update_reservation_baggages"),
            "baggages_fee": ("airline", "update_reservation_baggages"),
            "certificate": ("airline", "send_certificate"),
            "refuel": ("telecom", "refuel_data"),
            "bills": ("telecom", "get_bills_for_customer"),
            "apn": ("telecom", "set_apn_settings")}


def varied_call(family: str, form: str) -> Call:
    """The call of `family` whose numbers take `form`."""
    if family == "book":
        return _c("book_reservation", **booking(form))
    if family == "baggages":
        return _c("update_reservation_baggages", **baggages(form))
    if family == "baggages_fee":
        return _c("update_reservation_baggages", **baggages(form, 3, 1))
    if family == "certificate":
        return _c("send_certificate", user_id="sophia_silva_7557",
                  amount=_num(form, 100, 100.5))
    if family == "refuel":
        return _c("refuel_data", customer_id="C1001", line_id="L1002",
                  gb_amount=_num(form, 2, 2.5))
    if family == "bills":
        return _c("get_bills_for_customer", customer_id="C1001", limit=_num(form, 2, 2.5))
    if family == "apn":
        return _c("set_apn_settings", "user", **apn(form))
    raise KeyError(family)


_AFTER = {  # read calls that show what the varied call stored
    "book": [_c("get_reservation_details", reservation_id="HATHAT"),
             _c("get_user_details", user_id="sophia_silva_7557")],
    "baggages": [_c("get_reservation_details", reservation_id="YAX4DR")],
    "baggages_fee": [_c("get_reservation_details", reservation_id="YAX4DR")],
    "certificate": [_c("get_user_details", user_id="sophia_silva_7557")],
    "refuel": [_c("get_details_by_id", id="L1002")],
    "bills": [],
    "apn": [_c("check_apn_settings", "user")],
}


def sequences() -> list[dict[str, Any]]:
    """`[{"id": "family:form", "domain", "calls"}]`, each from the domain's fresh state."""
    return [{"id": f"{family}:{form}", "domain": domain,
             "calls": [varied_call(family, form), *_AFTER[family]]}
            for family, (domain, _) in families().items() for form in FORMS]


def trajectories() -> list[dict[str, Any]]:
    """Gold solutions with the varied call in each form: `{"id", "domain", "task", "calls"}`,
    scored after a user stop (the rewards in the golden file are upstream's)."""
    out = []
    for form in FORMS:
        out.append({"id": f"airline-12:{form}", "domain": "airline", "task": "12", "calls": [
            _c("get_reservation_details", reservation_id="YAX4DR"),
            varied_call("baggages", form)]})
        out.append({"id": f"airline-8:{form}", "domain": "airline", "task": "8", "calls": [
            _c("get_user_details", user_id="sophia_silva_7557"), varied_call("book", form)]})
        out.append({"id": f"telecom-refuel:{form}", "domain": "telecom", "task": TELECOM_TASK,
                    "calls": [_c("toggle_data", "user"), varied_call("refuel", form)]})
    return out
