INSERT INTO calendars (calendar_id, user_id, name, color, timezone, is_primary, created_at) VALUES
  ('primary', 'liwei', 'Li Wei', '#3366cc', 'Asia/Shanghai', 1, '2024-01-01T00:00:00+08:00'),
  ('family', 'liwei', 'Family', '#33aa66', 'Asia/Shanghai', 0, '2024-01-01T00:00:00+08:00');
INSERT INTO events (event_id, calendar_id, summary, description, location, start_dt, end_dt, all_day, status, created_at, updated_at) VALUES
  ('evt_dad_checkup', 'family', 'Dad: endocrinology follow-up', 'Dr. Wang Hui, Ruijin Hospital', 'Ruijin Hospital', '2026-04-22T09:30:00+08:00', '2026-04-22T10:30:00+08:00', 0, 'confirmed', '2026-03-20T10:00:00+08:00', '2026-03-20T10:00:00+08:00'),
  ('evt_roadmap', 'primary', 'Q2 roadmap review', 'In person', 'Acme HQ, Shanghai', '2026-05-12T10:00:00+08:00', '2026-05-12T12:00:00+08:00', 0, 'confirmed', '2026-04-16T18:40:00+08:00', '2026-04-16T18:40:00+08:00'),
  ('evt_yoga', 'primary', 'Yoga class', NULL, 'Jing''an studio', '2026-04-23T19:00:00+08:00', '2026-04-23T20:00:00+08:00', 0, 'confirmed', '2026-01-05T10:00:00+08:00', '2026-01-05T10:00:00+08:00');
