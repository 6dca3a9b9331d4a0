"""maps: geocoding, places, directions, distance matrix, scheduled transit and traffic.

Tool surface: the public ``maps_mock`` spec (eight read-only tools). Distances are
great-circle distances times a per-mode tortuosity factor; surface speeds are fixed per
mode; driving adds a rush-hour curve plus the magnitude of every active ``road_events``
row whose road touches the route. Transit comes from the ``transit_schedule`` grid (see
:mod:`._transit`). Incidents are switched on and off by timeline mutations (``active``).
When no departure time is given, the virtual clock's current time is used.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``INVALID_REQUEST``: bad
mode, category, list size, coordinates or timestamp). Besides it: ``ZERO_RESULTS`` (an
endpoint cannot be resolved), ``NO_TRANSIT_NEARBY`` (no stop within 1.5 km), ``NOT_FOUND``
(unknown place id).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import check_coordinates, check_year, haversine_m, loads
from vibelife_env.services.maps._geo import (
    MODES,
    TORTUOSITY,
    city_tz,
    parse_dt,
    parse_latlng,
    polyline,
    rush_hour_extra,
    severity,
    speed_mps,
    tokens,
)
from vibelife_env.services.maps._transit import TransitPlanner

BASE_CATEGORIES = (
    "temple", "museum", "restaurant", "station", "airport", "hotel", "park", "shrine",
    "shopping", "viewpoint", "hospital", "clinic", "pharmacy", "attraction",
)  # fmt: skip
#: Query words that imply a category when none is given.
CATEGORY_ALIAS = {
    **{w: "restaurant" for w in ("ramen", "noodles", "sushi", "kaiseki", "food", "dining", "izakaya", "restaurant")},
    **{w: "shrine" for w in ("shrine", "shrines")},
    **{w: "temple" for w in ("temple", "temples")},
    **{w: "museum" for w in ("museum", "museums", "gallery", "galleries")},
    **{w: "station" for w in ("train", "subway", "metro", "station")},
    **{w: "airport" for w in ("airport", "airports")},
    **{w: "hotel" for w in ("hotel", "hotels", "ryokan", "lodging")},
    **{w: "park" for w in ("park", "parks", "garden")},
    **{w: "shopping" for w in ("shop", "shopping", "market")},
    **{w: "viewpoint" for w in ("viewpoint", "scenic", "observation")},
    **{w: "clinic" for w in ("clinic", "clinics", "medical", "urgent")},
    **{w: "hospital" for w in ("hospital", "hospitals", "er")},
    **{w: "pharmacy" for w in ("pharmacy", "pharmacies", "drugstore")},
    **{w: "attraction" for w in ("attraction", "attractions", "sightseeing")},
}
#: Chinese category words, matched anywhere in the query (CJK text has no spaces).
CJK_CATEGORY_ALIAS = {
    "医院": "hospital", "诊所": "clinic", "药店": "pharmacy", "药房": "pharmacy", "酒店": "hotel",
    "宾馆": "hotel", "餐厅": "restaurant", "饭店": "restaurant", "公园": "park", "博物馆": "museum",
    "机场": "airport", "车站": "station", "地铁站": "station", "寺": "temple", "商场": "shopping",
}  # fmt: skip
REVERSE_RADIUS_M = 500.0
PLACE_ALERT_RADIUS_M = 2000.0
STOP_ALERT_RADIUS_M = 300.0
INTERCITY_TOUCH_M = 60_000.0
MAX_MATRIX_SIDE = 25
MAX_MATRIX_CELLS = 100


class MapsService(Service):
    """Places, geocoding, routing, transit timetables and traffic incidents."""

    name = "maps"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------------ geocoding
    @tool(read_only=True)
    def geocode(self, address: str) -> dict[str, Any]:
        """Forward-geocode a free-form address or place name to coordinates and a place_id.

        Returns place_id, formatted address, geo {lat, lng}, country, city and
        match_confidence (0.5 to 1.0). A "lat,lng" string is reverse-geocoded instead.

        Args:
            address: Free-form address or place name, e.g. "Tokyo Station".
        """
        if not address.strip():
            raise ToolError("BAD_ARG", "address is required")
        coords = parse_latlng(address)
        if coords is not None:
            return self.reverse_geocode(*coords)
        match = self._geocode_match(address)
        if match is None:
            raise ToolError("ZERO_RESULTS", f"no known place matches address {address!r}")
        row, score = match
        return {
            "place_id": row["place_id"],
            "formatted": row["formatted"],
            "geo": {"lat": row["lat"], "lng": row["lng"]},
            "country": row["country"],
            "city": row["city"],
            "match_confidence": round(score, 2),
        }

    @tool(read_only=True)
    def reverse_geocode(self, lat: float, lng: float) -> dict[str, Any]:
        """Reverse-geocode coordinates to the nearest known place within 500 m.

        Returns place_id, formatted, geo and distance_m; place_id is null when no place
        is within 500 m (distance_m then gives the nearest place's distance).

        Args:
            lat: Latitude in decimal degrees.
            lng: Longitude in decimal degrees.
        """
        lat, lng = check_coordinates("lat/lng", lat, lng)
        nearest = self._nearest_place(lat, lng)
        if nearest is None or nearest[1] > REVERSE_RADIUS_M:
            return {
                "place_id": None,
                "formatted": f"{lat}, {lng} (unmapped area)",
                "geo": {"lat": lat, "lng": lng},
                "distance_m": int(nearest[1]) if nearest else None,
            }
        row, dist = nearest
        return {
            "place_id": row["place_id"],
            "formatted": row["formatted"],
            "geo": {"lat": row["lat"], "lng": row["lng"]},
            "distance_m": round(dist),
        }

    # ------------------------------------------------------------------ places
    @tool(read_only=True)
    def search_places(
        self,
        query: str,
        geo: dict[str, float] | None = None,
        radius_m: int = 5000,
        category: str | None = None,
        limit: int = 10,
    ) -> list[dict[str, Any]]:
        """Search places by text, optionally around a point and within a category.

        A place matches when the query is empty, appears in its name, shares a word with
        its name, or names its category (e.g. "ramen" implies restaurant). With geo the
        results are limited to radius_m and sorted by distance (distance_m included);
        without it they are sorted by rating (best first), then name.

        Args:
            geo: Optional centre {"lat": <float>, "lng": <float>}.
            query: Free-form text, e.g. "ramen", "temple", "hospital".
            radius_m: Search radius in metres when geo is set (default 5000).
            category: Only this category: temple, museum, restaurant, station, airport, hotel, park, shrine, shopping, viewpoint, clinic, hospital, pharmacy, attraction (or any category present in the data).
            limit: Maximum results, clamped to 1..50 (default 10).
        """
        limit = max(1, min(50, limit))
        radius_m = radius_m or 5000
        if category:
            known = set(BASE_CATEGORIES) | {r["category"] for r in self.query("SELECT DISTINCT category FROM places")}
            if category not in known:
                raise ToolError("BAD_ARG", f"invalid category {category!r}, expected one of {sorted(known)}")
        center = None
        if geo is not None:
            if "lat" not in geo or "lng" not in geo:
                raise ToolError("BAD_ARG", f"geo must be {{'lat': ..., 'lng': ...}}, got {geo!r}")
            try:
                center = check_coordinates("geo", float(geo["lat"]), float(geo["lng"]))
            except (TypeError, ValueError):
                raise ToolError("BAD_ARG", f"geo lat and lng must be numbers, got {geo!r}") from None
        q = query.strip().lower()
        cat = category or next((CATEGORY_ALIAS[w] for w in q.split() if w in CATEGORY_ALIAS), None)
        if cat is None:
            cat = next((c for w, c in CJK_CATEGORY_ALIAS.items() if w in q), None)
        hits: list[tuple[float | None, dict[str, Any]]] = []
        for row in self.query("SELECT * FROM places ORDER BY place_id"):
            if cat and row["category"] != cat:
                continue
            name = row["name"].lower()
            if not (not q or q in name or any(w in name for w in q.split()) or cat or q == row["category"]):
                continue
            if center is None:
                hits.append((None, row))
                continue
            dist = haversine_m(center, (row["lat"], row["lng"]))
            if dist <= radius_m:
                hits.append((dist, row))
        if center is None:
            hits.sort(key=lambda h: (-(h[1]["rating"] or 0.0), h[1]["name"], h[1]["place_id"]))
        else:
            hits.sort(key=lambda h: (h[0], h[1]["place_id"]))
        out = []
        for d, row in hits[:limit]:
            item = {
                "place_id": row["place_id"],
                "name": row["name"],
                "geo": {"lat": row["lat"], "lng": row["lng"]},
                "category": row["category"],
                "rating": row["rating"],
                "price_level": row["price_level"],
            }
            if d is not None:
                item["distance_m"] = round(d)
            out.append(item)
        return out

    @tool(read_only=True)
    def get_place_details(self, place_id: str) -> dict[str, Any]:
        """Full details of one place: address, contact, opening hours, reviews, alerts.

        reviews_sample is newest first. An alerts array appears when an active road
        incident passes within 2 km, or an active transit incident hits a stop within
        300 m.

        Args:
            place_id: Place identifier, e.g. "pl_kiyomizu_dera".
        """
        row = self.require(
            "SELECT * FROM places WHERE place_id = ?", (place_id,), "NOT_FOUND", f"no place {place_id!r}"
        )
        reviews = self.query(
            "SELECT author, rating, text, time FROM place_reviews WHERE place_id = ? ORDER BY time DESC, id",
            (place_id,),
        )
        out = {
            "place_id": row["place_id"],
            "name": row["name"],
            "category": row["category"],
            "geo": {"lat": row["lat"], "lng": row["lng"]},
            "formatted": row["formatted"],
            "country": row["country"],
            "city": row["city"],
            "rating": row["rating"],
            "price_level": row["price_level"],
            "phone": row["phone"],
            "website": row["website"],
            "opening_hours": loads(row["hours_json"], None),
            "reviews_sample": reviews,
        }
        alerts = self._place_alerts(row)
        if alerts:
            out["alerts"] = alerts
        return out

    # ------------------------------------------------------------------ routing
    @tool(read_only=True)
    def directions(self, origin: str, dest: str, mode: str = "driving", depart_at: str | None = None) -> dict[str, Any]:
        """Route between two points by driving, walking, bicycling or transit.

        Returns {"status": "OK", "routes": [...]}; each route has summary, distance_m,
        duration_s (seconds), mode, legs with steps, and warnings. Driving routes add
        duration_in_traffic_s including rush hour and active road incidents. Transit
        routes (up to 3, earliest arrival first) include walking legs to and from the
        stops; when every option is suspended the status is ZERO_RESULTS with disruptions.

        Args:
            origin: place_id, free-form address, or "lat,lng".
            dest: place_id, free-form address, or "lat,lng".
            mode: "driving" | "walking" | "transit" | "bicycling".
            depart_at: ISO-8601 departure time; defaults to now. Naive times are local.
        """
        mode = _mode(mode)
        o, d = self._endpoints(origin, dest)
        depart = self._depart(depart_at, o)
        if mode == "transit":
            return self._transit_directions(o, d, depart)
        route = self._surface_route(o, d, mode, depart)
        return {"status": "OK", "routes": [route]}

    @tool(read_only=True)
    def distance_matrix(self, origins: list[str], dests: list[str], mode: str = "driving") -> dict[str, Any]:
        """Distance and duration for every origin-destination pair, departing now.

        rows[i].elements[j] is the pair (origins[i], dests[j]) with status OK,
        distance_m and duration_s (driving adds duration_in_traffic_s; transit uses the
        fastest scheduled itinerary), or status NOT_FOUND / ZERO_RESULTS.

        Args:
            origins: 1 to 25 origins (address, place_id or "lat,lng").
            dests: 1 to 25 destinations; origins x dests must be at most 100 pairs.
            mode: "driving" | "walking" | "transit" | "bicycling".
        """
        mode = _mode(mode)
        if not origins or not dests:
            raise ToolError("BAD_ARG", "origins and dests must both be non-empty")
        if len(origins) > MAX_MATRIX_SIDE or len(dests) > MAX_MATRIX_SIDE:
            raise ToolError("BAD_ARG", f"at most 25 origins and 25 dests, got {len(origins)}x{len(dests)}")
        if len(origins) * len(dests) > MAX_MATRIX_CELLS:
            raise ToolError("BAD_ARG", f"origins x dests must be <= 100, got {len(origins) * len(dests)}")
        res_o = [self._resolve(s) for s in origins]
        res_d = [self._resolve(s) for s in dests]
        planner = self._planner() if mode == "transit" else None
        rows = []
        for o in res_o:
            elements: list[dict[str, Any]] = []
            for d in res_d:
                if o is None or d is None:
                    elements.append({"status": "NOT_FOUND"})
                    continue
                depart = self.now().astimezone(city_tz(o["city"], self.tz()))
                if planner is not None:
                    plan = self._plan(planner, o, d, depart)
                    if isinstance(plan, list) and plan:
                        best = min(plan, key=lambda it: it["total_duration_s"])
                        elements.append(
                            {
                                "status": "OK",
                                "distance_m": best["total_distance_m"],
                                "duration_s": best["total_duration_s"],
                            }
                        )
                    else:
                        elements.append({"status": "ZERO_RESULTS"})
                    continue
                dist, dur, intercity = surface_trip(o, d, mode)
                element = {"status": "OK", "distance_m": dist, "duration_s": dur}
                if mode == "driving":
                    mult, _ = self._traffic(o, d, depart, intercity)
                    element["duration_in_traffic_s"] = round(dur * mult)
                elements.append(element)
            rows.append({"elements": elements})
        return {
            "status": "OK",
            "origin_addresses": [r["formatted"] if r else "<unresolved>" for r in res_o],
            "destination_addresses": [r["formatted"] if r else "<unresolved>" for r in res_d],
            "rows": rows,
        }

    @tool(read_only=True)
    def get_transit(self, origin: str, dest: str, depart_at: str) -> list[dict[str, Any]] | dict[str, Any]:
        """Scheduled public-transit itineraries (up to 3), earliest arrival first.

        Both endpoints snap to the nearest stop within 1.5 km. Each itinerary has
        route_id, total_duration_s, total_distance_m, legs (line, operator, stops,
        depart, arrive, platform, headsign) and alerts (station delays add 25 minutes).
        Itineraries hit by an active suspension are dropped; if none remain the result
        is {"itineraries": [], "disruptions": [...]}.

        Args:
            origin: Address, place_id or "lat,lng" near a transit stop.
            dest: Address, place_id or "lat,lng" near a transit stop.
            depart_at: ISO-8601 departure time (required); naive times are local.
        """
        if not depart_at.strip():
            raise ToolError("BAD_ARG", "depart_at is required")
        o, d = self._endpoints(origin, dest)
        return self._plan(self._planner(), o, d, self._depart(depart_at, o))

    @tool(read_only=True)
    def get_traffic_estimate(self, origin: str, dest: str, depart_at: str | None = None) -> dict[str, Any]:
        """Compare normal and with-traffic driving time for a trip.

        severity comes from the ratio: < 1.10 light, 1.10-1.30 moderate, 1.30-1.60 heavy,
        above 1.60 severe. active_incidents lists the road events on the route.

        Args:
            origin: Address, place_id or "lat,lng".
            dest: Address, place_id or "lat,lng".
            depart_at: ISO-8601 departure time; defaults to now.
        """
        o, d = self._endpoints(origin, dest)
        depart = self._depart(depart_at, o)
        dist, dur, intercity = surface_trip(o, d, "driving")
        mult, incidents = self._traffic(o, d, depart, intercity)
        return {
            "origin": o["formatted"] or "",
            "destination": d["formatted"] or "",
            "distance_m": dist,
            "normal_duration_s": dur,
            "with_traffic_duration_s": round(dur * mult),
            "severity": severity(mult),
            "active_incidents": incidents,
        }

    # ------------------------------------------------------------------ resolution
    def _geocode_match(self, address: str) -> tuple[dict[str, Any], float] | None:
        normalized = " ".join(address.split()).lower()
        wanted = set(tokens(normalized))
        best: tuple[dict[str, Any], float] | None = None
        for row in self.query("SELECT * FROM places ORDER BY place_id"):
            name = row["name"].lower()
            formatted = (row["formatted"] or "").lower()
            if normalized in (name, formatted):
                return row, 1.0
            hay = set(tokens(f"{row['name']} {row['city']} {row['country']}"))
            overlap = wanted & hay
            score = len(overlap) / max(len(wanted), 1)
            if normalized in name:
                score = max(score, 0.95)
            elif formatted and normalized in formatted:
                score = max(score, 0.9)
            elif len(name) >= 2 and name in normalized:
                score = max(score, 0.85)
            if score > 0 and (best is None or score > best[1]):
                best = (row, score)
        return best if best is not None and best[1] >= 0.5 else None

    def _nearest_place(self, lat: float, lng: float) -> tuple[dict[str, Any], float] | None:
        best = None
        for row in self.query("SELECT * FROM places ORDER BY place_id"):
            d = haversine_m((lat, lng), (row["lat"], row["lng"]))
            if best is None or d < best[1]:
                best = (row, d)
        return best

    def _resolve(self, text: str) -> dict[str, Any] | None:
        """An origin/destination as {place_id, lat, lng, formatted, city, country}, or None."""
        s = text.strip()
        if not s:
            return None
        row = self.query_one("SELECT * FROM places WHERE place_id = ?", (s,))
        if row is None:
            coords = parse_latlng(s)
            if coords is not None:
                near = self._nearest_place(*coords)
                if near is not None and near[1] <= REVERSE_RADIUS_M:
                    row = near[0]
                else:
                    return {
                        "place_id": None,
                        "lat": coords[0],
                        "lng": coords[1],
                        "formatted": s,
                        "city": "",
                        "country": "",
                    }
            else:
                match = self._geocode_match(s)
                if match is None:
                    return self._resolve_stop(s)
                row = match[0]
        return {k: row[k] for k in ("place_id", "lat", "lng", "formatted", "city", "country")}

    def _resolve_stop(self, text: str) -> dict[str, Any] | None:
        """Fallback: a transit stop named (or containing) ``text``."""
        stop = self.query_one(
            "SELECT * FROM transit_stops WHERE stop_id = ? OR name = ? OR instr(name, ?) > 0 "
            "ORDER BY (stop_id = ? OR name = ?) DESC, stop_id LIMIT 1",
            (text, text, text, text, text),
        )
        if stop is None:
            return None
        return {
            "place_id": None,
            "lat": stop["lat"],
            "lng": stop["lng"],
            "formatted": stop["name"],
            "city": stop["city"],
            "country": "",
        }

    def _endpoints(self, origin: str, dest: str) -> tuple[dict[str, Any], dict[str, Any]]:
        o, d = self._resolve(origin), self._resolve(dest)
        if o is None:
            raise ToolError("ZERO_RESULTS", f"could not resolve origin {origin!r}")
        if d is None:
            raise ToolError("ZERO_RESULTS", f"could not resolve destination {dest!r}")
        return o, d

    def _depart(self, depart_at: str | None, origin: dict[str, Any]) -> datetime:
        tz = city_tz(origin.get("city"), self.tz())
        if not depart_at:
            return self.now().astimezone(tz)
        try:
            depart = parse_dt(depart_at, tz)
        except ValueError:
            raise ToolError("BAD_ARG", f"depart_at must be ISO-8601, got {depart_at!r}") from None
        check_year("depart_at", depart)
        return depart

    # ------------------------------------------------------------------ routes
    def _surface_route(self, o: dict[str, Any], d: dict[str, Any], mode: str, depart: datetime) -> dict[str, Any]:
        dist, dur, intercity = surface_trip(o, d, mode)
        warnings: list[str] = []
        in_traffic = None
        if mode == "driving":
            mult, incidents = self._traffic(o, d, depart, intercity)
            in_traffic = round(dur * mult)
            warnings = [f"{i['kind']} on {i['road_name']}" for i in incidents]
        o_short, d_short = _short(o), _short(d)
        verb = {"driving": "Drive", "walking": "Walk", "bicycling": "Cycle"}[mode]
        dep_m, cru_m = int(dist * 0.1), int(dist * 0.8)
        dep_s, cru_s = int(dur * 0.1), int(dur * 0.8)
        steps = [
            {"instruction": f"Depart {o_short}", "distance_m": dep_m, "duration_s": dep_s},
            {"instruction": f"{verb} toward {d_short}", "distance_m": cru_m, "duration_s": cru_s},
            {
                "instruction": f"Arrive at {d_short}",
                "distance_m": dist - dep_m - cru_m,
                "duration_s": dur - dep_s - cru_s,
            },
        ]
        route: dict[str, Any] = {
            "summary": f"{mode.capitalize()}: {o_short} → {d_short}",
            "distance_m": dist,
            "duration_s": dur,
            "mode": mode,
            "legs": [
                {
                    "origin": {"place_id": o["place_id"], "formatted": o["formatted"]},
                    "dest": {"place_id": d["place_id"], "formatted": d["formatted"]},
                    "distance_m": dist,
                    "duration_s": dur,
                    "steps": steps,
                }
            ],
            "warnings": warnings,
        }
        if in_traffic is not None:
            route["duration_in_traffic_s"] = in_traffic
        return route

    def _transit_directions(self, o: dict[str, Any], d: dict[str, Any], depart: datetime) -> dict[str, Any]:
        planner = self._planner()
        plan = self._plan(planner, o, d, depart)
        if isinstance(plan, dict):
            return {"status": "ZERO_RESULTS", "routes": [], "disruptions": plan["disruptions"]}
        if not plan:
            return {"status": "ZERO_RESULTS", "routes": []}
        routes = []
        for it in plan:
            head, tail = it["legs"][0], it["legs"][-1]
            routes.append(
                {
                    "summary": f"{head['line']['name']} {head['stops'][0]} → {tail['stops'][-1]}",
                    "distance_m": it["total_distance_m"],
                    "duration_s": it["total_duration_s"],
                    "mode": "transit",
                    "legs": self._transit_legs(planner, it, o, d),
                    "warnings": [a.get("note") or "" for a in it["alerts"]],
                }
            )
        return {"status": "OK", "routes": routes}

    def _transit_legs(
        self, planner: TransitPlanner, it: dict[str, Any], o: dict[str, Any], d: dict[str, Any]
    ) -> list[dict[str, Any]]:
        legs: list[dict[str, Any]] = []
        first = planner.stops[it["legs"][0]["origin_stop_id"]]
        last = planner.stops[it["legs"][-1]["dest_stop_id"]]
        walk_in = _walk_leg(o, first, o["formatted"], first["name"], f"WALK to {first['name']}")
        if walk_in:
            legs.append(walk_in)
        share = it["total_distance_m"] // max(1, len(it["legs"]))
        tz = self.tz()
        for leg in it["legs"]:
            ride_s = int((parse_dt(leg["arrive"], tz) - parse_dt(leg["depart"], tz)).total_seconds())
            legs.append(
                {
                    "origin": {"formatted": leg["stops"][0]},
                    "dest": {"formatted": leg["stops"][-1]},
                    "distance_m": share,
                    "duration_s": ride_s,
                    "mode": "transit",
                    "line": leg["line"],
                    "steps": [
                        {
                            "instruction": f"BOARD {leg['line']['name']} at {leg['stops'][0]}",
                            "distance_m": 0,
                            "duration_s": 30,
                            "mode": "transit",
                        },
                        {
                            "instruction": f"RIDE {len(leg['stops']) - 1} stops",
                            "distance_m": 0,
                            "duration_s": max(0, ride_s - 60),
                            "mode": "transit",
                        },
                        {
                            "instruction": f"ALIGHT at {leg['stops'][-1]}",
                            "distance_m": 0,
                            "duration_s": 30,
                            "mode": "transit",
                        },
                    ],
                }
            )
        walk_out = _walk_leg(last, d, last["name"], d["formatted"], f"WALK to {_short(d)}")
        if walk_out:
            legs.append(walk_out)
        return legs

    # ------------------------------------------------------------------ transit + traffic
    def _planner(self) -> TransitPlanner:
        rows = {
            "stops": self.query("SELECT * FROM transit_stops ORDER BY stop_id"),
            "lines": self.query("SELECT * FROM transit_lines ORDER BY line_id"),
            "schedule": self.query("SELECT * FROM transit_schedule ORDER BY line_id, direction, time, stop_seq"),
            "events": self.query("SELECT * FROM transit_events WHERE active = 1 ORDER BY event_id"),
        }
        return TransitPlanner(rows, self.tz())

    def _plan(self, planner: TransitPlanner, o: dict[str, Any], d: dict[str, Any], depart: datetime) -> Any:
        o_stop, d_stop = planner.snap(o["lat"], o["lng"]), planner.snap(d["lat"], d["lng"])
        if o_stop is None or d_stop is None:
            which = "origin" if o_stop is None else "destination"
            raise ToolError("NO_TRANSIT_NEARBY", f"no transit stop within 1.5 km of the {which}")
        return planner.plan(o_stop["stop_id"], d_stop["stop_id"], depart)

    def _traffic(
        self, o: dict[str, Any], d: dict[str, Any], at: datetime, intercity: bool
    ) -> tuple[float, list[dict[str, Any]]]:
        """Driving multiplier (1.0 = free flow) and the incidents on the route."""
        city = o.get("city") or d.get("city") or ""
        mult = 1.0 + rush_hour_extra(city, at)
        incidents = []
        rows = self.query(
            "SELECT e.*, r.name AS road_name, r.city AS road_city, r.geom_json FROM road_events e "
            "JOIN roads r ON r.road_id = e.road_id WHERE e.active = 1 ORDER BY e.event_id"
        )
        for ev in rows:
            if not _road_on_route(ev, o, d, city, intercity):
                continue
            mult += float(ev["magnitude"] if ev["magnitude"] is not None else 0.3)
            incidents.append({"event_id": ev["event_id"], "kind": ev["kind"], "road_name": ev["road_name"]})
        return mult, incidents

    def _place_alerts(self, place: dict[str, Any]) -> list[dict[str, Any]]:
        here = (place["lat"], place["lng"])
        alerts: list[dict[str, Any]] = []
        for ev in self.query(
            "SELECT e.*, s.lat, s.lng FROM transit_events e JOIN transit_stops s ON s.stop_id = e.stop_id "
            "WHERE e.active = 1 ORDER BY e.event_id"
        ):
            if haversine_m(here, (ev["lat"], ev["lng"])) < STOP_ALERT_RADIUS_M:
                alerts.append(
                    {
                        "event_id": ev["event_id"],
                        "kind": f"transit_{ev['kind']}",
                        "note": ev["note"],
                        "window": {"start": ev["start_dt"], "end": ev["end_dt"]},
                    }
                )
        for ev in self.query(
            "SELECT e.*, r.geom_json FROM road_events e JOIN roads r ON r.road_id = e.road_id "
            "WHERE e.active = 1 ORDER BY e.event_id"
        ):
            pts = polyline(ev["geom_json"])
            if not pts:
                continue
            nearest = min(haversine_m(here, p) for p in pts)
            if nearest <= PLACE_ALERT_RADIUS_M:
                alerts.append(
                    {
                        "event_id": ev["event_id"],
                        "kind": f"road_{ev['kind']}",
                        "note": ev["note"],
                        "window": {"start": ev["start_dt"], "end": ev["end_dt"]},
                        "nearest_m": round(nearest),
                    }
                )
        return alerts


def _mode(mode: str) -> str:
    if mode not in MODES:
        raise ToolError("BAD_ARG", f"invalid mode {mode!r}, expected one of {sorted(MODES)}")
    return mode


def surface_trip(o: dict[str, Any], d: dict[str, Any], mode: str) -> tuple[int, int, bool]:
    """(distance_m, duration_s, intercity) of a non-transit trip between two places (rows
    with ``lat``, ``lng`` and optionally ``city``), as the service's directions measure it;
    checks use it to judge a commute the way the world does."""
    straight = haversine_m((o["lat"], o["lng"]), (d["lat"], d["lng"]))
    intercity = bool(o.get("city")) and (o.get("city") or "") != (d.get("city") or "")
    dist = round(straight * TORTUOSITY[mode])
    return dist, round(dist / speed_mps(mode, intercity)), intercity


def _road_on_route(ev: dict[str, Any], o: dict[str, Any], d: dict[str, Any], city: str, intercity: bool) -> bool:
    road_city = (ev["road_city"] or "").strip()
    if not intercity:
        return road_city.lower() == city.lower()
    if road_city.lower() != "intercity" and road_city not in (o.get("city"), d.get("city")):
        return False
    pts = polyline(ev["geom_json"])
    if not pts:
        return True
    ends = [(o["lat"], o["lng"]), (d["lat"], d["lng"])]
    return min(haversine_m(e, p) for e in ends for p in pts) <= INTERCITY_TOUCH_M


def _short(place: dict[str, Any]) -> str:
    return (place.get("formatted") or "").split(",")[0]


def _walk_leg(
    a: dict[str, Any], b: dict[str, Any], a_name: str, b_name: str, instruction: str
) -> dict[str, Any] | None:
    meters = round(haversine_m((a["lat"], a["lng"]), (b["lat"], b["lng"])))
    if meters <= 10:
        return None
    secs = max(30, round(meters / 1.3))
    return {
        "origin": {"formatted": a_name},
        "dest": {"formatted": b_name},
        "distance_m": meters,
        "duration_s": secs,
        "mode": "walking",
        "steps": [{"instruction": instruction, "distance_m": meters, "duration_s": secs, "mode": "walking"}],
    }
