"""weather through its tools: clock-anchored reads, alerts, subscriptions, errors."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.conftest import SHANGHAI, table_dump

SEED = """
INSERT INTO climate_profiles VALUES ('cp_a', '{}', '{}', 10, 70, '{"aqi": 80, "dominant": "o3"}', NULL);
INSERT INTO climate_profiles VALUES ('cp_b', '{}', '{}', 10, 70, '{"median": 30}', NULL);
INSERT INTO locations VALUES ('lakeside', '湖城市', 'CN', 31.00, 121.00, 'Asia/Shanghai', 'cp_a', 'city');
INSERT INTO locations VALUES ('hilltop', 'Hilltop', 'JP', 35.00, 139.00, 'Asia/Tokyo', 'cp_b', 'city');
INSERT INTO hourly_weather VALUES ('lakeside', '2026-04-17T09:00:00+08:00', 20.0, 60, 'cloudy', 0.0, 10.0);
INSERT INTO hourly_weather VALUES ('lakeside', '2026-04-17T10:00:00+08:00', 21.0, 65, 'rain', 2.0, 12.0);
INSERT INTO hourly_weather VALUES ('lakeside', '2026-04-17T12:00:00+08:00', 22.0, 70, 'rain', 3.0, 14.0);
INSERT INTO hourly_weather VALUES ('hilltop', '2026-04-17T10:00:00+09:00', 15.0, 50, 'sunny', 0.0, 5.0);
INSERT INTO daily_weather VALUES ('lakeside', '2026-04-16', 10, 18, 'sunny', 0, 0.1, 8);
INSERT INTO daily_weather VALUES ('lakeside', '2026-04-17', 12, 22, 'rain', 5, 0.8, 12);
INSERT INTO daily_weather VALUES ('lakeside', '2026-04-19', 13, 24, 'cloudy', 0, 0.2, 9);
INSERT INTO daily_aqi VALUES ('lakeside', '2026-04-17', 160, 'x', 'pm25', '2026-04-17T08:00:00+08:00');
INSERT INTO alerts VALUES ('al_rain', 'heavy_rain', 'warning', '2026-04-17T10:00:00+08:00', '2026-04-17T20:00:00+08:00', '["lakeside"]', 'Heavy rain', 1, '2026-04-17T00:00:00Z', NULL);
INSERT INTO alerts VALUES ('al_old', 'heatwave', 'advisory', '2026-04-01T10:00:00+08:00', '2026-04-02T20:00:00+08:00', '["lakeside", "hilltop"]', 'Old heat', 0, '2026-04-01T00:00:00Z', NULL);
INSERT INTO typhoon_tracks VALUES ('TY01', '2026-04-17T06:00:00Z', 20.0, 130.0, 'TS');
INSERT INTO typhoon_tracks VALUES ('TY01', '2026-04-17T00:00:00Z', 19.0, 131.0, 'TD');
"""


@pytest.fixture
def weather(make_service):
    return make_service("weather", SEED, now=datetime(2026, 4, 17, 9, 30, tzinfo=SHANGHAI))


def test_current_and_forecasts_follow_the_clock(weather, make_service):
    cur = weather.call("get_current_weather", {"geo": "湖城市"})
    assert cur["temp_c"] == 20.0 and cur["observed_at"] == "2026-04-17T09:00:00+08:00"
    imperial = weather.call("get_current_weather", {"geo": "lakeside", "units": "imperial"})
    assert imperial["temp_f"] == 68.0 and "temp_c" not in imperial and imperial["wind_mph"] == 6.2
    hourly = weather.call("get_forecast_hourly", {"geo": {"lat": 31.1, "lng": 121.1}, "hours": 5})
    assert [h["dt"] for h in hourly] == ["2026-04-17T10:00:00+08:00", "2026-04-17T12:00:00+08:00"]
    # Tokyo location: 09:30 Shanghai is 10:30 local, so current hour is 10:00 JST
    assert weather.call("get_current_weather", {"geo": "Hilltop"})["observed_at"] == "2026-04-17T10:00:00+09:00"
    assert [d["date"] for d in weather.call("get_forecast_daily", {"geo": "湖城", "days": 3})] == [
        "2026-04-17",
        "2026-04-19",
    ]
    later = make_service("weather", SEED, now=datetime(2026, 4, 17, 11, 5, tzinfo=SHANGHAI))
    assert later.call("get_current_weather", {"geo": "lakeside"})["code"] == "OBSERVATION_MISSING"
    assert [h["temp_c"] for h in later.call("get_forecast_hourly", {"geo": "lakeside"})] == [22.0]


def test_aqi_seeded_then_baseline(weather):
    aqi = weather.call("get_aqi", {"geo": "lakeside"})
    assert (aqi["aqi"], aqi["category"], aqi["dominant_pollutant"]) == (160, "unhealthy", "pm25")
    base = weather.call("get_aqi", {"geo": "hilltop"})
    assert (base["aqi"], base["category"]) == (30, "good")


def test_alerts_and_subscription(weather):
    assert [a["alert_id"] for a in weather.call("get_alerts", {"geo": "lakeside"})] == ["al_rain"]
    assert weather.call("get_alerts", {"geo": "hilltop"}) == []
    weather.load_sql("UPDATE alerts SET active = 1 WHERE alert_id = 'al_old'")
    assert [a["alert_id"] for a in weather.call("get_alerts", {"geo": "hilltop"})] == ["al_old"]
    sub = weather.call("subscribe_alerts", {"geo": "lakeside", "sink": "memory://ops"})
    assert sub == {"subscription_id": "sub_000001", "geo_key": "lakeside", "sink": "memory://ops"}
    delivered = weather.query("SELECT alert_id FROM notifications WHERE sub_id = 'sub_000001' ORDER BY alert_id")
    assert [r["alert_id"] for r in delivered] == ["al_old", "al_rain"]


def test_typhoon_track_ordered(weather):
    track = weather.call("get_typhoon_track", {"storm_id": "TY01"})
    assert [p["intensity"] for p in track] == ["TD", "TS"]


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_current_weather", {"geo": "Atlantis"}, "NO_NEARBY_LOCATION"),
        ("get_alerts", {"geo": {"lat": 0, "lng": 0}}, "NO_NEARBY_LOCATION"),
        ("get_aqi", {"geo": {"city": "x"}}, "BAD_ARG"),
        ("get_typhoon_track", {"storm_id": "TY99"}, "UNKNOWN_STORM"),
        ("subscribe_alerts", {"geo": "lakeside", "sink": "file:///ws/../etc/x"}, "BAD_PATH"),
        ("subscribe_alerts", {"geo": "nowhere", "sink": "memory://x"}, "NO_NEARBY_LOCATION"),
        ("get_current_weather", {"geo": "lakeside", "units": "kelvin"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(weather, tool, args, code):
    before = table_dump(weather)
    result = weather.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(weather) == before
