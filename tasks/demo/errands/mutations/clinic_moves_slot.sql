-- No explicit id: the row takes the next free one, whatever the agent created first.
INSERT INTO messages (folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, bcc_addr_json, date, body_text, body_html, is_read, is_important, is_flagged, in_reply_to, references_header, headers_json, uid, size, created_at) VALUES
  (1, '<move-0505@brightsmile-dental.example>', 'Change to your appointment',
   'frontdesk@brightsmile-dental.example', '["chenjie@example.com"]', '[]', '[]', '2026-05-05T11:00:00+08:00',
   'Dear Ms Chen, Dr Wang is unavailable on Wednesday afternoon. We have moved your check-up to Thursday 7 May 16:00 (one hour). No reply is needed. Bright Smile Dental Clinic',
   NULL, 0, 0, 0, NULL, NULL, '{}', 100, 250, '2026-05-05T03:00:00Z');
