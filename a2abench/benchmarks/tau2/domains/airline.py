"""Airline domain: the 14 agent tools on the flight DB, behaving exactly as upstream's.

The pydantic models mirror upstream's `airline/data_model.py` shapes (names, field order, types)
without its prose: they validate the DB once and validate tool arguments where upstream does,
so stored values and pydantic error texts are the same. Business rules live in the policy
only; the tools check data consistency, quirks included (see the comments).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from a2abench.benchmarks.tau2.db import clone, nested
from a2abench.benchmarks.tau2.toolkit import ModelView, Toolkit, ToolType, tool

FlightType = Literal["round_trip", "one_way"]
CabinClass = Literal["business", "economy", "basic_economy"]
Insurance = Literal["yes", "no"]
MembershipLevel = Literal["gold", "silver", "regular"]


class Name(BaseModel):
    first_name: str
    last_name: str


class Address(BaseModel):
    address1: str
    address2: str | None = None
    city: str
    country: str
    state: str
    zip: str


class Payment(BaseModel):
    payment_id: str
    amount: int


class PaymentMethodBase(BaseModel):
    source: str
    id: str


class CreditCard(PaymentMethodBase):
    source: Literal["credit_card"]
    brand: str
    last_four: str


class GiftCard(PaymentMethodBase):
    source: Literal["gift_card"]
    amount: float
    id: str


class Certificate(PaymentMethodBase):
    source: Literal["certificate"]
    amount: float


class Passenger(BaseModel):
    first_name: str
    last_name: str
    dob: str


class FlightDateStatusAvailable(BaseModel):
    status: Literal["available"]
    available_seats: dict[CabinClass, int]
    prices: dict[CabinClass, int]


class FlightDataStatusOnTime(BaseModel):
    status: Literal["on time"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


class FlightDataStatusFlying(BaseModel):
    status: Literal["flying"]
    actual_departure_time_est: str
    estimated_arrival_time_est: str


class FlightDateStatusLanded(BaseModel):
    status: Literal["landed"]
    actual_departure_time_est: str
    actual_arrival_time_est: str


class FlightDateStatusCancelled(BaseModel):
    status: Literal["cancelled"]


class FlightDateStatusDelayed(BaseModel):
    status: Literal["delayed"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


FlightDateStatus = (FlightDateStatusAvailable | FlightDateStatusLanded | FlightDateStatusCancelled
                    | FlightDateStatusDelayed | FlightDataStatusFlying | FlightDataStatusOnTime)


class FlightBase(BaseModel):
    flight_number: str
    origin: str
    destination: str


class Flight(FlightBase):
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    dates: dict[str, FlightDateStatus]


class ReservationFlight(FlightBase):
    date: str
    price: int


class FlightInfo(BaseModel):
    flight_number: str
    date: str


class User(BaseModel):
    user_id: str
    name: Name
    address: Address
    email: str
    dob: str
    payment_methods: dict[str, CreditCard | GiftCard | Certificate]
    saved_passengers: list[Passenger]
    membership: MembershipLevel
    reservations: list[str]


class Reservation(BaseModel):
    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: FlightType
    cabin: CabinClass
    flights: list[ReservationFlight]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: Insurance
    status: Literal["cancelled"] | None = None


class FlightDB(BaseModel):
    model_config = {"extra": "forbid"}

    flights: dict[str, Flight]
    users: dict[str, User]
    reservations: dict[str, Reservation]


_AIRPORTS = [
    ("SFO", "San Francisco"), ("JFK", "New York"), ("LAX", "Los Angeles"), ("ORD", "Chicago"),
    ("DFW", "Dallas"), ("DEN", "Denver"), ("SEA", "Seattle"), ("ATL", "Atlanta"),
    ("MIA", "Miami"), ("BOS", "Boston"), ("PHX", "Phoenix"), ("IAH", "Houston"),
    ("LAS", "Las Vegas"), ("MCO", "Orlando"), ("EWR", "Newark"), ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"), ("DTW", "Detroit"), ("PHL", "Philadelphia"), ("LGA", "LaGuardia"),
]
# Upstream: the clock is fixed, new reservation and certificate ids come from fixed sequences.
NOW = "2024-05-15T15:00:00"
RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
CERTIFICATE_NUMBERS = (3221322, 3221323, 3221324)


def _dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump()


class AirlineTools(Toolkit):
    """Upstream's `AirlineTools`; method order is upstream's (it is the schema order)."""

    # ------------------------------------------------------------------ helpers
    def _get_user(self, user_id: str) -> dict[str, Any]:
        users = self.db.table("users")
        if user_id not in users:
            raise ValueError(f"User {user_id} not found")
        return users.get(user_id)

    def _mut_user(self, user_id: str) -> dict[str, Any]:
        self._get_user(user_id)
        return self.db.table("users").mut(user_id)

    def _get_reservation(self, reservation_id: str) -> dict[str, Any]:
        table = self.db.table("reservations")
        if reservation_id not in table:
            raise ValueError(f"Reservation {reservation_id} not found")
        return table.get(reservation_id)

    def _mut_reservation(self, reservation_id: str) -> dict[str, Any]:
        self._get_reservation(reservation_id)
        return self.db.table("reservations").mut(reservation_id)

    def _get_flight(self, flight_number: str) -> dict[str, Any]:
        flights = self.db.table("flights")
        if flight_number not in flights:
            raise ValueError(f"Flight {flight_number} not found")
        return flights.get(flight_number)

    def _get_flight_instance(self, flight_number: str, date: str) -> dict[str, Any]:
        flight = self._get_flight(flight_number)
        if date not in flight["dates"]:
            raise ValueError(f"Flight {flight_number} not found on date {date}")
        return nested(flight, "dates", date)

    def _new_reservation_id(self) -> str:
        for reservation_id in RESERVATION_IDS:
            if reservation_id not in self.db.table("reservations"):
                return reservation_id
        raise ValueError("Too many reservations")

    def _search_direct_flight(self, date: str, origin: str | None = None,
                              destination: str | None = None,
                              leave_after: str | None = None) -> list[dict[str, Any]]:
        results = []
        for flight in self.db.table("flights").values():
            check = ((origin is None or flight["origin"] == origin)
                     and (destination is None or flight["destination"] == destination)
                     and (date in flight["dates"])
                     and (flight["dates"][date]["status"] == "available")
                     and (leave_after is None
                          or flight["scheduled_departure_time_est"] >= leave_after))
            if check:
                day = flight["dates"][date]
                results.append({
                    "flight_number": flight["flight_number"], "origin": flight["origin"],
                    "destination": flight["destination"], "status": "available",
                    "scheduled_departure_time_est": flight["scheduled_departure_time_est"],
                    "scheduled_arrival_time_est": flight["scheduled_arrival_time_est"],
                    "date": None, "available_seats": dict(day["available_seats"]),
                    "prices": dict(day["prices"])})
        return results

    def _payment_for_update(self, user: dict[str, Any], payment_id: str,
                            total_price: Any) -> Payment | None:
        if payment_id not in user["payment_methods"]:
            raise ValueError("Payment method not found")
        method = user["payment_methods"][payment_id]
        if method["source"] == "certificate":
            raise ValueError("Certificate cannot be used to update reservation")
        if method["source"] == "gift_card" and method["amount"] < total_price:
            raise ValueError("Gift card balance is not enough")
        # Upstream deducts before building the Payment, so a failing Payment keeps the deduction.
        if method["source"] == "gift_card":
            method["amount"] -= total_price
        if total_price != 0:
            return Payment(payment_id=payment_id, amount=total_price)
        return None

    # ------------------------------------------------------------------ tools
    @tool(ToolType.WRITE)
    def book_reservation(self, user_id: str, origin: str, destination: str,
                         flight_type: FlightType, cabin: CabinClass,
                         flights: list[FlightInfo | dict[str, Any]],
                         passengers: list[Passenger | dict[str, Any]],
                         payment_methods: list[Payment | dict[str, Any]],
                         total_baggages: int, nonfree_baggages: int,
                         insurance: Insurance) -> Any:
        # Upstream converts each list only when all its items are dicts; mixed lists stay raw.
        fl: Any = flights
        px: Any = passengers
        pm: Any = payment_methods
        if all(isinstance(f, dict) for f in fl):
            fl = [FlightInfo(**f) for f in fl]
        if all(isinstance(p, dict) for p in px):
            px = [Passenger(**p) for p in px]
        if all(isinstance(p, dict) for p in pm):
            pm = [Payment(**p) for p in pm]
        user = self._get_user(user_id)
        reservation_id = self._new_reservation_id()
        reservation = Reservation(
            reservation_id=reservation_id, user_id=user_id, origin=origin,
            destination=destination, flight_type=flight_type, cabin=cabin, flights=[],
            passengers=px, payment_history=pm, created_at=NOW,
            total_baggages=total_baggages, nonfree_baggages=nonfree_baggages,
            insurance=insurance)
        total_price: Any = 0
        booked: list[tuple[str, str]] = []
        for info in fl:
            flight_number, date = info.flight_number, info.date
            flight = self._get_flight(flight_number)
            day = self._get_flight_instance(flight_number=flight_number, date=date)
            if day["status"] != "available":
                raise ValueError(f"Flight {flight_number} not available on date {date}")
            if day["available_seats"][cabin] < len(px):
                raise ValueError(f"Not enough seats on flight {flight_number}")
            price = day["prices"][cabin]
            reservation.flights.append(ReservationFlight(
                origin=flight["origin"], destination=flight["destination"],
                flight_number=flight_number, date=date, price=price))
            booked.append((flight_number, date))
            total_price += price * len(px)
        if insurance == "yes":
            total_price += 30 * len(px)
        total_price += 50 * nonfree_baggages
        return self._finish_booking(user, reservation, pm, total_price, booked, cabin, len(px))

    def _finish_booking(self, user: dict[str, Any], reservation: Reservation,
                        payment_methods: list[Any], total_price: Any,
                        booked: list[tuple[str, str]], cabin: str, count: int) -> ModelView:
        for payment in payment_methods:
            if payment.payment_id not in user["payment_methods"]:
                raise ValueError(f"Payment method {payment.payment_id} not found")
            method = user["payment_methods"][payment.payment_id]
            if method["source"] in {"gift_card", "certificate"} and \
                    method["amount"] < payment.amount:
                raise ValueError(f"Not enough balance in payment method {payment.payment_id}")
        total_payment = sum(payment.amount for payment in payment_methods)
        if total_payment != total_price:
            raise ValueError(f"Payment amount does not add up, total price is {total_price}, "
                             f"but paid {total_payment}")
        user = self._mut_user(reservation.user_id)
        for payment in payment_methods:
            method = user["payment_methods"][payment.payment_id]
            if method["source"] == "gift_card":
                method["amount"] -= payment.amount
            elif method["source"] == "certificate":
                user["payment_methods"].pop(payment.payment_id)
        flights = self.db.table("flights")
        for flight_number, date in booked:
            flights.mut(flight_number)["dates"][date]["available_seats"][cabin] -= count
        record = _dump(reservation)
        self.db.table("reservations").put(reservation.reservation_id, record)
        user["reservations"].append(reservation.reservation_id)
        return ModelView(record)

    @tool(ToolType.GENERIC)
    def calculate(self, expression: str) -> str:
        if not all(char in "0123456789+-*/(). " for char in expression):
            raise ValueError("Invalid characters in expression")
        # Upstream evaluates the filtered arithmetic with no builtins and rounds to 2 places.
        return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))

    @tool(ToolType.WRITE)
    def cancel_reservation(self, reservation_id: str) -> Any:
        reservation = self._mut_reservation(reservation_id)
        refunds = [_dump(Payment(payment_id=p["payment_id"], amount=-p["amount"]))
                   for p in reservation["payment_history"]]
        reservation["payment_history"].extend(refunds)
        reservation["status"] = "cancelled"
        # Upstream never releases the seats of a cancelled reservation.
        return ModelView(reservation)

    @tool(ToolType.READ)
    def get_reservation_details(self, reservation_id: str) -> Any:
        return ModelView(self._get_reservation(reservation_id))

    @tool(ToolType.READ)
    def get_user_details(self, user_id: str) -> Any:
        return ModelView(self._get_user(user_id))

    @tool(ToolType.READ)
    def list_all_airports(self) -> Any:
        return [ModelView({"iata": iata, "city": city}) for iata, city in _AIRPORTS]

    @tool(ToolType.READ)
    def search_direct_flight(self, origin: str, destination: str, date: str) -> Any:
        found = self._search_direct_flight(date=date, origin=origin, destination=destination)
        return [ModelView(f) for f in found]

    @tool(ToolType.READ)
    def search_onestop_flight(self, origin: str, destination: str, date: str) -> Any:
        results = []
        for first in self._search_direct_flight(date=date, origin=origin, destination=None):
            first["date"] = date
            # Upstream quirk: the next day is built without zero padding ("2024-05-6").
            date2 = (f"2024-05-{int(date[-2:]) + 1}"
                     if "+1" in first["scheduled_arrival_time_est"] else date)
            for second in self._search_direct_flight(
                    date=date2, origin=first["destination"], destination=destination,
                    leave_after=first["scheduled_arrival_time_est"]):
                second["date"] = date2
                results.append([ModelView(first), ModelView(second)])
        return results

    @tool(ToolType.WRITE)
    def send_certificate(self, user_id: str, amount: int) -> str:
        self._get_user(user_id)
        for payment_id in [f"certificate_{n}" for n in CERTIFICATE_NUMBERS]:
            if payment_id not in self._get_user(user_id)["payment_methods"]:
                certificate = Certificate(id=payment_id, amount=amount, source="certificate")
                user = self._mut_user(user_id)
                user["payment_methods"][payment_id] = _dump(certificate)
                return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
        raise ValueError("Too many certificates")

    @tool(ToolType.GENERIC)
    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    @tool(ToolType.WRITE)
    def update_reservation_baggages(self, reservation_id: str, total_baggages: int,
                                    nonfree_baggages: int, payment_id: str) -> Any:
        current = self._get_reservation(reservation_id)
        self._get_user(current["user_id"])
        total_price = 50 * max(0, nonfree_baggages - current["nonfree_baggages"])
        user = self._mut_user(current["user_id"])
        payment = self._payment_for_update(user, payment_id, total_price)
        reservation = self._mut_reservation(reservation_id)
        if payment is not None:
            reservation["payment_history"].append(_dump(payment))
        # Upstream assigns the raw arguments without validation.
        reservation["total_baggages"] = total_baggages
        reservation["nonfree_baggages"] = nonfree_baggages
        return ModelView(reservation)

    @tool(ToolType.WRITE)
    def update_reservation_flights(self, reservation_id: str, cabin: CabinClass,
                                   flights: list[FlightInfo | dict[str, Any]],
                                   payment_id: str) -> Any:
        fl: Any = flights
        if all(isinstance(f, dict) for f in fl):
            fl = [FlightInfo(**f) for f in fl]
        current = self._get_reservation(reservation_id)
        self._get_user(current["user_id"])
        count = len(current["passengers"])
        total_price: Any = 0
        new_flights: list[dict[str, Any]] = []
        for info in fl:
            number, date = info.flight_number, info.date
            match = next((f for f in current["flights"] if f["flight_number"] == number
                          and f["date"] == date and cabin == current["cabin"]), None)
            if match:
                total_price += match["price"] * count
                new_flights.append(match)
                continue
            flight = self._get_flight(number)
            day = self._get_flight_instance(flight_number=number, date=date)
            if day["status"] != "available":
                raise ValueError(f"Flight {number} not available on date {date}")
            if day["available_seats"][cabin] < count:
                raise ValueError(f"Not enough seats on flight {number}")
            leg = ReservationFlight(flight_number=number, date=date,
                                    price=day["prices"][cabin], origin=flight["origin"],
                                    destination=flight["destination"])
            total_price += leg.price * count
            new_flights.append(_dump(leg))
        total_price -= sum(f["price"] for f in current["flights"]) * count
        payment = self._payment_for_update(self._mut_user(current["user_id"]), payment_id,
                                           total_price)
        reservation = self._mut_reservation(reservation_id)
        if payment is not None:
            reservation["payment_history"].append(_dump(payment))
        reservation["flights"] = [dict(f) for f in new_flights]
        reservation["cabin"] = cabin
        # Upstream does not update seat availability when flights change.
        return ModelView(reservation)

    @tool(ToolType.WRITE)
    def update_reservation_passengers(self, reservation_id: str,
                                      passengers: list[Passenger | dict[str, Any]],
                                      ) -> Any:
        px: Any = passengers
        if all(isinstance(p, dict) for p in px):
            px = [Passenger(**p) for p in px]
        current = self._get_reservation(reservation_id)
        if len(px) != len(current["passengers"]):
            raise ValueError("Number of passengers does not match")
        reservation = self._mut_reservation(reservation_id)
        # Upstream assigns the list without validation; models dump, anything else stays raw.
        reservation["passengers"] = ([_dump(p) if isinstance(p, BaseModel) else clone(p)
                                      for p in px]
                                     if isinstance(px, list) else clone(px))
        return ModelView(reservation)

    @tool(ToolType.READ)
    def get_flight_status(self, flight_number: str, date: str) -> str:
        return str(self._get_flight_instance(flight_number, date)["status"])

