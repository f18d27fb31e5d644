"""Telecom domain, agent side: the 13 carrier tools, helpers for task setup and assertions.

The carrier DB is small, so it is kept as pydantic models (a private deep copy per task-trial,
`ModelDB`) and the tools mirror upstream's `telecom/tools.py` on those objects. Models mirror
upstream's `telecom/data_model.py` shapes (no prose). The user side is `telecom_user.py`; the
sync between the two sides is `sync_tools` below.
"""

from __future__ import annotations

import datetime
import uuid
from datetime import date, timedelta
from enum import Enum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from a2abench.benchmarks.tau2.db import ModelDB
from a2abench.benchmarks.tau2.domains.telecom_user import TelecomUserTools
from a2abench.benchmarks.tau2.domains.telecom_user_models import PaymentRequest
from a2abench.benchmarks.tau2.toolkit import Toolkit, ToolType, tool

if TYPE_CHECKING:
    from a2abench.benchmarks.tau2.environment import Tau2Environment

DEFAULT_START_DATE = datetime.date(2025, 1, 1)


def get_today() -> date:
    return date(2025, 2, 25)  # upstream's fixed telecom "today"


class _NoExtra(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Address(_NoExtra):
    street: str
    city: str
    state: str
    zip_code: str


class Plan(_NoExtra):
    plan_id: str
    name: str
    data_limit_gb: float
    price_per_month: float
    data_refueling_price_per_gb: float


class DeviceType(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    PHONE = "phone"
    ROUTER = "router"
    TABLET = "tablet"
    WATCH = "watch"
    OTHER = "other"


class Device(_NoExtra):
    device_id: str
    device_type: DeviceType
    model: str
    imei: str | None = None
    is_esim_capable: bool
    activated: bool = False
    activation_date: datetime.datetime | None = None
    last_esim_transfer_date: datetime.datetime | None = None


class LineStatus(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_ACTIVATION = "Pending Activation"
    CLOSED = "Closed"


class Line(_NoExtra):
    line_id: str
    phone_number: str
    status: LineStatus = LineStatus.PENDING_ACTIVATION
    plan_id: str
    device_id: str | None = None
    data_used_gb: float = 0.0
    data_refueling_gb: float = 0.0
    roaming_enabled: bool = False
    contract_end_date: datetime.date | None = None
    last_plan_change_date: datetime.date | None = None
    last_sim_replacement_date: datetime.date | None = None
    suspension_start_date: datetime.date | None = None


class LineItem(_NoExtra):
    description: str
    amount: float
    date: datetime.date
    item_type: str


class BillStatus(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    DRAFT = "Draft"
    ISSUED = "Issued"
    AWAITING_PAYMENT = "Awaiting Payment"
    PAID = "Paid"
    OVERDUE = "Overdue"
    DISPUTED = "Disputed"


class Bill(_NoExtra):
    bill_id: str
    customer_id: str
    period_start: datetime.date
    period_end: datetime.date
    issue_date: datetime.date
    total_due: float
    due_date: datetime.date
    line_items: list[LineItem] = Field(default_factory=list)
    status: BillStatus = BillStatus.DRAFT


class AccountStatus(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_VERIFICATION = "Pending Verification"
    CLOSED = "Closed"


class PaymentMethodType(str, Enum):  # noqa: UP042  # upstream's (str, Enum)
    CREDIT_CARD = "Credit Card"
    DEBIT_CARD = "Debit Card"
    PAYPAL = "PayPal"


class PaymentMethod(_NoExtra):
    method_type: PaymentMethodType
    account_number_last_4: str
    expiration_date: str


class Customer(_NoExtra):
    customer_id: str
    full_name: str
    date_of_birth: str
    email: str
    phone_number: str
    address: Address
    account_status: AccountStatus = AccountStatus.PENDING_VERIFICATION
    payment_methods: list[PaymentMethod] = Field(default_factory=list)
    line_ids: list[str] = Field(default_factory=list)
    bill_ids: list[str] = Field(default_factory=list)
    # Upstream's: a date as the default of a datetime field (kept: it shapes the DB hash).
    created_at: datetime.datetime = DEFAULT_START_DATE  # type: ignore[assignment]
    last_extension_date: datetime.date | None = None
    goodwill_credit_used_this_year: float = 0.0


class TelecomDB(_NoExtra):
    plans: list[Plan] = Field(default_factory=list)
    customers: list[Customer] = Field(default_factory=list)
    lines: list[Line] = Field(default_factory=list)
    bills: list[Bill] = Field(default_factory=list)
    devices: list[Device] = Field(default_factory=list)


class TelecomTools(Toolkit[ModelDB[TelecomDB]]):
    """Upstream's `TelecomTools`; method order is upstream's (it is the schema order)."""

    @property
    def data(self) -> TelecomDB:
        return self.db.model

    @tool(ToolType.READ)
    def get_customer_by_phone(self, phone_number: str) -> Customer:
        for customer in self.data.customers:
            if customer.phone_number == phone_number:
                return customer
            for line_id in customer.line_ids:
                line = self._get_line_by_id(line_id)
                if line and line.phone_number == phone_number:
                    return customer
        raise ValueError(f"Customer with phone number {phone_number} not found")

    @tool(ToolType.READ)
    def get_customer_by_id(self, customer_id: str) -> Customer:
        for customer in self.data.customers:
            if customer.customer_id == customer_id:
                return customer
        raise ValueError(f"Customer with ID {customer_id} not found")

    @tool(ToolType.READ)
    def get_customer_by_name(self, full_name: str, dob: str) -> list[Customer]:
        return [c for c in self.data.customers
                if c.full_name.lower() == full_name.lower() and c.date_of_birth == dob]

    def _get_line_by_phone(self, phone_number: str) -> Line:
        for line in self.data.lines:
            if line.phone_number == phone_number:
                return line
        raise ValueError(f"Line with phone number {phone_number} not found")

    def _get_line_by_id(self, line_id: str) -> Line:
        for line in self.data.lines:
            if line.line_id == line_id:
                return line
        raise ValueError(f"Line with ID {line_id} not found")

    def _get_plan_by_id(self, plan_id: str) -> Plan:
        for plan in self.data.plans:
            if plan.plan_id == plan_id:
                return plan
        raise ValueError(f"Plan with ID {plan_id} not found")

    def _get_device_by_id(self, device_id: str) -> Device:
        for device in self.data.devices:
            if device.device_id == device_id:
                return device
        raise ValueError(f"Device with ID {device_id} not found")

    def _get_bill_by_id(self, bill_id: str) -> Bill:
        for bill in self.data.bills:
            if bill.bill_id == bill_id:
                return bill
        raise ValueError(f"Bill with ID {bill_id} not found")

    def _get_target_line(self, customer_id: str, line_id: str) -> Line:
        customer = self.get_customer_by_id(customer_id)
        if line_id not in customer.line_ids:
            raise ValueError(f"Line {line_id} not found for customer {customer_id}")
        return self._get_line_by_id(line_id)

    @tool(ToolType.READ)
    def get_details_by_id(self, id: str) -> dict[str, Any]:
        found: Any
        if id.startswith("L"):
            found = self._get_line_by_id(id)
        elif id.startswith("D"):
            found = self._get_device_by_id(id)
        elif id.startswith("B"):
            found = self._get_bill_by_id(id)
        elif id.startswith("C"):
            found = self.get_customer_by_id(id)
        elif id.startswith("P"):
            found = self._get_plan_by_id(id)
        else:
            raise ValueError(f"Unknown ID format or type: {id}")
        return found  # type: ignore[no-any-return]  # upstream's: a model, not the dict declared

    @tool(ToolType.WRITE)
    def suspend_line(self, customer_id: str, line_id: str, reason: str) -> dict[str, Any]:
        target_line = self._get_target_line(customer_id, line_id)
        if target_line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend")
        target_line.status = LineStatus.SUSPENDED
        target_line.suspension_start_date = get_today()
        return {"message": "Line suspended successfully. $5/month holding fee will apply.",
                "line": target_line}

    @tool(ToolType.WRITE)
    def resume_line(self, customer_id: str, line_id: str) -> dict[str, Any]:
        target_line = self._get_target_line(customer_id, line_id)
        if target_line.status not in [LineStatus.SUSPENDED, LineStatus.PENDING_ACTIVATION]:
            raise ValueError("Line must be suspended to resume")
        target_line.status = LineStatus.ACTIVE
        target_line.suspension_start_date = None
        return {"message": "Line resumed successfully", "line": target_line}

    @tool(ToolType.READ)
    def get_bills_for_customer(self, customer_id: str, limit: int = 12) -> list[Bill]:
        customer = self.get_customer_by_id(customer_id)
        bills = [self._get_bill_by_id(bill_id) for bill_id in customer.bill_ids]
        return sorted(bills, key=lambda bill: bill.issue_date, reverse=True)[:limit]

    @tool(ToolType.WRITE)
    def send_payment_request(self, customer_id: str, bill_id: str) -> str:
        customer = self.get_customer_by_id(customer_id)
        if len(self._get_bills_awaiting_payment(customer)) != 0:
            raise ValueError("A bill is already awaiting payment for this customer")
        if bill_id not in customer.bill_ids:
            raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
        bill = self._get_bill_by_id(bill_id)
        bill.status = BillStatus.AWAITING_PAYMENT
        return f"Payment request sent to the customer for bill {bill.bill_id}"

    def _get_bills_awaiting_payment(self, customer: Customer) -> list[Bill]:
        bills = [self._get_bill_by_id(bill_id) for bill_id in customer.bill_ids]
        return [b for b in bills if b and b.status == BillStatus.AWAITING_PAYMENT]

    def _set_bill_to_paid(self, bill_id: str) -> None:
        self._get_bill_by_id(bill_id).status = BillStatus.PAID

    def _apply_one_time_charge(self, customer_id: str, amount: float, description: str) -> None:
        customer = self.get_customer_by_id(customer_id)
        draft_bill = None
        for bill_id in customer.bill_ids:
            bill = self._get_bill_by_id(bill_id)
            if bill and bill.status == BillStatus.DRAFT:
                draft_bill = bill
                break
        if not draft_bill:
            next_month = (get_today().replace(day=1) + timedelta(days=32)).replace(day=1)
            # Upstream names a new draft bill with a random uuid (not reproducible by design).
            new_bill_id = f"B{uuid.uuid4().hex[:8]}"
            draft_bill = Bill(
                bill_id=new_bill_id, customer_id=customer_id, period_start=next_month,
                period_end=next_month.replace(
                    month=next_month.month + 1 if next_month.month < 12 else 1,
                    year=next_month.year if next_month.month < 12 else next_month.year + 1)
                - timedelta(days=1),
                issue_date=next_month, total_due=0, due_date=next_month + timedelta(days=14),
                status=BillStatus.DRAFT)
            self.data.bills.append(draft_bill)
            customer.bill_ids.append(new_bill_id)
        draft_bill.line_items.append(LineItem(
            description=description, amount=amount, date=get_today(),
            item_type="Credit" if amount < 0 else "Charge"))
        draft_bill.total_due += amount

    @tool(ToolType.READ)
    def get_data_usage(self, customer_id: str, line_id: str) -> dict[str, Any]:
        target_line = self._get_target_line(customer_id, line_id)
        plan = self._get_plan_by_id(target_line.plan_id)
        today = get_today()
        cycle_end_date = date(today.year, today.month + 1 if today.month < 12 else 1, 1
                              ) - timedelta(days=1)
        return {"line_id": line_id, "data_used_gb": target_line.data_used_gb,
                "data_limit_gb": plan.data_limit_gb,
                "data_refueling_gb": target_line.data_refueling_gb,
                "cycle_end_date": cycle_end_date}

    def set_data_usage(self, customer_id: str, line_id: str, data_used_gb: float) -> str:
        target_line = self._get_target_line(customer_id, line_id)
        target_line.data_used_gb = data_used_gb
        return f"Data usage set to {data_used_gb} GB for line {line_id}"

    @tool(ToolType.WRITE)
    def enable_roaming(self, customer_id: str, line_id: str) -> dict[str, Any]:
        # Upstream's: text returned where the signature (and so the schema) says a dict.
        target_line = self._get_target_line(customer_id, line_id)
        if target_line.roaming_enabled:
            return "Roaming was already enabled"  # type: ignore[return-value]
        target_line.roaming_enabled = True
        return "Roaming enabled successfully"  # type: ignore[return-value]

    @tool(ToolType.WRITE)
    def disable_roaming(self, customer_id: str, line_id: str) -> str:
        target_line = self._get_target_line(customer_id, line_id)
        if not target_line.roaming_enabled:
            return "Roaming was already disabled"
        target_line.roaming_enabled = False
        return "Roaming disabled successfully"

    @tool(ToolType.GENERIC)
    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    @tool(ToolType.WRITE)
    def refuel_data(self, customer_id: str, line_id: str, gb_amount: float) -> dict[str, Any]:
        target_line = self._get_target_line(customer_id, line_id)
        if gb_amount <= 0:
            raise ValueError("Refuel amount must be positive")
        plan = self._get_plan_by_id(target_line.plan_id)
        charge_amount = gb_amount * plan.data_refueling_price_per_gb
        target_line.data_refueling_gb += gb_amount
        self._apply_one_time_charge(
            customer_id, charge_amount,
            f"Data refueling: {gb_amount} GB at ${plan.data_refueling_price_per_gb}/GB")
        return {"message": f"Successfully added {gb_amount} GB of data for line {line_id} "
                           f"for ${charge_amount:.2f}",
                "new_data_refueling_gb": target_line.data_refueling_gb,
                "charge": charge_amount}

    # ------------------------------------------------------------ task setup ("break" helpers)
    def suspend_line_for_overdue_bill(self, customer_id: str, line_id: str, new_bill_id: str,
                                      contract_ended: bool) -> str:
        line = self._get_line_by_id(line_id)
        if line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend for unpaid bill")
        amount = self._get_plan_by_id(line.plan_id).price_per_month
        if amount <= 0:
            raise ValueError("Amount must be positive for overdue bill")
        customer = self.get_customer_by_id(customer_id)
        overdue = [b for b in customer.bill_ids
                   if self._get_bill_by_id(b).status == BillStatus.OVERDUE]
        if len(overdue) > 0:
            raise ValueError("Customer already has an overdue bill")
        last_of_last_month = get_today().replace(day=1) - timedelta(days=1)
        first_of_last_month = last_of_last_month.replace(day=1)
        bill = Bill(bill_id=new_bill_id, customer_id=customer_id,
                    period_start=first_of_last_month, period_end=last_of_last_month,
                    issue_date=first_of_last_month, total_due=0,
                    due_date=first_of_last_month + timedelta(days=14),
                    status=BillStatus.OVERDUE)
        bill.line_items.append(LineItem(description=f"Charge for line {line.line_id}",
                                        amount=amount, date=get_today(),
                                        item_type="Charge" if amount > 0 else "Credit"))
        bill.total_due += amount
        self.data.bills.append(bill)
        customer.bill_ids.append(new_bill_id)
        line.status = LineStatus.SUSPENDED
        line.suspension_start_date = get_today()
        if contract_ended:
            line.contract_end_date = last_of_last_month
        return (f"Line {line_id} suspended for unpaid bill {new_bill_id}. "
                f"Contract ended: {contract_ended}")

    # ------------------------------------------------------------ assertions
    def assert_data_refueling_amount(self, customer_id: str, line_id: str,
                                     expected_amount: float) -> bool:
        target_line = self._get_target_line(customer_id, line_id)
        return abs(target_line.data_refueling_gb - expected_amount) < 1e-6

    def assert_line_status(self, customer_id: str, line_id: str,
                           expected_status: LineStatus) -> bool:
        return self._get_target_line(customer_id, line_id).status == expected_status

    def assert_overdue_bill_exists(self, customer_id: str, overdue_bill_id: str) -> bool:
        customer = self.get_customer_by_id(customer_id)
        if overdue_bill_id not in customer.bill_ids:
            raise ValueError(f"Overdue bill {overdue_bill_id} not found")
        if self._get_bill_by_id(overdue_bill_id).status != BillStatus.OVERDUE:
            raise ValueError(f"Overdue bill {overdue_bill_id} is not overdue")
        return True

    def assert_no_overdue_bill(self, overdue_bill_id: str) -> bool:
        try:
            if self._get_bill_by_id(overdue_bill_id).status == BillStatus.PAID:
                return True
        except ValueError:
            return True
        return False


def sync_tools(env: Tau2Environment) -> None:
    """Upstream `TelecomEnvironment.sync_tools`: carrier state to the phone, bills to payment
    requests and paid requests back to bills. Runs after every tool call and step."""
    tools, user_tools = env.tools, env.user_tools
    assert isinstance(tools, TelecomTools) and isinstance(user_tools, TelecomUserTools)
    user = user_tools.db.model
    surroundings = user.surroundings
    phone_number = surroundings.phone_number
    if phone_number is None:
        return
    line = tools._get_line_by_phone(phone_number)
    surroundings.line_active = line.status == LineStatus.ACTIVE
    surroundings.roaming_allowed = bool(line.roaming_enabled)
    plan = tools._get_plan_by_id(line.plan_id)
    surroundings.mobile_data_usage_exceeded = (
        line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb)
    request = surroundings.payment_request
    if request is not None and request.paid:
        tools._set_bill_to_paid(request.bill_id)
        surroundings.payment_request = None
    if surroundings.payment_request is None:
        customer = tools.get_customer_by_phone(phone_number)
        bills = tools._get_bills_awaiting_payment(customer)
        if len(bills) != 0:
            surroundings.payment_request = PaymentRequest(bill_id=bills[0].bill_id,
                                                          amount_due=bills[0].total_due)
