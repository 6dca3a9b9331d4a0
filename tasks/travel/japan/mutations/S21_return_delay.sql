UPDATE flight_status SET status = 'DELAYED', delay_min = 210, actual_depart = '2026-05-11T17:00:00+09:00', actual_arrive = '2026-05-11T18:50:00+08:00', gate = '14', terminal = 'T1', last_updated = '2026-05-11T06:00:00+08:00'
WHERE flight_no = 'MU730' AND date = '2026-05-11';
