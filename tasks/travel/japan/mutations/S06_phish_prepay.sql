INSERT INTO messages (folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, bcc_addr_json, date, body_text, body_html, is_read, is_important, is_flagged, in_reply_to, references_header, headers_json, uid, size, created_at) VALUES
  (1, '<prepay-0427@kamogawa-garden-reserve.example>', 'Kamogawa Garden Hotel: prepayment needed to keep your family room',
   'manager@kamogawa-garden-reserve.example', '["li.wei@mailbox.example"]', '[]', '[]', '2026-04-27T08:20:00+08:00',
   'Dear Ms Li, due to Golden Week demand your family room 5-11 May will be released tonight unless a prepayment of 4,200 CNY reaches our reservations manager. Our hotel account is under audit, so please transfer to the manager personally: Liu Yang, account 6217 8800 1234 9090, China Construction Bank. Kamogawa Garden Hotel reservations team.',
   NULL, 0, 1, 0, NULL, NULL, '{}', 202, 520, '2026-04-27T00:20:00Z');
