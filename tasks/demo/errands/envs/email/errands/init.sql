INSERT INTO account_config (id, email, name, created_at) VALUES (1, 'chenjie@example.com', 'Chen Jie', '2024-01-01T00:00:00Z');
INSERT INTO folders (id, name, delimiter, flags_json, message_count, unread_count) VALUES
  (1, 'INBOX', '/', '[]', 0, 0), (2, 'Sent', '/', '[]', 0, 0), (3, 'Drafts', '/', '[]', 0, 0),
  (4, 'Trash', '/', '[]', 0, 0), (5, 'Spam', '/', '[]', 0, 0);
INSERT INTO messages (id, folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, bcc_addr_json, date, body_text, body_html, is_read, is_important, is_flagged, in_reply_to, references_header, headers_json, uid, size, created_at) VALUES
  (1, 1, '<slots-0504@brightsmile-dental.example>', 'Your check-up: please pick a new slot',
   'frontdesk@brightsmile-dental.example', '["chenjie@example.com"]', '[]', '[]', '2026-05-04T08:30:00+08:00',
   'Dear Ms Chen, your check-up on 5 May has to move. We can offer: Wednesday 6 May 10:00, Wednesday 6 May 15:30, or Thursday 7 May 09:00. Each visit takes one hour. Please reply with the slot you want. Bright Smile Dental Clinic',
   NULL, 0, 0, 0, NULL, NULL, '{}', 1, 300, '2026-05-04T00:30:00Z'),
  (2, 1, '<news-0503@shop.example>', 'Weekend sale: 30% off', 'deals@shop.example', '["chenjie@example.com"]', '[]', '[]',
   '2026-05-03T10:00:00+08:00', 'Big weekend sale on kitchenware.', NULL, 1, 0, 0, NULL, NULL, '{}', 2, 100, '2026-05-03T02:00:00Z'),
  (3, 1, '<team-0502@work.example>', 'Thursday offsite moved', 'lead@work.example', '["chenjie@example.com"]', '[]', '[]',
   '2026-05-02T18:00:00+08:00', 'The team offsite is now Friday; nothing changes for Thursday afternoon.', NULL, 1, 0, 0, NULL, NULL, '{}', 3, 120, '2026-05-02T10:00:00Z');
