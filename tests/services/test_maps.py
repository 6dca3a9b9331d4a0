"""maps through its tools: geocoding, search, routing, transit, traffic, errors."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO places VALUES ('pl_home', 'Maple Court', 'residential', 31.2000, 121.4000, 'CN', 'Shanghai', 4.1, 2, '{"open": "00:00-24:00"}', '1', '', 'Maple Court, Xuhui');
INSERT INTO places VALUES ('pl_office', 'Harbor Tower', 'office', 31.2300, 121.4000, 'CN', 'Shanghai', 4.5, 3, NULL, '2', '', 'Harbor Tower, Huangpu');
INSERT INTO places VALUES ('pl_clinic', 'Riverside Clinic', 'clinic', 31.2010, 121.4010, 'CN', 'Shanghai', 3.9, 2, NULL, '3', '', 'Riverside Clinic, Xuhui');
INSERT INTO places VALUES ('pl_noodle', 'Golden Noodle Bar', 'restaurant', 31.2290, 121.4010, 'CN', 'Shanghai', 4.8, 1, NULL, '4', '', 'Golden Noodle Bar, Huangpu');
INSERT INTO places VALUES ('pl_far', 'Hill Temple', 'temple', 30.2000, 120.1000, 'CN', 'Hangzhou', 4.9, 1, NULL, '5', '', 'Hill Temple, Hangzhou');
INSERT INTO place_reviews (place_id, author, rating, text, time) VALUES ('pl_noodle', 'a', 5, 'great', '2026-04-01T00:00:00Z');
INSERT INTO place_reviews (place_id, author, rating, text, time) VALUES ('pl_noodle', 'b', 4, 'ok', '2026-04-10T00:00:00Z');
INSERT INTO roads VALUES ('rd_1', 'Harbor Road', 'Shanghai', '[[31.229, 121.4005], [31.231, 121.4005]]');
INSERT INTO road_events VALUES ('ev_road', 'rd_1', '2026-04-17T00:00:00+08:00', '2026-04-18T00:00:00+08:00', 'closure', 0.5, 'bridge works', 0);
INSERT INTO transit_stops VALUES ('st_home', 'Maple Station', 31.2005, 121.4000, 'Shanghai');
INSERT INTO transit_stops VALUES ('st_mid', 'Central Station', 31.2150, 121.4000, 'Shanghai');
INSERT INTO transit_stops VALUES ('st_office', 'Harbor Station', 31.2295, 121.4000, 'Shanghai');
INSERT INTO transit_lines VALUES ('ln_a', 'Line A', 'subway', 'Metro', '[10]');
INSERT INTO transit_lines VALUES ('ln_b', 'Line B', 'subway', 'Metro', '[8]');
INSERT INTO transit_schedule (line_id, stop_id, direction, stop_seq, time) VALUES ('ln_a', 'st_home', 'north', 1, '09:05');
INSERT INTO transit_schedule (line_id, stop_id, direction, stop_seq, time) VALUES ('ln_a', 'st_mid', 'north', 2, '09:15');
INSERT INTO transit_schedule (line_id, stop_id, direction, stop_seq, time) VALUES ('ln_a', 'st_home', 'north', 1, '09:35');
INSERT INTO transit_schedule (line_id, stop_id, direction, stop_seq, time) VALUES ('ln_a', 'st_mid', 'north', 2, '09:45');
INSERT INTO transit_schedule (line_id, stop_id, direction, stop_seq, time) VALUES ('ln_b', 'st_mid', 'north', 1, '09:00');
INSERT INTO transit_schedule (line_id, stop_id, direction, stop_seq, time) VALUES ('ln_b', 'st_office', 'north', 2, '09:08');
INSERT INTO transit_schedule (line_id, stop_id, direction, stop_seq, time) VALUES ('ln_b', 'st_mid', 'north', 1, '09:30');
INSERT INTO transit_schedule (line_id, stop_id, direction, stop_seq, time) VALUES ('ln_b', 'st_office', 'north', 2, '09:38');
INSERT INTO transit_events VALUES ('ev_susp', 'ln_a', NULL, '2026-04-17T09:00:00+08:00', '2026-04-17T10:00:00+08:00', 'suspended', 'signal fault', 0);
"""


@pytest.fixture
def maps(make_service):
    return make_service("maps", SEED)


def test_geocode_and_reverse(maps):
    g = maps.call("geocode", {"address": "Harbor Tower"})
    assert g["place_id"] == "pl_office" and g["match_confidence"] == 1.0 and g["city"] == "Shanghai"
    assert maps.call("geocode", {"address": "Atlantis"})["code"] == "ZERO_RESULTS"
    r = maps.call("reverse_geocode", {"lat": 31.2001, "lng": 121.4000})
    assert r["place_id"] == "pl_home" and r["distance_m"] < 20
    assert maps.call("reverse_geocode", {"lat": 0.0, "lng": 0.0})["place_id"] is None


def test_search_sorting_and_filters(maps):
    by_rating = maps.call("search_places", {"query": "", "limit": 3})
    assert [p["place_id"] for p in by_rating] == ["pl_far", "pl_noodle", "pl_office"]
    near = maps.call("search_places", {"query": "", "geo": {"lat": 31.2, "lng": 121.4}, "radius_m": 500})
    assert [p["place_id"] for p in near] == ["pl_home", "pl_clinic"] and near[0]["distance_m"] == 0
    assert [p["place_id"] for p in maps.call("search_places", {"query": "noodles near harbor"})] == ["pl_noodle"]
    assert [p["place_id"] for p in maps.call("search_places", {"query": "x", "category": "clinic"})] == ["pl_clinic"]
    details = maps.call("get_place_details", {"place_id": "pl_noodle"})
    assert [r["author"] for r in details["reviews_sample"]] == ["b", "a"] and "alerts" not in details


def test_driving_traffic_follows_incidents(maps):
    calm = maps.call(
        "get_traffic_estimate", {"origin": "pl_home", "dest": "pl_office", "depart_at": "2026-04-17T13:00:00"}
    )
    assert calm["severity"] == "light" and calm["with_traffic_duration_s"] == calm["normal_duration_s"]
    maps.load_sql("UPDATE road_events SET active = 1 WHERE event_id = 'ev_road'")
    busy = maps.call(
        "get_traffic_estimate", {"origin": "pl_home", "dest": "pl_office", "depart_at": "2026-04-17T13:00:00"}
    )
    assert busy["severity"] == "heavy" and busy["active_incidents"][0]["event_id"] == "ev_road"
    route = maps.call("directions", {"origin": "Maple Court", "dest": "pl_office"})["routes"][0]
    assert route["duration_in_traffic_s"] > route["duration_s"] and route["warnings"] == ["closure on Harbor Road"]
    assert maps.call("get_place_details", {"place_id": "pl_noodle"})["alerts"][0]["kind"] == "road_closure"
    walk = maps.call("directions", {"origin": "pl_home", "dest": "pl_office", "mode": "walking"})["routes"][0]
    assert "duration_in_traffic_s" not in walk and walk["duration_s"] > route["duration_s"]


def test_transit_transfer_and_suspension(maps):
    trips = maps.call(
        "get_transit", {"origin": "pl_home", "dest": "pl_office", "depart_at": "2026-04-17T09:00:00+08:00"}
    )
    first = trips[0]
    assert [leg["line"]["line_id"] for leg in first["legs"]] == ["ln_a", "ln_b"]
    assert first["legs"][0]["depart"] == "2026-04-17T09:05:00+08:00"
    assert first["legs"][1]["depart"] == "2026-04-17T09:30:00+08:00"
    assert first["total_duration_s"] == (38 - 5) * 60
    late = maps.call(
        "get_transit", {"origin": "pl_home", "dest": "pl_office", "depart_at": "2026-04-17T22:00:00+08:00"}
    )
    assert late[0]["legs"][0]["depart"] == "2026-04-18T09:05:00+08:00"
    maps.load_sql("UPDATE transit_events SET active = 1")
    blocked = maps.call(
        "get_transit", {"origin": "pl_home", "dest": "pl_office", "depart_at": "2026-04-17T09:00:00+08:00"}
    )
    assert blocked["itineraries"] == [] and blocked["disruptions"][0]["event_id"] == "ev_susp"
    d = maps.call("directions", {"origin": "pl_home", "dest": "pl_office", "mode": "transit"})
    assert d["status"] == "ZERO_RESULTS" and d["disruptions"]


def test_distance_matrix(maps):
    m = maps.call("distance_matrix", {"origins": ["pl_home", "nowhere land"], "dests": ["pl_office", "pl_clinic"]})
    assert m["rows"][0]["elements"][0]["status"] == "OK" and m["rows"][1]["elements"][0] == {"status": "NOT_FOUND"}
    assert m["origin_addresses"] == ["Maple Court, Xuhui", "<unresolved>"]


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_place_details", {"place_id": "pl_nope"}, "NOT_FOUND"),
        ("directions", {"origin": "pl_home", "dest": "pl_office", "mode": "rocket"}, "BAD_ARG"),
        ("directions", {"origin": "pl_home", "dest": "Atlantis"}, "ZERO_RESULTS"),
        ("directions", {"origin": "pl_home", "dest": "pl_office", "depart_at": "soon"}, "BAD_ARG"),
        ("search_places", {"query": "x", "category": "volcano"}, "BAD_ARG"),
        ("distance_matrix", {"origins": ["pl_home"] * 11, "dests": ["pl_office"] * 10}, "BAD_ARG"),
        (
            "get_transit",
            {"origin": "pl_home", "dest": "pl_far", "depart_at": "2026-04-17T09:00:00"},
            "NO_TRANSIT_NEARBY",
        ),
        ("geocode", {"address": "  "}, "BAD_ARG"),
        ("reverse_geocode", {"lat": "north", "lng": 1}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(maps, tool, args, code):
    before = table_dump(maps)
    result = maps.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(maps) == before
