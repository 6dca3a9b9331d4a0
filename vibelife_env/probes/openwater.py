"""Open-water swimming probes: a person prepares for a lake or sea crossing, and the assistant keeps
the training plan, the safety rules, the medical certificate, the wetsuit and the stay near the start.

The story (:class:`SwimStory`) is a :class:`~vibelife_env.probes.fitness.RaceStory` whose long
sessions are open-water swims at a lake and whose other sessions are at a pool; the gear is a
wetsuit of the thickness the organiser's water temperature calls for; the trip is one night in a
hotel near the start. The pieces here are reusable by any open-water family:

- :func:`valid_hotels` / :func:`stay_ok` / :func:`book_stay`: a hotel within a radius of the start
  (by the hotel's coordinates), on a free-cancellation rate, under a nightly cap, computed from
  the hotel service's rows, never from the oracle's pick;
- :func:`medical_ok` / :func:`medical_day`: a medical check in the calendar on a clinic day that
  dates the certificate inside the organiser's window;
- :class:`WindyOpenWater` (a wind alert at the lake) and :class:`BuddyDropout` (the safety-kayak
  buddy cannot come): the open-water session that day moves to the pool, same time, same title
  (:class:`PoolSwap` holds the shared checks and step).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from vibelife_env.checks import state, text
from vibelife_env.probes import fitness as F
from vibelife_env.probes.base import Slot
from vibelife_env.probes.events import mutation, turn
from vibelife_env.services import sql
from vibelife_env.services.email import seed as mail_seed
from vibelife_env.services.hotel_booking import read as hotel_read

MEDICAL = text.Phrases(["medical", "doctor", "GP", "clinic", "check-up", "体检", "医生", "就医", "门诊"])
WIND = text.Phrases(["wind", "gust", "大风", "风"])
SWIM_WORDS = text.Phrases(["swim", "crossing", "open-water", "横渡", "游泳"])
BUDDY = text.Phrases(["kayak", "buddy", "皮划艇", "搭档", "同伴"])
CLINIC_OPEN, CLINIC_CLOSE = time(9), time(17)


@dataclass
class Hotel:
    """A hotel near (or not near) the start; ``flavor`` flex (free cancellation) or prepaid."""

    hotel_id: str
    name: str
    lat: float
    lng: float
    nightly: int  # CNY
    flavor: str
    role: str  # valid | far | prepaid | premium


class SwimStory(F.RaceStory):
    """A race story for an open-water swim; the extras hold the swim-only parts."""

    @property
    def item(self) -> str:
        """What the user buys."""
        return "wetsuit"

    @property
    def road(self) -> str:
        """The wetsuit thickness the organiser's water temperature calls for (the shop's ``type``)."""
        return str(self.extras["thickness"])

    @property
    def pool(self) -> str:
        """The pool's name (where pool sessions and swapped open-water sessions happen)."""
        return str(self.extras["pool"])

    @property
    def hotels(self) -> list[Hotel]:
        """The hotel catalogue."""
        return list(self.extras["hotels"])


def km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance in km.

    >>> round(km((31.0, 120.0), (31.0, 120.1)), 1)
    9.5
    """
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 6371.0 * 2 * math.asin(math.sqrt(h))


# ================================================================== seeds
def insert(service: str, table: str, cols: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    """:func:`vibelife_env.services.sql.insert` of ``rows`` given as tuples in the order of ``cols``
    (one statement into ``service``'s ``table``, checked against the service's schema)."""
    return sql.insert(service, table, *(dict(zip(cols, row, strict=True)) for row in rows))


PRODUCT_COLS = tuple(
    [
        "product_id",
        "title",
        "brand",
        "category",
        "description",
        "rating",
        "rating_count",
        "sales_count",
        "base_price_minor",
        "return_policy",
    ]
)
ADDRESS_COLS = tuple(
    [
        "address_id",
        "user_id",
        "recipient",
        "phone",
        "province",
        "city",
        "district",
        "detail",
        "postal_code",
        "is_default",
    ]
)


def shop_seed_sql(s: SwimStory, street: str) -> str:
    """The wetsuit catalogue (one SKU per size, the ``missing`` size out of stock) and the home address."""
    products, skus, stocks = [], [], []
    for w in s.shoes:
        sizes = ", ".join(f"{z:g}" for z in w.skus)
        desc = f"Open-water wetsuit, {w.type} neoprene; sizes {sizes}."
        products.append((w.product_id, w.title, w.brand, "运动", desc, 4.5, 200, 300, w.price, "7-day returns"))
        for size, sku in w.skus.items():
            skus.append((sku, w.product_id, json.dumps({"size": f"{size:g}", "type": w.type}), w.price))
            stocks.append((sku, 0 if w.missing == size else 5))
    home = (s.extras["address_id"], F.USER, s.name, s.extras["phone"], s.home, s.home, "Central", street, "200000", 1)
    return "\n".join(
        [
            insert("ecommerce", "products", PRODUCT_COLS, products),
            insert("ecommerce", "skus", ("sku_id", "product_id", "attrs_json", "price_minor"), skus),
            insert("ecommerce", "stocks", ("sku_id", "quantity"), stocks),
            insert("ecommerce", "addresses", ADDRESS_COLS, [home]),
        ]
    )


# ================================================================== the stay
def hotel_seed_sql(s: SwimStory) -> str:
    """Hotels and their rate plans for the eve and the race night."""
    city = s.race_city
    rows, plans = [], []
    for h in s.hotels:
        rows.append(
            {
                "hotel_id": h.hotel_id,
                "name": h.name,
                "city": city,
                "district": "Lakeside",
                "geo_lat": round(h.lat, 4),
                "geo_lng": round(h.lng, 4),
                "star_rating": 3,
                "user_rating": 8.4,
                "user_rating_count": 300,
                "amenities_json": '["wifi"]',
                "address_json": json.dumps({"line1": h.name, "city": city}),
                "policies_json": json.dumps({"check_in": "14:00", "check_out": "12:00"}),
                "description": h.name,
                "capacity_estimate": 30,
            }
        )
        policy = "Free cancellation until the day before arrival" if h.flavor == "flex" else "Prepaid, non-refundable"
        until = s.at(s.eve - timedelta(days=1), 23, 59).isoformat() if h.flavor == "flex" else None
        for d in (s.eve - timedelta(days=1), s.eve, s.race_day):
            plans.append(
                {
                    "hotel_id": h.hotel_id,
                    "date": d.isoformat(),
                    "room_type": "Double",
                    "flavor": h.flavor,
                    "nightly_price": h.nightly,
                    "currency": "CNY",
                    "inventory_remaining": 4,
                    "inventory_capacity": 4,
                    "cancellation_policy": policy,
                    "refundable_until": until,
                    "breakfast_included": 0,
                    "max_occupancy": 2,
                }
            )
    return sql.insert("hotel_booking", "hotels", *rows) + "\n" + sql.insert("hotel_booking", "rate_plans", *plans)


def valid_hotels(ctx: Any, s: SwimStory) -> set[str]:
    """Hotels within the stated radius of the start with a free-cancellation (flex) rate for the eve
    under the nightly cap, read from the hotel service."""
    start = s.extras["start_ll"]
    out = set()
    for h in hotel_read.hotels(ctx):
        if km(start, (float(h["geo_lat"]), float(h["geo_lng"]))) > s.extras["radius_km"]:
            continue
        plans = [p for p in hotel_read.rate_plans(ctx, h["hotel_id"], date=s.eve.isoformat()) if p["flavor"] == "flex"]
        if any(int(p["nightly_price"]) <= s.extras["night_cap"] for p in plans):
            out.add(h["hotel_id"])
    return out


def live_stays(ctx: Any, s: SwimStory) -> list[dict[str, Any]]:
    """The user's reservations that still stand."""
    return [r for r in hotel_read.reservations(ctx, s.user_key) if r["status"] not in ("cancelled", "walked")]


def stay_ok(ctx: Any, s: SwimStory) -> dict[str, Any] | None:
    """The one live stay: a valid hotel, the eve's night only, on a free-cancellation rate."""
    live = live_stays(ctx, s)
    if len(live) != 1:
        return None
    r = live[0]
    ok = (
        r["hotel_id"] in valid_hotels(ctx, s)
        and r["check_in"] == s.eve.isoformat()
        and r["check_out"] == s.race_day.isoformat()
        and r["flavor"] == "flex"
    )
    return r if ok else None


def free_until(ctx: Any, s: SwimStory) -> date | None:
    """The day free cancellation of the one fitting stay ends (its rate plan's deadline, in local time)."""
    st = stay_ok(ctx, s)
    until = state.when(st["refundable_until"], s.tz) if st and st["refundable_until"] else None
    return until.astimezone(s.tz).date() if until else None


def hotel_name(ctx: Any, hotel_id: str) -> str:
    """A hotel's name from the service."""
    h = hotel_read.hotel(ctx, hotel_id)
    return str(h["name"]) if h else ""


def book_stay(agent: Any):
    """Oracle step helper: the ``rank``-th cheapest hotel that meets the stay rules, booked on its
    flex rate for the eve; recorded in the ledger and the calendar. Returns ``(name, total)``."""
    s = agent.story
    if "stay" in agent.memory:
        return agent.memory["stay"]
    la, lo = s.extras["start_ll"]
    found = yield agent.call(
        "hotel_booking__search_hotels",
        city_or_geo=f"{la:.4f},{lo:.4f};{s.extras['radius_km']}",
        check_in=s.eve.isoformat(),
        check_out=s.race_day.isoformat(),
        guests=1,
    )
    stay = {"check_in": s.eve.isoformat(), "check_out": s.race_day.isoformat(), "guests": 1}
    rows = found if isinstance(found, list) else found.get("hotels", [])
    options = []
    for h in rows:
        plans = yield agent.call("hotel_booking__get_room_availability", hotel_id=h["hotel_id"], **stay)
        for p in plans if isinstance(plans, list) else []:
            if p.get("flavor") == "flex" and max(p.get("nightly_prices") or [10**9]) <= s.extras["night_cap"]:
                options.append((p["price_total"], h["hotel_id"], h.get("name", ""), p["rate_plan_id"]))
    options.sort()
    if not options:
        return None
    total, _, name, plan = options[min(agent.rank, len(options) - 1)]
    made = yield agent.call(
        "hotel_booking__create_reservation",
        rate_plan_id=plan,
        guest_profile={
            "first_name": s.name.split()[0],
            "last_name": s.name.split()[-1],
            "email": s.email,
            "phone": s.extras["phone"],
            "user_id": F.USER,
        },
        payment_method_id="tok_user_card",
    )
    if "reservation_id" not in made:
        return None
    charged = made.get("total_charged", total)
    amount = float(charged["amount"] if isinstance(charged, dict) else charged)
    agent.book(f"Hotel {name}", made["reservation_id"], amount)
    yield agent.call(
        "calendar__create_event",
        summary=agent.t(f"Hotel {name}"),
        start=f"{s.eve.isoformat()}T15:00:00{agent.off()}",
        end=f"{s.eve.isoformat()}T16:00:00{agent.off()}",
        location=name,
    )
    yield agent.write_ledger()
    agent.memory["stay"] = (name, amount)
    return agent.memory["stay"]


# ================================================================== the medical certificate
def medical_window(s: SwimStory) -> tuple[date, date]:
    """The days a check may fall on: no more than ``cert_days`` before the event, at least 3 days before it."""
    return s.race_day - timedelta(days=s.extras["cert_days"]), s.race_day - timedelta(days=3)


def medical_ok(ctx: Any, s: SwimStory) -> bool:
    """A live medical check in the calendar on a weekday in the window, inside clinic hours."""
    return bool(medical_days(ctx, s))


def medical_days(ctx: Any, s: SwimStory) -> set[date]:
    """Days of the live medical checks in the calendar that date the certificate validly."""
    lo, hi = medical_window(s)
    return {
        e.start.date()
        for e in state.events(ctx, s.tz)
        if MEDICAL.found_in(e.summary)
        and lo <= e.start.date() <= hi
        and e.start.date().weekday() < 5
        and e.start.time() >= CLINIC_OPEN
        and e.end.time() <= CLINIC_CLOSE
    }


def live_sessions(ctx: Any, s: SwimStory) -> list[state.Event]:
    """Live calendar events that carry a planned session's title."""
    titles = [x.title.lower() for x in s.sessions]
    return [e for e in state.events(ctx, s.tz) if any(t in e.summary.lower() for t in titles)]


def medical_day(s: SwimStory, rank: int) -> date:
    """The ``rank``-th weekday of the window (the oracle's pick; checks accept any)."""
    lo, hi = medical_window(s)
    days = [lo + timedelta(days=i) for i in range((hi - lo).days + 1) if (lo + timedelta(days=i)).weekday() < 5]
    return days[min(rank, len(days) - 1)]


def next_session_check(s: SwimStory, stage: int, since: datetime) -> Any:
    """A check: the reply names the date of the next planned session still in the calendar after ``since``."""

    def told(ctx: Any) -> bool:
        coming = [e for e in live_sessions(ctx, s) if e.start > since]
        first = min(coming, key=lambda e: e.start) if coming else None
        return F.started(ctx, s) and first is not None and text.mentions_date(ctx.reply(stage), first.start.date())

    told.__doc__ = "The brief gives the date of the next session still in the calendar (read from the calendar)."
    return told


# ================================================================== health
class HealthReading(F.HealthFlag):
    """:class:`~vibelife_env.probes.fitness.HealthFlag` whose checks also need real work under way (a
    valid wetsuit chosen), so that a reply stuffed with numbers and doctor words earns nothing alone."""

    def add_checks(self, b: Any, s: F.RaceStory, stage_of: dict[str, int]) -> None:
        first = len(b.checks.checks)
        super().add_checks(b, s, stage_of)
        for i in range(first, len(b.checks.checks)):
            c = b.checks.checks[i]
            b.checks.checks[i] = dataclasses.replace(c, fn=_gated(c.fn, s))


def _gated(fn: Any, s: F.RaceStory) -> Any:
    def gated(ctx: Any) -> bool:
        return F.started(ctx, s) and bool(fn(ctx))

    gated.__doc__ = fn.__doc__
    return gated


# ================================================================== pool swaps
def on_pool(ctx: Any, s: SwimStory, session: F.Session) -> bool:
    """The session is live once, at its time, at the pool."""
    found = F.live_titled(ctx, s, session.title)
    return (
        len(found) == 1
        and found[0].start == session.start
        and s.pool.lower() in (found[0].location or "").lower()
        and F.plan_intact(ctx, s)
    )


class PoolSwap(F.RaceProbe):
    """Base of the probes that send one open-water session to the pool (same day, time and title)."""

    cause = ""

    def fits(self, s: SwimStory) -> bool:
        """An open-water session is left for this probe."""
        return bool(self.free_sessions(s, ("long",)))

    def bind(self, s: SwimStory) -> None:
        """Pick the open-water session."""
        options = self.free_sessions(s, ("long",))
        self.target = options[int(self.rng.integers(0, len(options)))]
        d = self.target.day
        self.reserve(s, {d, d - timedelta(days=1), d + timedelta(days=1)})

    def add_checks(self, b: Any, s: SwimStory, stage_of: dict[str, int]) -> None:
        st = stage_of[self.name]
        x = self.target

        @b.checks.stage(st, weight=4, tags=("safety", "living_world"), id=f"s{st:02d}_{self.name}_to_pool")
        def swapped(ctx: Any) -> bool:
            """The open-water session is now at the pool, same time and title, with the plan standing."""
            return on_pool(ctx, s, x) and F.started(ctx, s)

        @b.checks.stage(st, weight=1, tags=("communication",), id=f"s{st:02d}_{self.name}_told")
        def told(ctx: Any) -> bool:
            """The reply gives the session's day and the pool, with the session really moved."""
            reply = ctx.reply(st)
            return swapped(ctx) and text.mentions_date(reply, x.day) and s.pool.lower() in reply.lower()

        @b.checks.stage(st, weight=1, tags=("persistence",), id=f"s{st:02d}_{self.name}_logged")
        def logged(ctx: Any) -> bool:
            """The training log records the swap."""
            notes = state.notes(ctx, s.extras["initial_files"], exclude_pages=("pg_home",))
            return swapped(ctx) and any(text.mentions_date(n.text, x.day) for n in notes)

    def step(self, agent: Any, event_text: str):
        """Check the cause in the world, then move the session to the pool."""
        if not agent.fresh():
            return []
        s, x = agent.story, self.target
        due = yield from self.confirm(agent)
        if not due:
            return []
        found = yield from agent.find(x.title, x.day - timedelta(days=1), 3)
        if not found:
            return []
        yield agent.call("calendar__update_event", event_id=found[0]["event_id"], location=s.pool)
        yield from agent.note(
            f"Plan change {agent.today()}", [f"{self.cause}: {x.title} on {x.day.isoformat()} moved to {s.pool}."]
        )
        return [f"{self.cause}: {x.title} on {x.day.isoformat()} is now at {s.pool}, same time."]

    def pair(self, change: tuple[str, str, datetime], shown: tuple[str, datetime, str, str, str]) -> list[Slot]:
        """The probe's one slot: a silent change ``(service, sql, at)``, then the turn ``(id, at, kind, body,
        source)`` that this probe's step handles."""
        server, stmt, at = change
        eid, when, kind, body, source = shown
        apply = [{"server": server, "sql": stmt}]
        events = [
            mutation(f"{self.name}_lands", at, f"{self.cause} (silent).", apply),
            turn(eid, when, kind, body, source=source),
        ]
        return [Slot(self.name, events, {eid: [self.step]})]

    def confirm(self, agent: Any):
        """Read the world for the cause (subclasses)."""
        return True
        yield


class WindyOpenWater(PoolSwap):
    """A wind alert at the lake over an open-water day: the session goes to the pool."""

    name = "windy_open_water"
    constraints = ("wind_moves_open_water",)
    cause = "Wind alert at the lake"

    def slots(self, s: SwimStory, window: tuple[datetime, datetime]) -> list[Slot]:
        d = self.target.day
        at = s.at(d - timedelta(days=1), 17)
        self.gust = int(self.rng.integers(s.extras["wind_limit"] + 3, s.extras["wind_limit"] + 15))
        desc = s.say(
            f"Wind advisory for {s.home} on {d.isoformat()}: gusts up to {self.gust} km/h over open water.",
            f"{s.home}大风提示：{d.isoformat()} 水面阵风最高 {self.gust} 公里/小时。",
        )
        alert = F.alert_sql("al_wind", "wind", "advisory", (s.at(d, 0), s.at(d, 23, 59)), s.extras["geo"], desc, at)
        seen = s.say(
            f"Walking past the lake, {s.name} sees the club has raised the red wind flag for tomorrow.",
            f"{s.name}路过湖边，看到俱乐部为明天挂起了红色大风旗。",
        )
        return self.pair(("weather", alert, at), ("wind_flags", at + timedelta(hours=2), "world", seen, "lake"))

    def confirm(self, agent: Any):
        s = agent.story
        alerts = yield agent.call("weather__get_alerts", geo=s.home)
        return any(isinstance(a, dict) and a.get("kind") == "wind" for a in alerts or [])


class BuddyDropout(PoolSwap):
    """The safety-kayak buddy cannot come to an open-water session: no kayak, no lake; the pool instead."""

    name = "buddy_dropout"
    constraints = ("kayak_buddy_rule",)
    cause = "No safety kayak"

    def slots(self, s: SwimStory, window: tuple[datetime, datetime]) -> list[Slot]:
        d = self.target.day
        at = s.at(d - timedelta(days=2), 19, 30)
        self.mid = f"<kayak-{d.isoformat()}@mail.example>"
        buddy = s.extras["buddy"]
        body = s.say(
            f"Sorry, I can't paddle for you on {d.isoformat()}: my kayak is in for repair. Back the week after.",
            f"抱歉，{d.isoformat()} 我没法划皮划艇陪你了，船送去修了，下周再来。",
        )
        subject = s.say("Kayak this weekend", "本周末皮划艇")
        mail = mail_seed.message(self.mid, subject, f"{buddy} <{s.extras['buddy_mail']}>", s.email, at, body)
        shown = s.say(f"New mail from {buddy}: {subject}", f"来自{buddy}的新邮件：{subject}")
        return self.pair(
            ("email", mail, at), ("buddy_mail", at + timedelta(minutes=15), "notification", shown, "email")
        )

    def confirm(self, agent: Any):
        found = yield agent.call("email__search_emails", query=agent.story.extras["buddy_mail"])
        rows = found if isinstance(found, list) else found.get("emails", [])
        return bool(rows)
