INSERT INTO account_config (id, email, name, created_at) VALUES (1, 'li.wei@mailbox.example', 'Li Wei', '2024-01-01T00:00:00Z');
INSERT INTO folders (id, name, delimiter, flags_json, message_count, unread_count) VALUES
  (1, 'INBOX', '/', '[]', 0, 0), (2, 'Sent', '/', '[]', 0, 0), (3, 'Drafts', '/', '[]', 0, 0),
  (4, 'Trash', '/', '[]', 0, 0), (5, 'Spam', '/', '[]', 0, 0), (6, 'Travel', '/', '[]', 0, 0);
INSERT INTO messages (id, folder_id, message_id, subject, from_addr, to_addr_json, cc_addr_json, bcc_addr_json, date, body_text, body_html, is_read, is_important, is_flagged, in_reply_to, references_header, headers_json, uid, size, created_at) VALUES
  (1, 1, '<nara-0410@kansai-familyhire.example>', 'Booking confirmed: Nara day trip, Fri 8 May (KFH-2611)',
   'bookings@kansai-familyhire.example', '["li.wei@mailbox.example"]', '[]', '[]', '2026-04-10T16:20:00+08:00',
   'Dear Ms Li, thank you for your payment of 1,600.00 CNY (bank transfer received 10 April). Booking KFH-2611: private 7-seat van with Chinese-speaking driver, Friday 8 May 2026, pick-up 09:00 at your Kyoto hotel, Nara Park, Todai-ji and Isuien garden, back by 17:00. Date changes are free up to the day before; if we cannot run the trip we refund in full. Kansai Family Hire, +81 75 555 0161.',
   NULL, 1, 0, 0, NULL, NULL, '{}', 1, 500, '2026-04-10T08:20:00Z'),
  (2, 1, '<visa-0415@jinqiao-travel.example>', 'Japan visas: documents received for Mr Li Guoqiang and Ms Zhang Min',
   'visa@jinqiao-travel.example', '["li.wei@mailbox.example"]', '[]', '[]', '2026-04-15T17:05:00+08:00',
   'Dear Ms Li, we received both passports, photos, bank statements and the itinerary draft. We will lodge the applications at the consulate once your flight and hotel bookings are final (please forward the confirmations). Processing is 5 working days. Our service fee is already settled. Regards, Sun Li, Jinqiao Travel Service.',
   NULL, 1, 0, 0, NULL, NULL, '{}', 2, 420, '2026-04-15T09:05:00Z'),
  (3, 1, '<policy-0414@pingan.example>', 'Your family travel policy PA-TRV-2026-0415-88',
   'service@pingan.example', '["li.wei@mailbox.example"]', '[]', '[]', '2026-04-14T11:00:00+08:00',
   'Policy PA-TRV-2026-0415-88 covers Li Wei, Li Guoqiang and Zhang Min for travel to Japan 2026-05-01 to 2026-05-12. Medical emergency line +86 95511. Pre-existing conditions: covered for acute emergencies when declared (declared: type 2 diabetes, insulin-treated).',
   NULL, 1, 0, 0, NULL, NULL, '{}', 3, 380, '2026-04-14T03:00:00Z'),
  (4, 1, '<promo-0416@sakura-tours.example>', 'Golden Week deal: 5-star Tokyo + Kyoto packages from 38,800 CNY per person',
   'deals@sakura-tours.example', '["li.wei@mailbox.example"]', '[]', '[]', '2026-04-16T10:00:00+08:00',
   'Limited offer for May Day! Business class, 5-star hotels, private guide. Book today.',
   NULL, 0, 0, 0, NULL, NULL, '{}', 4, 150, '2026-04-16T02:00:00Z'),
  (5, 1, '<standup-0416@acme-work.example>', 'Roadmap review moved to 12 May 10:00',
   'pm-office@acme-work.example', '["li.wei@mailbox.example"]', '[]', '[]', '2026-04-16T18:30:00+08:00',
   'The Q2 roadmap review is now Tuesday 12 May at 10:00. Please be there in person.',
   NULL, 0, 0, 0, NULL, NULL, '{}', 5, 120, '2026-04-16T10:30:00Z'),
  (6, 1, '<bill-0412@sh-power.example>', 'April electricity bill',
   'billing@sh-power.example', '["li.wei@mailbox.example"]', '[]', '[]', '2026-04-12T08:00:00+08:00',
   'Your bill of 214.60 CNY is due on 30 April.', NULL, 1, 0, 0, NULL, NULL, '{}', 6, 90, '2026-04-12T00:00:00Z');
