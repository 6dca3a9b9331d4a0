"""Scheduled transit planning over the ``transit_*`` tables: direct and one-transfer trips.

The planner snaps both endpoints to the nearest stop (within 1.5 km), widens each to the
stops co-located within 200 m (sibling platforms), and builds itineraries from the
departure grid: a leg boards at the first departure at or after the requested time
(rolling to the next day) and rides for the line's ``segment_minutes_json`` between the
two stop sequences. Active ``suspended`` events drop itineraries whose legs overlap the
window; active ``delayed`` events at a boarding/alighting stop add 25 minutes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime, timedelta, tzinfo
from typing import Any

from vibelife_env.services.common import haversine_m
from vibelife_env.services.maps._geo import city_tz, iso, overlaps, parse_dt

SNAP_RADIUS_M = 1500.0
CLUSTER_RADIUS_M = 200.0
TRANSFER_MIN = 5
STATION_DELAY_MIN = 25
MAX_ITINERARIES = 3
_LINE_KMH = {"shinkansen": 250.0, "subway": 35.0}


class TransitPlanner:
    """Transit network snapshot for one tool call."""

    def __init__(self, rows: dict[str, list[dict[str, Any]]], home_tz: tzinfo) -> None:
        self.home_tz = home_tz
        self.stops = {s["stop_id"]: s for s in rows["stops"]}
        self.lines = {ln["line_id"]: ln for ln in rows["lines"]}
        self.schedule: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        self.serving: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for r in rows["schedule"]:
            self.schedule[(r["line_id"], r["direction"])].append(r)
            self.serving[r["stop_id"]].add((r["line_id"], r["direction"]))
        self.events = rows["events"]

    # ------------------------------------------------------------------ snapping
    def snap(self, lat: float, lng: float) -> dict[str, Any] | None:
        """Nearest stop within 1.5 km, with its distance, or ``None``."""
        best, best_d = None, float("inf")
        for stop in sorted(self.stops.values(), key=lambda s: s["stop_id"]):
            d = haversine_m((lat, lng), (stop["lat"], stop["lng"]))
            if d < best_d:
                best, best_d = stop, d
        if best is None or best_d > SNAP_RADIUS_M:
            return None
        return {**best, "distance_m": round(best_d)}

    def cluster(self, stop_id: str) -> list[str]:
        """The stop plus sibling stops within 200 m."""
        base = self.stops[stop_id]
        near = [
            s
            for s in sorted(self.stops)
            if s != stop_id
            and haversine_m((base["lat"], base["lng"]), (self.stops[s]["lat"], self.stops[s]["lng"]))
            <= CLUSTER_RADIUS_M
        ]
        return [stop_id, *near]

    # ------------------------------------------------------------------ planning
    def plan(self, o_stop: str, d_stop: str, depart: datetime) -> list[dict[str, Any]] | dict[str, Any]:
        """Up to three itineraries sorted by arrival, or ``{"itineraries": [], "disruptions": [...]}``."""
        o_cluster, d_cluster = self.cluster(o_stop), self.cluster(d_stop)
        options = self._direct(o_cluster, d_cluster, depart) + self._with_transfer(o_cluster, d_cluster, depart)
        kept: list[dict[str, Any]] = []
        disruptions: dict[str, dict[str, Any]] = {}
        for it in options:
            blocking = self._blocking_event(it)
            if blocking is not None:
                disruptions.setdefault(blocking["event_id"], blocking)
                continue
            self._apply_delays(it)
            kept.append(it)
        kept.sort(key=lambda it: (parse_dt(it["legs"][-1]["arrive"], self.home_tz), it["route_id"]))
        if not kept and disruptions:
            return {"itineraries": [], "disruptions": list(disruptions.values())}
        return kept[:MAX_ITINERARIES]

    def _direct(self, o_cluster: list[str], d_cluster: list[str], depart: datetime) -> list[dict[str, Any]]:
        out, seen = [], set()
        for o in o_cluster:
            for d in d_cluster:
                for key in sorted(self.serving[o] & self.serving[d]):
                    built = self._leg(key, o, d, depart)
                    if built is None or (key[0], built[0]["depart"]) in seen:
                        continue
                    seen.add((key[0], built[0]["depart"]))
                    leg, dist = built
                    out.append(self._itinerary([leg], dist, f"rt_{key[0]}_{_hhmm(leg['depart'])}"))
        return out

    def _with_transfer(self, o_cluster: list[str], d_cluster: list[str], depart: datetime) -> list[dict[str, Any]]:
        endpoints = set(o_cluster) | set(d_cluster)
        hubs = [s for s in sorted(self.stops) if s not in endpoints and len({ln for ln, _ in self.serving[s]}) >= 2]
        out, seen = [], set()
        for hub in hubs:
            hub_cluster = self.cluster(hub)
            for o in o_cluster:
                for x1 in hub_cluster:
                    for key1 in sorted(self.serving[o] & self.serving[x1]):
                        first = self._leg(key1, o, x1, depart)
                        if first is None:
                            continue
                        leg1, dist1 = first
                        ready = parse_dt(leg1["arrive"], self.home_tz) + timedelta(minutes=TRANSFER_MIN)
                        for x2 in hub_cluster:
                            for d in d_cluster:
                                for key2 in sorted(self.serving[x2] & self.serving[d]):
                                    if key2[0] == key1[0]:
                                        continue
                                    second = self._leg(key2, x2, d, ready)
                                    if second is None:
                                        continue
                                    leg2, dist2 = second
                                    sig = (key1, leg1["depart"], key2, leg2["arrive"])
                                    if sig in seen:
                                        continue
                                    seen.add(sig)
                                    route_id = f"rt_{key1[0]}_{key2[0]}_{_hhmm(leg1['depart'])}"
                                    out.append(self._itinerary([leg1, leg2], dist1 + dist2, route_id))
        return out

    def _leg(self, key: tuple[str, str], o: str, d: str, after: datetime) -> tuple[dict[str, Any], int] | None:
        line = self.lines.get(key[0])
        rows = self.schedule.get(key)
        if line is None or not rows:
            return None
        o_rows = sorted((r for r in rows if r["stop_id"] == o), key=lambda r: r["time"])
        d_rows = [r for r in rows if r["stop_id"] == d]
        if not o_rows or not d_rows:
            return None
        o_seq, d_seq = o_rows[0]["stop_seq"], d_rows[0]["stop_seq"]
        if d_seq <= o_seq:
            return None
        segments = _segments(line)
        minutes = sum(segments[o_seq - 1 : d_seq - 1]) if segments else 0
        if minutes <= 0:
            minutes = max(5, (d_seq - o_seq) * 10)
        tz = city_tz(self.stops[o]["city"], self.home_tz)
        local = after.astimezone(tz)
        hm = local.strftime("%H:%M")
        later = [r["time"] for r in o_rows if r["time"] >= hm]
        day_offset = 0 if later else 1
        t = later[0] if later else o_rows[0]["time"]
        dep = datetime(local.year, local.month, local.day, int(t[:2]), int(t[3:5]), tzinfo=tz) + timedelta(
            days=day_offset
        )
        arr = dep + timedelta(minutes=minutes)
        if segments:
            dist = round(_LINE_KMH.get(line["mode"], 60.0) * 1000 * minutes / 60)
        else:
            a, b = self.stops[o], self.stops[d]
            dist = int(haversine_m((a["lat"], a["lng"]), (b["lat"], b["lng"])))
        by_seq: dict[int, str] = {}
        for r in sorted(rows, key=lambda r: (r["stop_seq"], r["time"])):
            by_seq.setdefault(r["stop_seq"], r["stop_id"])
        names = [
            self.stops[by_seq[s]]["name"] if by_seq[s] in self.stops else by_seq[s]
            for s in sorted(by_seq)
            if o_seq <= s <= d_seq
        ]
        leg = {
            "line": {"line_id": line["line_id"], "name": line["name"], "mode": line["mode"]},
            "operator": line["operator"],
            "stops": names,
            "depart": iso(dep),
            "arrive": iso(arr),
            "platform": str(o_seq % 14 + 1),
            "headsign": names[-1],
            "origin_stop_id": o,
            "dest_stop_id": d,
        }
        return leg, dist

    def _itinerary(self, legs: list[dict[str, Any]], distance_m: int, route_id: str) -> dict[str, Any]:
        start = parse_dt(legs[0]["depart"], self.home_tz)
        end = parse_dt(legs[-1]["arrive"], self.home_tz)
        return {
            "route_id": route_id,
            "total_duration_s": int((end - start).total_seconds()),
            "total_distance_m": distance_m,
            "legs": legs,
            "alerts": [],
        }

    # ------------------------------------------------------------------ incidents
    def _window(self, ev: dict[str, Any]) -> tuple[datetime, datetime] | None:
        try:
            return parse_dt(ev["start_dt"], self.home_tz), parse_dt(ev["end_dt"], self.home_tz)
        except ValueError:
            return None

    def _leg_hits(self, leg: dict[str, Any], ev: dict[str, Any]) -> bool:
        window = self._window(ev)
        if window is None:
            return False
        return overlaps(parse_dt(leg["depart"], self.home_tz), parse_dt(leg["arrive"], self.home_tz), *window)

    def _blocking_event(self, it: dict[str, Any]) -> dict[str, Any] | None:
        for leg in it["legs"]:
            line_id = leg["line"]["line_id"]
            for ev in self.events:
                if ev["kind"] != "suspended":
                    continue
                on_line = ev["line_id"] == line_id and ev["stop_id"] in (
                    None,
                    leg["origin_stop_id"],
                    leg["dest_stop_id"],
                )
                at_stop = ev["line_id"] is None and ev["stop_id"] in (leg["origin_stop_id"], leg["dest_stop_id"])
                if (on_line or at_stop) and self._leg_hits(leg, ev):
                    return {
                        "event_id": ev["event_id"],
                        "kind": "line_suspended" if on_line else "stop_suspended",
                        "line_id": line_id,
                        "window": {"start": ev["start_dt"], "end": ev["end_dt"]},
                        "note": ev["note"],
                    }
        return None

    def _apply_delays(self, it: dict[str, Any]) -> None:
        applied: set[str] = set()
        legs = it["legs"]
        for idx, leg in enumerate(legs):
            for ev in self.events:
                if ev["kind"] != "delayed" or ev["event_id"] in applied:
                    continue
                if ev["stop_id"] not in (leg["origin_stop_id"], leg["dest_stop_id"]):
                    continue
                if not self._leg_hits(leg, ev):
                    continue
                applied.add(ev["event_id"])
                alert = {
                    "event_id": ev["event_id"],
                    "kind": "station_incident",
                    "note": ev["note"],
                    "delay_minutes": STATION_DELAY_MIN,
                }
                leg.setdefault("alerts", []).append({**alert, "stop_id": ev["stop_id"]})
                it["alerts"].append(alert)
                delay = timedelta(minutes=STATION_DELAY_MIN)
                for j in range(idx, len(legs)):
                    legs[j]["arrive"] = iso(parse_dt(legs[j]["arrive"], self.home_tz) + delay)
                    if j > idx:
                        legs[j]["depart"] = iso(parse_dt(legs[j]["depart"], self.home_tz) + delay)
                it["total_duration_s"] += STATION_DELAY_MIN * 60


def _segments(line: dict[str, Any]) -> list[float]:
    try:
        raw = json.loads(line["segment_minutes_json"] or "[]")
        return [float(x) for x in raw]
    except (TypeError, ValueError):
        return []


def _hhmm(iso_text: str) -> str:
    return iso_text[11:16].replace(":", "")
