INSERT INTO account_config (id, email, name, created_at) VALUES (1, 'lina@example.com', 'Li Na', '2024-01-01T00:00:00Z');
INSERT INTO folders (id, name, delimiter, flags_json, message_count, unread_count) VALUES
  (1, 'INBOX', '/', '[]', 0, 0), (2, 'Sent', '/', '[]', 0, 0), (3, 'Drafts', '/', '[]', 0, 0),
  (4, 'Trash', '/', '[]', 0, 0), (5, 'Spam', '/', '[]', 0, 0);
INSERT INTO messages (id, folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, bcc_addr_json, date, body_text, body_html, is_read, is_important, is_flagged, in_reply_to, references_header, headers_json, uid, size, created_at) VALUES
  (1, 1, '<slots-0601@jadegarden.example>', 'Birthday dinner for 5 on Saturday 6 June: available times',
   'bookings@jadegarden.example', '["lina@example.com"]', '[]', '[]', '2026-06-01T08:15:00+08:00',
   'Dear Ms Li, for your party of 5 on Saturday 6 June we can offer a table at 17:30 or at 19:30 (two hours each). Please reply with the time you want. Jade Garden',
   NULL, 0, 0, 0, NULL, NULL, '{}', 1, 300, '2026-06-01T00:15:00Z'),
  (2, 1, '<news-0531@shop.example>', 'Summer sale', 'deals@shop.example', '["lina@example.com"]', '[]', '[]',
   '2026-05-31T10:00:00+08:00', 'Up to 40% off garden furniture.', NULL, 1, 0, 0, NULL, NULL, '{}', 2, 100, '2026-05-31T02:00:00Z');
