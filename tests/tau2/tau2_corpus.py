"""The golden corpus: tool-call sequences and synthetic trajectories, built by rule from data.

Both sides build the same corpus from the same data files: our tests run it through a2abench,
and a one-off generator ran it through upstream tau2-bench (outside this repository) to record
`golden/*.json` (hashes and flags only, no data content). Sequences share state within
themselves; each starts from a fresh environment (with a task's initial state when `task` is set).
Only stdlib here, so the generator could import it next to upstream.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

Call = dict[str, Any]  # {"name", "arguments", "requestor"}


def _c(name: str, requestor: str = "assistant", **arguments: Any) -> Call:
    return {"name": name, "arguments": arguments, "requestor": requestor}


def load(data_root: Path, domain: str, name: str) -> Any:
    return json.loads((data_root / "tau2" / "domains" / domain / name).read_text())


@functools.cache
def tasks_of(data_root: Path, domain: str) -> list[dict[str, Any]]:
    """The domain's base-split tasks (telecom's file holds every split), once per process:
    read only (`sequences` and `trajectories` hand out copies)."""
    tasks = load(data_root, domain, "tasks.json")
    base = set(load(data_root, domain, "split_tasks.json")["base"])
    return [t for t in tasks if t["id"] in base]


def sequences(data_root: Path, domain: str) -> list[dict[str, Any]]:
    """`[{"id", "task" (id or None), "calls": [Call]}]` for a domain (a fresh copy each call:
    built once per process, as telecom's 14 MB tasks file takes ~0.5 s to parse)."""
    return copy.deepcopy(_sequences(data_root, domain))


@functools.cache
def _sequences(data_root: Path, domain: str) -> list[dict[str, Any]]:
    tasks = tasks_of(data_root, domain)
    out = [{"id": f"gold:{t['id']}", "task": t["id"],
            "calls": [_c(a["name"], a.get("requestor", "assistant"), **a["arguments"])
                      for a in (t.get("evaluation_criteria") or {}).get("actions") or []]}
           for t in tasks]
    if domain == "telecom":
        out += _telecom(tasks)
        return out
    probes = {"airline": _airline, "retail": _retail, "mock": _mock}[domain](data_root)
    out += [{"id": f"probe:{i}:{name}", "task": None, "calls": calls}
            for i, (name, calls) in enumerate(probes)]
    return out


def _common() -> list[tuple[str, list[Call]]]:
    return [
        ("unknown-tool", [_c("no_such_tool", x=1)]),
        ("collide-requestor", [_c("calculate", expression="1", requestor_x=1),
                               {"name": "calculate", "requestor": "assistant",
                                "arguments": {"expression": "1", "requestor": "user"}}]),
        ("collide-tool-name", [{"name": "calculate", "requestor": "assistant",
                                "arguments": {"tool_name": "x", "expression": "1"}},
                               {"name": "calculate", "requestor": "assistant",
                                "arguments": {"self": 1}}]),
        ("transfer", [_c("transfer_to_human_agents", summary="help"),
                      _c("transfer_to_human_agents")]),
    ]


def _calc() -> list[tuple[str, list[Call]]]:
    exprs = ["2*(3+4)", "10/4", "1/3", "2 ** 10", "1/0", "abc", "7", "-3.456+1"]
    return [("calculate", [_c("calculate", expression=e) for e in exprs]
             + [_c("calculate", expression=5)])]


def _airline(root: Path) -> list[tuple[str, list[Call]]]:
    db = load(root, "airline", "db.json")
    users = list(db["users"].values())
    reservations = list(db["reservations"].values())
    flights = db["flights"]
    user = next(u for u in users if any(p["source"] == "credit_card"
                                        for p in u["payment_methods"].values())
                and any(p["source"] == "gift_card" for p in u["payment_methods"].values()))
    card = next(k for k, p in user["payment_methods"].items() if p["source"] == "credit_card")
    gift = next(k for k, p in user["payment_methods"].items() if p["source"] == "gift_card")
    cert_user = next(u for u in users if any(p["source"] == "certificate"
                                             for p in u["payment_methods"].values()))
    cert = next(k for k, p in cert_user["payment_methods"].items()
                if p["source"] == "certificate")
    fn, flight = next((k, f) for k, f in flights.items()
                      if f["dates"].get("2024-05-20", {}).get("status") == "available")
    price = flight["dates"]["2024-05-20"]["prices"]["economy"]
    landed = next(k for k, f in flights.items()
                  if f["dates"].get("2024-05-01", {}).get("status") == "landed")
    plus = next(f for f in flights.values() if "+1" in f["scheduled_arrival_time_est"])
    res = next(r for r in reservations if r.get("status") is None and any(
        p["source"] == "credit_card"
        for p in db["users"][r["user_id"]]["payment_methods"].values()))
    res_user = db["users"][res["user_id"]]
    res_card = next((k for k, p in res_user["payment_methods"].items()
                     if p["source"] == "credit_card"), None)
    res_cert = next((k for k, p in res_user["payment_methods"].items()
                     if p["source"] == "certificate"), "certificate_0")
    pax = {"first_name": "Ann", "last_name": "Lee", "dob": "1990-01-01"}
    booking = dict(user_id=user["user_id"], origin=flight["origin"],
                   destination=flight["destination"], flight_type="one_way", cabin="economy",
                   flights=[{"flight_number": fn, "date": "2024-05-20"}], passengers=[pax],
                   payment_methods=[{"payment_id": card, "amount": price + 30 + 50}],
                   total_baggages=1, nonfree_baggages=1, insurance="yes")
    seqs = _common() + _calc() + [
        ("reads", [_c("get_user_details", user_id=user["user_id"]),
                   _c("get_user_details", user_id="nobody"),
                   _c("get_user_details", user_id=user["user_id"], foo=1),
                   _c("get_user_details"),
                   _c("get_user_details", user_id=["x"]),
                   _c("get_reservation_details", reservation_id=res["reservation_id"]),
                   _c("get_reservation_details", reservation_id="NOPE00"),
                   _c("list_all_airports"),
                   _c("get_flight_status", flight_number=fn, date="2024-05-20"),
                   _c("get_flight_status", flight_number=landed, date="2024-05-01"),
                   _c("get_flight_status", flight_number="HAT999", date="2024-05-20"),
                   _c("get_flight_status", flight_number=fn, date="2025-01-01")]),
        ("search", [_c("search_direct_flight", origin=flight["origin"],
                       destination=flight["destination"], date="2024-05-20"),
                    _c("search_direct_flight", origin="XXX", destination="YYY",
                       date="2024-05-20"),
                    _c("search_onestop_flight", origin=flight["origin"], destination="SEA",
                       date="2024-05-20"),
                    _c("search_onestop_flight", origin=plus["origin"], destination="JFK",
                       date="2024-05-08"),
                    _c("search_onestop_flight", origin=plus["origin"], destination="JFK",
                       date="2024-05-15"),
                    _c("search_onestop_flight", origin=plus["origin"], destination="MIA",
                       date="2024-05-09")]),
        ("certificates", [_c("send_certificate", user_id=user["user_id"], amount=100),
                          _c("send_certificate", user_id=user["user_id"], amount=50.5),
                          _c("send_certificate", user_id=user["user_id"], amount="75"),
                          _c("send_certificate", user_id=user["user_id"], amount=10),
                          _c("send_certificate", user_id="nobody", amount=10),
                          _c("get_user_details", user_id=user["user_id"])]),
        ("certificate-bad", [_c("send_certificate", user_id=user["user_id"], amount="abc")]),
        ("book", [_c("book_reservation", **booking),
                  _c("book_reservation", **{**booking, "payment_methods": [
                      {"payment_id": card, "amount": 1}]}),
                  _c("book_reservation", **{**booking, "cabin": "first"}),
                  _c("book_reservation", **{**booking, "passengers": [{"first_name": "A"}]}),
                  _c("book_reservation", **{**booking, "flights": [
                      {"flight_number": landed, "date": "2024-05-01"}]}),
                  _c("book_reservation", **{**booking, "flights": [
                      {"flight_number": "HAT999", "date": "2024-05-20"}]}),
                  _c("book_reservation", **{**booking, "payment_methods": [
                      {"payment_id": "credit_card_0", "amount": price + 80}]}),
                  _c("book_reservation", **{**booking, "payment_methods": [
                      {"payment_id": gift, "amount": price + 80}]}),
                  _c("book_reservation", **{**booking, "nonfree_baggages": "1"}),
                  _c("book_reservation", **{**booking, "total_baggages": 2.0,
                                            "insurance": "no", "nonfree_baggages": 0,
                                            "payment_methods": [
                                                {"payment_id": card, "amount": price}]}),
                  _c("book_reservation", **booking),
                  _c("book_reservation", **booking),
                  _c("get_user_details", user_id=user["user_id"]),
                  _c("get_flight_status", flight_number=fn, date="2024-05-20"),
                  _c("search_direct_flight", origin=flight["origin"],
                     destination=flight["destination"], date="2024-05-20"),
                  _c("cancel_reservation", reservation_id="HATHAT"),
                  _c("get_reservation_details", reservation_id="HATHAT")]),
        ("book-certificate", [_c("book_reservation", **{
            **booking, "user_id": cert_user["user_id"], "nonfree_baggages": 0,
            "insurance": "no", "payment_methods": [
                {"payment_id": cert, "amount": min(price, int(
                    cert_user["payment_methods"][cert]["amount"]))}] + (
                [{"payment_id": next(k for k, p in cert_user["payment_methods"].items()
                                     if p["source"] != "certificate"),
                  "amount": price - int(cert_user["payment_methods"][cert]["amount"])}]
                if price > cert_user["payment_methods"][cert]["amount"] else [])}),
            _c("get_user_details", user_id=cert_user["user_id"])]),
        ("cancel", [_c("cancel_reservation", reservation_id=res["reservation_id"]),
                    _c("cancel_reservation", reservation_id=res["reservation_id"]),
                    _c("cancel_reservation", reservation_id="NOPE00")]),
        ("baggage", [_c("update_reservation_baggages", reservation_id=res["reservation_id"],
                        total_baggages=res["total_baggages"] + 2,
                        nonfree_baggages=res["nonfree_baggages"] + 2,
                        payment_id=res_card or "credit_card_0"),
                     _c("update_reservation_baggages", reservation_id=res["reservation_id"],
                        total_baggages=1, nonfree_baggages=0, payment_id=res_cert),
                     _c("update_reservation_baggages", reservation_id=res["reservation_id"],
                        total_baggages=9, nonfree_baggages=9, payment_id="gift_card_0"),
                     _c("update_reservation_baggages", reservation_id=res["reservation_id"],
                        total_baggages="3", nonfree_baggages="3",
                        payment_id=res_card or "x"),
                     _c("update_reservation_baggages", reservation_id="NOPE00",
                        total_baggages=1, nonfree_baggages=1, payment_id="x")]),
        ("baggage-fraction", [_c("update_reservation_baggages",
                                 reservation_id=res["reservation_id"], total_baggages=1,
                                 nonfree_baggages=res["nonfree_baggages"] + 0.3,
                                 payment_id=res_card or "x")]),
        ("flights", [_c("update_reservation_flights", reservation_id=res["reservation_id"],
                        cabin=res["cabin"], payment_id=res_card or "x",
                        flights=[{"flight_number": f["flight_number"], "date": f["date"]}
                                 for f in res["flights"]]),
                     _c("update_reservation_flights", reservation_id=res["reservation_id"],
                        cabin="economy" if res["cabin"] != "economy" else "business",
                        payment_id=res_card or "x",
                        flights=[{"flight_number": f["flight_number"], "date": f["date"]}
                                 for f in res["flights"]]),
                     _c("update_reservation_flights", reservation_id=res["reservation_id"],
                        cabin="economy", payment_id=res_card or "x",
                        flights=[{"flight_number": fn, "date": "2024-05-20"}]),
                     _c("update_reservation_flights", reservation_id=res["reservation_id"],
                        cabin="economy", payment_id=res_cert,
                        flights=[{"flight_number": fn, "date": "2024-05-21"}]),
                     _c("update_reservation_flights", reservation_id=res["reservation_id"],
                        cabin="first", payment_id=res_card or "x",
                        flights=[{"flight_number": fn, "date": "2024-05-20"}]),
                     _c("update_reservation_flights", reservation_id=res["reservation_id"],
                        cabin="business", payment_id=res_card or "x",
                        flights=[{"flight_number": landed, "date": "2024-05-01"}]),
                     _c("update_reservation_flights", reservation_id=res["reservation_id"],
                        cabin="economy", payment_id=res_card or "x", flights=[{"x": 1}]),
                     _c("get_reservation_details", reservation_id=res["reservation_id"])]),
        ("passengers", [_c("update_reservation_passengers",
                           reservation_id=res["reservation_id"], passengers=[pax]),
                        _c("update_reservation_passengers",
                           reservation_id=res["reservation_id"],
                           passengers=[pax] * len(res["passengers"])),
                        _c("update_reservation_passengers",
                           reservation_id=res["reservation_id"],
                           passengers=[{"first_name": "B"}] * len(res["passengers"])),
                        _c("update_reservation_passengers",
                           reservation_id=res["reservation_id"],
                           passengers=["x"] * len(res["passengers"])),
                        _c("get_reservation_details", reservation_id=res["reservation_id"])]),
        ("user-requestor", [_c("get_user_details", "user", user_id=user["user_id"])]),
    ]
    return seqs


def _retail(root: Path) -> list[tuple[str, list[Call]]]:
    db = load(root, "retail", "db.json")
    users, orders, products = db["users"], list(db["orders"].values()), db["products"]

    def method(order: dict[str, Any], source: str) -> str | None:
        return next((k for k, p in users[order["user_id"]]["payment_methods"].items()
                     if p["source"] == source), None)

    def other_variant(item: dict[str, Any], available: bool = True) -> str | None:
        variants = products[item["product_id"]]["variants"]
        return next((k for k, v in variants.items()
                     if k != item["item_id"] and v["available"] == available), None)

    pending_gift = next(o for o in orders if o["status"] == "pending" and any(
        p["payment_method_id"].startswith("gift_card") for p in o["payment_history"]))
    pending = next(o for o in orders if o["status"] == "pending" and len(o["items"]) >= 2
                   and method(o, "gift_card") and other_variant(o["items"][0])
                   and other_variant(o["items"][1]))
    delivered = next(o for o in orders if o["status"] == "delivered"
                     and other_variant(o["items"][0]) and method(o, "gift_card"))
    processed = next(o for o in orders if o["status"] == "processed")
    user = users[pending["user_id"]]
    items = pending["items"]
    item0 = items[0]
    unavailable = next(((it, v) for o in orders if o["status"] == "pending" for it in o["items"]
                        if (v := other_variant(it, available=False))), None)
    address = dict(address1="1 Main St", address2="Apt 2", city="Austin", state="TX",
                   country="USA", zip="78701")
    seqs = _common() + _calc() + [
        ("finders", [_c("find_user_id_by_email", email=user["email"].upper()),
                     _c("find_user_id_by_email", email="nobody@example.com"),
                     _c("find_user_id_by_name_zip", first_name=user["name"]["first_name"],
                        last_name=user["name"]["last_name"].lower(),
                        zip=user["address"]["zip"]),
                     _c("find_user_id_by_name_zip", first_name="No", last_name="Body",
                        zip="00000"),
                     _c("find_user_id_by_name_zip", first_name=5, last_name="x", zip="1")]),
        ("reads", [_c("get_user_details", user_id=user["user_id"]),
                   _c("get_user_details", user_id="nobody"),
                   _c("get_order_details", order_id=pending["order_id"]),
                   _c("get_order_details", order_id=pending["order_id"].lstrip("#")),
                   _c("get_product_details", product_id=item0["product_id"]),
                   _c("get_product_details", product_id="0"),
                   _c("get_item_details", item_id=item0["item_id"]),
                   _c("get_item_details", item_id="0"),
                   _c("list_all_product_types")]),
        ("cancel", [_c("cancel_pending_order", order_id=pending_gift["order_id"],
                       reason="bored"),
                    _c("cancel_pending_order", order_id=pending_gift["order_id"],
                       reason="no longer needed"),
                    _c("cancel_pending_order", order_id=pending_gift["order_id"],
                       reason="no longer needed"),
                    _c("get_user_details", user_id=pending_gift["user_id"])]),
        ("address", [_c("modify_pending_order_address", order_id=pending["order_id"],
                        **address),
                     _c("modify_pending_order_address", order_id=processed["order_id"],
                        **address),
                     _c("modify_user_address", user_id=user["user_id"], **address),
                     _c("modify_user_address", user_id=user["user_id"],
                        **{**address, "zip": 78701}),
                     _c("modify_user_address", user_id="nobody", **address)]),
        ("items", [_c("modify_pending_order_items", order_id=pending["order_id"],
                      item_ids=[item0["item_id"]], new_item_ids=[item0["item_id"]],
                      payment_method_id=method(pending, "gift_card")),
                   _c("modify_pending_order_items", order_id=pending["order_id"],
                      item_ids=[item0["item_id"]], new_item_ids=[],
                      payment_method_id=method(pending, "gift_card")),
                   _c("modify_pending_order_items", order_id=pending["order_id"],
                      item_ids=["0"], new_item_ids=["1"],
                      payment_method_id=method(pending, "gift_card")),
                   _c("modify_pending_order_items", order_id=pending["order_id"],
                      item_ids=[items[0]["item_id"], items[1]["item_id"]],
                      new_item_ids=[other_variant(items[0]), other_variant(items[1])],
                      payment_method_id=method(pending, "gift_card")),
                   _c("modify_pending_order_items", order_id=pending["order_id"],
                      item_ids=[items[0]["item_id"]], new_item_ids=["1"],
                      payment_method_id=method(pending, "gift_card")),
                   _c("get_user_details", user_id=pending["user_id"])]),
        ("payment", [_c("modify_pending_order_payment", order_id=pending_gift["order_id"],
                        payment_method_id=pending_gift["payment_history"][0][
                            "payment_method_id"]),
                     _c("modify_pending_order_payment", order_id=pending_gift["order_id"],
                        payment_method_id=method(pending_gift, "credit_card")
                        or method(pending_gift, "paypal") or "x"),
                     _c("modify_pending_order_payment", order_id=pending_gift["order_id"],
                        payment_method_id="nope"),
                     _c("get_user_details", user_id=pending_gift["user_id"])]),
        ("return", [_c("return_delivered_order_items", order_id=pending["order_id"],
                       item_ids=[item0["item_id"]], payment_method_id="x"),
                    _c("return_delivered_order_items", order_id=delivered["order_id"],
                       item_ids=["0"], payment_method_id=delivered["payment_history"][0][
                           "payment_method_id"]),
                    _c("return_delivered_order_items", order_id=delivered["order_id"],
                       item_ids=[delivered["items"][0]["item_id"]],
                       payment_method_id=method(delivered, "credit_card")
                       or method(delivered, "paypal") or "x"),
                    _c("return_delivered_order_items", order_id=delivered["order_id"],
                       item_ids=[i["item_id"] for i in delivered["items"]][::-1],
                       payment_method_id=method(delivered, "gift_card"))]),
        ("exchange", [_c("exchange_delivered_order_items", order_id=delivered["order_id"],
                         item_ids=[delivered["items"][0]["item_id"]], new_item_ids=[],
                         payment_method_id=method(delivered, "gift_card")),
                      _c("exchange_delivered_order_items", order_id=delivered["order_id"],
                         item_ids=[delivered["items"][0]["item_id"]] * 5,
                         new_item_ids=["1"] * 5,
                         payment_method_id=method(delivered, "gift_card")),
                      _c("exchange_delivered_order_items", order_id=delivered["order_id"],
                         item_ids=[delivered["items"][0]["item_id"]],
                         new_item_ids=[other_variant(delivered["items"][0])],
                         payment_method_id=method(delivered, "gift_card")),
                      _c("exchange_delivered_order_items", order_id=delivered["order_id"],
                         item_ids=[delivered["items"][0]["item_id"]],
                         new_item_ids=[other_variant(delivered["items"][0])],
                         payment_method_id=method(delivered, "gift_card"))]),
    ]
    if unavailable is not None:
        it, v = unavailable
        order = next(o for o in orders if it in o["items"])
        seqs.append(("unavailable", [_c("modify_pending_order_items", order_id=order["order_id"],
                                        item_ids=[it["item_id"]], new_item_ids=[v],
                                        payment_method_id="x")]))
    return seqs


def _mock(root: Path) -> list[tuple[str, list[Call]]]:
    return [
        *_common(),
        ("tasks", [_c("get_users"),
                   _c("create_task", user_id="user_1", title="A"),
                   _c("create_task", user_id="user_1", title="B", description="d"),
                   _c("create_task", user_id="nobody", title="C"),
                   _c("create_task", user_id="user_1"),
                   _c("create_task", user_id="user_1", title=5),
                   _c("update_task_status", task_id="task_1", status="completed"),
                   _c("update_task_status", task_id="task_2", status="done"),
                   _c("update_task_status", task_id="task_9", status="completed"),
                   _c("get_users")]),
        ("user-tools", [_c("check_notifications", "user"),
                        _c("dismiss_notification", "user", notification_id="notif_1"),
                        _c("dismiss_notification", "user", notification_id="notif_9"),
                        _c("check_notifications", "user"),
                        _c("check_notifications"),
                        _c("create_task", "user", user_id="user_1", title="x")]),
    ]


_PHONE_READS = ["check_status_bar", "check_network_status", "check_network_mode_preference",
                "run_speed_test", "check_sim_status", "check_data_restriction_status",
                "check_apn_settings", "check_wifi_status", "check_wifi_calling_status",
                "check_vpn_status", "check_installed_apps", "can_send_mms",
                "check_payment_request"]


def _phone(name: str, **arguments: Any) -> Call:
    return _c(name, "user", **arguments)


def _telecom(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Phone and carrier probes, each on a task's initial state (so the phone is set up)."""
    reads = [_phone(n) for n in _PHONE_READS] + [
        _phone("check_app_status", app_name="messaging"),
        _phone("check_app_status", app_name="camera"),
        _phone("check_app_permissions", app_name="browser"),
        _phone("check_app_permissions", app_name="camera")]
    toggles = [_phone(n) for n in ["toggle_airplane_mode", "toggle_data", "toggle_roaming",
                                   "toggle_data_saver_mode", "toggle_wifi", "toggle_wifi_calling",
                                   "connect_vpn", "connect_vpn", "disconnect_vpn",
                                   "disconnect_vpn", "reseat_sim_card", "reset_apn_settings",
                                   "reboot_device", "make_payment"]]
    phone = [
        *reads, *toggles, *reads,
        _phone("set_network_mode_preference", mode="3g_only"),
        _phone("set_network_mode_preference", mode="5g_only"),
        _phone("set_network_mode_preference", mode="2g_only"), _phone("can_send_mms"),
        _phone("set_network_mode_preference", mode="4g_5g_preferred"),
        _phone("grant_app_permission", app_name="messaging", permission="NETWORK"),
        _phone("grant_app_permission", app_name="messaging", permission="camera"),
        _phone("grant_app_permission", app_name="camera", permission="sms"),
        _phone("set_apn_settings", apn_settings={"apn_name": "broken"}),
        _phone("run_speed_test"),
        _phone("set_apn_settings", apn_settings={"apn_name": "internet", "mms_port": "x"}),
        _phone("set_apn_settings", apn_settings={"apn_name": "internet"}),
        _phone("check_apn_settings"), _phone("toggle_airplane_mode"), _phone("toggle_wifi"),
        _phone("toggle_airplane_mode"), _phone("check_status_bar"),
        _phone("no_such_phone_tool"), _c("check_status_bar")]
    carrier = [
        _c("get_customer_by_phone", phone_number="555-123-2002"),
        _c("get_customer_by_phone", phone_number="555-123-2005"),
        _c("get_customer_by_phone", phone_number="000"),
        _c("get_customer_by_id", customer_id="C1002"),
        _c("get_customer_by_id", customer_id="C9"),
        _c("get_customer_by_name", full_name="JOHN SMITH", dob="1985-06-15"),
        _c("get_customer_by_name", full_name="Nobody", dob="1900-01-01"),
        *[_c("get_details_by_id", id=i) for i in ["L1002", "D1001", "B1002", "C1003", "P1003",
                                                   "X1", "L9"]],
        _c("get_bills_for_customer", customer_id="C1001"),
        _c("get_bills_for_customer", customer_id="C1001", limit=1),
        _c("get_data_usage", customer_id="C1001", line_id="L1002"),
        _c("get_data_usage", customer_id="C1001", line_id="L1004"),
        _c("suspend_line", customer_id="C1001", line_id="L1002", reason="travel"),
        _c("suspend_line", customer_id="C1001", line_id="L1002", reason="again"),
        _phone("check_status_bar"), _phone("run_speed_test"),
        _c("resume_line", customer_id="C1001", line_id="L1002"),
        _c("resume_line", customer_id="C1001", line_id="L1002"),
        _c("enable_roaming", customer_id="C1001", line_id="L1002"),
        _c("enable_roaming", customer_id="C1001", line_id="L1002"),
        _c("disable_roaming", customer_id="C1001", line_id="L1002"),
        _c("disable_roaming", customer_id="C1001", line_id="L1002"),
        _c("refuel_data", customer_id="C1001", line_id="L1002", gb_amount=2.0),
        _c("refuel_data", customer_id="C1001", line_id="L1002", gb_amount=-1),
        _c("refuel_data", customer_id="C1002", line_id="L1004", gb_amount=1.5),
        _c("send_payment_request", customer_id="C1001", bill_id="B1002"),
        _phone("check_payment_request"),
        _c("send_payment_request", customer_id="C1001", bill_id="B1002"),
        _c("send_payment_request", customer_id="C1003", bill_id="B1001"),
        _phone("make_payment"), _phone("check_payment_request"),
        _c("get_bills_for_customer", customer_id="C1001"),
        _c("transfer_to_human_agents", summary="x")]
    picks = {"plain": tasks[0]["id"]}
    for t in tasks:
        text = json.dumps(t.get("initial_state"))
        for key in ("break_vpn", "suspend_line_for_overdue_bill", "lock_sim_card",
                    "break_apn_settings", "set_data_usage"):
            if key in text and key not in picks:
                picks[key] = t["id"]
    out = []
    for key, task_id in picks.items():
        out.append({"id": f"probe:phone:{key}", "task": task_id, "calls": phone})
        out.append({"id": f"probe:carrier:{key}", "task": task_id, "calls": carrier})
    return out


def trajectories(data_root: Path, domain: str) -> list[dict[str, Any]]:
    """Synthetic trajectories to score: `[{"id", "task", "termination", "script"}]`.

    A script is a list of steps: `["say", text]` (assistant text), `["user", text]`, or
    `["call", Call]` (executed; the call and its result enter the trajectory). A fresh copy
    each call, built once per process.
    """
    return copy.deepcopy(_trajectories(data_root, domain))


@functools.cache
def _trajectories(data_root: Path, domain: str) -> list[dict[str, Any]]:
    tasks = tasks_of(data_root, domain)
    out = []
    for t in tasks:
        crit = t.get("evaluation_criteria") or {}
        gold = [["call", _c(a["name"], a.get("requestor", "assistant"), **a["arguments"])]
                for a in crit.get("actions") or []]
        say = " and ".join(crit.get("communicate_info") or []) or "Done."
        out.append({"id": f"nothing:{t['id']}", "task": t["id"], "termination": "user_stop",
                    "script": [["say", "Hi! How can I help you today?"], ["user", "Hello."]]})
        out.append({"id": f"gold:{t['id']}", "task": t["id"], "termination": "user_stop",
                    "script": [["user", "Hello."], *gold, ["say", say]]})
        out.append({"id": f"gold-max-steps:{t['id']}", "task": t["id"],
                    "termination": "max_steps", "script": [*gold, ["say", say]]})
    if domain == "airline":
        out.append({"id": "failing-calls:0", "task": "0", "termination": "user_stop",
                    "script": [["call", _c("get_user_details", user_id="nobody")],
                               ["call", _c("cancel_reservation", reservation_id="NOPE00")],
                               ["call", _c("no_such_tool")], ["say", "Sorry."]]})
    if domain == "mock":
        base = {"user_id": "user_1", "title": "Important Meeting"}
        out += [
            {"id": "with-description:create_task_1", "task": "create_task_1",
             "termination": "user_stop",
             "script": [["call", _c("create_task", **base, description="x")], ["say", "ok"]]},
            {"id": "fail-then-correct:create_task_1", "task": "create_task_1",
             "termination": "user_stop",
             "script": [["call", _c("create_task", user_id="nobody", title="x")],
                        ["call", _c("create_task", **base)], ["say", "ok"]]},
            {"id": "no-transfer:impossible_task_1", "task": "impossible_task_1",
             "termination": "user_stop", "script": [["say", "I cannot do that."]]},
            {"id": "agent-stop:create_task_1", "task": "create_task_1",
             "termination": "agent_stop", "script": [["call", _c("create_task", **base)]]},
        ]
    return out
