INSERT INTO metrics (metric_id, user_id, type, value, value_text, unit, recorded_at) VALUES
  ('gl_0506_0', 'li_guoqiang', 'score', 6.4, 'blood glucose (fingerstick)', 'mmol/L', '2026-05-06T07:20:00+09:00'),
  ('gl_0506_1', 'li_guoqiang', 'score', 8.9, 'blood glucose (fingerstick)', 'mmol/L', '2026-05-06T12:10:00+09:00'),
  ('gl_0506_2', 'li_guoqiang', 'score', 3.6, 'blood glucose (fingerstick), felt shaky at the museum', 'mmol/L', '2026-05-06T16:40:00+09:00'),
  ('gl_0506_3', 'li_guoqiang', 'score', 5.2, 'blood glucose (fingerstick), after juice', 'mmol/L', '2026-05-06T17:05:00+09:00'),
  ('st_0506', 'li_guoqiang', 'steps', 9800, NULL, 'steps', '2026-05-06T21:00:00+09:00');
