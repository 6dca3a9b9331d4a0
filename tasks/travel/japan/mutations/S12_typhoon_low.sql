INSERT INTO alerts (alert_id, kind, severity, start_dt, end_dt, areas_json, description, active, created_at, source_event) VALUES
  ('al_mawar_1', 'typhoon', 'advisory', '2026-05-07T00:00:00+09:00', '2026-05-10T00:00:00+09:00', '["kyoto","osaka"]',
   'Tropical storm MAWAR (2604) south of Okinawa. Low-confidence track: may approach the Kinki region (Kyoto, Osaka) on 8-9 May. Monitor forecasts.', 1, '2026-05-03T05:00:00+08:00', 'jma');
INSERT INTO typhoon_tracks (storm_id, dt, lat, lng, intensity) VALUES
  ('MAWAR', '2026-05-03T06:00:00+09:00', 22.1, 131.5, 'tropical_storm'),
  ('MAWAR', '2026-05-06T06:00:00+09:00', 27.5, 133.0, 'tropical_storm'),
  ('MAWAR', '2026-05-08T18:00:00+09:00', 33.8, 135.3, 'typhoon');
