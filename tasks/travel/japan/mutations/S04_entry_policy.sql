UPDATE entry_requirements SET
  docs_needed_json = '["passport","visa","return_ticket","hotel_booking","visit_japan_web_registration","doctor_letter_en_or_ja_for_injectable_medicine"]',
  notes = 'Passport must be valid for at least 6 months on the date of entry. Single-entry tourist visas allow up to 15 days. NEW from 2026-05-01: every arriving traveller must complete Visit Japan Web (immigration and customs) registration before arrival and show its QR codes. Injectable medicines such as insulin must be carried in hand luggage with a doctor''s letter in English or Japanese and declared at customs (red channel); up to one month''s personal supply needs no import permit.',
  updated_at = '2026-04-24T07:00:00+08:00'
WHERE origin_nationality = 'CN' AND destination = 'JP' AND purpose = 'tourism';
UPDATE advisories SET text = 'Exercise normal precautions. Entry procedures changed on 2026-05-01: see the entry requirements (Visit Japan Web, declaration of injectable medicines). Typhoon season starts in May in southern and western Japan.', updated_at = '2026-04-24T07:00:00+08:00' WHERE country_code = 'JP';
