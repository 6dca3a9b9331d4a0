"""delivery_logistics: an express-shipping aggregator (tracking, pickups, care tickets).

Tool surface: the public ``delivery_logistics_mock`` spec (12 tools). Money is integer
fen, dates ``YYYY-MM-DD`` on the virtual clock, times ISO-8601 with offset. Ids come
from ``_counters`` (``ship_%08d``, ``evt_%010d``, ``pck_%08d``, ``tkt_%08d``,
``sub_%08d``); tracking numbers and confirmation codes are deterministic hashes.

Semantics:
  * ``estimate_delivery`` quotes 2-3 carriers deterministically per route; the fee is a
    base plus a per-kg rate; ``request_pickup`` books the first offer.
  * Shipments booked here are scanned on the virtual clock: picked up at the scheduled
    time, in transit 4 h later, out for delivery at 08:00 on the ETA date, delivered by
    the end of the delivery window. Seeded shipments move only by timeline mutations.
    Read tools show due scans; write tools store them (and notify subscribers) first.
  * Address changes and cancellation are possible only before the parcel leaves the
    origin hub; rescheduling only while it is in transit, out for delivery or held.
  * Every change fans out one ``notifications_outbox`` row per active subscription.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``BAD_ADDRESS``,
``BAD_SERVICE_TYPE``, ``BAD_DATE``) and ``BAD_STATE`` for its ``INVALID_STATUS_FOR_OP``.
"""

from __future__ import annotations

import json
from datetime import datetime, time, timedelta
from typing import Any

from vibelife_env.clock import parse_time
from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import check_year, loads
from vibelife_env.services.delivery_logistics import _courier as courier
from vibelife_env.services.delivery_logistics._courier import (
    CHANNELS,
    ISSUE_STATUSES,
    ISSUE_TYPES,
    PRE_TRANSIT,
    RESCHEDULE_ALLOWED,
    RESPONSE_SLA_DAYS,
    SHIPMENT_STATUSES,
    TIME_WINDOWS,
)


class DeliveryLogisticsService(Service):
    """Parcel tracking, carrier quotes, pickups, delivery changes, care tickets and status alerts."""

    name = "delivery_logistics"
    SCHEMA = schema_from(__file__)

    # ----------------------------------------------------------------- tracking
    @tool(read_only=True)
    def track_package(self, tracking_no: str) -> dict[str, Any]:
        """Live status, ETA and the full scan timeline (oldest first) of a tracking number.

        Statuses: label_created, picked_up, in_transit, out_for_delivery, delivered,
        exception, returned, cancelled. ``latest_event`` is null before the first scan.

        Args:
            tracking_no: The courier tracking number.
        """
        row = self._by_tracking(tracking_no)
        events, status = self._events(row)
        return {
            "tracking_no": row["tracking_no"],
            "carrier": row["carrier"],
            "status": status,
            "latest_event": events[-1] if events else None,
            "origin": courier.summary(loads(row["sender_json"], {})),
            "destination": courier.summary(loads(row["recipient_json"], {})),
            "eta_date": row["eta_date"],
            "events": events,
        }

    @tool(read_only=True)
    def list_shipments(self, user_id: str, status_filter: str | None = None, limit: int = 20) -> dict[str, Any]:
        """List a user's shipments as compact summaries, newest first (get_shipment has the detail).

        Args:
            user_id: The shipment owner.
            status_filter: Only shipments in this status (label_created, picked_up, in_transit, out_for_delivery, delivered, exception, returned, cancelled).
            limit: Maximum shipments, at least 1 (default 20).
        """
        if limit <= 0:
            raise ToolError("BAD_ARG", f"limit must be positive, got {limit}")
        if status_filter and status_filter not in SHIPMENT_STATUSES:
            raise ToolError(
                "BAD_ARG", f"status_filter must be one of {', '.join(SHIPMENT_STATUSES)}, got {status_filter!r}"
            )
        rows = self.query(
            "SELECT * FROM shipments WHERE user_id = ? ORDER BY created_at DESC, shipment_id DESC", (user_id,)
        )
        items = []
        for row in rows:
            _, status = self._events(row)
            if status_filter and status != status_filter:
                continue
            items.append(
                {
                    "shipment_id": row["shipment_id"],
                    "tracking_no": row["tracking_no"],
                    "carrier": row["carrier"],
                    "service_level": row["service_level"],
                    "status": status,
                    "origin": courier.summary(loads(row["sender_json"], {})),
                    "destination": courier.summary(loads(row["recipient_json"], {})),
                    "weight_kg": float(row["weight_kg"]),
                    "fee_minor": int(row["fee_minor"]),
                    "created_at": row["created_at"],
                    "eta_date": row["eta_date"],
                    "time_window": self._window(row["shipment_id"]),
                }
            )
        items = items[:limit]
        return {"user_id": user_id, "count": len(items), "items": items}

    # ---------------------------------------------------------------- shipments
    @tool(read_only=True)
    def get_shipment(self, shipment_id: str) -> dict[str, Any]:
        """Full shipment record: parties, carrier, weight, declared value, fee (fen), ETA, scans, subscriptions.

        Use track_package when you only have a tracking number.

        Args:
            shipment_id: The shipment id, e.g. ``ship_00000001``.
        """
        row = self.require(
            "SELECT * FROM shipments WHERE shipment_id = ?",
            (shipment_id,),
            "SHIPMENT_NOT_FOUND",
            f"no shipment {shipment_id!r}",
        )
        return self._shipment(row)

    @tool(read_only=True)
    def estimate_delivery(
        self, origin_addr: dict[str, Any], dest_addr: dict[str, Any], weight_kg: float, service_type: str
    ) -> dict[str, Any]:
        """Quote 2-3 carrier offers (fee in fen, ETA date) for a parcel; nothing is booked.

        The same inputs always give the same offers in the same order; request_pickup
        books the first one.

        Args:
            origin_addr: Sender address object with recipient, phone, province, city, district, detail (postal_code optional).
            dest_addr: Destination address object with the same fields.
            weight_kg: Parcel weight in kilograms, positive.
            service_type: One of standard, express, same_day.
        """
        courier.check_address(origin_addr, "origin_addr")
        courier.check_address(dest_addr, "dest_addr")
        courier.check_service_type(service_type)
        weight = courier.check_weight(weight_kg)
        today = self.now().date()
        offers = [
            {
                "carrier": carrier,
                "service_level": level,
                "eta_date": courier.eta(service_type, today, slot).isoformat(),
                "fee_minor": courier.fee_minor(service_type, weight),
            }
            for slot, (carrier, level) in enumerate(courier.carriers(service_type, origin_addr, dest_addr, weight))
        ]
        return {
            "service_type": service_type,
            "weight_kg": weight,
            "origin": courier.summary(origin_addr),
            "destination": courier.summary(dest_addr),
            "offers": offers,
        }

    @tool
    def request_pickup(
        self,
        user_id: str,
        pickup_addr: dict[str, Any],
        dest_addr: dict[str, Any],
        item_desc: str,
        weight_kg: float,
        service_type: str,
        scheduled_at: str,
    ) -> dict[str, Any]:
        """Book a courier pickup, creating the shipment (status label_created) with the first quoted carrier.

        The ETA counts from the pickup date. The courier collects at ``scheduled_at``
        (09:00 when only a date is given) and the parcel then moves on its own.

        Args:
            user_id: The sender's user id.
            pickup_addr: Pickup (sender) address object: recipient, phone, province, city, district, detail, optional postal_code.
            dest_addr: Destination address object with the same fields.
            item_desc: What is being shipped.
            weight_kg: Parcel weight in kilograms, positive.
            service_type: One of standard, express, same_day.
            scheduled_at: Pickup time, ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM[:SS]`` (local); not in the past.
        """
        if not user_id.strip():
            raise ToolError("BAD_ARG", "user_id must not be empty")
        if not item_desc.strip():
            raise ToolError("BAD_ARG", "item_desc must not be empty")
        courier.check_address(pickup_addr, "pickup_addr")
        courier.check_address(dest_addr, "dest_addr")
        courier.check_service_type(service_type)
        weight = courier.check_weight(weight_kg)
        now = self.now()
        day = courier.parse_day(scheduled_at, "scheduled_at")
        if day < now.date():
            raise ToolError("BAD_ARG", f"scheduled_at {scheduled_at!r} is in the past (today is {now.date()})")
        pickup_at = self._pickup_time(scheduled_at, now)
        carrier, level = courier.carriers(service_type, pickup_addr, dest_addr, weight)[0]
        fee = courier.fee_minor(service_type, weight)
        eta_date = courier.eta(service_type, max(day, now.date())).isoformat()
        shipment_id = self.mint_id("ship_{:08d}", "shipment_seq", "shipments", "shipment_id")
        tracking = courier.tracking_no(carrier, shipment_id)
        stamp = self.now_iso()
        self.insert_rows(
            "shipments",
            [{
                "shipment_id": shipment_id, "user_id": user_id, "tracking_no": tracking, "carrier": carrier,
                "service_level": level, "status": "label_created", "sender_json": courier.address_json(pickup_addr),
                "recipient_json": courier.address_json(dest_addr), "weight_kg": weight, "dimensions_json": "{}",
                "declared_value_minor": 0, "fee_minor": fee, "created_at": stamp, "eta_date": eta_date,
                "scheduled_pickup_at": scheduled_at, "updated_at": stamp,
            }],
        )  # fmt: skip
        self._add_event(shipment_id, stamp, courier.summary(pickup_addr), "label_created",
                        f"Shipping label created for {item_desc}")  # fmt: skip
        pickup_id = self.mint_id("pck_{:08d}", "pickup_seq", "pickups", "pickup_id")
        self.execute("INSERT INTO pickups VALUES (?, ?, ?, NULL, 'pending')", (pickup_id, shipment_id, scheduled_at))
        self.execute("INSERT INTO _courier_plan VALUES (?, ?, 'anytime')", (shipment_id, pickup_at))
        return {
            "shipment_id": shipment_id,
            "tracking_no": tracking,
            "carrier": carrier,
            "service_level": level,
            "fee_minor": fee,
            "eta_date": eta_date,
            "scheduled_pickup_at": scheduled_at,
            "confirmation_code": courier.confirmation_code(shipment_id),
        }

    @tool
    def reschedule_delivery(self, tracking_no: str, new_date: str, time_window: str) -> dict[str, Any]:
        """Move an in-flight delivery (in_transit, out_for_delivery or exception) to a new date and window.

        Args:
            tracking_no: The courier tracking number.
            new_date: New delivery date, ``YYYY-MM-DD``, today or later.
            time_window: One of morning, afternoon, evening, anytime.
        """
        if time_window not in TIME_WINDOWS:
            raise ToolError("BAD_ARG", f"time_window must be one of {', '.join(TIME_WINDOWS)}, got {time_window!r}")
        day = courier.parse_day(new_date, "new_date")
        if len(new_date) != 10:
            raise ToolError("BAD_ARG", f"new_date must be YYYY-MM-DD, got {new_date!r}")
        row = self._settle(tracking_no)
        if row["status"] not in RESCHEDULE_ALLOWED:
            raise ToolError(
                "BAD_STATE",
                f"shipment {tracking_no} is {row['status']}; only {', '.join(RESCHEDULE_ALLOWED)} can be rescheduled",
            )
        if day < self.now().date():
            raise ToolError("BAD_ARG", f"new_date {new_date} is in the past (today is {self.now().date()})")
        code = courier.confirmation_code(row["shipment_id"], new_date, time_window)
        stamp = self.now_iso()
        if row["status"] == "out_for_delivery" and day > self.now().date() and self._plan(row["shipment_id"]):
            # the van brings it back; it goes out again on the new date
            self.execute("UPDATE shipments SET status = 'in_transit' WHERE shipment_id = ?", (row["shipment_id"],))
        self.execute("UPDATE shipments SET eta_date = ?, updated_at = ? WHERE shipment_id = ?",
                     (new_date, stamp, row["shipment_id"]))  # fmt: skip
        self.execute(
            "UPDATE _courier_plan SET time_window = ? WHERE shipment_id = ?", (time_window, row["shipment_id"])
        )
        self._add_event(row["shipment_id"], stamp, courier.summary(loads(row["recipient_json"], {})),
                        "reschedule", f"Delivery rescheduled to {new_date} ({time_window}); ref {code}")  # fmt: skip
        self._fanout(row["shipment_id"], {"kind": "reschedule", "tracking_no": tracking_no, "new_eta_date": new_date,
                                          "time_window": time_window, "confirmation_code": code})  # fmt: skip
        return {"tracking_no": tracking_no, "new_eta_date": new_date, "time_window": time_window,
                "confirmation_code": code}  # fmt: skip

    @tool
    def change_address(self, tracking_no: str, new_address: dict[str, Any]) -> dict[str, Any]:
        """Change the recipient address while the parcel is label_created or picked_up; returns the shipment.

        Once the parcel is in transit the destination is locked (IN_TRANSIT_LOCKED).

        Args:
            tracking_no: The courier tracking number.
            new_address: New recipient address: recipient, phone, province, city, district, detail, optional postal_code.
        """
        courier.check_address(new_address, "new_address")
        row = self._settle(tracking_no)
        self._require_pre_transit(row, "IN_TRANSIT_LOCKED", "the address can no longer be changed")
        stamp = self.now_iso()
        self.execute("UPDATE shipments SET recipient_json = ?, updated_at = ? WHERE shipment_id = ?",
                     (courier.address_json(new_address), stamp, row["shipment_id"]))  # fmt: skip
        self._add_event(row["shipment_id"], stamp, courier.summary(new_address), "address_changed",
                        "Recipient address updated by sender")  # fmt: skip
        self._fanout(row["shipment_id"], {"kind": "address_changed", "tracking_no": tracking_no,
                                          "destination": courier.summary(new_address), "new_eta_date": row["eta_date"]})  # fmt: skip
        return self._shipment(self._by_tracking(tracking_no))

    @tool
    def cancel_shipment(self, tracking_no: str, reason: str) -> dict[str, Any]:
        """Cancel a shipment before it leaves the origin hub (label_created or picked_up); a pending pickup is cancelled too.

        Args:
            tracking_no: The courier tracking number.
            reason: Why the shipment is cancelled.
        """
        if not reason.strip():
            raise ToolError("BAD_ARG", "reason must not be empty")
        row = self._settle(tracking_no)
        self._require_pre_transit(row, "CANCEL_TOO_LATE", "it can no longer be cancelled")
        stamp = self.now_iso()
        self.execute("UPDATE shipments SET status = 'cancelled', cancel_reason = ?, updated_at = ? WHERE shipment_id = ?",
                     (reason, stamp, row["shipment_id"]))  # fmt: skip
        self.execute("UPDATE pickups SET status = 'cancelled' WHERE shipment_id = ? AND status = 'pending'",
                     (row["shipment_id"],))  # fmt: skip
        self._add_event(row["shipment_id"], stamp, courier.summary(loads(row["sender_json"], {})),
                        "cancelled", f"Shipment cancelled by sender: {reason}")  # fmt: skip
        self._fanout(row["shipment_id"], {"kind": "cancelled", "tracking_no": tracking_no, "reason": reason})
        return {"tracking_no": tracking_no, "shipment_id": row["shipment_id"], "status": "cancelled",
                "reason": reason, "cancelled_at": stamp}  # fmt: skip

    # ------------------------------------------------------------------- issues
    @tool
    def report_issue(self, tracking_no: str, issue_type: str, description: str) -> dict[str, Any]:
        """Open a customer-care ticket on a shipment; it starts ``open`` with a response due date.

        Response SLA in days: lost 3, damaged 2, missing_item 2, wrong_address 1, delivery_failed 1.

        Args:
            tracking_no: The courier tracking number.
            issue_type: One of lost, damaged, wrong_address, missing_item, delivery_failed.
            description: What went wrong.
        """
        if issue_type not in ISSUE_TYPES:
            raise ToolError("BAD_ARG", f"issue_type must be one of {', '.join(ISSUE_TYPES)}, got {issue_type!r}")
        if not description.strip():
            raise ToolError("BAD_ARG", "description must not be empty")
        row = self._by_tracking(tracking_no)
        ticket_id = self.mint_id("tkt_{:08d}", "ticket_seq", "issue_tickets", "ticket_id")
        stamp = self.now_iso()
        expected = (self.now().date() + timedelta(days=RESPONSE_SLA_DAYS[issue_type])).isoformat()
        self.execute(
            "INSERT INTO issue_tickets (ticket_id, shipment_id, issue_type, description, status, opened_at, "
            "expected_response_date) VALUES (?, ?, ?, ?, 'open', ?, ?)",
            (ticket_id, row["shipment_id"], issue_type, description, stamp, expected),
        )
        return {"ticket_id": ticket_id, "shipment_id": row["shipment_id"], "tracking_no": tracking_no,
                "issue_type": issue_type, "status": "open", "opened_at": stamp, "expected_response_date": expected}  # fmt: skip

    @tool(read_only=True)
    def list_issues(self, user_id: str, status_filter: str | None = None) -> dict[str, Any]:
        """List the care tickets on a user's shipments, newest first.

        Args:
            user_id: The shipment owner.
            status_filter: Only tickets in this status: open, in_review, resolved or closed.
        """
        if status_filter and status_filter not in ISSUE_STATUSES:
            raise ToolError(
                "BAD_ARG", f"status_filter must be one of {', '.join(ISSUE_STATUSES)}, got {status_filter!r}"
            )
        sql = (
            "SELECT t.ticket_id, t.shipment_id, s.tracking_no, t.issue_type, t.description, t.status, t.opened_at, "
            "t.expected_response_date, t.resolved_at FROM issue_tickets t JOIN shipments s ON s.shipment_id = t.shipment_id "
            "WHERE s.user_id = ?"
        )
        params = [user_id]
        if status_filter:
            sql += " AND t.status = ?"
            params.append(status_filter)
        items = self.query(sql + " ORDER BY t.opened_at DESC, t.ticket_id DESC", params)
        return {"user_id": user_id, "count": len(items), "items": items}

    # ------------------------------------------------------------ subscriptions
    @tool
    def subscribe_status(self, tracking_no: str, channel: str, target: str) -> dict[str, Any]:
        """Get status updates for a shipment by email, SMS or webhook; keep the subscription_id to unsubscribe.

        Args:
            tracking_no: The courier tracking number.
            channel: One of email, sms, webhook.
            target: The email address, phone number or webhook URL.
        """
        if channel not in CHANNELS:
            raise ToolError("BAD_ARG", f"channel must be one of {', '.join(CHANNELS)}, got {channel!r}")
        if not target.strip():
            raise ToolError("BAD_ARG", "target must not be empty")
        row = self._by_tracking(tracking_no)
        sub_id = self.mint_id("sub_{:08d}", "subscription_seq", "status_subscriptions", "subscription_id")
        stamp = self.now_iso()
        self.execute("INSERT INTO status_subscriptions VALUES (?, ?, ?, ?, 1, ?)",
                     (sub_id, row["shipment_id"], channel, target, stamp))  # fmt: skip
        return {"subscription_id": sub_id, "shipment_id": row["shipment_id"], "tracking_no": tracking_no,
                "channel": channel, "target": target, "active": True, "created_at": stamp}  # fmt: skip

    @tool
    def unsubscribe(self, subscription_id: str) -> dict[str, Any]:
        """Stop a status subscription (idempotent: an inactive one returns already_inactive true).

        Args:
            subscription_id: The subscription id from subscribe_status.
        """
        row = self.require(
            "SELECT * FROM status_subscriptions WHERE subscription_id = ?",
            (subscription_id,),
            "SUBSCRIPTION_NOT_FOUND",
            f"no subscription {subscription_id!r}",
        )
        if not int(row["active"]):
            return {"subscription_id": subscription_id, "active": False, "already_inactive": True}
        self.execute("UPDATE status_subscriptions SET active = 0 WHERE subscription_id = ?", (subscription_id,))
        return {"subscription_id": subscription_id, "shipment_id": row["shipment_id"], "active": False,
                "deactivated_at": self.now_iso()}  # fmt: skip

    # ------------------------------------------------------------------ helpers
    def _by_tracking(self, tracking_no: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM shipments WHERE tracking_no = ?",
            (tracking_no,),
            "SHIPMENT_NOT_FOUND",
            f"no shipment with tracking number {tracking_no!r}",
        )

    def _plan(self, shipment_id: str) -> dict[str, Any] | None:
        return self.query_one("SELECT * FROM _courier_plan WHERE shipment_id = ?", (shipment_id,))

    def _window(self, shipment_id: str) -> str | None:
        """The delivery window the courier plans on the ETA day (morning, afternoon, evening or
        anytime; ``None`` before one is planned): an agent needs it to see what the delivery clashes with."""
        plan = self._plan(shipment_id)
        return plan["time_window"] if plan else None

    def _events(self, row: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        """Stored scans plus those due on the clock (oldest first), and the effective status."""
        stored = self.query(
            "SELECT at, location, status_code, description FROM shipment_events WHERE shipment_id = ? "
            "ORDER BY at, event_id",
            (row["shipment_id"],),
        )
        due = courier.due_scans(row, self._plan(row["shipment_id"]), self.now())
        return stored + due, (due[-1]["status_code"] if due else row["status"])

    def _shipment(self, row: dict[str, Any]) -> dict[str, Any]:
        events, status = self._events(row)
        sender = loads(row["sender_json"], {})
        recipient = loads(row["recipient_json"], {})
        subs = self.query(
            "SELECT subscription_id, channel, target, active FROM status_subscriptions WHERE shipment_id = ? "
            "ORDER BY created_at, subscription_id",
            (row["shipment_id"],),
        )
        return {
            "shipment_id": row["shipment_id"],
            "user_id": row["user_id"],
            "tracking_no": row["tracking_no"],
            "carrier": row["carrier"],
            "service_level": row["service_level"],
            "status": status,
            "sender": sender,
            "recipient": recipient,
            "weight_kg": float(row["weight_kg"]),
            "dimensions": loads(row["dimensions_json"], {}),
            "declared_value_minor": int(row["declared_value_minor"]),
            "fee_minor": int(row["fee_minor"]),
            "created_at": row["created_at"],
            "eta_date": row["eta_date"],
            "time_window": self._window(row["shipment_id"]),
            "scheduled_pickup_at": row["scheduled_pickup_at"],
            "origin": courier.summary(sender),
            "destination": courier.summary(recipient),
            "cancel_reason": row["cancel_reason"],
            "events": events,
            "subscriptions": [{**s, "active": bool(s["active"])} for s in subs],
        }

    def _settle(self, tracking_no: str) -> dict[str, Any]:
        """Store the scans that are due, then return the shipment row."""
        row = self._by_tracking(tracking_no)
        for scan in courier.due_scans(row, self._plan(row["shipment_id"]), self.now()):
            status = scan["status_code"]
            self._add_event(row["shipment_id"], scan["at"], scan["location"], status, scan["description"])
            self.execute("UPDATE shipments SET status = ?, updated_at = ? WHERE shipment_id = ?",
                         (status, scan["at"], row["shipment_id"]))  # fmt: skip
            if status == "picked_up":
                self.execute("UPDATE pickups SET status = 'completed', completed_at = ? WHERE shipment_id = ? "
                             "AND status = 'pending'", (scan["at"], row["shipment_id"]))  # fmt: skip
            self._fanout(
                row["shipment_id"], {"kind": "status", "tracking_no": tracking_no, "status": status}, scan["at"]
            )
        return self._by_tracking(tracking_no)

    def _require_pre_transit(self, row: dict[str, Any], late_code: str, what: str) -> None:
        if row["status"] not in PRE_TRANSIT:
            raise ToolError(late_code, f"shipment {row['tracking_no']} is {row['status']}; {what}")

    def _add_event(self, shipment_id: str, at: str, location: str, status_code: str, description: str) -> None:
        event_id = self.mint_id("evt_{:010d}", "event_seq", "shipment_events", "event_id")
        self.execute("INSERT INTO shipment_events VALUES (?, ?, ?, ?, ?, ?)",
                     (event_id, shipment_id, at, location, status_code, description))  # fmt: skip

    def _fanout(self, shipment_id: str, payload: dict[str, Any], at: str | None = None) -> None:
        body = json.dumps(payload, ensure_ascii=False, sort_keys=True)
        for sub in self.query(
            "SELECT subscription_id FROM status_subscriptions WHERE shipment_id = ? AND active = 1 ORDER BY subscription_id",
            (shipment_id,),
        ):
            self.execute("INSERT INTO notifications_outbox (subscription_id, payload_json, queued_at) VALUES (?, ?, ?)",
                         (sub["subscription_id"], body, at or self.now_iso()))  # fmt: skip

    def _pickup_time(self, scheduled_at: str, now: datetime) -> str:
        """The planned pickup instant: the given time, or 09:00 for a bare date, never before now."""
        if len(scheduled_at.strip()) <= 10:
            when = datetime.combine(courier.parse_day(scheduled_at, "scheduled_at"), time(9), now.tzinfo)
        else:
            try:
                when = parse_time(scheduled_at, now.tzinfo)
            except ValueError:
                raise ToolError(
                    "BAD_ARG", f"scheduled_at must be YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], got {scheduled_at!r}"
                ) from None
            check_year("scheduled_at", when)
        return max(when, now).isoformat(timespec="seconds")
