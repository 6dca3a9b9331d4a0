-- No explicit id: the row takes the next free one, whatever the agent created first.
INSERT INTO messages (folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, bcc_addr_json, date, body_text, body_html, is_read, is_important, is_flagged, in_reply_to, references_header, headers_json, uid, size, created_at) VALUES
  (1, '<moved-0603@jadegarden.example>', 'Your Saturday table: new time',
   'bookings@jadegarden.example', '["lina@example.com"]', '[]', '[]', '2026-06-03T11:00:00+08:00',
   'Dear Ms Li, because of a private event the 19:30 tables on Saturday 6 June move to 20:00 (still two hours). Your booking for 5 is kept at 20:00. No reply is needed. Jade Garden',
   NULL, 0, 0, 0, NULL, NULL, '{}', 100, 250, '2026-06-03T03:00:00Z');
