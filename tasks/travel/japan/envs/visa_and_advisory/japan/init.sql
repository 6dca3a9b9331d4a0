INSERT INTO entry_requirements (origin_nationality, destination, purpose, visa_required, allowed_stay_days, passport_validity_months, docs_needed_json, notes, updated_at) VALUES
  ('CN', 'JP', 'tourism', 1, 15, 6, '["passport","visa","return_ticket","hotel_booking"]', 'Passport must be valid for at least 6 months on the date of entry. Single-entry tourist visas allow up to 15 days.', '2026-01-10T00:00:00+08:00'),
  ('CN', 'KR', 'tourism', 1, 30, 6, '["passport","visa"]', 'Jeju visa-free for group tours.', '2026-01-10T00:00:00+08:00'),
  ('CN', 'TH', 'tourism', 0, 30, 6, '["passport","return_ticket"]', 'Visa exemption for Chinese nationals.', '2026-01-10T00:00:00+08:00');
INSERT INTO visa_products (product_id, destination, nationality, name, processing_time_days, fee_amount, fee_currency, delivery, form_schema_json) VALUES
  ('vp_jp_single', 'JP', 'CN', 'Japan single-entry tourist visa (via accredited agency)', 5, 200, 'CNY', 'sticker', '{}'),
  ('vp_jp_multi', 'JP', 'CN', 'Japan 5-year multiple-entry visa', 7, 400, 'CNY', 'sticker', '{}');
INSERT INTO advisories (country_code, level, text, updated_at) VALUES
  ('JP', 1, 'Exercise normal precautions. Typhoon season starts in May in southern and western Japan.', '2026-03-01T00:00:00+08:00'),
  ('KR', 1, 'Exercise normal precautions.', '2026-03-01T00:00:00+08:00');
