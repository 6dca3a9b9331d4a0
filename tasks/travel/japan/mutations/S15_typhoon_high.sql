UPDATE alerts SET severity = 'warning',
  description = 'Typhoon MAWAR (2604), high-confidence track: landfall on the Kii peninsula on 8 May around 18:00, passing over Kyoto and Osaka overnight. Violent wind and heavy rain in the Kinki region from 8 May 12:00 to 9 May 12:00. JR West plans to suspend trains and Kansai Airport may close during that window. Avoid outdoor trips.',
  end_dt = '2026-05-09T12:00:00+09:00'
WHERE alert_id = 'al_mawar_1';
UPDATE typhoon_tracks SET intensity = 'severe_typhoon' WHERE storm_id = 'MAWAR' AND dt = '2026-05-08T18:00:00+09:00';
INSERT INTO typhoon_tracks (storm_id, dt, lat, lng, intensity) VALUES
  ('MAWAR', '2026-05-05T06:00:00+09:00', 25.4, 132.6, 'typhoon'),
  ('MAWAR', '2026-05-09T06:00:00+09:00', 35.6, 136.4, 'typhoon');
UPDATE daily_weather SET condition = 'typhoon', precip_mm = 180, precip_prob = 0.95, wind_kmh = 95 WHERE geo_key IN ('kyoto', 'osaka') AND date = '2026-05-08';
UPDATE daily_weather SET condition = 'heavy_rain', precip_mm = 60, precip_prob = 0.9, wind_kmh = 55 WHERE geo_key IN ('kyoto', 'osaka') AND date = '2026-05-09';
