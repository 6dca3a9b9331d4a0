INSERT INTO calendars (calendar_id, user_id, name, color, timezone, is_primary, created_at) VALUES
  ('primary', 'chenjie', 'Chen Jie', '#3366cc', 'Asia/Shanghai', 1, '2024-01-01T00:00:00Z');
INSERT INTO events (event_id, calendar_id, summary, description, location, start_dt, end_dt, all_day, status, created_at, updated_at) VALUES
  ('evt_yoga', 'primary', 'Yoga class', NULL, 'Jing''an studio', '2026-05-06T18:30:00+08:00', '2026-05-06T19:30:00+08:00', 0, 'confirmed', '2026-04-01T00:00:00Z', '2026-04-01T00:00:00Z'),
  ('evt_call', 'primary', 'Call with Mum', NULL, NULL, '2026-05-07T20:00:00+08:00', '2026-05-07T20:30:00+08:00', 0, 'confirmed', '2026-04-01T00:00:00Z', '2026-04-01T00:00:00Z');
