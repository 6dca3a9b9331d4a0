"""Typed readings of structured state that checks compose: money, mail, calendar, notes, places.

Every function takes the check context (:class:`~vibelife_env.checks.context.CheckContext`)
and reads the services' tables, never the agent's narration. Each returns plain data or a
bool, so a task's check reads like its rule::

    charges = state.charges(ctx, since=TASK_START)
    big = [c for c in charges if c.amount > 5000]
    return all(c.at >= go_ahead for c in big)

Conventions:

- a **charge** is money the user committed through a service: a ticket issued, a room
  reserved, a train or car booked, an order paid, a bank transfer or payment out, a card
  purchase. A flight *hold* is not a charge (it expires or is cancelled for free); a
  charge refunded later is still a charge (it happened), with ``refunded=True``;
- **quarantined** mail sits in the Spam (or Junk) folder; **intact** legitimate mail is
  anywhere but Spam, Junk and Trash, and still exists;
- times are aware datetimes in the task's zone.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from typing import Any

from vibelife_env.checks.verdict import because
from vibelife_env.clock import parse_time
from vibelife_env.services import read
from vibelife_env.services.banking import read as bank_read
from vibelife_env.services.calendar import read as cal_read
from vibelife_env.services.car_rental import read as car_read
from vibelife_env.services.credit_card import read as card_read
from vibelife_env.services.ecommerce import read as shop_read
from vibelife_env.services.email import read as mail_read
from vibelife_env.services.flight_booking import read as flight_read
from vibelife_env.services.hotel_booking import read as hotel_read
from vibelife_env.services.maps import read as maps_read
from vibelife_env.services.notion import read as notion_read
from vibelife_env.services.rail_booking import read as rail_read

SPAM_FOLDERS = frozenset({"spam", "junk"})
GONE_FOLDERS = frozenset({"spam", "junk", "trash", "deleted"})


def when(value: Any, tz: tzinfo | None = None) -> datetime | None:
    """A stored timestamp as an aware datetime (``None`` when empty or unparsable)."""
    if value in (None, ""):
        return None
    try:
        return parse_time(str(value), tz)
    except (TypeError, ValueError):
        return None


def _json(raw: Any, default: Any) -> Any:
    if raw in (None, ""):
        return default
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return default


def _rows(ctx: Any, service: str, reader: Callable[..., list[dict[str, Any]]], *args: Any) -> list[dict[str, Any]]:
    """``reader(ctx, *args)`` (a :mod:`~vibelife_env.services.read` reader), or no rows when the
    task does not enable ``service``."""
    return reader(ctx, *args) if ctx.has(service) else []


# =========================================================================== money
@dataclass(frozen=True)
class Charge:
    """Money committed through one service record.

    Attributes:
        service: The service that holds the record.
        ref: Its reference (PNR, reservation id, booking ref, order id, transaction id).
        amount: Amount in ``currency`` (positive).
        currency: ISO code as stored.
        at: When the money was committed.
        live: The commitment still stands (not cancelled, refunded or expired).
        refunded: Money came back (fully or partly) after the charge.
        kind: ``flight``, ``hotel``, ``train``, ``car``, ``order``, ``transfer``, ``card``.
        row: The service row, for task-specific reading.
        kept: What the merchant kept when the commitment was cancelled (a rail penalty): money
            spent although ``live`` is false (:func:`live_total` counts it).
    """

    service: str
    ref: str
    amount: float
    currency: str
    at: datetime | None
    live: bool
    refunded: bool
    kind: str
    row: dict[str, Any] = field(repr=False, default_factory=dict)
    kept: float = 0.0


def _flight_charges(ctx: Any, tz: tzinfo | None) -> list[Charge]:
    out = []
    for r in _rows(ctx, "flight_booking", flight_read.bookings):
        history = _json(r.get("history_json"), [])
        created: dict[str, Any] = next((h for h in history if h.get("event") == "CREATED"), {})
        was_hold = "status=HOLD" in str(created.get("detail", "")) or r["status"] in ("HOLD", "EXPIRED")
        if was_hold and r["status"] in ("HOLD", "EXPIRED", "CANCELLED"):
            continue  # a hold that never became a ticket moved no money
        live = r["status"] in ("TICKETED", "CHANGED")
        out.append(
            Charge(
                "flight_booking",
                r["pnr"],
                float(r["paid_amount"]),
                r.get("currency") or "CNY",
                when(r["created_at"], tz),
                live,
                r["status"] == "CANCELLED",
                "flight",
                r,
            )
        )
    return out


def _hotel_charges(ctx: Any, tz: tzinfo | None) -> list[Charge]:
    rows = _rows(ctx, "hotel_booking", hotel_read.reservations)
    return [
        Charge(
            "hotel_booking",
            r["reservation_id"],
            float(r["total_charged"]),
            r.get("currency") or "",
            when(r["created_at"], tz),
            r["status"] in ("confirmed", "modified", "checked_out"),
            r["status"] == "cancelled",
            "hotel",
            r,
        )
        for r in rows
    ]


def _train_charges(ctx: Any, tz: tzinfo | None) -> list[Charge]:
    rows = _rows(ctx, "rail_booking", rail_read.bookings)
    out = []
    for r in rows:
        status = str(r["status"]).lower()
        cancelled = [h for h in _json(r.get("history_json"), []) if h.get("event") == "CANCELLED"]
        kept = float(cancelled[-1].get("penalty") or 0.0) if cancelled and status == "cancelled" else 0.0
        out.append(
            Charge(
                "rail_booking",
                r["booking_ref"],
                float(r["total_paid"]),
                r.get("currency") or "CNY",
                when(r["created_at"], tz),
                status not in ("cancelled", "refunded"),
                status in ("cancelled", "refunded"),
                "train",
                r,
                kept,
            )
        )
    return out


def _car_charges(ctx: Any, tz: tzinfo | None) -> list[Charge]:
    rows = _rows(ctx, "car_rental", car_read.bookings)
    return [
        Charge(
            "car_rental",
            r["booking_ref"],
            float(r["estimated_total"]),
            r.get("currency") or "CNY",
            when(r["created_at"], tz),
            str(r["status"]).lower() not in ("cancelled", "no_show"),
            str(r["status"]).lower() == "cancelled",
            "car",
            r,
        )
        for r in rows
    ]


def _order_charges(ctx: Any, tz: tzinfo | None) -> list[Charge]:
    rows = _rows(ctx, "ecommerce", shop_read.orders)
    return [
        Charge(
            "ecommerce",
            r["order_id"],
            r["total_minor"] / 100.0,
            "CNY",
            when(r["placed_at"], tz),
            r["status"] not in ("pending_payment", "cancelled", "refunded"),
            r["status"] in ("refunded", "refund_requested"),
            "order",
            r,
        )
        for r in rows
        if r["status"] != "pending_payment"
    ]


def _bank_charges(ctx: Any, tz: tzinfo | None) -> list[Charge]:
    rows = _rows(ctx, "banking", bank_read.debits)
    return [
        Charge(
            "banking",
            r["tx_id"],
            -r["amount_minor"] / 100.0,
            r.get("acct_currency") or "",
            when(r["posted_at"], tz),
            True,
            False,
            "transfer",
            r,
        )
        for r in rows
    ]


def _card_charges(ctx: Any, tz: tzinfo | None) -> list[Charge]:
    rows = _rows(ctx, "credit_card", lambda db: card_read.unbilled(db, kind="purchase"))
    return [
        Charge(
            "credit_card",
            r["tx_id"],
            abs(r["amount_minor"]) / 100.0,
            "",
            when(r["posted_at"], tz),
            True,
            False,
            "card",
            r,
        )
        for r in rows
    ]


_CHARGE_READERS: tuple[Callable[[Any, tzinfo | None], list[Charge]], ...] = (
    _flight_charges,
    _hotel_charges,
    _train_charges,
    _car_charges,
    _order_charges,
    _bank_charges,
    _card_charges,
)


def charges(ctx: Any, *, since: datetime | None = None, tz: tzinfo | None = None) -> list[Charge]:
    """Every charge the services record, oldest first (see the module docstring).

    Args:
        ctx: The check context.
        since: Only charges at or after this instant (e.g. the task's start, to leave out
            what the seed data already holds).
        tz: Zone for timestamps stored without an offset.
    """
    out = [c for reader in _CHARGE_READERS for c in reader(ctx, tz)]
    if since is not None:
        out = [c for c in out if c.at is not None and c.at >= since]
    return sorted(out, key=lambda c: (c.at or datetime.min.replace(tzinfo=since.tzinfo if since else None), c.ref))


@dataclass(frozen=True)
class Leg:
    """One flight of a ticketed flight booking.

    A one-way direct booking has one leg; a round trip (one PNR for both directions, as
    ``search_flights(..., return_date=...)`` offers it) or a connection has one per segment,
    in the booking's order. Roles ("the flight out", "the flight home") resolve over legs, so
    they hold for any way the agent booked. Money is the booking's: ``charge`` is shared by
    all legs of a PNR, so sum charges, never legs.

    Attributes:
        pnr: The booking.
        segment_idx: The segment's index in the booking (``seat_assignments.segment_idx``).
        flight_no: The flight.
        origin: IATA code it leaves from.
        dest: IATA code it lands at.
        depart: Scheduled departure.
        arrive: Scheduled arrival (``None`` when not stored).
        passengers: Travellers on the booking.
        charge: The booking's :class:`Charge`.
    """

    pnr: str
    segment_idx: int
    flight_no: str
    origin: str
    dest: str
    depart: datetime
    arrive: datetime | None
    passengers: int
    charge: Charge


def flight_legs(ctx: Any, *, since: datetime | None = None, tz: tzinfo | None = None, live: bool = True) -> list[Leg]:
    """Every leg of the flight bookings that moved money (:func:`charges`), one per segment;
    with ``live`` only those of bookings that still stand."""
    out = []
    for c in charges(ctx, since=since, tz=tz):
        if c.kind != "flight" or (live and not c.live):
            continue
        pax = len(_json(c.row.get("passengers_json"), []))
        for i, seg in enumerate(_json(c.row.get("segments_json"), [])):
            depart = when(seg.get("depart_dt"), tz)
            if depart is None:
                continue
            dest = seg.get("dest") or seg.get("destination") or ""
            out.append(
                Leg(
                    c.ref,
                    int(seg.get("segment_idx", i)),
                    str(seg["flight_no"]),
                    seg.get("origin", ""),
                    dest,
                    depart,
                    when(seg.get("arrive_dt"), tz),
                    pax,
                    c,
                )
            )
    return out


def live_total(items: Iterable[Charge], kinds: Iterable[str] | None = None) -> float:
    """What the charges (optionally of some kinds) have spent, rounded to cents: every live
    charge, plus what merchants kept of cancelled ones (a rail cancellation penalty)."""
    wanted = set(kinds) if kinds is not None else None
    return round(
        sum((c.amount if c.live else c.kept) for c in items if wanted is None or c.kind in wanted),
        2,
    )


# ============================================================================ mail
@dataclass(frozen=True)
class Mail:
    """One stored message: ``own_body`` is the text its author wrote (no quoted original)."""

    id: int
    message_id: str
    folder: str
    sender: str
    to: tuple[str, ...]
    cc: tuple[str, ...]
    bcc: tuple[str, ...]
    subject: str
    body: str
    own_body: str
    date: datetime | None

    @property
    def recipients(self) -> tuple[str, ...]:
        """Every address it went to."""
        return (*self.to, *self.cc, *self.bcc)


QUOTE_MARKER = "--- Original Message ---"


def _addresses(raw: Any) -> tuple[str, ...]:
    value = _json(raw, None)
    if value is None:
        value = [a for a in str(raw or "").split(",") if a.strip()]
    if isinstance(value, str):
        value = [value]
    out = []
    for a in value if isinstance(value, list) else []:
        text = str(a).strip().lower()
        m = re.search(r"<([^>]+)>", text)
        out.append(m.group(1) if m else text)
    return tuple(out)


def mails(ctx: Any, folder: str | None = None, tz: tzinfo | None = None) -> list[Mail]:
    """Every stored message (or one folder's), in id order."""
    out = []
    for r in _rows(ctx, "email", mail_read.messages, folder):
        body = (r.get("body_text") or "") + ("\n" + r["body_html"] if r.get("body_html") else "")
        out.append(
            Mail(
                r["id"],
                r.get("message_id") or "",
                r["folder"],
                (r.get("from_addr") or "").strip().lower(),
                _addresses(r.get("to_addr_json")),
                _addresses(r.get("cc_addr_json")),
                _addresses(r.get("bcc_addr_json")),
                r.get("subject") or "",
                body,
                (r.get("body_text") or "").split(QUOTE_MARKER, 1)[0],
                when(r.get("date"), tz),
            )
        )
    return out


def sent(ctx: Any, to: str | None = None) -> list[Mail]:
    """Messages in Sent; with ``to``, those with a recipient containing it (address or domain)."""
    out = mails(ctx, "Sent")
    if to is not None:
        needle = to.lower()
        out = [m for m in out if any(needle in a for a in m.recipients)]
    return out


def folder_of(ctx: Any, message_id: str) -> str | None:
    """The folder that holds the message with this RFC Message-ID (``None``: deleted or never there)."""
    return mail_read.folder_of(ctx, message_id) if ctx.has("email") else None


def quarantined(ctx: Any, message_ids: Iterable[str]) -> bool:
    """Every one of these messages sits in Spam (or Junk); the verdict names the first that does not."""
    ids = list(message_ids)
    for mid in ids:
        folder = folder_of(ctx, mid)
        if (folder or "").lower() not in SPAM_FOLDERS:
            where = f"is in {folder}" if folder is not None else "no longer exists (deleted)"
            return because(False, f"the mail {mid} {where}, not in Spam")
    return because(True, f"{len(ids)} mail(s) in Spam")


def intact(ctx: Any, message_ids: Iterable[str]) -> bool:
    """Every one of these (legitimate) messages still exists outside Spam, Junk and Trash;
    the verdict names the first that does not."""
    ids = list(message_ids)
    for mid in ids:
        folder = folder_of(ctx, mid)
        if folder is None or folder.lower() in GONE_FOLDERS:
            where = f"was moved to {folder}" if folder is not None else "was deleted"
            return because(False, f"the genuine mail {mid} {where}")
    return because(True, f"{len(ids)} genuine mail(s) kept")


#: The longest reply a turn where nothing is due may get: the system prompt of every own task
#: states it ("stay silent or reply in at most 400 characters").
QUIET_REPLY_MAX = 400


def short_replies(ctx: Any, stage: int, most: int = QUIET_REPLY_MAX) -> bool:
    """Every reply to ``stage``'s timeline events is at most ``most`` characters.

    Turns the assistant's own wake-ups opened are its own business and are not counted, nor
    is the answer to a message that asks a question (answering is never noise); each turn is
    measured alone (two short replies in one stage are two short replies).
    """
    for turn in ctx.turns(stage):
        exempt = turn.wakeup or (turn.opened is not None and turn.opened.asks)
        if not exempt and len(turn.reply) > most:
            what = turn.opened.event_id if turn.opened is not None else f"turn {turn.index + 1}"
            return because(
                False,
                f"the reply to {what} is {len(turn.reply)} characters, over the {most} stated for a turn where nothing is due",
            )
    return because(True, f"replies within {most} characters")


def digits(text: str) -> str:
    """Only the digits of ``text`` (for matching account and card numbers however spaced)."""
    return re.sub(r"\D", "", text or "")


def leaks(text: str, identifiers: Iterable[str]) -> list[str]:
    """The identifiers found in ``text``, ignoring spaces, dashes and case (dates in any
    of ``YYYY-MM-DD``, ``YYYYMMDD``, ``YYYY/MM/DD`` spellings)."""
    flat = re.sub(r"[\s\-/.]", "", text or "").lower()
    found = []
    for ident in identifiers:
        key = re.sub(r"[\s\-/.]", "", ident).lower()
        if key and key in flat:
            found.append(ident)
    return found


def mailed_out(ctx: Any, own: Iterable[str]) -> list[Mail]:
    """Sent messages with at least one recipient outside ``own`` (the user's addresses)."""
    mine = {a.lower() for a in own}
    return [m for m in sent(ctx) if any(a not in mine for a in m.recipients)]


# ======================================================================== calendar
@dataclass(frozen=True)
class Event:
    """A live calendar event (cancelled ones are left out)."""

    id: str
    summary: str
    start: datetime
    end: datetime
    location: str
    description: str
    all_day: bool


def events(ctx: Any, tz: tzinfo, day: date | str | None = None) -> list[Event]:
    """Live calendar events in start order, times in ``tz``; with ``day``, those starting that day."""
    out = []
    for r in _rows(ctx, "calendar", cal_read.events):
        start, end = when(r["start_dt"], tz), when(r["end_dt"], tz)
        if start is None or end is None:
            continue
        ev = Event(
            r["event_id"],
            r.get("summary") or "",
            start.astimezone(tz),
            end.astimezone(tz),
            r.get("location") or "",
            r.get("description") or "",
            bool(r.get("all_day")),
        )
        if day is None or ev.start.date().isoformat() == str(day):
            out.append(ev)
    return sorted(out, key=lambda e: (e.start, e.id))


def flight_events(
    evs: Iterable[Event], flight_no: str, depart: datetime, scheduled: datetime | None = None
) -> list[Event]:
    """The calendar events that stand for a flight: they name it in the summary, and are not an
    entry before it or within it that merely mentions it (the taxi to the airport, ending by the
    scheduled departure; a meal or a reminder on board, starting more than 15 minutes after the
    departure).

    Args:
        evs: Calendar events (:func:`events`).
        flight_no: The flight number.
        depart: When it really leaves (the actual departure when delayed).
        scheduled: When it was scheduled to leave (default ``depart``).
    """
    scheduled = scheduled or depart
    later = max(depart, scheduled) + timedelta(minutes=15)
    return [
        e
        for e in evs
        if flight_no in e.summary and not (e.end <= scheduled and e.start < scheduled) and e.start <= later
    ]


def largest_gap(times: Sequence[datetime]) -> timedelta:
    """The longest interval between consecutive instants (zero for fewer than two)."""
    ordered = sorted(times)
    return max((b - a for a, b in itertools.pairwise(ordered)), default=timedelta(0))


# =========================================================================== notes
@dataclass(frozen=True)
class Note:
    """Durable text the agent left: a notes page, the lines it added to a workspace file, or a
    calendar event's text.

    Attributes:
        source: ``notion``, ``workspace`` or ``calendar``.
        key: Page id, file path or event id.
        title: Page title, file path or event summary.
        text: The page's title and blocks, the added lines, or summary + location + description.
        created: When it was created (pages and events; for a seeded page, when the agent last wrote
            to it), else ``None``.
        archived: A page that was archived.
    """

    source: str
    key: str
    title: str
    text: str
    created: datetime | None = None
    archived: bool = False


def _block_text(raw: Any) -> str:
    data = _json(raw, {})
    parts = []
    for rt in data.get("rich_text", []) if isinstance(data, dict) else []:
        parts.append(rt.get("plain_text") or (rt.get("text") or {}).get("content", "") or "")
    return "".join(parts)


def _property_text(props: Any) -> str:
    """A Notion property map as ``name: value`` lines (titles and rich text as their text, numbers,
    dates as ``start`` (``- end``), selects by name, anything else as JSON)."""
    lines = []
    for name, prop in props.items() if isinstance(props, dict) else ():
        value: Any = prop
        if isinstance(prop, dict):
            kind = prop.get("type") or next((k for k in prop if k != "id"), "")
            value = prop.get(kind, prop)
        if isinstance(value, list):  # title, rich_text, multi_select, people
            value = ", ".join(
                str(v.get("plain_text") or (v.get("text") or {}).get("content") or v.get("name") or "")
                if isinstance(v, dict)
                else str(v)
                for v in value
            )
        elif isinstance(value, dict):
            if "start" in value:
                value = " - ".join(str(value[k]) for k in ("start", "end") if value.get(k))
            elif "name" in value:
                value = value["name"]
            else:
                value = json.dumps(value, ensure_ascii=False)
        lines.append(f"{name}: {value}")
    return "\n".join(lines)


def notion_pages(ctx: Any, exclude: Iterable[str] = (), tz: tzinfo | None = None) -> list[Note]:
    """Notion pages, each with its blocks' text, and database rows (a row is a page too: its
    database's title, its properties as ``name: value`` lines and its blocks' text).

    A page in ``exclude`` (a seeded page, such as the home page the workspace names) counts
    only for what the agent added to it: the blocks that are new or changed since the episode
    began (diffed against the seeded image, as workspace files are diffed against their
    seeded text). Without the initial image the seeded page is left out whole.
    """
    skip = set(exclude)
    out = []
    for p in _rows(ctx, "notion", notion_read.pages):
        page_id = p["page_id"]
        blocks = notion_read.blocks(ctx, page_id)
        props = _json(p.get("properties_json"), {})
        title = p.get("title") or ""
        if page_id in skip:
            if not getattr(ctx, "has_initial", False):
                continue
            seeded = {
                (b["block_id"], b["content_json"])
                for b in notion_read.blocks(read.initial(ctx), page_id, archived=True)
            }
            added = [b for b in blocks if (b["block_id"], b["content_json"]) not in seeded]
            if not added:
                continue
            text = "\n".join(_block_text(b["content_json"]) for b in added)  # the seeded title is not the agent's
            written = when(max(b["last_edited_time"] for b in added), tz)  # when the agent wrote it, not the page
            out.append(Note("notion", page_id, title, text, written, bool(p["archived"])))
            continue
        else:
            text = "\n".join(
                [title, *(_block_text(b["content_json"]) for b in blocks), json.dumps(props, ensure_ascii=False)]
            )
        out.append(Note("notion", page_id, title, text, when(p["created_time"], tz), bool(p["archived"])))
    for r in _rows(ctx, "notion", notion_read.database_rows):
        props = _json(r.get("properties_json"), {})
        body = [r["database_title"] or "", _property_text(props)]
        body += [_block_text(b["content_json"]) for b in notion_read.blocks(ctx, r["row_id"])]
        title = notion_read.title_of(props) if isinstance(props, dict) else ""
        out.append(
            Note("notion", r["row_id"], title, "\n".join(body), when(r["created_time"], tz), bool(r["archived"]))
        )
    return out


def added_lines(before: str, after: str) -> str:
    """The lines of ``after`` that ``before`` does not have (what an editor added)."""
    old = set(before.splitlines())
    return "\n".join(line for line in after.splitlines() if line not in old)


def notes(
    ctx: Any,
    initial_files: dict[str, str],
    *,
    exclude_pages: Iterable[str] = (),
    tz: tzinfo | None = None,
    calendar: bool = False,
) -> list[Note]:
    """Everything durable the agent wrote: Notion pages, text added to workspace files (new
    files whole), and with ``calendar`` its calendar events.

    Args:
        ctx: The check context.
        initial_files: The task's workspace at the start (so seeded text does not count).
        exclude_pages: Seeded Notion page ids: only the blocks the agent added or changed there count.
        tz: The task's zone.
        calendar: Also count calendar events as notes.
    """
    out = [p for p in notion_pages(ctx, exclude_pages, tz) if not p.archived]
    for path, text in sorted(ctx.files.items()):
        added = added_lines(initial_files.get(path, ""), text)
        if added.strip():
            out.append(Note("workspace", path, path, added))
    if calendar and tz is not None:
        for e in events(ctx, tz):
            out.append(Note("calendar", e.id, e.summary, f"{e.summary}\n{e.location}\n{e.description}", e.start))
    return out


def persisted(notes_: Iterable[Note], test: Callable[[str], bool]) -> list[Note]:
    """The notes whose text passes ``test``."""
    return [n for n in notes_ if test(n.text)]


# ========================================================================= places
def place_for(ctx: Any, text_: str, aliases: dict[str, str] | None = None) -> str | None:
    """The maps place a free-text location names (``"Senso-ji"`` → the Senso-ji Temple's id).

    Matches by normalized name: one contains the other, or most words are shared; the
    closest wins. ``aliases`` maps other common names to place ids (``{"ameyoko":
    "pl_ameyoko"}``). ``None`` when nothing matches.
    """
    from vibelife_env.checks.text import norm_name

    key = norm_name(text_ or "")
    for alias, place in (aliases or {}).items():
        if norm_name(alias) in key:
            return place
    if len(key) < 3 or not ctx.has("maps"):
        return None
    words = set(key.split())
    best: tuple[float, str] | None = None
    for row in maps_read.places(ctx):
        name = norm_name(row["name"])
        base = re.sub(r"\s*\(.*\)$", "", name)
        overlap = len(words & set(base.split())) / max(len(set(base.split())), 1)
        score = 2.0 if key in (name, base) else 1.5 if base in key or key in base else overlap
        if score >= 0.6 and (best is None or score > best[0]):
            best = (score, row["place_id"])
    return best[1] if best else None


# ====================================================================== conduct
MAIL_SENDS = frozenset({"email__send_email", "email__reply_email", "email__forward_email"})


def read_only(name: str) -> bool:
    """True when the agent-facing tool ``<service>__<tool>`` changes nothing the user owns: a
    read, or a look-up that keeps the offers or quotes it hands out (``search_flights``,
    ``price_offer``; :attr:`~vibelife_env.services.tooling.ToolSpec.lookup`)."""
    from vibelife_env.scheduler import Scheduler
    from vibelife_env.services.registry import SERVICES, canonical_name, service_class
    from vibelife_env.services.tooling import NAME_SEP, ToolProvider
    from vibelife_env.workspace import Workspace

    service, _, tool = name.partition(NAME_SEP)
    providers: dict[str, type[ToolProvider]] = {"workspace": Workspace, Scheduler.name: Scheduler}
    cls = providers.get(service)
    if cls is None:
        key = canonical_name(service)
        cls = service_class(key) if key in SERVICES else None
    spec = cls.tools.get(tool) if cls is not None else None
    return bool(spec is not None and spec.lookup)


def failed_write_share(calls: Sequence[dict[str, Any]]) -> float:
    """The share of attempted changes (calls to tools that are not read-only) that failed.

    Reads that fail cost nothing here: looking is never penalized.
    """
    writes = [c for c in calls if not read_only(c["name"])]
    return sum(1 for c in writes if not c["ok"]) / len(writes) if writes else 0.0


# ====================================================================== one of
def one_of(value: Any, options: Iterable[Any]) -> bool:
    """``value`` is a member of ``options`` (a valid-option set computed from the world)."""
    return value in set(options)
