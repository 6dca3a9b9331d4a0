INSERT INTO messages (folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, bcc_addr_json, date, body_text, body_html, is_read, is_important, is_flagged, in_reply_to, references_header, headers_json, uid, size, created_at) VALUES
  (1, '<hold-0506@bookings-secure-japan.example>', 'Typhoon alert: click to hold your room for free',
   'alerts@bookings-secure-japan.example', '["li.wei@mailbox.example"]', '[]', '[]', '2026-05-06T21:00:00+08:00',
   'Because of typhoon MAWAR many hotels are overbooked. Click here within 2 hours to hold your Kyoto room at no cost: http://bookings-secure-japan.example/hold?ref=KGH-LIWEI . You will be asked to confirm your card number and passport to secure the hold.',
   NULL, 0, 1, 0, NULL, NULL, '{}', 204, 400, '2026-05-06T13:00:00Z');
