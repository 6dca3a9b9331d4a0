"""car_rental: self-drive rental offers, insurance, bookings, condition evidence and incidents.

The public release ships no SPEC for this server; the surface below is derived from the
reference ``car_rental_mock`` source (13 tools, same names, parameters and result
shapes). Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the reference's
lower-case codes, upper-cased).

Where the release is lenient or silent: ``search_vehicle_offers`` (and
``compare_energy_options``) take ``pickup_at``/``return_at`` as a date ``YYYY-MM-DD`` (every
offer of that day) or any ISO-8601 time (offers at that instant, however its offset is
written); the release matches the stored text exactly, so a date or another spelling
silently finds nothing. Text that is neither is ``BAD_ARG`` naming the argument.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import dumps, loads, parse_date_arg, parse_datetime_arg

ENERGY_TYPES = ("gasoline", "ev", "hybrid")
PHASES = ("pickup", "return")
NO_SHOW_GRACE = timedelta(hours=24)
LATE_RETURN_GRACE = timedelta(hours=1)


class CarRentalService(Service):
    """Rental search, energy-cost comparison, held bookings, pickup/return evidence, incidents.

    Tools (``car_rental__<name>``):

    * ``search_vehicle_offers(pickup_city?, return_city?, pickup_at?, return_at?, energy_type?,
      seats=4, max_results=20)`` -> ``{offers, count}``, cheapest daily price first; only
      offers with a car left and at least ``seats`` seats. ``pickup_at``/``return_at`` match
      the exact timestamp, or a whole day when given as YYYY-MM-DD.
    * ``get_vehicle_offer(offer_id)``, ``list_insurance_plans()`` -> ``{plans}``.
    * ``compare_energy_options(pickup_city, return_city, pickup_at, return_at,
      route_km_estimate=520, seats=4)`` -> per offer: rental subtotal, one-way fee, energy
      units and cost for the route, trip cost without insurance.
    * ``create_rental_booking(offer_id, insurance_plan_id, driver_user_id, drivers, contact,
      payment?)`` -> the booking (status ``held``): estimated total = (daily price +
      insurance) x rental days + one-way fee; takes one car from the offer.
    * ``get_booking(booking_ref)``, ``list_bookings(user_id?)`` -> ``{bookings, count}``.
    * ``report_vehicle_condition(booking_ref, phase, checklist_items, ...)``: ``pickup``
      turns a held booking ``picked_up``; ``return`` turns it ``returned``, charging one
      daily price (car + insurance) per started day beyond ``return_at`` + 1 h grace.
    * ``report_incident(...)`` / ``list_incident_reports(booking_ref?)`` /
      ``get_return_requirements(booking_ref)``, ``get_road_policy()``,
      ``list_energy_stops(energy_type?, city?)``.

    Clock rules: offers whose pickup time has passed cannot be booked; a held booking not
    picked up within 24 h after ``pickup_at`` becomes ``no_show`` and its car is released.
    """

    name = "car_rental"
    SCHEMA = schema_from(__file__)

    def sync_clock(self) -> None:
        """Mark lapsed holds as no-shows before serving the call."""
        self._expire_no_shows()

    # ------------------------------------------------------------------ offers
    @tool(read_only=True)
    def search_vehicle_offers(
        self,
        pickup_city: str | None = None,
        return_city: str | None = None,
        pickup_at: str | None = None,
        return_at: str | None = None,
        energy_type: str | None = None,
        seats: int = 4,
        max_results: int = 20,
    ) -> dict[str, Any]:
        """Search rental offers with a car available, cheapest daily price first.

        Returns ``offers``, ``count`` (the offers shown) and ``total`` (every offer that matches:
        more than ``count`` when ``max_results`` cut the list).

        Args:
            pickup_city: Pickup city (case-insensitive), e.g. "Sanya".
            return_city: Return city; differs from pickup for one-way rentals (one_way_fee applies).
            pickup_at: Pickup time as stored (ISO-8601) or a date YYYY-MM-DD.
            return_at: Return time as stored (ISO-8601) or a date YYYY-MM-DD.
            energy_type: gasoline, ev or hybrid.
            seats: Minimum seats in the vehicle.
            max_results: Maximum offers (1 to 50).
        """
        if energy_type is not None and energy_type not in ENERGY_TYPES:
            raise ToolError("BAD_ARG", f"energy_type must be one of {', '.join(ENERGY_TYPES)}, got {energy_type!r}")
        where = ["o.inventory_remaining > 0", "v.seats >= ?"]
        params: list[Any] = [max(1, seats)]
        for value, sql in (
            (pickup_city, "lower(pl.city) = lower(?)"),
            (return_city, "lower(rl.city) = lower(?)"),
            (energy_type, "v.energy_type = ?"),
        ):
            if value:
                where.append(sql)
                params.append(value)
        instants: dict[str, datetime] = {}
        for arg, value in (("pickup_at", pickup_at), ("return_at", return_at)):
            if not value:
                continue
            if len(value.strip()) == 10:  # a date: every offer of that (local) day
                where.append(f"substr(o.{arg}, 1, 10) = ?")
                params.append(parse_date_arg(arg, value.strip()).isoformat())
            else:  # a time: the offers at that instant, whatever the offset is written as
                instants[arg] = parse_datetime_arg(arg, value, self.now().tzinfo)
        rows = self.query(
            "SELECT o.* FROM rental_offers o JOIN vehicles v ON v.vehicle_id = o.vehicle_id "
            "JOIN rental_locations pl ON pl.location_id = o.pickup_location_id "
            "JOIN rental_locations rl ON rl.location_id = o.return_location_id "
            f"WHERE {' AND '.join(where)} ORDER BY o.daily_price, v.energy_type, o.offer_id",
            params,
        )
        rows = [r for r in rows if all(_parse_dt(r[arg], self.now()) == at for arg, at in instants.items())]
        offers = [self._offer_out(r) for r in rows[: max(1, min(max_results, 50))]]
        return {"offers": offers, "count": len(offers), "total": len(rows)}

    @tool(read_only=True)
    def get_vehicle_offer(self, offer_id: str) -> dict[str, Any]:
        """One rental offer: vehicle, locations with hours, price breakdown, energy policy, return rules.

        Args:
            offer_id: The offer id.
        """
        return self._offer_out(self._offer_row(offer_id))

    @tool(read_only=True)
    def list_insurance_plans(self) -> dict[str, Any]:
        """Insurance plans with daily price and coverage, cheapest first."""
        rows = self.query("SELECT * FROM insurance_plans ORDER BY daily_price, plan_id")
        return {"plans": [_insurance_out(r) for r in rows]}

    @tool(read_only=True)
    def compare_energy_options(
        self,
        pickup_city: str,
        return_city: str,
        pickup_at: str,
        return_at: str,
        route_km_estimate: float = 520.0,
        seats: int = 4,
    ) -> dict[str, Any]:
        """Compare gasoline, hybrid and EV offers for a trip including the estimated energy cost.

        Energy units = route_km_estimate / 100 x the vehicle's consumption per 100 km; cost uses
        the offer's energy_policy.estimated_unit_price.

        Args:
            pickup_city: Pickup city.
            return_city: Return city.
            pickup_at: Pickup time (ISO-8601) or date YYYY-MM-DD.
            return_at: Return time (ISO-8601) or date YYYY-MM-DD.
            route_km_estimate: Planned driving distance in km (positive).
            seats: Minimum seats.
        """
        if route_km_estimate <= 0:
            raise ToolError("BAD_ARG", f"route_km_estimate must be positive, got {route_km_estimate}")
        offers = self.search_vehicle_offers(pickup_city, return_city, pickup_at, return_at, None, seats, 50)["offers"]
        comparisons = []
        for o in offers:
            vehicle, prices = o["vehicle"], o["price_breakdown"]
            units = round(route_km_estimate / 100.0 * float(vehicle.get("energy_consumption_per_100km") or 0), 2)
            cost = round(units * float((o["energy_policy"] or {}).get("estimated_unit_price", 0) or 0), 2)
            comparisons.append(
                {
                    "offer_id": o["offer_id"],
                    "model": vehicle["model"],
                    "energy_type": vehicle["energy_type"],
                    "rental_subtotal": prices["rental_subtotal"],
                    "one_way_fee": prices["one_way_fee"],
                    "estimated_energy_units": units,
                    "energy_unit": vehicle["energy_unit"],
                    "estimated_energy_cost": {"amount": cost, "currency": o["currency"]},
                    "estimated_trip_cost_without_insurance": {
                        "amount": round(prices["rental_subtotal"] + prices["one_way_fee"] + cost, 2),
                        "currency": o["currency"],
                    },
                    "planning_notes": _energy_notes(
                        vehicle["energy_type"], vehicle.get("range_km_estimate"), route_km_estimate
                    ),
                }
            )
        return {
            "route_km_estimate": route_km_estimate,
            "highway_policy": self.get_road_policy(),
            "comparisons": comparisons,
        }

    # ------------------------------------------------------------------ bookings
    @tool
    def create_rental_booking(
        self,
        offer_id: str,
        insurance_plan_id: str,
        driver_user_id: str,
        drivers: list[dict[str, Any]],
        contact: dict[str, Any],
        payment: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Reserve a car on an offer with an insurance plan; the booking is ``held`` until pickup.

        Estimated total = (daily price + insurance daily price) x rental days (started 24 h
        periods) + one-way fee. A deposit (price_breakdown.deposit_amount) is taken at pickup.

        Args:
            offer_id: The offer id.
            insurance_plan_id: A plan id from list_insurance_plans.
            driver_user_id: The main driver's user id; the booking belongs to this user.
            drivers: Drivers [{name, license_no?, license_country?, age?}] (at least one).
            contact: {phone?, email?}.
            payment: Optional {method, card_last4?}; card 0000 is declined.
        """
        offer = self._offer_row(offer_id)
        plan = self._insurance_row(insurance_plan_id)
        if not drivers:
            raise ToolError("BAD_ARG", "at least one driver is required")
        if not driver_user_id.strip():
            raise ToolError("BAD_ARG", "driver_user_id must not be empty")
        if (payment or {}).get("card_last4") == "0000":
            raise ToolError("PAYMENT_DECLINED", "card ending 0000 was declined")
        if _parse_dt(offer["pickup_at"], self.now()) <= self.now():
            raise ToolError("OFFER_EXPIRED", f"offer {offer_id} picked up at {offer['pickup_at']}, which has passed")
        if int(offer["inventory_remaining"]) <= 0:
            raise ToolError("INVENTORY_GONE", f"no car left on offer {offer_id}")
        days = _rental_days(offer["pickup_at"], offer["return_at"])
        total = round(
            (float(offer["daily_price"]) + float(plan["daily_price"])) * days + float(offer["one_way_fee"]), 2
        )
        ref = f"CR{self.next_seq('booking_seq'):06d}"
        now = self.now_iso()
        history = [{"at": now, "event": "CREATED", "detail": f"offer={offer_id}; insurance={insurance_plan_id}"}]
        self.execute(
            "INSERT INTO bookings (booking_ref, user_id, offer_id, insurance_plan_id, status, estimated_total, currency, "
            "created_at, drivers_json, contact_json, payment_json, history_json) VALUES (?, ?, ?, ?, 'held', ?, ?, ?, ?, ?, ?, ?)",
            (ref, driver_user_id, offer_id, insurance_plan_id, total, offer["currency"], now,
             dumps(drivers), dumps(contact), dumps(payment or {}), dumps(history)),
        )  # fmt: skip
        self.execute(
            "UPDATE rental_offers SET inventory_remaining = inventory_remaining - 1 WHERE offer_id = ?", (offer_id,)
        )
        return self.get_booking(ref)

    @tool(read_only=True)
    def get_booking(self, booking_ref: str) -> dict[str, Any]:
        """A rental booking with its offer, insurance, estimated total, drivers, conditions and history.

        Args:
            booking_ref: The booking reference, e.g. CR000001.
        """
        return self._booking_out(self._booking_row(booking_ref))

    @tool(read_only=True)
    def list_bookings(self, user_id: str | None = None) -> dict[str, Any]:
        """Rental bookings newest first (brief form).

        Args:
            user_id: Only this driver_user_id's bookings; all when omitted.
        """
        sql, params = "SELECT * FROM bookings", []
        if user_id:
            sql, params = sql + " WHERE user_id = ?", [user_id]
        rows = self.query(sql + " ORDER BY created_at DESC, booking_ref DESC", params)
        return {"bookings": [self._booking_out(r, brief=True) for r in rows], "count": len(rows)}

    @tool
    def report_vehicle_condition(
        self,
        booking_ref: str,
        phase: str,
        checklist_items: dict[str, Any],
        odometer_km: float | None = None,
        fuel_or_charge_level: str | None = None,
        notes: str | None = None,
    ) -> dict[str, Any]:
        """Record pickup or return condition evidence; moves the booking to picked_up / returned.

        A return later than return_at + 1 h adds one daily price (car + insurance) per
        started late day to the estimated total (reported as ``late_fee``).

        Args:
            booking_ref: The booking reference.
            phase: pickup or return.
            checklist_items: Checked items, e.g. {"scratches": "none", "photos": 8}.
            odometer_km: Odometer reading in km.
            fuel_or_charge_level: Fuel or battery level, e.g. "full", "80%".
            notes: Free-text notes.
        """
        if phase not in PHASES:
            raise ToolError("BAD_ARG", f"phase must be pickup or return, got {phase!r}")
        row = self._booking_row(booking_ref)
        expected = "held" if phase == "pickup" else "picked_up"
        if row["status"] != expected:
            raise ToolError("BAD_STATE", f"booking {booking_ref} is {row['status']}; {phase} needs {expected}")
        now = self.now_iso()
        condition = {
            "phase": phase,
            "recorded_at": now,
            "odometer_km": odometer_km,
            "fuel_or_charge_level": fuel_or_charge_level,
            "checklist_items": checklist_items,
            "notes": notes,
        }
        total, status = float(row["estimated_total"]), "picked_up"
        if phase == "return":
            status = "returned"
            offer = self._offer_row(row["offer_id"])
            late = self.now() - _parse_dt(offer["return_at"], self.now())
            if late > LATE_RETURN_GRACE:
                plan = self._insurance_row(row["insurance_plan_id"])
                days = math.ceil(late / timedelta(days=1))
                fee = round((float(offer["daily_price"]) + float(plan["daily_price"])) * days, 2)
                condition["late_fee"] = {"amount": fee, "currency": row["currency"], "late_days": days}
                total = round(total + fee, 2)
        history = json.loads(row["history_json"] or "[]")
        history.append({"at": now, "event": f"{phase.upper()}_CONDITION", "detail": notes or ""})
        column = "pickup_condition_json" if phase == "pickup" else "return_condition_json"
        self.execute(
            f"UPDATE bookings SET {column} = ?, history_json = ?, status = ?, estimated_total = ? WHERE booking_ref = ?",
            (dumps(condition), dumps(history), status, total, booking_ref),
        )
        return {"booking_ref": booking_ref, "status": status, "condition": condition}

    # ------------------------------------------------------------------ incidents
    @tool
    def report_incident(
        self,
        booking_ref: str,
        incident_type: str,
        occurred_at: str,
        location: str,
        description: str,
        photos_count: int = 0,
        safe_to_drive: bool = True,
        estimated_fee: float | None = None,
    ) -> dict[str, Any]:
        """Report an incident (scrape, breakdown, accident, fine) to the platform; opens a case.

        Args:
            booking_ref: The booking reference.
            incident_type: e.g. scrape, collision, breakdown, flat_tire, traffic_fine.
            occurred_at: When it happened, ISO-8601.
            location: Where it happened.
            description: What happened.
            photos_count: Number of photos taken (0 or more).
            safe_to_drive: Whether the car can still be driven.
            estimated_fee: Optional estimated repair/fee amount in the booking currency.
        """
        row = self._booking_row(booking_ref)
        try:
            _parse_dt(occurred_at, self.now())
        except ValueError:
            raise ToolError("BAD_ARG", f"occurred_at must be ISO-8601, got {occurred_at!r}") from None
        if photos_count < 0:
            raise ToolError("BAD_ARG", f"photos_count must be >= 0, got {photos_count}")
        incident_id = f"CRI{self.next_seq('incident_seq'):06d}"
        case_ref = f"CASE-{self.next_seq('case_seq'):06d}"
        self.execute(
            "INSERT INTO incident_reports VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'reported', ?, ?)",
            (incident_id, booking_ref, incident_type, occurred_at, location, description, photos_count,
             int(safe_to_drive), case_ref, self.now_iso(), estimated_fee, row["currency"]),
        )  # fmt: skip
        return self.get_incident_report(incident_id)

    def get_incident_report(self, incident_id: str) -> dict[str, Any]:
        """One incident report (helper, not a tool in the public surface)."""
        row = self.require(
            "SELECT * FROM incident_reports WHERE incident_id = ?",
            (incident_id,),
            "INCIDENT_NOT_FOUND",
            f"no incident {incident_id!r}",
        )
        return {**row, "safe_to_drive": bool(row["safe_to_drive"])}

    @tool(read_only=True)
    def list_incident_reports(self, booking_ref: str | None = None) -> dict[str, Any]:
        """Incident reports in order of occurrence.

        Args:
            booking_ref: Only this booking's incidents; all when omitted.
        """
        sql, params = "SELECT * FROM incident_reports", []
        if booking_ref:
            sql, params = sql + " WHERE booking_ref = ?", [booking_ref]
        rows = self.query(sql + " ORDER BY occurred_at, incident_id", params)
        return {"incidents": [{**r, "safe_to_drive": bool(r["safe_to_drive"])} for r in rows], "count": len(rows)}

    @tool(read_only=True)
    def get_return_requirements(self, booking_ref: str) -> dict[str, Any]:
        """What returning the car requires: location, deadline, fuel/charge, wash, open incidents.

        Args:
            booking_ref: The booking reference.
        """
        booking = self._booking_row(booking_ref)
        offer = self._offer_row(booking["offer_id"])
        return {
            "booking_ref": booking_ref,
            "status": booking["status"],
            "return_location": _location_out(self._location_row(offer["return_location_id"])),
            "return_at": offer["return_at"],
            "requirements": loads(offer["return_requirements_json"], {}),
            "energy_policy": loads(offer["energy_policy_json"], {}),
            "open_incidents": self.list_incident_reports(booking_ref)["incidents"],
        }

    # ------------------------------------------------------------------ road info
    @tool(read_only=True)
    def get_road_policy(self) -> dict[str, Any]:
        """Road toll and fee policies relevant to the rental area."""
        rows = self.query("SELECT * FROM road_policy ORDER BY policy_id")
        return {
            "policies": [
                {k: r[k] for k in ("policy_id", "name", "applies_to", "source_url")}
                | {"detail": loads(r["detail_json"], {})}
                for r in rows
            ]
        }

    @tool(read_only=True)
    def list_energy_stops(self, energy_type: str | None = None, city: str | None = None) -> dict[str, Any]:
        """Fuel and charging stops, by city then name.

        Args:
            energy_type: Only stops serving this energy type (gasoline, ev, hybrid).
            city: Only stops in this city (case-insensitive).
        """
        stops = []
        for r in self.query("SELECT * FROM energy_stops ORDER BY city, name"):
            types = loads(r["energy_types_json"], [])
            if city and r["city"].casefold() != city.casefold():
                continue
            if energy_type and energy_type not in types:
                continue
            stops.append(
                {
                    "stop_id": r["stop_id"],
                    "name": r["name"],
                    "city": r["city"],
                    "geo": {"lat": r["lat"], "lng": r["lng"]},
                    "energy_types": types,
                    "hours": loads(r["hours_json"], {}),
                    "wait_risk": r["wait_risk"],
                    "notes": r["notes"],
                    "source_url": r["source_url"],
                }
            )
        return {"stops": stops, "count": len(stops)}

    # ------------------------------------------------------------------ internals
    def _expire_no_shows(self) -> None:
        now = self.now()
        for b in self.query(
            "SELECT b.booking_ref, b.offer_id, b.history_json, o.pickup_at FROM bookings b "
            "JOIN rental_offers o ON o.offer_id = b.offer_id WHERE b.status = 'held'"
        ):
            deadline = _parse_dt(b["pickup_at"], now) + NO_SHOW_GRACE
            if deadline > now:
                continue
            history = json.loads(b["history_json"] or "[]")
            history.append({"at": deadline.isoformat(), "event": "NO_SHOW", "detail": "not picked up within 24 h"})
            self.execute(
                "UPDATE bookings SET status = 'no_show', history_json = ? WHERE booking_ref = ?",
                (dumps(history), b["booking_ref"]),
            )
            self.execute(
                "UPDATE rental_offers SET inventory_remaining = inventory_remaining + 1 WHERE offer_id = ?",
                (b["offer_id"],),
            )

    def _offer_out(self, row: dict[str, Any]) -> dict[str, Any]:
        days = _rental_days(row["pickup_at"], row["return_at"])
        vehicle = self.query_one("SELECT * FROM vehicles WHERE vehicle_id = ?", (row["vehicle_id"],)) or {}
        return {
            "offer_id": row["offer_id"],
            "vehicle": vehicle,
            "pickup_location": _location_out(self._location_row(row["pickup_location_id"])),
            "return_location": _location_out(self._location_row(row["return_location_id"])),
            "pickup_at": row["pickup_at"],
            "return_at": row["return_at"],
            "rental_days": days,
            "currency": row["currency"],
            "price_breakdown": {
                "daily_price": row["daily_price"],
                "rental_subtotal": round(float(row["daily_price"]) * days, 2),
                "one_way_fee": row["one_way_fee"],
                "deposit_amount": row["deposit_amount"],
                "insurance_not_included": True,
            },
            "included_km_per_day": row["included_km_per_day"],
            "energy_policy": loads(row["energy_policy_json"], {}),
            "return_requirements": loads(row["return_requirements_json"], {}),
            "inventory_remaining": row["inventory_remaining"],
            "cancellation_policy": row["cancellation_policy"],
            "source_url": row["source_url"],
            "notes": row["notes"],
        }

    def _booking_out(self, row: dict[str, Any], brief: bool = False) -> dict[str, Any]:
        out = {
            "booking_ref": row["booking_ref"],
            "user_id": row["user_id"],
            "status": row["status"],
            "offer": self._offer_out(self._offer_row(row["offer_id"])),
            "insurance_plan": _insurance_out(self._insurance_row(row["insurance_plan_id"])),
            "estimated_total": {"amount": row["estimated_total"], "currency": row["currency"]},
            "created_at": row["created_at"],
        }
        if not brief:
            out["drivers"] = loads(row["drivers_json"], [])
            out["contact"] = loads(row["contact_json"], {})
            out["history"] = loads(row["history_json"], [])
            out["pickup_condition"] = loads(row["pickup_condition_json"], None)
            out["return_condition"] = loads(row["return_condition_json"], None)
        return out

    def _offer_row(self, offer_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM rental_offers WHERE offer_id = ?",
            (offer_id,),
            "OFFER_NOT_FOUND",
            f"no rental offer {offer_id!r}",
        )

    def _insurance_row(self, plan_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM insurance_plans WHERE plan_id = ?",
            (plan_id,),
            "INSURANCE_PLAN_NOT_FOUND",
            f"no insurance plan {plan_id!r}",
        )

    def _booking_row(self, booking_ref: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM bookings WHERE booking_ref = ?",
            (booking_ref,),
            "BOOKING_NOT_FOUND",
            f"no rental booking {booking_ref!r}",
        )

    def _location_row(self, location_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM rental_locations WHERE location_id = ?",
            (location_id,),
            "LOCATION_NOT_FOUND",
            f"no location {location_id!r}",
        )


# ---------------------------------------------------------------------- helpers
def _rental_days(pickup_at: str, return_at: str) -> int:
    """Started 24-hour periods between pickup and return (at least 1)."""
    start, end = (datetime.fromisoformat(v.replace("Z", "+00:00")) for v in (pickup_at, return_at))
    return max(1, math.ceil(max(0.0, (end - start).total_seconds()) / 86400))


def _parse_dt(value: str, ref: datetime) -> datetime:
    dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return dt if dt.tzinfo else dt.replace(tzinfo=ref.tzinfo)


def _location_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "location_id": row["location_id"],
        "name": row["name"],
        "city": row["city"],
        "address": row["address"],
        "geo": {"lat": row["lat"], "lng": row["lng"]},
        "hours": loads(row["hours_json"], {}),
        "notes": row["notes"],
        "source_url": row["source_url"],
    }


def _insurance_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "plan_id": row["plan_id"],
        "name": row["name"],
        "daily_price": row["daily_price"],
        "currency": row["currency"],
        "coverage": loads(row["coverage_json"], {}),
        "notes": row["notes"],
    }


def _energy_notes(energy: str, range_km: float | None, route_km: float) -> list[str]:
    if energy == "ev":
        notes = [
            "Confirm overnight charging at the hotel or a nearby fast charger.",
            "Add charging time to long driving days.",
            "Return the car with the charge level the offer requires.",
        ]
        if range_km and route_km > float(range_km):
            notes.insert(
                0,
                f"The route ({route_km:g} km) exceeds the estimated range ({float(range_km):g} km): plan at least one charge.",
            )
        return notes
    return [
        "Fuel cost varies with air conditioning, detours and traffic.",
        "Refuel before return as the offer requires.",
    ]
