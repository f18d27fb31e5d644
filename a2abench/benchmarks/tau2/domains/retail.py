"""Retail domain: the 16 agent tools on the products/users/orders DB, as upstream's.

Models mirror upstream's `retail/data_model.py` shapes (no prose). The `*_order_*` tools keep
upstream's checks in upstream's order, since the first failing check decides the error text.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel

from a2abench.benchmarks.tau2.db import clone, nested
from a2abench.benchmarks.tau2.toolkit import ModelView, Toolkit, ToolType, tool


class Variant(BaseModel):
    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(BaseModel):
    name: str
    product_id: str
    variants: dict[str, Variant]


class UserName(BaseModel):
    first_name: str
    last_name: str


class UserAddress(BaseModel):
    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


class PaymentMethodBase(BaseModel):
    source: str
    id: str


class CreditCard(PaymentMethodBase):
    source: Literal["credit_card"]
    brand: str
    last_four: str


class Paypal(PaymentMethodBase):
    source: Literal["paypal"]


class GiftCard(PaymentMethodBase):
    source: Literal["gift_card"]
    balance: float
    id: str


class User(BaseModel):
    user_id: str
    name: UserName
    address: UserAddress
    email: str
    payment_methods: dict[str, CreditCard | GiftCard | Paypal]
    orders: list[str]


class OrderFullfilment(BaseModel):
    tracking_id: list[str]
    item_ids: list[str]


class OrderItem(BaseModel):
    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class OrderPayment(BaseModel):
    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


OrderStatus = Literal["processed", "pending", "pending (item modified)", "delivered",
                      "cancelled", "exchange requested", "return requested"]


class Order(BaseModel):
    order_id: str
    user_id: str
    address: UserAddress
    items: list[OrderItem]
    status: OrderStatus
    fulfillments: list[OrderFullfilment]
    payment_history: list[OrderPayment]
    cancel_reason: Literal["no longer needed", "ordered by mistake"] | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None


class RetailDB(BaseModel):
    model_config = {"extra": "forbid"}

    products: dict[str, Product]
    users: dict[str, User]
    orders: dict[str, Order]


def _is_gift_card(method: dict[str, Any]) -> bool:
    # Upstream: isinstance(payment_method, GiftCard) on the validated union.
    return bool(method["source"] == "gift_card")


class RetailTools(Toolkit):
    """Upstream's `RetailTools`; method order is upstream's (it is the schema order)."""

    def _get_order(self, order_id: str) -> dict[str, Any]:
        orders = self.db.table("orders")
        if order_id not in orders:
            raise ValueError("Order not found")
        return orders.get(order_id)

    def _mut_order(self, order_id: str) -> dict[str, Any]:
        self._get_order(order_id)
        return self.db.table("orders").mut(order_id)

    def _get_user(self, user_id: str) -> dict[str, Any]:
        users = self.db.table("users")
        if user_id not in users:
            raise ValueError("User not found")
        return users.get(user_id)

    def _get_product(self, product_id: str) -> dict[str, Any]:
        products = self.db.table("products")
        if product_id not in products:
            raise ValueError("Product not found")
        return products.get(product_id)

    def _get_item(self, item_id: str) -> dict[str, Any]:
        for product in self.db.table("products").values():
            if item_id in product["variants"]:
                return nested(product, "variants", item_id)
        raise ValueError("Item not found")

    def _get_variant(self, product_id: str, variant_id: str) -> dict[str, Any]:
        product = self._get_product(product_id)
        if variant_id not in product["variants"]:
            raise ValueError("Variant not found")
        return nested(product, "variants", variant_id)

    def _get_payment_method(self, user_id: str, payment_method_id: str) -> dict[str, Any]:
        user = self._get_user(user_id)
        if payment_method_id not in user["payment_methods"]:
            raise ValueError("Payment method not found")
        return nested(user, "payment_methods", payment_method_id)

    def _mut_payment_method(self, user_id: str, payment_method_id: str) -> dict[str, Any]:
        self._get_payment_method(user_id, payment_method_id)
        user = self.db.table("users").mut(user_id)
        return nested(user, "payment_methods", payment_method_id)

    @tool(ToolType.GENERIC)
    def calculate(self, expression: str) -> str:
        if not all(char in "0123456789+-*/(). " for char in expression):
            raise ValueError("Invalid characters in expression")
        return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))

    @tool(ToolType.WRITE)
    def cancel_pending_order(self, order_id: str, reason: str) -> Any:
        current = self._get_order(order_id)
        if current["status"] != "pending":
            raise ValueError("Non-pending order cannot be cancelled")
        if reason not in {"no longer needed", "ordered by mistake"}:
            raise ValueError("Invalid reason")
        refunds = []
        for payment in current["payment_history"]:
            payment_id = payment["payment_method_id"]
            refunds.append(OrderPayment(transaction_type="refund", amount=payment["amount"],
                                        payment_method_id=payment_id).model_dump())
            user = self._get_user(current["user_id"])
            method = self._get_payment_method(user["user_id"], payment_id)
            if _is_gift_card(method):  # refunded to a gift card immediately
                method = self._mut_payment_method(user["user_id"], payment_id)
                method["balance"] += payment["amount"]
                method["balance"] = round(method["balance"], 2)
        order = self._mut_order(order_id)
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        order["payment_history"].extend(refunds)
        return ModelView(order)

    @tool(ToolType.WRITE)
    def exchange_delivered_order_items(self, order_id: str, item_ids: list[str],
                                       new_item_ids: list[str], payment_method_id: str) -> Any:
        current = self._get_order(order_id)
        if current["status"] != "delivered":
            raise ValueError("Non-delivered order cannot be exchanged")
        all_item_ids = [item["item_id"] for item in current["items"]]
        for item_id in item_ids:
            if item_ids.count(item_id) > all_item_ids.count(item_id):
                raise ValueError(f"Number of {item_id} not found.")
        if len(item_ids) != len(new_item_ids):
            raise ValueError("The number of items to be exchanged should match.")
        diff_price: Any = 0
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            item = next((i for i in current["items"] if i["item_id"] == item_id), None)
            if item is None:
                raise ValueError(f"Item {item_id} not found")
            variant = self._get_variant(item["product_id"], new_item_id)
            if not variant["available"]:
                raise ValueError(f"New item {new_item_id} not found or available")
            diff_price += variant["price"] - item["price"]
        diff_price = round(diff_price, 2)
        method = self._get_payment_method(current["user_id"], payment_method_id)
        if _is_gift_card(method) and method["balance"] < diff_price:
            raise ValueError("Insufficient gift card balance to pay for the price difference")
        order = self._mut_order(order_id)
        order["status"] = "exchange requested"
        order["exchange_items"] = sorted(item_ids)
        order["exchange_new_items"] = sorted(new_item_ids)
        order["exchange_payment_method_id"] = payment_method_id
        order["exchange_price_difference"] = diff_price
        return ModelView(order)

    @tool(ToolType.READ)
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        for user_id, user in self.db.table("users").items():
            if (user["name"]["first_name"].lower() == first_name.lower()
                    and user["name"]["last_name"].lower() == last_name.lower()
                    and user["address"]["zip"] == zip):
                return user_id
        raise ValueError("User not found")

    @tool(ToolType.READ)
    def find_user_id_by_email(self, email: str) -> str:
        for user_id, user in self.db.table("users").items():
            if user["email"].lower() == email.lower():
                return user_id
        raise ValueError("User not found")

    @tool(ToolType.READ)
    def get_order_details(self, order_id: str) -> Any:
        return ModelView(self._get_order(order_id))

    @tool(ToolType.READ)
    def get_product_details(self, product_id: str) -> Any:
        return ModelView(self._get_product(product_id))

    @tool(ToolType.READ)
    def get_item_details(self, item_id: str) -> Any:
        return ModelView(self._get_item(item_id))

    @tool(ToolType.READ)
    def get_user_details(self, user_id: str) -> Any:
        return ModelView(self._get_user(user_id))

    @tool(ToolType.READ)
    def list_all_product_types(self) -> str:
        products = {p["name"]: p["product_id"] for p in self.db.table("products").values()}
        return json.dumps(products, sort_keys=True)

    @tool(ToolType.WRITE)
    def modify_pending_order_address(self, order_id: str, address1: str, address2: str,
                                     city: str, state: str, country: str, zip: str) -> Any:
        current = self._get_order(order_id)
        if "pending" not in current["status"]:
            raise ValueError("Non-pending order cannot be modified")
        address = UserAddress(address1=address1, address2=address2, city=city, state=state,
                              country=country, zip=zip)
        order = self._mut_order(order_id)
        order["address"] = address.model_dump()
        return ModelView(order)

    @tool(ToolType.WRITE)
    def modify_pending_order_items(self, order_id: str, item_ids: list[str],
                                   new_item_ids: list[str], payment_method_id: str) -> Any:
        current = self._get_order(order_id)
        if current["status"] != "pending":
            raise ValueError("Non-pending order cannot be modified")
        all_item_ids = [item["item_id"] for item in current["items"]]
        for item_id in item_ids:
            if item_ids.count(item_id) > all_item_ids.count(item_id):
                raise ValueError(f"{item_id} not found")
        if len(item_ids) != len(new_item_ids):
            raise ValueError("The number of items to be exchanged should match")
        diff_price: Any = 0
        variant: dict[str, Any] | None = None
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            if item_id == new_item_id:
                raise ValueError("The new item id should be different from the old item id")
            item = next((i for i in current["items"] if i["item_id"] == item_id), None)
            if item is None:
                raise ValueError(f"Item {item_id} not found")
            variant = self._get_variant(item["product_id"], new_item_id)
            if not variant["available"]:
                raise ValueError(f"New item {new_item_id} not found or available")
            diff_price += variant["price"] - item["price"]
        method = self._get_payment_method(current["user_id"], payment_method_id)
        if _is_gift_card(method) and method["balance"] < diff_price:
            raise ValueError("Insufficient gift card balance to pay for the new item")
        payment = OrderPayment(transaction_type="payment" if diff_price > 0 else "refund",
                               amount=abs(diff_price), payment_method_id=payment_method_id)
        order = self._mut_order(order_id)
        order["payment_history"].append(payment.model_dump())
        if _is_gift_card(method):
            method = self._mut_payment_method(current["user_id"], payment_method_id)
            method["balance"] -= diff_price
            method["balance"] = round(method["balance"], 2)
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            item = next((i for i in order["items"] if i["item_id"] == item_id), None)
            if item is None:
                raise ValueError(f"Item {item_id} not found")
            item["item_id"] = new_item_id
            assert variant is not None  # the loop above ran over the same (non-empty) pairs
            # Upstream quirk: every item takes the price/options of the loop's last variant.
            item["price"] = variant["price"]
            item["options"] = clone(variant["options"])
        order["status"] = "pending (item modified)"
        return ModelView(order)

    @tool(ToolType.WRITE)
    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> Any:
        current = self._get_order(order_id)
        if "pending" not in current["status"]:
            raise ValueError("Non-pending order cannot be modified")
        method = self._get_payment_method(current["user_id"], payment_method_id)
        history = current["payment_history"]
        if len(history) != 1 or history[0]["transaction_type"] != "payment":
            raise ValueError("There should be exactly one payment for a pending order")
        if history[0]["payment_method_id"] == payment_method_id:
            raise ValueError("The new payment method should be different from the current one")
        amount = history[0]["amount"]
        if _is_gift_card(method) and method["balance"] < amount:
            raise ValueError("Insufficient gift card balance to pay for the order")
        old_id = history[0]["payment_method_id"]
        order = self._mut_order(order_id)
        order["payment_history"].extend([
            OrderPayment(transaction_type="payment", amount=amount,
                         payment_method_id=payment_method_id).model_dump(),
            OrderPayment(transaction_type="refund", amount=amount,
                         payment_method_id=old_id).model_dump()])
        if _is_gift_card(method):
            method = self._mut_payment_method(current["user_id"], payment_method_id)
            method["balance"] -= amount
            method["balance"] = round(method["balance"], 2)
        old_method = self._get_payment_method(current["user_id"], old_id)
        if _is_gift_card(old_method):
            old_method = self._mut_payment_method(current["user_id"], old_id)
            old_method["balance"] += amount
            old_method["balance"] = round(old_method["balance"], 2)
        return ModelView(order)

    @tool(ToolType.WRITE)
    def modify_user_address(self, user_id: str, address1: str, address2: str, city: str,
                            state: str, country: str, zip: str) -> Any:
        self._get_user(user_id)
        address = UserAddress(address1=address1, address2=address2, city=city, state=state,
                              country=country, zip=zip)
        user = self.db.table("users").mut(user_id)
        user["address"] = address.model_dump()
        return ModelView(user)

    @tool(ToolType.WRITE)
    def return_delivered_order_items(self, order_id: str, item_ids: list[str],
                                     payment_method_id: str) -> Any:
        current = self._get_order(order_id)
        if current["status"] != "delivered":
            raise ValueError("Non-delivered order cannot be returned")
        user = self._get_user(current["user_id"])
        method = self._get_payment_method(user["user_id"], payment_method_id)
        if (not _is_gift_card(method)
                and payment_method_id != current["payment_history"][0]["payment_method_id"]):
            raise ValueError("Payment method should be the original payment method")
        all_item_ids = [item["item_id"] for item in current["items"]]
        for item_id in item_ids:
            if item_ids.count(item_id) > all_item_ids.count(item_id):
                raise ValueError("Some item not found")
        order = self._mut_order(order_id)
        order["status"] = "return requested"
        order["return_items"] = sorted(item_ids)
        order["return_payment_method_id"] = payment_method_id
        return ModelView(order)

    @tool(ToolType.GENERIC)
    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"
