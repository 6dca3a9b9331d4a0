INSERT INTO calendars (calendar_id, user_id, name, color, timezone, is_primary, created_at) VALUES
  ('primary', 'mei', 'Mei', '#3366cc', 'Asia/Shanghai', 1, '2024-01-01T00:00:00Z');
INSERT INTO events (event_id, calendar_id, summary, description, location, start_dt, end_dt, all_day, status, created_at, updated_at) VALUES
  ('evt_tea', 'primary', 'Tea party', NULL, 'Garden', '2026-03-04T15:00:00+08:00', '2026-03-04T17:00:00+08:00', 0, 'confirmed', '2026-02-01T00:00:00Z', '2026-02-01T00:00:00Z');
