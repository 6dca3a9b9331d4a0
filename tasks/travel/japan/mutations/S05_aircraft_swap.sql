UPDATE flights SET equipment = '333' WHERE flight_no = 'MU523' AND depart_dt = '2026-05-01T09:05:00+08:00';
