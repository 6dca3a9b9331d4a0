INSERT INTO climate_profiles (profile_id, seasonal_temp_means_json, precip_freq_json, wind_baseline_kmh, humidity_baseline_pct, aqi_baseline_json, notes) VALUES
  ('temperate_east_asia', '{"spring":16,"summer":27,"autumn":18,"winter":6}', '{"spring":0.35,"summer":0.5,"autumn":0.35,"winter":0.2}', 12, 65, '{"spring":55,"summer":45,"autumn":50,"winter":70}', 'Shanghai / Tokyo / Kyoto');
INSERT INTO locations (geo_key, city, country, lat, lng, timezone, climate_profile_id, kind) VALUES
  ('shanghai', 'Shanghai', 'CN', 31.23, 121.47, 'Asia/Shanghai', 'temperate_east_asia', 'city'),
  ('tokyo', 'Tokyo', 'JP', 35.68, 139.77, 'Asia/Tokyo', 'temperate_east_asia', 'city'),
  ('kyoto', 'Kyoto', 'JP', 35.01, 135.77, 'Asia/Tokyo', 'temperate_east_asia', 'city'),
  ('osaka', 'Osaka', 'JP', 34.69, 135.50, 'Asia/Tokyo', 'temperate_east_asia', 'city');
WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < 12)
INSERT INTO daily_weather (geo_key, date, tmin, tmax, condition, precip_mm, precip_prob, wind_kmh)
SELECT g.k, date('2026-05-01', '+' || d.n || ' day'), g.lo, g.hi, CASE WHEN d.n % 4 = 2 THEN 'cloudy' ELSE 'sunny' END, 0.0, 0.1, 12
FROM d, (SELECT 'tokyo' AS k, 14 AS lo, 23 AS hi UNION ALL SELECT 'kyoto', 15, 25 UNION ALL SELECT 'osaka', 16, 25 UNION ALL SELECT 'shanghai', 17, 26) AS g;
