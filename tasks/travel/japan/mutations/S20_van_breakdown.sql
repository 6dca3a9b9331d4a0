INSERT INTO messages (folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, bcc_addr_json, date, body_text, body_html, is_read, is_important, is_flagged, in_reply_to, references_header, headers_json, uid, size, created_at) VALUES
  (1, '<breakdown-0510@kansai-familyhire.example>', 'KFH-2611 today: our van has broken down',
   'bookings@kansai-familyhire.example', '["li.wei@mailbox.example"]', '[]', '[]', '2026-05-10T07:30:00+08:00',
   'Dear Ms Li, we are very sorry: the van assigned to your Nara trip today (KFH-2611, moved to 10 May) broke down on the way to Kyoto and no other vehicle is free before 14:00. We can either pick you up at 14:00 (back by 19:00) or cancel with a full refund of 1,600.00 CNY to your account within three days. Please reply with your choice. Kansai Family Hire.',
   NULL, 0, 1, 0, NULL, NULL, '{}', 205, 480, '2026-05-09T23:30:00Z');
