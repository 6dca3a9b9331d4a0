UPDATE events SET start_dt = '2026-03-04T16:00:00+08:00', end_dt = '2026-03-04T18:00:00+08:00' WHERE event_id = 'evt_tea';
