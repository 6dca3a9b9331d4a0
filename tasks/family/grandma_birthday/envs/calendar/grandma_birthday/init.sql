INSERT INTO calendars (calendar_id, user_id, name, color, timezone, is_primary, created_at) VALUES
  ('family', 'lina', 'Li family', '#3366cc', 'Asia/Shanghai', 1, '2024-01-01T00:00:00Z'),
  ('hao', 'hao', 'Li Hao', '#33aa66', 'Asia/Shanghai', 0, '2024-01-01T00:00:00Z');
INSERT INTO events (event_id, calendar_id, summary, description, location, start_dt, end_dt, all_day, status, created_at, updated_at) VALUES
  ('evt_training', 'hao', 'Basketball training', 'Across town; the bus back takes about an hour', 'Pudong sports centre', '2026-06-06T16:30:00+08:00', '2026-06-06T18:30:00+08:00', 0, 'confirmed', '2026-05-01T00:00:00Z', '2026-05-01T00:00:00Z'),
  ('evt_pta', 'family', 'Parents evening', NULL, 'School', '2026-06-04T18:00:00+08:00', '2026-06-04T19:30:00+08:00', 0, 'confirmed', '2026-05-01T00:00:00Z', '2026-05-01T00:00:00Z');
